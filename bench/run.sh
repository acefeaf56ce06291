#!/bin/sh
# bench/run.sh - builds graphrt's benchmarks and the peer runtimes of
# bench/peers, runs them all with 1 and 2 threads on the same machine in the
# same run, and prints one table: per shape, ns per node of each runtime and
# graphrt's speedup over the fastest peer. Writes everything to
# build-bench/results.json. Needs nothing outside the repository: a peer whose
# toolkit is missing (oneTBB, LLVM's OpenMP, clang) and cannot be installed
# is left out, with a message, and its column prints "-".
#
# Usage: bench/run.sh [--quick]          (from anywhere; about 5 min on 2 cores)
# Environment:
#   PEER_BENCH_DIR  the peers' folder (default: bench/peers of the repository)
#   BUILD_DIR       build folder (default: build-bench in the repository)
#   THREADS         thread / worker counts (default: "1 2")
#   NO_INSTALL=1    never call apt-get
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build-bench}
threads=${THREADS:-"1 2"}
quick=""
[ "${1:-}" = "--quick" ] && quick="--quick"

say() { printf '%s\n' "$*" >&2; }

# ------------------------------------------------------------ dependencies
need=""
for p in libtbb-dev libomp-dev; do
    dpkg -s "$p" >/dev/null 2>&1 || need="$need $p"
