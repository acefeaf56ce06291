#!/bin/sh
# .ci/check-layers.sh - fails on any dependency that breaks the layer order
# of docs/internals.md, on raw atomics outside src/core, and on a private
# header included from another area.
#
# Usage: .ci/check-layers.sh [BUILD_DIR]   (default: build; the objects of
# its graphrt_obj target are read with nm, so build it first)
#
# Layers, lowest first; a file may use only its own layer and those below:
#   core < backend < memory < graph < capture < exec < api
# Checked:
#   1. every #include "..." of src/ resolves to the same or a lower area;
#   2. a header private to its area (src/backend/cpu/*.h, src/backend/cuda/cu_*.h,
#      src/*/*_int.h) is
#      included only from that area;
#   3. every gr__ symbol an object uses is defined in the same or a lower
#      area (nm of the objects), so no call goes upward except through a
#      hook (a function pointer a higher layer registers, which nm does not
#      see: each is listed in docs/internals.md);
#   4. no atomic_*_explicit or implicitly seq_cst atomic_* call outside
#      src/core (core/atomic.h names every order);
#   5. the device seam (src/backend/device.h): no file above src/backend
#      includes a header of backend/cpu or backend/cuda; no object above
#      the backend uses a symbol that backend/cuda defines (it calls a GPU
#      through the device table); backend/cpu neither includes nor uses
#      anything of backend/cuda, nor backend/cuda anything of backend/cpu
#      (what both use of the stream and event objects is the neutral
#      backend/stream.c and backend/event.c). It prints the counts, and
#      the number of backend/cpu symbols used above the backend, which may
#      not grow past CPU_ABOVE_MAX;
#   6. no test of tests/*.c includes a header of src/ (those are white-box
#      tests and live in tests/whitebox/).
set -eu

cd "$(dirname "$0")/.."
BUILD=${1:-build}
OBJ="$BUILD/CMakeFiles/graphrt_obj.dir/src"
status=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

rank() {
    case $1 in
    core) echo 0 ;; backend) echo 1 ;; memory) echo 2 ;; graph) echo 3 ;;
    capture) echo 4 ;; exec) echo 5 ;; api) echo 6 ;; *) echo 99 ;;
    esac
}

# The area of a path under src/: its first directory.
area_of() {
    echo "$1" | sed -n 's|^src/\([^/]*\)/.*|\1|p'
}

private_header() {
    case $1 in
    src/backend/cpu/*.h | src/backend/cuda/cu_*.h | src/*/*_int.h) return 0 ;;
    esac
    return 1
}

fail() {
    echo "layers: $*"
    status=1
}

# 1 and 2: includes.
for f in $(find src -name '*.c' -o -name '*.h' | sort); do
    a=$(area_of "$f")
    ra=$(rank "$a")
    dir=$(dirname "$f")
    grep -o '^#include "[^"]*"' "$f" | sed 's/^#include "//; s/"$//' | while read -r inc; do
        case $inc in graphrt.h) continue ;; esac
        target=$(realpath -m --relative-to=. "$dir/$inc")
        b=$(area_of "$target")
        [ -n "$b" ] || continue
        rb=$(rank "$b")
        if [ "$rb" -gt "$ra" ]; then
            echo "layers: $f ($a) includes $target ($b), a higher layer"
            echo x >>"$tmp/bad"
        fi
        if [ "$a" != "$b" ] && private_header "$target"; then
            echo "layers: $f ($a) includes $target, private to $b"
            echo x >>"$tmp/bad"
        fi
    done
done
[ ! -s "$tmp/bad" ] || status=1

# 3: symbols.
if [ -d "$OBJ" ]; then
    : >"$tmp/defs"
    # Objects of sources that exist (a build directory keeps those of
    # files moved or deleted since).
    find "$OBJ" -name '*.c.o' | sort | while read -r o; do
        src=$(echo "$o" | sed "s|^$OBJ/|src/|; s|\\.o\$||")
        if [ -f "$src" ]; then echo "$o"; fi
    done >"$tmp/objs"
    while read -r o; do
        rel=$(echo "$o" | sed "s|^$OBJ/|src/|; s|\\.o\$||")
        a=$(area_of "$rel")
        nm --defined-only "$o" | awk -v a="$a" '$2 ~ /^[TDBRC]$/ && $3 ~ /^gr/ {print $3, a}' >>"$tmp/defs"
    done <"$tmp/objs"
    while read -r o; do
        rel=$(echo "$o" | sed "s|^$OBJ/|src/|; s|\\.o\$||")
        a=$(area_of "$rel")
        nm -u "$o" | awk '{print $2}' | grep '^gr' | while read -r sym; do
            b=$(awk -v s="$sym" '$1 == s {print $2; exit}' "$tmp/defs")
            [ -n "$b" ] || continue
            if [ "$(rank "$b")" -gt "$(rank "$a")" ]; then
                echo "layers: $rel ($a) uses $sym, defined in $b, a higher layer"
                echo x >>"$tmp/badsym"
            fi
        done
    done <"$tmp/objs"
    [ ! -s "$tmp/badsym" ] || status=1
else
    fail "no objects in $OBJ: build first (cmake --build $BUILD)"
fi

