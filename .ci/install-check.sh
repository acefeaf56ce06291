#!/usr/bin/env bash
# .ci/install-check.sh BUILD_DIR PREFIX - checks what `cmake --install`
# puts under PREFIX from an already built BUILD_DIR:
#   1. the headers (graphrt.h and each module header it includes), both
#      libraries, graphrt.pc and the CMake package exist;
#   2. the shared library exports only the public API: every dynamic symbol
#      it defines is a 'gr' name declared in graphrt.h (its module headers,
#      include/graphrt/*.h) or graphrt_kernel.h
#      (internal 'gr__' names stay hidden), and every global the static
#      library defines starts with 'gr' (no stray names leak into programs
#      that link it);
#   3. .ci/consumer/consumer.c, which calls grGetDeviceCount and wants 1,
#      builds and runs (a) with `pkg-config --cflags --libs graphrt` and
#      (b) as a CMake project using find_package(graphrt) with the targets
#      graphrt::graphrt (static) and graphrt::graphrt_shared;
#   4. graphrt.h compiles as C++ (it promises extern "C"), and
#      .ci/consumer/consumer.cpp, CUDA-style C++ host code over the installed
#      graphrt.hpp, builds with pkg-config's flags and runs;
#   5. the graphrt tool is installed in bin/ and runs.
# Exits non-zero at the first failed check.
set -euo pipefail

