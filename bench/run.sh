#!/usr/bin/env bash
# bench/run.sh - the one driver of graphrt's benchmarks. Every table starts
# with the machine (cores, CPU, kernel, compiler, graphrt's commit) and its
# parameters, and says what is good in it. From anywhere:
#
#   bench/run.sh graphrt [--build DIR] [--workers N] [--quick] [--csv] [--json FILE]
#       graphrt's own benchmarks, the list GR_BENCHES of bench/CMakeLists.txt
#       (built first, in DIR, default build/); `make bench` runs this.
#   bench/run.sh [peers] [--quick]
#       graphrt against the peer runtimes of bench/peers on the overhead
#       shapes (empty tasks), 1 and 2 threads: ns per node of each runtime and
#       graphrt's speedup over the fastest peer; build-bench/results.json.
#   bench/run.sh grain [--quick] [--json FILE] [--out DIR]
#       graphrt against oneTBB, Taskflow and OpenMP at task grains of 0 to
#       100 us, and wide kernels against OpenMP's parallel for; in
#       build-grain/; `make bench-grain` runs this.
#   bench/run.sh ab NAME=DIR... [--quick]
#       graphrt source trees (an older commit's copy, a patched tree) side by
#       side on the grain shapes, in alternating rounds with the peers and the
#       sequential floor; rows in build-ab/rows.csv, then their table
#       (--quick: 2 rounds, grains 0 and 1, 20 ms a cell, no two-CPU rows).
#   bench/run.sh cuda [--quick] [--rounds R] [--out DIR] [--json FILE]
#       graphrt on a GPU against the CUDA runtime (needs nvcc and a GPU):
#       bench_gpu and bench_native built in build-gpu-bench/, run R times
#       (default 1) in alternating order, then each figure's median over the
#       runs with the ratio graphrt / native (and, for R > 1, the range of
#       the runs' ratios); outputs in DIR (default build-gpu-bench/);
#       --quick leaves out the largest start-up and layered sizes.
#
# Environment: JOBS (compile jobs, default the cores), CC, CXX;
#   peers: THREADS (default "1 2");
#   grain: THREADS (default 1 2 4 8 16 up to the cores; --quick "1 <cores>"),
#     GRAINS (0,1,5,20,100; --quick 0,1,20), SHAPES (chain,fan64,fan1024,rand,
#     layered), GRAIN_BUDGET_MS (time per cell, 250; --quick 100), ROUNDS (1),
#     WIDE_GRAINS (1,5,20), WIDE_BLOCKS (256,4096);
#   ab: ROUNDS (3), GRAIN_BUDGET_MS (50), GRAINS (0,1,5,20), GRAINS2 (0,1,5 on
#     CPUs 0-1 as a two-core machine; empty: none), THREADS ("16 4"), SHAPES;
#   peers, grain, ab: TBB_ROOT (oneTBB outside the system), TASKFLOW_DIR
#     (Taskflow's headers; grain clones the pinned release when allowed);
#   cuda: NVCC (default nvcc on PATH, else /usr/local/cuda/bin/nvcc),
#     OUTDIR (as --out), ROUNDS (as --rounds).
# A peer whose toolkit is missing is left out, with a line saying so.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
cores=$(nproc 2>/dev/null || echo 2)
jobs=${JOBS:-$cores}
CC=${CC:-cc}
CMAKE=${CMAKE:-cmake}
CXX=${CXX:-c++}
TASKFLOW_TAG=v4.1.0
TASKFLOW_URL=https://github.com/taskflow/taskflow.git

say() { printf '%s\n' "$*" >&2; }
die() { say "bench/run.sh: $*"; exit 1; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }

# Configures DIR (Release, benchmarks on) and builds the targets named.
build_graphrt() { # dir target...
    local dir=$1
    shift
    mkdir -p "$dir"
    "$CMAKE" -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE=Release -DGR_BUILD_BENCH=ON >"$dir/cmake.log" 2>&1 ||
        { cat "$dir/cmake.log" >&2; die "configuring $dir failed"; }
    "$CMAKE" --build "$dir" --parallel "$jobs" --target "$@" >"$dir/build.log" 2>&1 ||
        { tail -40 "$dir/build.log" >&2; die "building $* in $dir failed"; }
}

