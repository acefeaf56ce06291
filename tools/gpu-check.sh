#!/usr/bin/env bash
# tools/gpu-check.sh - on a machine with an NVIDIA GPU and the CUDA
# toolkit: builds graphrt (Release, kernel images by nvcc) in build-gpu/,
# runs the whole suite, and builds and runs the CUDA probes named in
# PROBES (tests/probes/NAME.cu) to print CUDA's own answers beside it.
#   tools/gpu-check.sh [OUTDIR] [TEST_FILTER]
# OUTDIR gets suite.txt (the runner's output), probe-NAME.txt and
# machine.txt. TEST_FILTER is passed to the runner (a substring of test
# names); without it the whole suite runs.
set -uo pipefail
cd "$(dirname "$0")/.."
O=${1:-build-gpu/out}
FILTER=${2:-}
PROBES=${PROBES:-parity}
export PATH=$PATH:/usr/local/cuda/bin
mkdir -p "$O"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; git rev-parse --short HEAD; } \
    >"$O/machine.txt" 2>&1
cat "$O/machine.txt"
for p in $PROBES; do
    nvcc -arch=sm_90 -o "build-gpu-probe-$p" "tests/probes/$p.cu" -lcuda >"$O/probe-$p.txt" 2>&1 &&
        timeout 120 "./build-gpu-probe-$p" >>"$O/probe-$p.txt" 2>&1
    echo "probe $p: exit $?" >>"$O/probe-$p.txt"
done
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DGR_WERROR=ON >"$O/build.txt" 2>&1 &&
    cmake --build build-gpu --parallel "$(nproc)" >>"$O/build.txt" 2>&1 || { tail -40 "$O/build.txt"; exit 1; }
./build-gpu/graphrt_tests $FILTER >"$O/suite.txt" 2>&1
rc=$?
grep -E "^not ok|passed, " "$O/suite.txt"
exit $rc