if [ $# -ne 2 ]; then
    echo "usage: $0 BUILD_DIR PREFIX" >&2
    exit 2
fi
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUILD=$1
PREFIX=$2
WORK=$(mktemp -d /tmp/graphrt-install-check.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

fail() {
    echo "install check FAILED: $*" >&2
    exit 1
}

echo "-- installing $BUILD into $PREFIX"
rm -rf "$PREFIX"
cmake --install "$BUILD" --prefix "$PREFIX"

echo "-- installed files"
(cd "$PREFIX" && find . \( -type f -o -type l \) | sort)

# The library directory: lib/ or lib/<multiarch>/, whichever holds graphrt.pc.
pc=$(find "$PREFIX" -name graphrt.pc -print -quit)
[ -n "$pc" ] || fail "no graphrt.pc under $PREFIX"
LIBDIR=$(dirname "$(dirname "$pc")")
[ -f "$PREFIX/include/graphrt.h" ] || fail "no include/graphrt.h under $PREFIX"
[ -f "$PREFIX/include/graphrt.hpp" ] || fail "no include/graphrt.hpp under $PREFIX"
# Every module header graphrt.h includes is installed beside it.
for inc in $(sed -n 's/^#include "\(graphrt\/[a-z_]*\.h\)".*/\1/p' include/graphrt.h); do
    [ -f "$PREFIX/include/$inc" ] || fail "no include/$inc under $PREFIX (graphrt.h includes it)"
done
[ -f "$LIBDIR/libgraphrt.a" ] || fail "no libgraphrt.a in $LIBDIR"
[ -e "$LIBDIR/libgraphrt.so" ] || fail "no libgraphrt.so in $LIBDIR"
[ -f "$LIBDIR/cmake/graphrt/graphrtConfig.cmake" ] || fail "no cmake/graphrt/graphrtConfig.cmake in $LIBDIR"
[ -f "$LIBDIR/cmake/graphrt/graphrtConfigVersion.cmake" ] || fail "no graphrtConfigVersion.cmake"

echo "-- exported symbols of $LIBDIR/libgraphrt.so"
nm -D --defined-only "$LIBDIR/libgraphrt.so" | awk '{print $NF}' | sort -u > "$WORK/dynsyms"
n=$(wc -l < "$WORK/dynsyms")
echo "$n defined dynamic symbols"
[ "$n" -gt 0 ] || fail "libgraphrt.so exports nothing"
bad=$(grep -v '^gr' "$WORK/dynsyms" || true)
[ -z "$bad" ] || fail "libgraphrt.so exports names without the 'gr' prefix:"$'\n'"$bad"
bad=$(grep '^gr__' "$WORK/dynsyms" || true)
[ -z "$bad" ] || fail "libgraphrt.so exports internal 'gr__' names (visibility):"$'\n'"$bad"
undeclared=""
while read -r sym; do
    grep -Eq "\\b${sym}[[:space:]]*\\(" "$PREFIX/include/graphrt.h" "$PREFIX"/include/graphrt/*.h "$PREFIX/include/graphrt_kernel.h" ||
        undeclared+="$sym"$'\n'
done < "$WORK/dynsyms"
[ -z "$undeclared" ] || fail "libgraphrt.so exports names graphrt.h and graphrt_kernel.h do not declare:"$'\n'"$undeclared"
grep -qx grGetDeviceCount "$WORK/dynsyms" || fail "grGetDeviceCount is not exported"
echo "ok: every exported symbol is a public 'gr' function declared in graphrt.h or graphrt_kernel.h"

echo "-- global symbols of $LIBDIR/libgraphrt.a"
nm -g --defined-only "$LIBDIR/libgraphrt.a" 2>/dev/null | awk 'NF >= 3 {print $NF}' | sort -u > "$WORK/staticsyms"
bad=$(grep -v '^gr' "$WORK/staticsyms" || true)
[ -z "$bad" ] || fail "libgraphrt.a defines global names without the 'gr' prefix:"$'\n'"$bad"
echo "ok: $(wc -l < "$WORK/staticsyms") global symbols, all 'gr' prefixed"

echo "-- consumer built with pkg-config"
export PKG_CONFIG_PATH="$LIBDIR/pkgconfig"
flags=$(pkg-config --cflags --libs graphrt)
echo "pkg-config --cflags --libs graphrt: $flags"
echo "pkg-config --modversion graphrt: $(pkg-config --modversion graphrt)"
# shellcheck disable=SC2086  # the flags are meant to split into words
cc -std=c11 -Wall -Wextra -Werror -o "$WORK/consumer-pc" .ci/consumer/consumer.c $flags
# ldd's whole output first: 'ldd | grep -q' fails under pipefail whenever
# grep exits before ldd has written everything (SIGPIPE).
linked=$(LD_LIBRARY_PATH="$LIBDIR" ldd "$WORK/consumer-pc")
grep -q 'libgraphrt\.so' <<<"$linked" ||
    fail "the pkg-config consumer did not link libgraphrt.so"
LD_LIBRARY_PATH="$LIBDIR" "$WORK/consumer-pc"

echo "-- consumer built with find_package(graphrt)"
cmake -S .ci/consumer -B "$WORK/consumer-build" -DCMAKE_PREFIX_PATH="$PREFIX" -DCMAKE_BUILD_TYPE=Release
cmake --build "$WORK/consumer-build"
"$WORK/consumer-build/consumer_static"
LD_LIBRARY_PATH="$LIBDIR" "$WORK/consumer-build/consumer_shared"

echo "-- graphrt.h as C++"
c++ -std=c++11 -Wall -Wextra -Werror -fsyntax-only -x c++ -I"$PREFIX/include" - <<'EOF'
#include <graphrt.h>
int main() { int n = 0; return grGetDeviceCount(&n) == grSuccess ? 0 : 1; }
EOF
echo "ok"

echo "-- graphrt.hpp: a C++ consumer built with pkg-config"
# shellcheck disable=SC2086  # the flags are meant to split into words
c++ -std=c++11 -Wall -Wextra -Wpedantic -Werror -o "$WORK/consumer-cxx" .ci/consumer/consumer.cpp $flags
LD_LIBRARY_PATH="$LIBDIR" "$WORK/consumer-cxx"

echo "-- the graphrt tool"
[ -x "$PREFIX/bin/graphrt" ] || fail "no bin/graphrt under $PREFIX"
LD_LIBRARY_PATH="$LIBDIR" "$PREFIX/bin/graphrt" --help >/dev/null || fail "bin/graphrt --help failed"
echo "ok"

echo "install check passed"
