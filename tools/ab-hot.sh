#!/usr/bin/env bash
# tools/ab-hot.sh - the hot paths of two graphrt source trees side by side:
# builds bench_eager, bench_graph and bench_capture of each (Release), runs
# them in alternating rounds (old, new, then new, old, ...) and prints, for
# every figure both trees report, the median of each and new / old.
#   tools/ab-hot.sh OLD_DIR [NEW_DIR] [ROUNDS]
# NEW_DIR defaults to this tree, ROUNDS to 5. Build folders go in
# ${AB_BUILD:-/tmp/graphrt-ab-hot}. Ratios above 1 mean the new tree is
# slower for a time (the figures in ns) and faster for a rate (GB/s, x).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
OLD=$(cd "${1:?usage: tools/ab-hot.sh OLD_DIR [NEW_DIR] [ROUNDS]}" && pwd)
NEW=$(cd "${2:-$here}" && pwd)
ROUNDS=${3:-5}
B=${AB_BUILD:-/tmp/graphrt-ab-hot}
BENCHES="bench_eager bench_graph bench_capture"
mkdir -p "$B"
for t in old new; do
    d=$OLD
    [ $t = new ] && d=$NEW
    cmake -S "$d" -B "$B/$t" -DCMAKE_BUILD_TYPE=Release -DGR_BUILD_TESTS=OFF -DGR_BUILD_EXAMPLES=OFF \
        -DGR_BUILD_BENCH=ON >"$B/$t.build.txt" 2>&1
    # shellcheck disable=SC2086
    cmake --build "$B/$t" --parallel "$(nproc)" --target $BENCHES >>"$B/$t.build.txt" 2>&1 ||
        { tail -30 "$B/$t.build.txt"; exit 1; }
done
echo "old: $OLD ($(git -C "$OLD" rev-parse --short HEAD 2>/dev/null || echo 'not a checkout'))"
echo "new: $NEW ($(git -C "$NEW" rev-parse --short HEAD 2>/dev/null || echo 'not a checkout'))"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'); $ROUNDS rounds, alternated"
: >"$B/rows.csv"
for r in $(seq "$ROUNDS"); do
    order="old new"
    [ $((r % 2)) = 0 ] && order="new old"
    for t in $order; do
        for b in $BENCHES; do
            "$B/$t/bench/$b" --quick --csv 2>/dev/null | grep -v '^#' | sed "s/^/$t,$b,/" >>"$B/rows.csv" || true
        done
    done
done
python3 - "$B/rows.csv" <<'PY'
import collections, statistics, sys
runs = collections.defaultdict(lambda: collections.defaultdict(list))
for line in open(sys.argv[1]):
    f = line.rstrip("\n").split(",")
    tree, bench = f[0], f[1]
    rest = f[2:]
    if rest and rest[0] == "fig" and len(rest) == 7:
        key = (bench, rest[2], rest[3], rest[4], rest[6])
        val = rest[5]
    elif len(rest) == 10:  # replay rows: rt,threads,shape,param,tasks,build,med,min,p90,reps
        key = (bench, "replay_med_ns", rest[2], rest[3], "ns")
        val = rest[6]
    else:
        continue
    try:
        runs[key][tree].append(float(val))
    except ValueError:
        pass
print("%-10s %-44s %-8s %8s %12s %12s %7s" % ("bench", "figure", "shape", "param", "old", "new", "new/old"))
for key in sorted(runs):
    o, n = runs[key].get("old"), runs[key].get("new")
    if not o or not n:
        continue
    mo, mn = statistics.median(o), statistics.median(n)
    ratio = mn / mo if mo else float("nan")
    print("%-10s %-44s %-8s %8s %12.4g %12.4g %7.3f  %s" % (key[0][6:], key[1], key[2], key[3], mo, mn, ratio, key[4]))
PY