# Builds the peers of bench/peers into DIR; those that fail are left out.
build_peers() { # dir
    local out=$1 p missing=""
    mkdir -p "$out"
    make -s -k -C "$here/peers" OUT="$out" CC="$CC" CXX="$CXX" \
        ${TASKFLOW_DIR:+TASKFLOW_DIR="$TASKFLOW_DIR"} ${TBB_ROOT:+TBB_ROOT="$TBB_ROOT"} all \
        >"$out/build.log" 2>&1 || true
    for p in seq toy gomp llvm_omp tbb taskflow; do
        [ -x "$out/bench_$p" ] && continue
        case $p in
        tbb) missing="$missing; oneTBB (apt-get install libtbb-dev, or TBB_ROOT)" ;;
        llvm_omp) missing="$missing; LLVM's OpenMP (apt-get install clang libomp-dev)" ;;
        gomp) missing="$missing; gcc's OpenMP (gcc with -fopenmp)" ;;
        taskflow) missing="$missing; Taskflow (its headers in TASKFLOW_DIR)" ;;
        *) missing="$missing; $p" ;;
        esac
    done
    [ -z "$missing" ] || say "left out:${missing#;} (see $out/build.log)"
}

machine_lines() {
    echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "# commit: $(git -C "$root" describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)"
    echo "# cpu: $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //'), $cores cores online"
    echo "# kernel: $(uname -srm)"
    echo "# cc: $($CC --version | head -1); c++: $($CXX --version | head -1)"
}

