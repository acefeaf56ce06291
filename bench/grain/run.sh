#!/usr/bin/env bash
# bench/grain/run.sh - graphrt against oneTBB's flow graph, Taskflow,
# OpenMP tasks and the sequential floor on task graphs whose tasks do a
# calibrated amount of CPU work (bench/grain/README.md). `make bench-grain`
# runs it; from the repository root:
#
#   bench/grain/run.sh [--quick] [--json FILE] [--out DIR]
#
# Builds graphrt (Release, build-grain/graphrt), the peers that can be
# built here, calibrates the task body once, runs every runtime at every
# thread count, grain and shape, and prints the machine, the parameters,
# the ratio table (best peer's median replay / graphrt's) and the parallel
# efficiencies; --json writes all of it as JSON too.
#
# Peers: OpenMP with the C compiler's -fopenmp; oneTBB from the system
# (Debian: apt-get install libtbb-dev) or TBB_ROOT (a folder with
# include/ and lib/, or Debian packages unpacked with dpkg -x); Taskflow
# headers from TASKFLOW_DIR, else cloned at the pinned release below into
# build-grain/. A peer that cannot be built is left out with a line saying
# why.
#
# Environment: THREADS (default "1 2 4 8 16" capped at the cores here,
# --quick: "1 <cores>"), GRAINS (default 0,1,5,20,100; --quick 0,1,20),
# SHAPES (default all: chain,fan64,fan1024,rand,layered), GRAIN_BUDGET_MS
# (time per cell and round, default 250; --quick 100), ROUNDS (default 1:
# how many times every runtime runs, in alternating order; a cell is the
# median of its rounds), WIDE_GRAINS (default 1,5,20)
# and WIDE_BLOCKS (256,4096) for the wide kernels (bench_wide.c: one kernel
# of that many blocks against OpenMP's parallel for), CC, CXX.
set -euo pipefail

TASKFLOW_TAG=v4.1.0
TASKFLOW_URL=https://github.com/taskflow/taskflow.git

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
quick=0 json="" out=""
while [ $# -gt 0 ]; do
    case $1 in
    --quick) quick=1 ;;
    --json) json=$2; shift ;;
    --out) out=$2; shift ;;
    -h | --help) sed -n '2,29p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done

cores=$(nproc)
if [ $quick = 1 ]; then
    THREADS=${THREADS:-"1 $cores"}
    GRAINS=${GRAINS:-0,1,20}
    export GRAIN_BUDGET_MS=${GRAIN_BUDGET_MS:-100}
else
    default_threads=""
    for t in 1 2 4 8 16; do [ "$t" -le "$cores" ] && default_threads="$default_threads $t"; done
    THREADS=${THREADS:-$default_threads}
    GRAINS=${GRAINS:-0,1,5,20,100}
    export GRAIN_BUDGET_MS=${GRAIN_BUDGET_MS:-250}
