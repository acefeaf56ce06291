#!/bin/bash
# run-all.sh - builds (when nvcc is on PATH and BUILD=1) and runs every CUDA
# probe of this folder, one output file per probe.
# Usage: tests/probes/run-all.sh BIN_DIR OUT_DIR
#   BIN_DIR: where the probe binaries are (or are built); OUT_DIR: where
#   NAME.txt (one line per case), dot.txt (the DOT files) and machine.txt go.
set -u
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:?BIN_DIR}
out=${2:?OUT_DIR}
mkdir -p "$bin" "$out"
probes="conditional userobj nodeapi edges attrs copies memory m3d"
if [ "${BUILD:-0}" = 1 ]; then
    for p in $probes; do
        nvcc -arch=sm_90 -o "$bin/$p" "$here/$p.cu" -lcuda || echo "build of $p failed"
    done
fi
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; uname -a; } >"$out/machine.txt" 2>&1
dots=$(mktemp -d)
for p in $probes; do
    echo "== $p"
    timeout 90 "$bin/$p" "$dots" >"$out/$p.txt" 2>&1
    echo "exit: $?" >>"$out/$p.txt"
    tail -1 "$out/$p.txt"
done
for f in "$dots"/*.dot; do
    [ -e "$f" ] || continue
    echo "==== $(basename "$f")"
    cat "$f"
done >"$out/dot.txt"