# ------------------------------------------------------------------ graphrt
cmd_graphrt() {
    local build=build workers="" json="" args=() b first=1
    while [ $# -gt 0 ]; do
        case $1 in
        --build) build=$2; shift ;;
        --build=*) build=${1#--build=} ;;
        --workers) workers=$2; shift ;;
        --workers=*) workers=${1#--workers=} ;;
        --json) json=$2; shift ;;
        --json=*) json=${1#--json=} ;;
        --quick | --csv) args+=("$1") ;;
        *) usage >&2; exit 1 ;;
        esac
        shift
    done
    case $build in /*) ;; *) build=$PWD/$build ;; esac
    build_graphrt "$build" benchmarks
    local benches
    benches=$(cat "$build/bench/benches.txt")
    parts=$(mktemp -d) # global: the EXIT trap reads it
    trap 'rm -rf "$parts"' EXIT
    for b in $benches; do
        [ $first = 1 ] || echo
        first=0
        # shellcheck disable=SC2086
        "$build/bench/$b" $workers ${args[@]+"${args[@]}"} ${json:+--json "$parts/$b.json"} ||
            die "$b failed (exit $?)"
    done
    if [ -n "$json" ]; then
        {
            printf '{"benches": ['
            local sep=""
            for b in $benches; do
                printf '%s\n' "$sep"
                cat "$parts/$b.json"
                sep=","
            done
            printf ']}\n'
        } >"$json"
        printf '\nwrote %s\n' "$json"
    fi
}

# -------------------------------------------------------------------- peers
cmd_peers() {
    local quick="" build=${BUILD_DIR:-$root/build-bench} threads=${THREADS:-"1 2"} w
    while [ $# -gt 0 ]; do
        case $1 in
        --quick) quick=--quick ;;
        *) usage >&2; exit 1 ;;
        esac
        shift
    done
    say "building graphrt's bench_graph in $build and the peers in $build/peers"
    build_graphrt "$build" bench_graph
    build_peers "$build/peers"
    local rows=$build/rows.csv
    : >"$rows"
    { machine_lines; echo "# threads: $threads"; } | tee "$build/machine.txt"
    run_peer() { # name args...
        local n=$1
        shift
        [ -x "$build/peers/$n" ] || return 0
        say "running $n $*"
        "$build/peers/$n" "$@" >>"$rows" 2>/dev/null || say "warning: $n $* failed; its rows are missing"
    }
    local start
    start=$(date +%s)
    run_peer bench_seq
    # shellcheck disable=SC2086
    {
        run_peer bench_tbb default $threads
        run_peer bench_tbb lightweight $threads
        run_peer bench_gomp persist $threads
        run_peer bench_llvm_omp persist $threads
        run_peer bench_taskflow $threads
        run_peer bench_toy $threads
    }
    for w in $threads; do
        say "running bench_graph with $w worker(s)"
        # shellcheck disable=SC2086
        GRAPHRT_WORKERS=$w "$build/bench/bench_graph" "$w" $quick --csv --no-extras \
            --json "$build/graph-w$w.json" >"$build/graph-w$w.txt" ||
            die "bench_graph with $w worker(s) failed"
        grep '^graphrt,' "$build/graph-w$w.txt" >>"$rows" || true
    done
    say "ran in $(($(date +%s) - start)) s"
    echo
    echo "ns per node (median replay / tasks): lower is better; speedup = fastest peer / graphrt:" \
        "above 1, graphrt faster (seq, one thread calling the tasks in order, is the floor, not a peer)"
    local rts="graphrt seq tbb_flow tbb_flow_lw gomp_persist llvm_omp_persist taskflow toy_pthread"
    awk -F, -v rts="$rts" -v json="$build/table.json" '
        BEGIN { nrt = split(rts, rt, " ") }
        /^#/ || NF != 10 { next }
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
    {
        printf '{"machine": "%s",\n' "$(tr '\n' ' ' <"$build/machine.txt" | sed 's/["\\]//g')"
        printf '"rows": ['
        awk -F, '/^#/ || NF != 10 { next }
            { printf "%s\n  {\"rt\": \"%s\", \"threads\": %s, \"shape\": \"%s\", \"param\": %s, \"tasks\": %s, \"build_ns\": %s, \"replay_med_ns\": %s, \"replay_min_ns\": %s, \"replay_p90_ns\": %s, \"reps\": %s}", \
                (n++ ? "," : ""), $1, $2, $3, $4, $5, ($6 ~ /^-/ ? "null" : $6), $7, $8, $9, $10 }' "$rows"
        printf '\n],\n"table": '
        cat "$build/table.json"
        printf '}\n'
    } >"$build/results.json"
    say "wrote $build/results.json"
}

# Taskflow's headers: TASKFLOW_DIR, else the pinned release cloned into DIR.
taskflow_dir() { # build dir
    local d=${TASKFLOW_DIR:-$1/taskflow-$TASKFLOW_TAG}
    if [ ! -f "$d/taskflow/taskflow.hpp" ] && [ -z "${TASKFLOW_DIR:-}" ]; then
        say "Taskflow $TASKFLOW_TAG: cloning $TASKFLOW_URL"
        git clone --quiet --depth 1 --branch "$TASKFLOW_TAG" "$TASKFLOW_URL" "$d" >/dev/null 2>&1 || true
    fi
    echo "$d"
}

# -------------------------------------------------------------------- grain
cmd_grain() {
    local quick=0 json="" out="" t
    while [ $# -gt 0 ]; do
        case $1 in
        --quick) quick=1 ;;
        --json) json=$2; shift ;;
        --out) out=$2; shift ;;
        *) usage >&2; exit 1 ;;
        esac
        shift
    done
    if [ $quick = 1 ]; then
        THREADS=${THREADS:-"1 $cores"}
        GRAINS=${GRAINS:-0,1,20}
        export GRAIN_BUDGET_MS=${GRAIN_BUDGET_MS:-100}
    else
        local dt=""
        for t in 1 2 4 8 16; do [ "$t" -le "$cores" ] && dt="$dt $t"; done
        THREADS=${THREADS:-$dt}
        GRAINS=${GRAINS:-0,1,5,20,100}
        export GRAIN_BUDGET_MS=${GRAIN_BUDGET_MS:-250}
    fi
    local shapes=${SHAPES:-chain,fan64,fan1024,rand,layered} rounds=${ROUNDS:-1}
    local wg=${WIDE_GRAINS:-1,5,20} wb=${WIDE_BLOCKS:-256,4096}
    local build=$root/build-grain
    local res=${out:-$build/results} bin=$build/bin g=$build/graphrt
    mkdir -p "$res" "$bin"
    say "graphrt (Release) in $g, the peers in $bin"
    build_graphrt "$g" grain_graphrt grain_wide
    TASKFLOW_DIR=$(taskflow_dir "$build") build_peers "$bin"
    local peers="" p
    for p in gomp tbb taskflow; do [ -x "$bin/bench_$p" ] && peers="$peers $p"; done
    {
        machine_lines
        echo "# peers: ${peers# }"
        echo "# threads: $THREADS; grains (us): $GRAINS; shapes: $shapes; budget per cell:" \
            "${GRAIN_BUDGET_MS} ms; rounds: $rounds"
    } >"$res/machine.txt"
    cat "$res/machine.txt" >&2
    "$bin/bench_seq" --calibrate >"$res/calib.csv"
    GRAIN_IPUS=$(sed -n 's/^ipus,\([^,]*\),.*/\1/p' "$res/calib.csv")
    export GRAIN_IPUS
    local csv=$res/sweep.csv
    echo "rt,threads,shape,param,grain_us,tasks,build_ns,replay_med_ns,replay_min_ns,replay_p90_ns,replay_mean_ns,reps,cpu_ns_per_replay,eff_threads" >"$csv"
    say "sweep: LCG steps per us $GRAIN_IPUS"
    # Every runner once per round, the rounds in alternating order: the
    # machine's speed drifts over a run (the same sequential work took 87-103
    # us a task over one sweep of a 16-core host), and runtimes measured
    # minutes apart would compare that drift. A cell is the median of its
    # rounds (summarize.py).
    grain_one() {
        # shellcheck disable=SC2086
        case $1 in
        seq) "$bin/bench_seq" -g "$GRAINS" -s "$shapes" ;;
        graphrt) for t in $THREADS; do GRAPHRT_WORKERS=$t "$g/bench/grain_graphrt" -g "$GRAINS" -s "$shapes" "$t"; done ;;
        gomp) "$bin/bench_gomp" persist -g "$GRAINS" -s "$shapes" $THREADS ;;
        tbb) "$bin/bench_tbb" default -g "$GRAINS" -s "$shapes" $THREADS ;;
        taskflow) "$bin/bench_taskflow" -g "$GRAINS" -s "$shapes" $THREADS ;;
        esac
    }
    local runners="seq graphrt$peers" r order n
    for r in $(seq "$rounds"); do
        order=$runners
        # shellcheck disable=SC2086
        [ $((r % 2)) = 0 ] && order=$(printf "%s\n" $runners | tac | tr '\n' ' ')
        for n in $order; do
            grain_one "$n" >>"$csv" 2>/dev/null
            say "round $r: $n done"
        done
    done
    # Wide kernels: one kernel of many blocks against OpenMP's parallel for.
    "$g/bench/grain_wide" seq 1 -g "$wg" -b "$wb" >>"$csv" 2>/dev/null
    for t in ${WIDE_THREADS:-$THREADS}; do
        [ "$t" -gt 1 ] || continue
        GRAPHRT_WORKERS=$t "$g/bench/grain_wide" graphrt "$t" -g "$wg" -b "$wb" >>"$csv" 2>/dev/null
        [ ! -x "$bin/bench_gomp" ] || "$bin/bench_gomp" wide "$t" -g "$wg" -b "$wb" >>"$csv" 2>/dev/null
    done
    say "wide kernels done"
    python3 "$here/grain/summarize.py" --machine "$res/machine.txt" ${json:+--json "$json"} "$csv"
}

