# Makefile - convenience wrapper around CMake for the common tasks.
#
#   make demo          configure build/ (Release), build, run the pipeline demo
#   make test          configure build/ (Release, -Werror), build, run the suite
#   make bench         configure build/ with the benchmarks, build them
#   make install       install build/ under PREFIX (default /usr/local)
#   make format-check  check the sources against .clang-format
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

FORMAT_SOURCES = $(wildcard include/*.h src/*/*.c src/*/*.h tests/*.c tests/*.h \
                            tests/fuzz/*.c tests/fuzz/*.h examples/*.c bench/*.c tools/*.c)

.PHONY: all demo test bench install format-check clean help

all: help

help:
	@sed -n '3,8p' Makefile | sed 's/^# \{0,1\}//'

# The demo reuses whatever GR_WERROR the build directory already has, so
# `make test` followed by `make demo` does not rebuild.
demo:
	$(CMAKE) -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release
	$(CMAKE) --build $(BUILD) --parallel $(JOBS) --target pipeline
	./$(BUILD)/examples/pipeline

# Builds everything (library in both forms, tests, examples) so that
# `make install` afterwards has all it installs; the runner's last line is
# "N passed, N failed" and its exit status is non-zero on any failure.
test:
	$(CMAKE) -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DGR_WERROR=ON
	$(CMAKE) --build $(BUILD) --parallel $(JOBS)
	./$(BUILD)/graphrt_tests

bench:
	$(CMAKE) -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DGR_BUILD_BENCH=ON
	$(CMAKE) --build $(BUILD) --parallel $(JOBS)

install:
	$(CMAKE) -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release
	$(CMAKE) --build $(BUILD) --parallel $(JOBS)
	$(CMAKE) --install $(BUILD) --prefix $(PREFIX)

format-check:
	$(CLANG_FORMAT) --dry-run --Werror $(FORMAT_SOURCES)

clean:
	rm -rf $(BUILD)