done
command -v clang >/dev/null 2>&1 || need="$need clang"
command -v cmake >/dev/null 2>&1 || need="$need cmake"
command -v g++ >/dev/null 2>&1 || need="$need g++"
if [ -n "$need" ]; then
    if [ "${NO_INSTALL:-0}" != 1 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        say "installing:$need"
        apt-get update -qq >&2 || true
        # shellcheck disable=SC2086
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need >&2 \
            || say "could not install:$need"
    else
        say "missing:$need (install them, e.g. apt-get install -y$need)"
    fi
    for t in cmake gcc; do
        command -v $t >/dev/null 2>&1 || { say "$t is needed to build graphrt"; exit 1; }
    done
    say "the peers that need what is missing are left out"
fi

peer=${PEER_BENCH_DIR:-$root/bench/peers}
if [ ! -f "$peer/common.h" ]; then
    say "no peers in $peer (its common.h is missing): set PEER_BENCH_DIR to bench/peers"
    exit 1
fi

# ------------------------------------------------------------------ build
mkdir -p "$build"
say "building graphrt benchmarks in $build"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DGR_BUILD_BENCH=ON \
      -DGR_BUILD_TESTS=OFF -DGR_BUILD_EXAMPLES=OFF >"$build/cmake.log" 2>&1 \
    || { cat "$build/cmake.log" >&2; exit 1; }
cmake --build "$build" -j2 --target bench_graph bench_eager >"$build/build.log" 2>&1 \
    || { cat "$build/build.log" >&2; exit 1; }
say "building peers from $peer in $build/peers"
# -k: a peer whose toolkit is missing fails alone; run_peer leaves it out.
make -s -k -C "$peer" OUT="$build/peers" all >"$build/peers.log" 2>&1 \
    || say "some peers did not build (see $build/peers.log); they are left out"

# -------------------------------------------------------------------- run
rows=$build/rows.csv
: >"$rows"
{
    echo "# cpu: $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //')"
    echo "# cores: $(nproc) online"
    echo "# kernel: $(uname -srm)"
    echo "# compilers: $(gcc --version | head -1); $(clang --version | head -1)"
    echo "# threads: $threads"
} | tee "$build/machine.txt"

run_peer() { # name args...
    n=$1; shift
    if [ ! -x "$build/peers/$n" ]; then
        say "leaving out $n: it did not build"
        return 0
    fi
    say "running $n $*"
    if ! "$build/peers/$n" "$@" >>"$rows"; then
        say "warning: $n $* failed; its rows are missing"
    fi
}
start=$(date +%s)
run_peer bench_seq
# shellcheck disable=SC2086
run_peer bench_tbb default $threads
# shellcheck disable=SC2086
run_peer bench_tbb lightweight $threads
# shellcheck disable=SC2086
run_peer bench_gomp persist $threads
# shellcheck disable=SC2086
run_peer bench_llvm_omp persist $threads
# shellcheck disable=SC2086
run_peer bench_toy $threads

for w in $threads; do
    say "running bench_graph with $w worker(s)"
    # shellcheck disable=SC2086
    if ! GRAPHRT_WORKERS=$w "$build/bench/bench_graph" "$w" $quick --csv --json "$build/graph-w$w.json" \
        >"$build/graph-w$w.txt"; then
        say "warning: bench_graph with $w worker(s) failed; its figures are partial"
        echo '{"failed": true}' >"$build/graph-w$w.json"
    fi
    grep '^graphrt,' "$build/graph-w$w.txt" >>"$rows" || true
    say "running bench_eager with $w worker(s)"
    # shellcheck disable=SC2086
    if ! GRAPHRT_WORKERS=$w "$build/bench/bench_eager" "$w" $quick --csv --json "$build/eager-w$w.json" \
        >"$build/eager-w$w.txt"; then
        say "warning: bench_eager with $w worker(s) failed; its figures are partial"
        echo '{"failed": true}' >"$build/eager-w$w.json"
    fi
done
say "ran in $(( $(date +%s) - start )) s"

# ------------------------------------------------------------------ table
# ns per node = replay_med_ns / tasks. The fastest peer is the fastest
# runtime other than graphrt and seq (seq is the sequential floor, one
# thread calling every task in order, not a scheduler).
rts="graphrt seq tbb_flow tbb_flow_lw gomp_persist llvm_omp_persist toy_pthread"
awk -F, -v rts="$rts" -v json="$build/table.json" '
    BEGIN { nrt = split(rts, rt, " ") }
    /^#/ || NF < 10 { next }
    {
        key = $3 "," $4 "," $2
        if (!(key in seen)) { seen[key] = 1; order[++nk] = key }
        ns[key, $1] = $7 / $5
    }
    END {
        printf "%-6s %8s %3s", "shape", "param", "thr"
        for (i = 1; i <= nrt; i++) printf " %11s", rt[i]
        printf " %16s %8s\n", "fastest_peer", "speedup"
        printf "[" > json
        for (k = 1; k <= nk; k++) {
            split(order[k], f, ",")
            best = ""; bestv = 0
            for (i = 3; i <= nrt; i++)
                if ((order[k], rt[i]) in ns && (best == "" || ns[order[k], rt[i]] < bestv)) {
                    best = rt[i]; bestv = ns[order[k], rt[i]]
                }
            printf "%-6s %8s %3s", f[1], f[2], f[3]
            printf "%s\n  {\"shape\": \"%s\", \"param\": %s, \"threads\": %s, \"ns_per_node\": {", \
                (k > 1 ? "," : ""), f[1], f[2], f[3] > json
            sep = ""
            for (i = 1; i <= nrt; i++) {
                if ((order[k], rt[i]) in ns) {
                    printf " %11.1f", ns[order[k], rt[i]]
                    printf "%s\"%s\": %.3f", sep, rt[i], ns[order[k], rt[i]] > json
                    sep = ", "
                } else printf " %11s", "-"
            }
            printf "}" > json
            if (best != "" && (order[k], "graphrt") in ns && ns[order[k], "graphrt"] > 0) {
                sp = bestv / ns[order[k], "graphrt"]
                printf " %16s %7.2fx\n", best, sp
                printf ", \"fastest_peer\": \"%s\", \"speedup_over_fastest_peer\": %.3f}", best, sp > json
            } else {
                printf " %16s %8s\n", (best == "" ? "-" : best), "-"
                printf "}" > json
            }
        }
        printf "\n]\n" > json
    }' "$rows" | tee "$build/table.txt"

echo
echo "graphrt figures (fig,workers,name,shape,param,value,unit):"
for w in $threads; do
    grep -h '^fig,' "$build/graph-w$w.txt" "$build/eager-w$w.txt" || true
done

# ------------------------------------------------------------ results.json
{
    printf '{"machine": {'
    printf '"cpu": "%s", ' "$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //; s/["\\]//g')"
    printf '"cores": %s, "kernel": "%s"},\n' "$(nproc)" "$(uname -srm)"
    printf '"threads": "%s",\n"rows": [' "$threads"
    awk -F, '/^#/ || NF < 10 { next }
        { printf "%s\n  {\"rt\": \"%s\", \"threads\": %s, \"shape\": \"%s\", \"param\": %s, \"tasks\": %s, \"build_ns\": %s, \"replay_med_ns\": %s, \"replay_min_ns\": %s, \"replay_p90_ns\": %s, \"reps\": %s}", \
            (n++ ? "," : ""), $1, $2, $3, $4, $5, ($6 ~ /^-/ ? "null" : $6), $7, $8, $9, $10 }' "$rows"
    printf '\n],\n"table": '
    cat "$build/table.json"
    printf ',\n"graphrt": {'
    sep=""
    for w in $threads; do
        printf '%s\n"graph_w%s": ' "$sep" "$w"; cat "$build/graph-w$w.json"
        printf ',\n"eager_w%s": ' "$w"; cat "$build/eager-w$w.json"
        sep=","
    done
    printf '}\n}\n'
} >"$build/results.json"
say "wrote $build/results.json"