# ----------------------------------------------------------------------- ab
cmd_ab() {
    local trees=() nd
    for nd in "$@"; do
        case $nd in
        --quick) export ROUNDS=${ROUNDS:-2} GRAINS=${GRAINS:-0,1} GRAINS2=${GRAINS2-} GRAIN_BUDGET_MS=${GRAIN_BUDGET_MS:-20} ;;
        *=*) trees+=("$nd") ;;
        *) usage >&2; exit 1 ;;
        esac
    done
    [ ${#trees[@]} -gt 0 ] || trees=("new=$root")
    local B=${AB_BUILD:-$root/build-ab} names=() n d
    mkdir -p "$B"
    for nd in "${trees[@]}"; do
        n=${nd%%=*}
        d=$(cd "${nd#*=}" && pwd)
        names+=("$n")
        say "building $n from $d"
        ("$CMAKE" -S "$d" -B "$B/b-$n" -DCMAKE_BUILD_TYPE=Release -DGR_BUILD_TESTS=OFF -DGR_BUILD_EXAMPLES=OFF \
            -DGR_BUILD_BENCH=OFF >/dev/null && "$CMAKE" --build "$B/b-$n" --parallel "$jobs" --target graphrt >/dev/null &&
            $CC -O2 -I"$d/include" -I"$here/harness" -DRT_NAME="\"$n\"" -o "$B/bench_$n" \
                "$here/grain/bench_graphrt.c" "$B/b-$n/libgraphrt.a" -pthread -lm) || die "$n: build failed"
    done
    build_peers "$B/peers"
    "$B/peers/bench_seq" --calibrate >"$B/calib.csv"
    GRAIN_IPUS=$(sed -n 's/^ipus,\([^,]*\),.*/\1/p' "$B/calib.csv")
    export GRAIN_IPUS GRAIN_BUDGET_MS=${GRAIN_BUDGET_MS:-50}
    local S=${SHAPES:-chain,fan64,fan1024,rand,layered} G2=${GRAINS2-0,1,5} G=${GRAINS:-0,1,5,20}
    local T=${THREADS:-16 4}
    two() { taskset -c 0,1 "$@"; }
    tag() { sed -u "s/^/$1,/"; }
    # One runner's rows of round $2: "seq", a peer, or a tree's name; rows
    # are prefixed with the round and "cores2" (CPUs 0 and 1, 2 threads) or
    # "all" (every CPU, THREADS).
    ab_one() {
        local n=$1 r=$2 a=() t
        case $n in
        seq)
            [ -z "$G2" ] || two "$B/peers/bench_seq" -g "$G2" -s "$S" | tag "$r,cores2"
            "$B/peers/bench_seq" -g "$G" -s "$S" | tag "$r,all" ;;
        taskflow | tbb | gomp)
            [ "$n" = tbb ] && a=(default)
            [ "$n" = gomp ] && a=(persist)
            [ -z "$G2" ] || two "$B/peers/bench_$n" "${a[@]+"${a[@]}"}" -g "$G2" -s "$S" 2 | tag "$r,cores2"
            # shellcheck disable=SC2086
            "$B/peers/bench_$n" "${a[@]+"${a[@]}"}" -g "$G" -s "$S" $T | tag "$r,all" ;;
        *)
            [ -z "$G2" ] || GRAPHRT_WORKERS=2 two "$B/bench_$n" -g "$G2" -s "$S" 2 | tag "$r,cores2"
            for t in $T; do GRAPHRT_WORKERS=$t "$B/bench_$n" -g "$G" -s "$S" "$t" | tag "$r,all"; done ;;
        esac 2>/dev/null
        say "round $r: $n done"
    }
    local runners=(seq) p r order
    for p in taskflow tbb gomp; do [ -x "$B/peers/bench_$p" ] && runners+=("$p"); done
    runners+=("${names[@]}")
    machine_lines | tee "$B/machine.txt"
    : >"$B/rows.csv"
    for r in $(seq "${ROUNDS:-3}"); do
        order=("${runners[@]}")
        [ $((r % 2)) = 0 ] && mapfile -t order < <(printf "%s\n" "${runners[@]}" | tac)
        for n in "${order[@]}"; do ab_one "$n" "$r" >>"$B/rows.csv"; done
    done
    say "rows in $B/rows.csv"
    python3 "$here/grain/ab_table.py" "$B/rows.csv" "$(IFS=,; echo "${names[*]}")"
}

