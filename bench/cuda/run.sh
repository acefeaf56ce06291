#!/usr/bin/env bash
# bench/cuda/run.sh - graphrt on a GPU against the CUDA runtime, in one run
# on one machine: builds bench_native (nvcc) and bench_gpu (graphrt, CMake)
# in build-gpu-bench/, runs both and prints each figure with the ratio
# graphrt / native (below 1: graphrt cheaper). Needs nvcc and a GPU.
#   bench/cuda/run.sh [--json FILE]   (FILE gets both runs' figures)
set -euo pipefail
cd "$(dirname "$0")/../.."
B=build-gpu-bench
JSON=
# OUTDIR: where the raw outputs go (default: the build directory).
O=${OUTDIR:-$B}
if [ "${1:-}" = --json ]; then JSON=$2; fi
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
mkdir -p "$B" "$O"
"$NVCC" -O2 -o "$B/bench_native" bench/cuda/bench_native.cu -lcuda
cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DGR_BUILD_BENCH=ON -DGR_BUILD_TESTS=OFF \
    -DGR_BUILD_EXAMPLES=OFF >/dev/null
cmake --build "$B" --parallel "$(nproc)" --target bench_gpu >/dev/null
echo "cores: $(nproc), commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
"$B/bench_native" ${JSON:+--json "$O/native.json"} | tee "$O/native.txt"
"$B/bench/cuda/bench_gpu" ${JSON:+--json "$O/graphrt.json"} | tee "$O/graphrt.txt"
echo
printf '%-24s %-10s %12s %12s %8s  %s\n' figure param native graphrt ratio unit
awk -F, 'FNR == NR { if ($1 == "native") v[$2 "," $3] = $4; next }
         $1 == "graphrt" { k = $2 "," $3; if (k in v)
             printf "%-24s %-10s %12.1f %12.1f %8.2f  %s\n", $2, $3, v[k], $4, (v[k] > 0 ? $4 / v[k] : 0), $5 }' \
    "$O/native.txt" "$O/graphrt.txt" | tee "$O/ratios.txt"
if [ -n "$JSON" ]; then
    printf '{"native": %s, "graphrt": %s}\n' "$(cat "$O/native.json")" "$(cat "$O/graphrt.json")" >"$JSON"
fi
