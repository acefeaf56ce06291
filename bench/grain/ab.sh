#!/usr/bin/env bash
# bench/grain/ab.sh - graphrt builds side by side at task grains, with the
# peers in the same run: each NAME=DIR is a source tree of graphrt (a copy
# of an older commit, or a patched one), built in Release; the rounds run
# the builds in alternating order, so that a drift of the machine falls on
# all of them. From the repository root:
#
#   bench/grain/ab.sh [NAME=DIR]... > rows.csv
#   python3 bench/grain/ab_table.py rows.csv NAME,NAME...
#
# Rows are the harness's CSV rows prefixed with the round and "cores2"
# (taskset to CPUs 0 and 1, 2 threads: a two-core machine on a bigger one)
# or "all" (all CPUs; THREADS, default "16 4"). NAME=DIR defaults to
# "new=." (this tree). The sequential floor and the peers run in every
# round too, in the same alternating order as the builds: a cell's speed
# drifts over a run by more than the differences measured (the same
# sequential work took 87-103 us a task over one sweep of the 16-core
# host), and a peer measured once, at another time, compares with that
# drift. Environment: ROUNDS (3), GRAIN_BUDGET_MS (50), GRAINS2 (0,1,5;
# empty: no "cores2" rows), GRAINS (0,1,5,20), SHAPES, TASKFLOW_DIR
# (Taskflow headers), TBB_ROOT (as for run.sh); peers that do not build
# are left out. Progress goes to stderr.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
B=${AB_BUILD:-/tmp/grain-ab}
mkdir -p "$B"
log() { echo "[$(date -u +%T)] $*" >&2; }
[ $# -gt 0 ] || set -- "new=."
names=()
for nd in "$@"; do
    n=${nd%%=*} d=$(cd "${nd#*=}" && pwd)
    names+=("$n")
    (cmake -S "$d" -B "$B/b-$n" -DCMAKE_BUILD_TYPE=Release -DGR_BUILD_TESTS=OFF -DGR_BUILD_EXAMPLES=OFF \
        -DGR_BUILD_BENCH=OFF >/dev/null && cmake --build "$B/b-$n" --parallel "${JOBS:-$(nproc)}" --target graphrt >/dev/null &&
        cc -O2 -I"$d/include" -DRT_NAME="\"$n\"" -o "$B/bench_$n" "$here/bench_graphrt.c" "$B/b-$n/libgraphrt.a" \
            -pthread -lm) || { log "$n: build failed"; exit 1; }
done
cc -O2 -o "$B/bench_seq" "$here/bench_seq.c"
cc -O2 -fopenmp -DRT_NAME='"gomp"' -o "$B/bench_gomp" "$here/bench_omp.c" 2>/dev/null || log "OpenMP left out"
[ -n "${TASKFLOW_DIR:-}" ] && { c++ -O2 -std=c++20 -I"$TASKFLOW_DIR" -o "$B/bench_taskflow" "$here/bench_taskflow.cpp" \
    -pthread 2>/dev/null || log "Taskflow left out"; }
tbb=()
[ -n "${TBB_ROOT:-}" ] && tbb=(-I"$TBB_ROOT/include" -L"$TBB_ROOT/lib" "-Wl,-rpath=$TBB_ROOT/lib")
c++ -O2 -std=c++17 "${tbb[@]+"${tbb[@]}"}" -o "$B/bench_tbb" "$here/bench_tbb.cpp" -ltbb -pthread 2>/dev/null ||
    log "oneTBB left out"
nproc >&2; uptime >&2
GRAIN_IPUS=$("$B/bench_seq" --calibrate | sed -n 's/^ipus,\([^,]*\),.*/\1/p')
export GRAIN_IPUS GRAIN_BUDGET_MS=${GRAIN_BUDGET_MS:-50}
S=${SHAPES:-chain,fan64,fan1024,rand,layered} G2=${GRAINS2-0,1,5} G=${GRAINS:-0,1,5,20} T=${THREADS:-16 4}
two() { taskset -c 0,1 "$@"; }
tag() { sed -u "s/^/$1,/"; }
# One runner's rows of round $2: "seq", a peer, or a build's name.
run_one() {
    local n=$1 r=$2 a=()
    case $n in
    seq)
        [ -z "$G2" ] || two "$B/bench_seq" -g "$G2" -s "$S" | tag "$r,cores2"
        "$B/bench_seq" -g "$G" -s "$S" | tag "$r,all" ;;
    taskflow | tbb | gomp)
        [ "$n" = tbb ] && a=(default)
        [ "$n" = gomp ] && a=(persist)
        [ -z "$G2" ] || two "$B/bench_$n" "${a[@]+"${a[@]}"}" -g "$G2" -s "$S" 2 | tag "$r,cores2"
        # shellcheck disable=SC2086
        "$B/bench_$n" "${a[@]+"${a[@]}"}" -g "$G" -s "$S" $T | tag "$r,all" ;;
    *)
        [ -z "$G2" ] || GRAPHRT_WORKERS=2 two "$B/bench_$n" -g "$G2" -s "$S" 2 | tag "$r,cores2"
        for t in $T; do GRAPHRT_WORKERS=$t "$B/bench_$n" -g "$G" -s "$S" "$t" | tag "$r,all"; done ;;
    esac
    log "round $r $n"
}
runners=(seq)
for p in taskflow tbb gomp; do [ -x "$B/bench_$p" ] && runners+=("$p"); done
runners+=("${names[@]}")
for r in $(seq "${ROUNDS:-3}"); do
    order=("${runners[@]}")
    [ $((r % 2)) = 0 ] && mapfile -t order < <(printf "%s\n" "${runners[@]}" | tac)
    for n in "${order[@]}"; do run_one "$n" "$r"; done
done
