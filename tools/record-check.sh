#!/usr/bin/env bash
# tools/record-check.sh - on a machine with an NVIDIA GPU, the CUDA toolkit
# (nvcc, CUPTI) and optionally PyTorch: builds the recorder and the graphrt
# tool, builds the client programs of record/clients/ with nvcc, runs each
# under 'graphrt record', and writes into OUT:
#   rec/CLIENT/       what 'graphrt record' wrote (graph files, report.txt,
#                     session.json, the callbacks log), and its stdout/stderr
#   dot/              CUDA's own DOT of each client graph (the ground truth)
#   fixtures/         the callback streams, named for tests/data/record/
#   compare.txt       recorded graph vs CUDA's DOT, per graph
#   replay.txt        'graphrt replay' (CPU, stand-ins) of the torch graphs
#   overhead.txt      each figure with and without the recorder, and ratios
#                     (and in summary.txt, the recorder's self-profile of a
#                     recorded run: where its time went, per callback kind)
#   summary.txt       all of the above in short (also printed)
#   tools/record-check.sh OUT
# RECORD_CHECK_ONLY=overhead builds bench_overhead alone and measures only
# the overhead (step 6, without PyTorch): a minute where device time is
# short.
# Takes about 3 minutes on 16 cores (the library build is most of it).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
O=${1:?usage: tools/record-check.sh OUT}
mkdir -p "$O" && O=$(cd "$O" && pwd)
B=${RECORD_BUILD:-/tmp/graphrt-record-build}
export PATH=$PATH:/usr/local/cuda/bin
J=$(nproc)
mkdir -p "$O/rec" "$O/dot" "$O/fixtures" "$B/clients"
S="$O/summary.txt"
: >"$S"
say() { echo "$*" | tee -a "$S"; }

{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvcc --version | tail -1; nproc
  git rev-parse --short HEAD; python3 -c 'import torch; print("torch", torch.__version__, torch.version.cuda)'; } \
    >"$O/machine.txt" 2>&1
say "machine: $(tr '\n' ' ' <"$O/machine.txt")"
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 | grep -oiE '[A-Z][0-9]{2,4}' | head -1 |
    tr 'A-Z' 'a-z')
GPU=${GPU:-gpu}
CUDA_VER=$(nvcc --version 2>/dev/null | grep -oE 'release [0-9.]+' | grep -oE '[0-9.]+$')
CUDA_VER=${CUDA_VER:-unknown}

# 1. Build: the tool and the recorder; the clients (in parallel).
t0=$(date +%s)
cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DGR_BUILD_TESTS=OFF -DGR_BUILD_EXAMPLES=OFF \
    -DGR_BUILD_FUZZ=OFF >"$O/build.txt" 2>&1 &&
    cmake --build "$B" --parallel "$J" --target graphrt graphrt_record >>"$O/build.txt" 2>&1 ||
    { tail -40 "$O/build.txt"; say "build: FAILED"; exit 1; }
CLIENTS="seed_capture seed_explicit forkjoin update_topology stale_pointer capture_invalidated bench_overhead"
[ "${RECORD_CHECK_ONLY:-}" = overhead ] && CLIENTS=bench_overhead
for c in $CLIENTS; do
    nvcc -O2 -arch=sm_90 -o "$B/clients/$c" "record/clients/$c.cu" -lpthread >"$O/build-$c.txt" 2>&1 &
done
wait
for c in $CLIENTS; do
    [ -x "$B/clients/$c" ] || say "build of client $c: FAILED (see build-$c.txt)"
done
say "build: $(( $(date +%s) - t0 )) s"
G="$B/graphrt"

HAVE_TORCH=0
if [ "${RECORD_CHECK_ONLY:-}" != overhead ]; then
# 2. Each client under the recorder, with CUDA's DOT beside it.
record() { # NAME COMMAND...
    local n=$1
    shift
    rm -rf "$O/rec/$n"
    GRAPHRT_DOT_DIR="$O/dot" timeout 300 "$G" record -o "$O/rec/$n" --stale ${RECORD_FLAGS:-} -- "$@" \
        >"$O/rec/$n.stdout" 2>"$O/rec/$n.stderr"
    local rc=$?
    local ng
    ng=$(grep -c '^graph [0-9]*:' "$O/rec/$n/report.txt" 2>/dev/null)
    say "record $n: exit $rc; ${ng:-0} graphs recorded"
    for l in "$O/rec/$n"/callbacks-*.log; do
        [ -f "$l" ] && cp "$l" "$O/fixtures/$n-cuda$CUDA_VER-$GPU.log"
    done
}
record_all() {
    for c in seed_capture seed_explicit forkjoin update_topology stale_pointer capture_invalidated; do
        record "$c" "$B/clients/$c"
    done
    if [ $HAVE_TORCH = 1 ]; then
        record torch_graphs python3 record/clients/torch_graphs.py 50
    fi
}
HAVE_TORCH=0
if python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
    HAVE_TORCH=1
