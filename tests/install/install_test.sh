#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# tests/install/install_test.sh: install the build tree into a fresh prefix, build
# outside.c against it (pkgconfig: cc + pkg-config; cmake: find_package), run it
# with the installed rivetrun -n 2 and check every rank's line.
# usage: install_test.sh pkgconfig|cmake <build dir> <this source dir> <cc>
set -eu
how=$1 bin=$2 src=$3 cc=$4
tmp=$(mktemp -d /tmp/rivet-install-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$bin" --prefix "$tmp/prefix" >/dev/null
case $how in
pkgconfig)
    export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig:$(ls -d "$tmp"/prefix/lib/*/pkgconfig 2>/dev/null | tr '\n' ':')"
    flags=$(pkg-config --cflags --libs rivet)
    echo "pkg-config --cflags --libs rivet: $flags"
    # shellcheck disable=SC2086
    "$cc" -o "$tmp/outside" "$src/outside.c" $flags
    ;;
cmake)
    mkdir -p "$tmp/proj"
    cat > "$tmp/proj/CMakeLists.txt" <<'EOC'
cmake_minimum_required(VERSION 3.18)
project(outside C)
find_package(Rivet REQUIRED)
add_executable(outside outside.c)
target_link_libraries(outside PRIVATE Rivet::rivet)
EOC
    cp "$src/outside.c" "$tmp/proj/"
    cmake -S "$tmp/proj" -B "$tmp/proj/build" -DCMAKE_C_COMPILER="$cc" \
          -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
    cmake --build "$tmp/proj/build" >/dev/null
    cp "$tmp/proj/build/outside" "$tmp/outside"
    ;;
*) echo "install_test.sh: unknown mode $how" >&2; exit 2 ;;
esac
out=$("$tmp/prefix/bin/rivetrun" --timeout 60 -n 2 "$tmp/outside")
echo "$out"
for r in 0 1; do
    echo "$out" | grep -q "^outside: rank $r of 2 exchanged AMs with every rank$" ||
        { echo "install_test.sh: FAIL: no line from rank $r"; exit 1; }
done
echo "install_test.sh: $how: PASS"
