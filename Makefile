# Makefile - convenience wrapper around CMake for the common tasks.
#
#   make demo          configure build/ (Release), build, run the pipeline demo
#   make test          configure build/ (Release, -Werror), build, run the suite
#   make bench         build and run graphrt's benchmarks, print their tables (BENCH_ARGS)
#   make bench-grain   graphrt against oneTBB, Taskflow and OpenMP at task grains (GRAIN_ARGS)
#   make install       build everything in build/, install it under PREFIX (default /usr/local)
#   make soak          Release soak run (SOAK_SECONDS, SOAK_THREADS); soak-tsan under TSan
#   make format-check  check the sources against .clang-format
#   make tidy          clang-tidy over src/ (.clang-tidy), in build-tidy/
#   make layers        check the layer order of docs/internals.md (after make test)
#   make clean         remove build/
#
# Needs only make, a C11 compiler and CMake >= 3.16 (on Debian 12:
# apt-get install -y build-essential cmake). Variables: BUILD (build
# directory), JOBS (parallel compile jobs), PREFIX, CMAKE, CLANG_FORMAT.
# The compiler is CMake's choice on the first configure of BUILD; set CC in
# the environment to pick another one.

BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
PREFIX ?= /usr/local
CMAKE ?= cmake
CLANG_FORMAT ?= clang-format

# CMake's generated makefiles run under this one; keep their output plain.
MAKEFLAGS += --no-print-directory

FORMAT_SOURCES = $(wildcard include/*.h include/*/*.h include/*.hpp src/*/*.c src/*/*.h src/*/*/*.c src/*/*/*.h tests/*.c tests/*.cpp tests/*.h \
                            tests/*/*.c tests/*/*.h examples/*.c bench/*.c bench/harness/*.h bench/grain/*.c tools/*.c \
                            record/*.c record/*.h record/selftest/*.c record/selftest/*.h)

.PHONY: all demo test bench bench-grain install soak soak-tsan format-check tidy layers clean help

all: help

help:
	@sed -n '3,12p' Makefile | sed 's/^# \{0,1\}//'

# The demo reuses whatever GR_WERROR the build directory already has, so
# `make test` followed by `make demo` does not rebuild.
demo:
	$(CMAKE) -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release
	$(CMAKE) --build $(BUILD) --parallel $(JOBS) --target pipeline
	./$(BUILD)/examples/pipeline

# Builds everything (library in both forms, tests, examples) so that
# `make install` afterwards has all it installs; the runner's last line is
# "N passed, N failed, N skipped" and its exit status is non-zero on any failure.
test:
	$(CMAKE) -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DGR_WERROR=ON
	$(CMAKE) --build $(BUILD) --parallel $(JOBS)
	./$(BUILD)/graphrt_tests

# bench/run.sh is the benchmarks' one driver (bench/README.md). `make bench`
# builds the benchmarks in BUILD (the CMake target 'benchmarks': the list
# GR_BENCHES of bench/CMakeLists.txt) and runs them all: tables of what,
# parameters, figure and unit under a machine line. BENCH_ARGS: --quick
# (shorter), --workers N, --json FILE (JSON too), --csv (the raw lines
# instead of tables).
BENCH_ARGS ?=
bench:
	JOBS=$(JOBS) CMAKE=$(CMAKE) bench/run.sh graphrt --build $(BUILD) $(BENCH_ARGS)

# Builds graphrt and the peers it can (bench/run.sh says how to get them)
# in build-grain/, runs the sweep and prints the tables;
# GRAIN_ARGS=--quick for a short run, --json FILE for JSON too.
GRAIN_ARGS ?=
bench-grain:
	JOBS=$(JOBS) CMAKE=$(CMAKE) bench/run.sh grain $(GRAIN_ARGS)

# The soak run: threads x streams x captures x launches for SOAK_SECONDS,
# every result checked; prints operations done and failures (exit 1 on any).
SOAK_SECONDS ?= 600
SOAK_THREADS ?= 8
soak:
	$(CMAKE) -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release
	$(CMAKE) --build $(BUILD) --parallel $(JOBS) --target graphrt_soak
	./$(BUILD)/graphrt_soak --seconds $(SOAK_SECONDS) --threads $(SOAK_THREADS)

# The same under ThreadSanitizer (clang), in build-tsan/. Clang 14's TSan
# needs the address space unrandomised on kernels with 32 random mmap bits.
soak-tsan:
	$(CMAKE) -S . -B build-tsan -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	    -DGR_SANITIZE=thread -DGR_DEBUG_LEVEL=1
	$(CMAKE) --build build-tsan --parallel $(JOBS) --target graphrt_soak
	TSAN_OPTIONS=halt_on_error=1 setarch $$(uname -m) -R ./build-tsan/graphrt_soak \
	    --seconds $(SOAK_SECONDS) --threads $(SOAK_THREADS)

install:
	$(CMAKE) -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release
	$(CMAKE) --build $(BUILD) --parallel $(JOBS)
	$(CMAKE) --install $(BUILD) --prefix $(PREFIX)

format-check:
	$(CLANG_FORMAT) --dry-run --Werror $(FORMAT_SOURCES)

CLANG_TIDY ?= clang-tidy
# src/backend/comm_mpi.c is compiled only with MPI (GR_WITH_MPI), which the
# tidy build has not: its compile flags would lack mpi.h.
TIDY_SOURCES = $(filter-out src/backend/comm_mpi.c,$(wildcard src/*/*.c src/*/*/*.c))
tidy:
	$(CMAKE) --preset tidy >/dev/null
	$(CMAKE) --build build-tidy --parallel $(JOBS)
	printf '%s\n' $(TIDY_SOURCES) | xargs -P $(JOBS) -n 4 $(CLANG_TIDY) -p build-tidy --quiet

layers:
	sh .ci/check-layers.sh $(BUILD)

clean:
	rm -rf $(BUILD)
