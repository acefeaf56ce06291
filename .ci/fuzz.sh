#!/usr/bin/env bash
# .ci/fuzz.sh - runs the fuzzers (docs/fuzzing.md) under ASan+UBSan and
# under TSan (clang), and under gcc's ASan+UBSan, for a bounded time, from
# the repository root:
#   bash .ci/fuzz.sh
#
# Builds build-asan/ and build-tsan/ as .ci/run's sanitizer stages do (an
# incremental build when those stages ran already), then runs fuzz-api
# single-threaded and with threads, fuzz-diff and fuzz-file, under each
# sanitizer. gcc's UBSan checks what clang's does not (a NULL passed to a
# library function declared nonnull, such as fwrite's buffer for 0
# bytes; an index past an array inside a struct), so the fuzzers run again
# from build-gcc-asan/ (GCC_SECONDS each; 0 skips it).
# A failure prints the seed and step that replay it and leaves the
# reproducing command line in $SAVE_DIR. The total time is about
# 2 x (API_SECONDS + API_MT_SECONDS + DIFF_SECONDS + FILE_SECONDS) +
# 4 x GCC_SECONDS plus the builds.
set -euo pipefail

# ---- parameters -------------------------------------------------------------
API_SECONDS=${API_SECONDS:-40}        # fuzz-api, one thread, per sanitizer
API_MT_SECONDS=${API_MT_SECONDS:-30}  # fuzz-api, API_THREADS threads, per sanitizer
API_THREADS=${API_THREADS:-3}
DIFF_SECONDS=${DIFF_SECONDS:-30}      # fuzz-diff (1, 2 and 4 workers), per sanitizer
FILE_SECONDS=${FILE_SECONDS:-30}      # fuzz-file (mutated graph files), per sanitizer
GCC_SECONDS=${GCC_SECONDS:-20}        # each fuzzer under gcc's ASan+UBSan (0: not built)
SEED=${SEED:-$(( $(date +%s) * 1000003 ))}  # first seed; printed, so a run can be repeated
SAVE_DIR=${SAVE_DIR:-fuzz-failures}
HANG_S=${HANG_S:-120}                 # seconds without progress that count as a hang
JOBS=${JOBS:-2}
# Known bug classes switched on (docs/fuzzing.md), e.g. ALLOW=destroyed-handles.
ALLOW=${ALLOW:-}
# ------------------------------------------------------------------------------

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)

# See .ci/run: clang 14's sanitizers need setarch -R when mmap randomises
# with more than 28 bits.
SAN_PREFIX=()
bits=$(cat /proc/sys/vm/mmap_rnd_bits 2>/dev/null || echo 28)
if [ "$bits" -gt 28 ] && setarch "$(uname -m)" -R true 2>/dev/null; then
    SAN_PREFIX=(setarch "$(uname -m)" -R)
fi

build() {
    local dir=$1 san=$2 cc=${3:-clang}
    cmake -S . -B "$dir" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
          -DGR_SANITIZE="$san" -DGR_WERROR=ON -DGR_DEBUG_LEVEL=1 -DGR_BUILD_FUZZ=ON >/dev/null
    cmake --build "$dir" --parallel "$JOBS" --target fuzz-api fuzz-diff fuzz-file
}

# fuzz NAME DIR ARGS...: one bounded run; its closing line goes to the summary.
SUMMARY=()
fuzz() {
    local name=$1 dir=$2
    shift 2
    local extra=()
    [ -n "$ALLOW" ] && extra=(--allow "$ALLOW")
    echo "== $name: $dir/$* (seed $SEED)"
    local log
    log=$(mktemp)
    # The fuzzer's own watchdog reports hangs; timeout is the backstop.
    if ! timeout -k 30 "$((${SECS} * 3 + HANG_S + 120))" "${SAN_PREFIX[@]+"${SAN_PREFIX[@]}"}" \
            "$dir/$1" --seed "$SEED" --save "$SAVE_DIR" --hang "$HANG_S" --quiet "${extra[@]+"${extra[@]}"}" \
            "${@:2}" 2>&1 | tee "$log"; then
        echo "FAILED: $name (reproducing command lines in $SAVE_DIR/)" >&2
        rm -f "$log"
        exit 1
    fi
    SUMMARY+=("$(printf '%-22s %s' "$name" "$(grep -E '^fuzz-(api|diff|file):' "$log" | tail -n 1)")")
    rm -f "$log"
}

export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1"
if [ -f "$ROOT/.ci/tsan.supp" ]; then
    TSAN_OPTIONS="$TSAN_OPTIONS:suppressions=$ROOT/.ci/tsan.supp"
fi
export TSAN_OPTIONS

build build-asan address
SECS=$API_SECONDS fuzz "asan fuzz-api" build-asan fuzz-api --seconds "$API_SECONDS"
SECS=$API_MT_SECONDS fuzz "asan fuzz-api threads" build-asan fuzz-api --seconds "$API_MT_SECONDS" \
    --threads "$API_THREADS"
SECS=$DIFF_SECONDS fuzz "asan fuzz-diff" build-asan fuzz-diff --seconds "$DIFF_SECONDS"
SECS=$FILE_SECONDS fuzz "asan fuzz-file" build-asan fuzz-file --seconds "$FILE_SECONDS"

if [ "$GCC_SECONDS" -gt 0 ]; then
    build build-gcc-asan address gcc
    SECS=$GCC_SECONDS fuzz "gcc-asan fuzz-api" build-gcc-asan fuzz-api --seconds "$GCC_SECONDS"
    SECS=$GCC_SECONDS fuzz "gcc-asan fuzz-api threads" build-gcc-asan fuzz-api --seconds "$GCC_SECONDS" \
        --threads "$API_THREADS"
    SECS=$GCC_SECONDS fuzz "gcc-asan fuzz-diff" build-gcc-asan fuzz-diff --seconds "$GCC_SECONDS"
    SECS=$GCC_SECONDS fuzz "gcc-asan fuzz-file" build-gcc-asan fuzz-file --seconds "$GCC_SECONDS"
fi

build build-tsan thread
SECS=$API_SECONDS fuzz "tsan fuzz-api" build-tsan fuzz-api --seconds "$API_SECONDS"
SECS=$API_MT_SECONDS fuzz "tsan fuzz-api threads" build-tsan fuzz-api --seconds "$API_MT_SECONDS" \
    --threads "$API_THREADS"
SECS=$DIFF_SECONDS fuzz "tsan fuzz-diff" build-tsan fuzz-diff --seconds "$DIFF_SECONDS" --threads 2
SECS=$FILE_SECONDS fuzz "tsan fuzz-file" build-tsan fuzz-file --seconds "$FILE_SECONDS"

echo
echo "== fuzz summary (seed $SEED)"
for line in "${SUMMARY[@]}"; do
    echo "  $line"
done