# 5: the device seam.
CPU_ABOVE_MAX=7
for f in $(find src -name '*.c' -o -name '*.h' | sort); do
    a=$(area_of "$f")
    case $f in src/backend/cpu/*) sub=cpu ;; src/backend/cuda/*) sub=cuda ;; *) sub= ;; esac
    dir=$(dirname "$f")
    grep -o '^#include "[^"]*"' "$f" | sed 's/^#include "//; s/"$//' | while read -r inc; do
        target=$(realpath -m --relative-to=. "$dir/$inc")
        case $target in
        src/backend/cpu/* | src/backend/cuda/*)
            tsub=$(echo "$target" | sed 's|^src/backend/\([^/]*\)/.*|\1|')
            if [ "$a" != backend ]; then
                echo "layers: $f ($a) includes $target: above the backend, a device is reached through backend/device.h"
                echo x >>"$tmp/badseam"
            elif [ -n "$sub" ] && [ "$sub" != "$tsub" ]; then
                echo "layers: $f (backend/$sub) includes $target (backend/$tsub): device kinds never include each other"
                echo x >>"$tmp/badseam"
            fi
            ;;
        esac
    done
done
if [ -d "$OBJ" ]; then
    for k in cpu cuda; do
        for o in "$OBJ"/backend/$k/*.o; do
            [ -f "$o" ] && [ -f "$(echo "$o" | sed "s|^$OBJ/|src/|; s|\\.o\$||")" ] || continue
            nm --defined-only "$o" | awk '$2 ~ /^[TDBRC]$/ {print $3}'
        done | sort -u >"$tmp/defs.$k"
    done
    : >"$tmp/above.cuda"
    : >"$tmp/above.cpu"
    : >"$tmp/objs.cuda"
    while read -r o; do
        rel=$(echo "$o" | sed "s|^$OBJ/|src/|; s|\\.o\$||")
        case $rel in src/core/* | src/backend/*) continue ;; esac
        nm -u "$o" | awk '{print $2}' | sort -u >"$tmp/u"
        if [ -n "$(comm -12 "$tmp/u" "$tmp/defs.cuda")" ]; then
            comm -12 "$tmp/u" "$tmp/defs.cuda" | sed "s|^|$rel |" >>"$tmp/above.cuda"
            echo "$rel" >>"$tmp/objs.cuda"
        fi
        comm -12 "$tmp/u" "$tmp/defs.cpu" >>"$tmp/above.cpu"
    done <"$tmp/objs"
    ncuda=$(awk '{print $2}' "$tmp/above.cuda" | sort -u | wc -l)
    ncpu=$(sort -u "$tmp/above.cpu" | wc -l)
    nobj=$(sort -u "$tmp/objs.cuda" | wc -l)
    echo "layers: above the backend: $ncuda backend/cuda symbols (in $nobj objects), $ncpu backend/cpu symbols"
    if [ "$ncuda" -ne 0 ]; then
        sed 's/^/layers: uses a backend\/cuda symbol: /' "$tmp/above.cuda"
        status=1
    fi
    if [ "$ncpu" -gt "$CPU_ABOVE_MAX" ]; then
        echo "layers: $ncpu backend/cpu symbols are used above the backend, more than $CPU_ABOVE_MAX"
        status=1
    fi
    cpu_cuda=$(for o in "$OBJ"/backend/cpu/*.o; do nm -u "$o" | awk '{print $2}'; done | sort -u | comm -12 - "$tmp/defs.cuda")
    cuda_cpu=$(for o in "$OBJ"/backend/cuda/*.o; do nm -u "$o" | awk '{print $2}'; done | sort -u |
        comm -12 - "$tmp/defs.cpu")
    echo "layers: backend/cpu uses $(echo "$cpu_cuda" | grep -c . || true) backend/cuda symbols;" \
        "backend/cuda uses $(echo "$cuda_cpu" | grep -c . || true) backend/cpu symbols"
    if [ -n "$cpu_cuda" ] || [ -n "$cuda_cpu" ]; then
        for sym in $cpu_cuda $cuda_cpu; do echo "layers: a device kind uses another's symbol: $sym"; done
        status=1
    fi
fi
[ ! -s "$tmp/badseam" ] || status=1

# 4: atomics.
raw=$(grep -rnE '\batomic_(load|store|exchange|fetch_[a-z]+|compare_exchange_[a-z]+|thread_fence|signal_fence)(_explicit)?\s*\(' \
    src --include='*.c' --include='*.h' | grep -v '^src/core/' || true)
if [ -n "$raw" ]; then
    echo "$raw" | sed 's/^/layers: raw atomic outside src\/core: /'
    status=1
fi

# 6: black-box tests. tests/*.c reach graphrt through its public headers
# only; a test that needs internals lives in tests/whitebox/.
inner=$(grep -nE '^#include "(\.\./)+src/' tests/*.c tests/*.cpp 2>/dev/null || true)
if [ -n "$inner" ]; then
    echo "$inner" | sed 's/^/layers: a black-box test includes src\/ (move it to tests\/whitebox\/): /'
    status=1
fi

if [ "$status" -eq 0 ]; then
    echo "layers: ok (includes, symbols and atomics follow core < backend < memory < graph < capture < exec < api)"
fi
exit "$status"
