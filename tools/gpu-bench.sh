#!/usr/bin/env bash
# tools/gpu-bench.sh - on a machine with an NVIDIA GPU and the CUDA
# toolkit: the whole GPU benchmark in one call. Builds bench_gpu (graphrt)
# and bench_native (the CUDA runtime) in build-gpu-bench/ (Release, through
# bench/run.sh cuda), runs them ROUNDS times in alternating order and
# writes into OUTDIR:
#   machine.txt             GPU, driver, nvcc, cores, commit
#   native-R.txt, graphrt-R.txt, *.json   each run's figures
#   ratios.txt              each figure's median over the runs, the ratio
#                           graphrt / native and the range of the runs' ratios
#   bench.json              every figure of every run
#   log.txt                 everything the call printed
#   tools/gpu-bench.sh [OUTDIR] [SIZE]
# SIZE is the knob that keeps the call short: "quick" (one run, the
# largest start-up and layered sizes left out), "normal" (the default:
# 3 runs of every size) or "full" (5 runs). ROUNDS overrides the runs.
# The whole call stops after GPU_BENCH_TIMEOUT seconds (default 280),
# keeping what it wrote, so that it ends within 5 minutes. Without a GPU it
# says so and exits with status 2.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
O=${1:-build-gpu-bench/out}
SIZE=${2:-normal}
export PATH=$PATH:/usr/local/cuda/bin
case $SIZE in
quick) args=(--quick) rounds=${ROUNDS:-1} ;;
normal) args=() rounds=${ROUNDS:-3} ;;
full) args=() rounds=${ROUNDS:-5} ;;
*) echo "usage: tools/gpu-bench.sh [OUTDIR] [quick|normal|full]" >&2; exit 1 ;;
esac
mkdir -p "$O" && O=$(cd "$O" && pwd)
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvcc --version | tail -1; nproc
  git rev-parse --short HEAD; echo "size: $SIZE, $rounds run(s)"; } >"$O/machine.txt" 2>&1
cat "$O/machine.txt"
t0=$(date +%s)
timeout "${GPU_BENCH_TIMEOUT:-280}" bench/run.sh cuda "${args[@]+"${args[@]}"}" --rounds "$rounds" --out "$O" \
    --json "$O/bench.json" >"$O/log.txt" 2>&1
rc=$?
echo "bench/run.sh cuda: exit $rc after $(($(date +%s) - t0)) s" | tee -a "$O/log.txt"
case $rc in
0) cat "$O/ratios.txt" ;;
124) echo "stopped after ${GPU_BENCH_TIMEOUT:-280} s: each finished run is in $O/*-R.txt; try SIZE quick" ;;
*) tail -20 "$O/log.txt"
   grep -q 'no GPU device' "$O/log.txt" && exit 2 ;;
esac
exit $rc