fi
SHAPES=${SHAPES:-chain,fan64,fan1024,rand,layered}
ROUNDS=${ROUNDS:-1}
WIDE_GRAINS=${WIDE_GRAINS:-1,5,20}
WIDE_BLOCKS=${WIDE_BLOCKS:-256,4096}
CC=${CC:-cc}
CXX=${CXX:-c++}
build=$root/build-grain
bin=$build/bin
res=${out:-$build/results}
mkdir -p "$bin" "$res"
CFLAGS="-O2 -Wall -Wextra"
log() { printf '[%s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

# ---- graphrt ---------------------------------------------------------------
log "graphrt (Release) in $build/graphrt"
cmake -S "$root" -B "$build/graphrt" -DCMAKE_BUILD_TYPE=Release -DGR_BUILD_TESTS=OFF \
    -DGR_BUILD_EXAMPLES=OFF -DGR_BUILD_BENCH=OFF >"$build/cmake.log" 2>&1 ||
    { tail -20 "$build/cmake.log"; exit 1; }
cmake --build "$build/graphrt" --parallel "$cores" >"$build/build.log" 2>&1 ||
    { tail -30 "$build/build.log"; exit 1; }
$CC $CFLAGS -I"$root/include" -o "$bin/bench_graphrt" "$here/bench_graphrt.c" \
    "$build/graphrt/libgraphrt.a" -pthread -lm
$CC $CFLAGS -o "$bin/bench_seq" "$here/bench_seq.c"
$CC $CFLAGS -I"$root/include" -o "$bin/bench_wide" "$here/bench_wide.c" \
    "$build/graphrt/libgraphrt.a" -pthread -lm

# ---- peers -----------------------------------------------------------------
peers=""
skipped=""
if $CC $CFLAGS -fopenmp -DRT_NAME='"gomp"' -o "$bin/bench_gomp" "$here/bench_omp.c" 2>"$build/omp.log"; then
    peers="$peers gomp"
    $CC $CFLAGS -fopenmp -DWIDE_OMP -o "$bin/bench_wide_omp" "$here/bench_wide.c" 2>>"$build/omp.log" ||
        rm -f "$bin/bench_wide_omp"
else
    skipped="$skipped; OpenMP: $CC -fopenmp failed ($(head -1 "$build/omp.log"))"
fi

tbb_flags=()
if [ -n "${TBB_ROOT:-}" ]; then
    for inc in "$TBB_ROOT/include" "$TBB_ROOT/usr/include"; do [ -d "$inc/oneapi" ] && tbb_flags+=(-I"$inc"); done
    for lib in "$TBB_ROOT/lib" "$TBB_ROOT/usr/lib/x86_64-linux-gnu" "$TBB_ROOT/lib64"; do
        [ -d "$lib" ] && tbb_flags+=(-L"$lib" -Wl,-rpath,"$lib")
    done
fi
if $CXX $CFLAGS -std=c++17 "${tbb_flags[@]+"${tbb_flags[@]}"}" -o "$bin/bench_tbb" "$here/bench_tbb.cpp" \
    -ltbb -pthread 2>"$build/tbb.log"; then
    peers="$peers tbb"
else
    skipped="$skipped; oneTBB: not found (apt-get install libtbb-dev, or set TBB_ROOT)"
fi

tf_dir=${TASKFLOW_DIR:-$build/taskflow-$TASKFLOW_TAG}
if [ ! -f "$tf_dir/taskflow/taskflow.hpp" ] && [ -z "${TASKFLOW_DIR:-}" ]; then
    log "Taskflow $TASKFLOW_TAG: cloning $TASKFLOW_URL"
    git clone --quiet --depth 1 --branch "$TASKFLOW_TAG" "$TASKFLOW_URL" "$tf_dir" 2>"$build/taskflow.log" || true
fi
if [ -f "$tf_dir/taskflow/taskflow.hpp" ] &&
    $CXX $CFLAGS -std=c++20 -I"$tf_dir" -o "$bin/bench_taskflow" "$here/bench_taskflow.cpp" -pthread \
        2>"$build/taskflow-build.log"; then
    peers="$peers taskflow"
else
    skipped="$skipped; Taskflow: no headers at $tf_dir (set TASKFLOW_DIR, or allow the clone) or no C++20 compiler"
fi
[ -n "$skipped" ] && log "left out${skipped}"

# ---- machine and parameters ------------------------------------------------
{
    echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "# commit: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
    echo "# cores: $cores"
    lscpu 2>/dev/null | grep -E '^(Model name|Socket|Core|Thread|Hypervisor)' | sed 's/^/# /' || true
    echo "# kernel: $(uname -srm)"
    echo "# cc: $($CC --version | head -1)"
    echo "# c++: $($CXX --version | head -1)"
    echo "# peers: ${peers# }${skipped:+ (left out${skipped})}"
    echo "# taskflow: $(grep -hm1 '#define TF_VERSION ' "$tf_dir/taskflow/taskflow.hpp" 2>/dev/null || echo none)"
    echo "# threads: $THREADS; grains (us): $GRAINS; shapes: $SHAPES; budget per cell: ${GRAIN_BUDGET_MS} ms; rounds: $ROUNDS"
} >"$res/machine.txt"
cat "$res/machine.txt" >&2

# ---- calibration and sweep -------------------------------------------------
"$bin/bench_seq" --calibrate >"$res/calib.csv"
GRAIN_IPUS=$(sed -n 's/^ipus,\([^,]*\),.*/\1/p' "$res/calib.csv")
export GRAIN_IPUS
csv=$res/sweep.csv
echo "rt,threads,shape,param,grain_us,tasks,build_ns,replay_med_ns,replay_min_ns,replay_p90_ns,replay_mean_ns,reps,cpu_ns_per_replay,eff_threads" >"$csv"
log "sweep: LCG steps per us $GRAIN_IPUS"
# Every runner once per round, the rounds in alternating order: the speed
# of the machine drifts over a run (the same sequential work took 87-103
# us a task over one sweep of the 16-core host), and runtimes measured
# minutes apart would compare that drift. Each cell is then the median of
# its rounds' medians (summarize.py). THREADS and the runner list split
# into words on purpose.
# shellcheck disable=SC2086
run_one() {
    case $1 in
    seq) "$bin/bench_seq" -g "$GRAINS" -s "$SHAPES" ;;
    graphrt)
        for t in $THREADS; do
            GRAPHRT_WORKERS=$t "$bin/bench_graphrt" -g "$GRAINS" -s "$SHAPES" "$t"
        done ;;
    gomp) "$bin/bench_gomp" persist -g "$GRAINS" -s "$SHAPES" $THREADS ;;
    tbb) "$bin/bench_tbb" default -g "$GRAINS" -s "$SHAPES" $THREADS ;;
    taskflow) "$bin/bench_taskflow" -g "$GRAINS" -s "$SHAPES" $THREADS ;;
    esac
}
runners="seq graphrt$peers"
for r in $(seq "$ROUNDS"); do
    order=$runners
    # shellcheck disable=SC2086
    [ $((r % 2)) = 0 ] && order=$(printf "%s\n" $runners | tac | tr '\n' ' ')
    for n in $order; do
        run_one "$n" >>"$csv"
        log "round $r: $n done"
    done
done
# Wide kernels: one kernel of many blocks against OpenMP's parallel for.
WIDE_THREADS=${WIDE_THREADS:-$THREADS}
"$bin/bench_wide" seq 1 -g "$WIDE_GRAINS" -b "$WIDE_BLOCKS" >>"$csv"
for t in $WIDE_THREADS; do
    [ "$t" -gt 1 ] || continue
    GRAPHRT_WORKERS=$t "$bin/bench_wide" graphrt "$t" -g "$WIDE_GRAINS" -b "$WIDE_BLOCKS" >>"$csv"
    if [ -x "$bin/bench_wide_omp" ]; then
        "$bin/bench_wide_omp" omp "$t" -g "$WIDE_GRAINS" -b "$WIDE_BLOCKS" >>"$csv"
    fi
done
log "wide kernels done"

python3 "$here/summarize.py" --machine "$res/machine.txt" ${json:+--json "$json"} "$csv"
