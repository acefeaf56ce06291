#!/bin/sh
# bench/bench.sh - runs graphrt's own benchmarks one after the other and
# prints their tables: each starts with the machine (cores, CPU model,
# kernel, compiler, graphrt's commit) and its parameters, then one row per
# figure (what, shape, parameter, figure, unit). Which benchmarks, in which
# order, is the list GR_BENCHES of bench/CMakeLists.txt, which CMake writes
# into the build folder as bench/benches.txt; `make bench` builds them all
# (the CMake target 'benchmarks') and runs this.
#
# Usage: bench/bench.sh [--build DIR] [--workers N] [--quick] [--csv]
#                       [--json FILE]
#   --build DIR   the CMake build folder with -DGR_BUILD_BENCH=ON (default: build)
#   --workers N   GRAPHRT_WORKERS for every benchmark (default: the runtime's,
#                 the cores of the process's affinity mask)
#   --quick       fewer repetitions and smaller sizes
#   --csv         the raw lines scripts read ('fig,...' and bench_graph's rows)
#   --json FILE   also writes one JSON document: {"benches": [...]}, one entry
#                 per benchmark with its machine, parameters and figures
# A benchmark that fails stops the run with its exit status.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
build=build
workers=""
json=""
args=""
while [ $# -gt 0 ]; do
    case $1 in
        --build) build=$2; shift ;;
        --build=*) build=${1#--build=} ;;
        --workers) workers=$2; shift ;;
        --workers=*) workers=${1#--workers=} ;;
        --json) json=$2; shift ;;
        --json=*) json=${1#--json=} ;;
        --quick | --csv) args="$args $1" ;;
        *) echo "usage: bench/bench.sh [--build DIR] [--workers N] [--quick] [--csv] [--json FILE]" >&2
           exit 1 ;;
    esac
    shift
done
case $build in /*) ;; *) build=$root/$build ;; esac

list=$build/bench/benches.txt
if [ ! -f "$list" ]; then
    echo "$list is missing: configure $build with -DGR_BUILD_BENCH=ON and build the target" \
         "'benchmarks' (make bench does both)" >&2
    exit 1
fi
benches=$(cat "$list")
for b in $benches; do
    if [ ! -x "$build/bench/$b" ]; then
        echo "$build/bench/$b is missing: build the target 'benchmarks' first" \
             "(make bench, or cmake --build $build --target benchmarks)" >&2
        exit 1
    fi
done

parts=""
if [ -n "$json" ]; then
    parts=$(mktemp -d)
    trap 'rm -rf "$parts"' EXIT
fi
first=1
for b in $benches; do
    [ $first = 1 ] || echo
    first=0
    # shellcheck disable=SC2086
    if [ -n "$json" ]; then
        "$build/bench/$b" $workers $args --json "$parts/$b.json"
    else
        "$build/bench/$b" $workers $args
    fi
done

if [ -n "$json" ]; then
    {
        printf '{"benches": ['
        sep=""
        for b in $benches; do
            printf '%s\n' "$sep"
            cat "$parts/$b.json"
            sep=","
        done
        printf ']}\n'
    } >"$json"
    echo
    echo "wrote $json"
fi