else
    say "torch: not available with CUDA, skipped"
fi
record_all
if grep -l "^walk-cut" "$O"/rec/*/callbacks-*.log >/dev/null 2>&1; then
    # A destroy waited 10 s for a walk: the driver would not let the
    # helper thread walk then. Record again with the walks on the calling
    # thread; the first recordings stay in rec-async/.
    say "WARNING: walk-cut in $(grep -l '^walk-cut' "$O"/rec/*/callbacks-*.log | tr '\n' ' ')"
    say "         recording again with --sync-walks (the first recordings are in rec-async/)"
    rm -rf "$O/rec-async" && mv "$O/rec" "$O/rec-async" && mkdir -p "$O/rec" && rm -f "$O"/fixtures/*.log
    RECORD_FLAGS=--sync-walks
    record_all
fi

# 3. The findings the issue names, from the reports.
{
    echo "--- forkjoin: serialised fork-join"
    grep -E "serialised fork-joins:|made by event|then waited on" "$O/rec/forkjoin/report.txt"
    echo "--- update_topology: failed update"
    sed -n '/^update of executable/,/^failed captures/p' "$O/rec/update_topology/report.txt"
    echo "--- stale_pointer"
    sed -n '/^stale pointers/,$p' "$O/rec/stale_pointer/report.txt"
    echo "--- capture_invalidated"
    sed -n '/^failed captures/,/^stale pointers/p' "$O/rec/capture_invalidated/report.txt"
    echo "--- clients' own output"
    cat "$O"/rec/*.stdout | grep -E "^(seed|forkjoin|update|stale|capture|torch)" || true
} >"$O/findings.txt" 2>&1
say "findings: see findings.txt"
cat "$O/findings.txt" | head -60 | tee -a "$S" >/dev/null

# 4. Recorded graphs vs CUDA's DOT.
: >"$O/compare.txt"
for c in seed_capture seed_explicit forkjoin update_topology stale_pointer torch_graphs; do
    [ -f "$O/rec/$c/session.json" ] || continue
    dots=$(ls "$O/dot/" | grep -E "^${c%_graphs}" | sed "s|^|$O/dot/|")
    [ -n "$dots" ] || continue
    python3 record/compare_dot.py "$O/rec/$c/session.json" $dots >>"$O/compare.txt" 2>&1
done
say "compare with CUDA's DOT: $(grep -c '^OK' "$O/compare.txt") equal, $(grep -c '^FAIL' "$O/compare.txt") different"
cat "$O/compare.txt" | tee -a "$S"

# 5. The torch graphs replayed on the CPU with stand-in kernels.
: >"$O/replay.txt"
if [ $HAVE_TORCH = 1 ]; then
    for f in "$O/rec/torch_graphs"/*.graph; do
        [ -f "$f" ] || continue
        echo "== $(basename "$f")" >>"$O/replay.txt"
        timeout 60 "$G" info "$f" >>"$O/replay.txt" 2>&1
        timeout 60 "$G" replay "$f" >>"$O/replay.txt" 2>&1
        echo "replay exit $?" >>"$O/replay.txt"
    done
    say "replay on the CPU: $(grep -c 'replay exit 0' "$O/replay.txt") ok, $(grep -c 'replay exit [1-9]' "$O/replay.txt") failed"
fi

fi
# 6. Overhead: the same programs with and without the recorder, interleaved.
: >"$O/overhead.txt"
for i in 1 2 3; do
    echo "plain $(timeout 120 "$B/clients/bench_overhead")" >>"$O/overhead.txt"
    echo "record $(timeout 120 "$G" record -o "$B/ovh" --quiet ${RECORD_FLAGS:-} -- "$B/clients/bench_overhead" 2>/dev/null)" \
        >>"$O/overhead.txt"
done
# Where the recorder's time goes: its walks (on the helper thread).
for d in ovh; do
    say "recorded run $d: $(cat "$B"/$d/callbacks-*.log | awk '/^walk-end/ {n++; us += substr($3, 4)} /^walk-same/ {s++}
        /^end / {e = $0} END {printf "%d walked, %d answered by an earlier walk, %.0f us of walks; %s", n, s, us, e}')"
done
echo "timing $(timeout 120 "$G" record -o "$B/ovh-timing" --timing --quiet ${RECORD_FLAGS:-} -- "$B/clients/bench_overhead" 2>/dev/null)" >>"$O/overhead.txt"
if [ $HAVE_TORCH = 1 ]; then
    for i in 1 2; do
        GRAPHRT_DOT_DIR="$B" timeout 200 python3 record/clients/torch_graphs.py 200 2>/dev/null | sed 's/^/plain /' >>"$O/overhead.txt"
        GRAPHRT_DOT_DIR="$B" timeout 200 "$G" record -o "$B/ovh-torch" --quiet ${RECORD_FLAGS:-} -- python3 record/clients/torch_graphs.py 200 \
            2>/dev/null | sed 's/^/record /' >>"$O/overhead.txt"
    done
fi
# The recorder's self-profile of each run (the 'profile' line of its log,
# docs/record.md): the line itself, then the callback kinds that cost most
# and the walks' split, readable.
for d in ovh ovh-torch; do
    [ $d = ovh-torch ] && [ $HAVE_TORCH != 1 ] && continue
    for l in "$B"/$d/callbacks-*.log; do
        [ -f "$l" ] || continue
        grep '^profile ' "$l" | sed "s/^/profile-line $d: /" >>"$S"
        grep '^profile ' "$l" | python3 -c '
import sys
f = dict(w.split("=", 1) for w in sys.stdin.read().split()[1:] if "=" in w)
name = sys.argv[1]
ns = lambda k: int(f.get(k, 0))
print("profile %s: %s callbacks, %.0f us inside the recorder, %.0f us of destroys waiting for walks" % (
    name, f.get("cb_count"), ns("cb_ns") / 1e3, ns("wait_ns") / 1e3))
print("  walks: %s of %s nodes, %.0f us: queries %.0f us (%s calls), names %.0f us (%s asked, %s cached), "
      "pointers %.0f us (%s: %s by the allocations seen, %s cached, %s asked), writing %.0f us, appending %.0f us" % (
    f.get("walks"), f.get("walk_nodes"), ns("walk_ns") / 1e3, ns("query_ns") / 1e3, f.get("query_calls"),
    ns("name_ns") / 1e3, f.get("name_calls"), f.get("name_hits"), ns("ptr_ns") / 1e3, f.get("ptr_calls"),
    f.get("ptr_map"), f.get("ptr_cache"), f.get("ptr_driver"), ns("write_ns") / 1e3, ns("append_ns") / 1e3))
for e in f.get("cb", "").split(",")[:15]:
    kind, count, t = e.rsplit(":", 2)
    print("  %-44s %9s callbacks %10.1f us %8.0f ns each" % (kind, count, int(t) / 1e3, int(t) / max(int(count), 1)))
' "$d" | tee -a "$S"
    done
done
python3 - "$O/overhead.txt" <<'PY' | tee -a "$S" >>"$O/overhead.txt"
import re, statistics, sys, collections
runs = collections.defaultdict(lambda: collections.defaultdict(list))
for line in open(sys.argv[1]):
    mode, _, rest = line.partition(" ")
    prefix = ""
    m = re.match(r"(torch_\w+): (.*)", rest)
    if m:
        prefix, rest = m.group(1) + ".", m.group(2)
    for k, v in re.findall(r"(\w+)=([0-9.]+)", rest):
        runs[mode][prefix + k].append(float(v))
print("overhead (median of runs; ratio = with recorder / without):")
for k in sorted(runs["plain"]):
    p = statistics.median(runs["plain"][k])
    for mode in ("record", "timing"):
        if runs[mode].get(k):
            r = statistics.median(runs[mode][k])
            print("  %-34s %-7s %10.3f vs %10.3f  ratio %.3f" % (k, mode, r, p, r / p if p else float("nan")))
PY
say "total: $(( $(date +%s) - t0 )) s"