# --------------------------------------------------------------------- cuda
cmd_cuda() {
    local json="" quick="" rounds=${ROUNDS:-1} B=$root/build-gpu-bench out=${OUTDIR:-}
    while [ $# -gt 0 ]; do
        case $1 in
        --json) json=$2; shift ;;
        --quick) quick=--quick ;;
        --rounds) rounds=$2; shift ;;
        --out) out=$2; shift ;;
        *) usage >&2; exit 1 ;;
        esac
        shift
    done
    local O=${out:-$B}
    local nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
    [ -x "$nvcc" ] || die "cuda: no nvcc (set NVCC, or put it on PATH)"
    mkdir -p "$B" "$O"
    # CMake looks for the CUDA compiler on PATH or in CUDACXX.
    CUDACXX=${CUDACXX:-$nvcc} build_graphrt "$B" bench_gpu bench_native
    rm -f "$O"/native-*.txt "$O"/graphrt-*.txt "$O"/native-*.json "$O"/graphrt-*.json
    machine_lines | tee "$O/machine.txt"
    # The two programs once per round, in alternating order, so that the
    # machine's drift over the run falls on both.
    local r side order rc bin
    for r in $(seq "$rounds"); do
        order="native graphrt"
        [ $((r % 2)) = 0 ] && order="graphrt native"
        for side in $order; do
            rc=0 bin=$B/bench/cuda/bench_gpu
            [ "$side" = graphrt ] || bin=$B/bench/cuda/bench_native
            "$bin" ${quick:+"$quick"} ${json:+--json "$O/$side-$r.json"} >"$O/$side-$r.txt" || rc=$?
            [ $rc != 2 ] || die "cuda: no GPU device here (the $side side exits with status 2)"
            [ $rc = 0 ] || die "cuda: the $side side failed (exit $rc)"
            cat "$O/$side-$r.txt"
        done
    done
    for side in native graphrt; do
        for r in $(seq "$rounds"); do cat "$O/$side-$r.txt"; done >"$O/$side.txt"
    done
    echo
    local runs=""
    [ "$rounds" = 1 ] || runs=" (medians of $rounds runs of each, in alternating order)"
    echo "ratio = graphrt / native: lower is better, below 1 graphrt is cheaper$runs"
    local files=()
    for r in $(seq "$rounds"); do files+=("$O/native-$r.txt" "$O/graphrt-$r.txt"); done
    awk -F, -v rounds="$rounds" '
        function med(s,   a, n, i, j, t) {
            n = split(s, a, " ")
            for (i = 2; i <= n; i++) {
                t = a[i] + 0
                for (j = i - 1; j >= 1 && a[j] + 0 > t; j--) a[j + 1] = a[j]
                a[j + 1] = t
            }
            return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
        }
        ($1 == "native" || $1 == "graphrt") && NF == 5 {
            r = FILENAME; sub(/.*-/, "", r); sub(/\.txt$/, "", r)
            k = $2 "," $3
            if ($1 == "graphrt" && !(k in seen)) { seen[k] = 1; order[++nk] = k; unit[k] = $5 }
            v[$1, k] = v[$1, k] " " $4
            one[$1, k, r] = $4
        }
        END {
            printf "%-24s %-18s %12s %12s %8s  ", "figure", "param", "native", "graphrt", "ratio"
            printf (rounds > 1 ? "%-9s  ratio_range\n" : "%s\n"), "unit"
            for (i = 1; i <= nk; i++) {
                k = order[i]
                if (!(("native", k) in v)) continue
                split(k, f, ",")
                nv = med(v["native", k]); gv = med(v["graphrt", k])
                printf "%-24s %-18s %12.1f %12.1f %8.2f  ", f[1], f[2], nv, gv, (nv > 0 ? gv / nv : 0)
                printf (rounds > 1 ? "%-9s" : "%s"), unit[k]
                lo = ""; hi = ""
                for (r = 1; r <= rounds; r++)
                    if ((("native", k, r) in one) && (("graphrt", k, r) in one) && one["native", k, r] > 0) {
                        x = one["graphrt", k, r] / one["native", k, r]
                        if (lo == "" || x < lo) lo = x
                        if (hi == "" || x > hi) hi = x
                    }
                if (rounds > 1 && lo != "") printf "  %.2f-%.2f", lo, hi
                printf "\n"
            }
        }' "${files[@]}" | tee "$O/ratios.txt"
    if [ -n "$json" ]; then
        if [ "$rounds" = 1 ]; then
            printf '{"native": %s, "graphrt": %s}\n' "$(cat "$O/native-1.json")" "$(cat "$O/graphrt-1.json")"
        else
            printf '{"rounds": ['
            for r in $(seq "$rounds"); do
                [ "$r" = 1 ] || printf ','
                printf '\n{"native": %s, "graphrt": %s}' "$(cat "$O/native-$r.json")" "$(cat "$O/graphrt-$r.json")"
            done
            printf '\n]}\n'
        fi >"$json"
    fi
}

cmd=peers
case ${1:-} in
graphrt | peers | grain | ab | cuda) cmd=$1; shift ;;
-h | --help | help) usage; exit 0 ;;
"" | -*) ;;
*) usage >&2; exit 1 ;;
esac
"cmd_$cmd" "$@"
