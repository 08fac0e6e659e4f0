#!/usr/bin/env bash
# check_consumer.sh BUILD_DIR CXX VERSION: installs BUILD_DIR into a temporary prefix, then builds
# tests/consumer/main.cpp against that install twice -- as a CMake project (find_package(planlayout))
# and with a plain compiler command from `pkg-config --cflags --libs planlayout` -- runs each and
# checks what it prints. Extra compile/link flags (the sanitizer build's) come from $CXXFLAGS and
# $LDFLAGS, which CMake also reads on its first configure.
set -euo pipefail
build_dir=$1
cxx=$2
version=$3
here=$(cd "$(dirname "$0")" && pwd)

work=$(mktemp -d "${TMPDIR:-/tmp}/planlayout-consumer.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

cmake --install "$build_dir" --prefix "$prefix" >"$work/install.log"

check() {  # check PROGRAM: runs it and checks its output
    local out
    out=$("$1")
    echo "$out"
    grep -qx "planlayout $version schema 1" <<<"$out"
    grep -qx "layout: layouts/seed-2x8-ep16.json (embedded)" <<<"$out"
    grep -qx "nodes: 2 gpus: 16 kinds: [1-9][0-9]*" <<<"$out"
    grep -qx "run_cli: 0 plan-layout $version" <<<"$out"
}

echo "--- find_package(planlayout) with CMAKE_PREFIX_PATH=$prefix"
cmake -S "$here" -B "$work/cmake-build" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CXX_COMPILER="$cxx" \
    -DCMAKE_BUILD_TYPE=Release >"$work/configure.log" || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/cmake-build" >"$work/build.log" || { cat "$work/build.log"; exit 1; }
check "$work/cmake-build/consumer"

echo "--- pkg-config planlayout"
pc=$(find "$prefix" -name planlayout.pc)
[ -n "$pc" ] || { echo "planlayout.pc not installed under $prefix"; exit 1; }
export PKG_CONFIG_PATH
PKG_CONFIG_PATH=$(dirname "$pc")${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
[ "$(pkg-config --modversion planlayout)" = "$version" ]
flags=$(pkg-config --cflags --libs planlayout)
echo "pkg-config --cflags --libs planlayout: $flags"
# shellcheck disable=SC2086  # the flags are meant to split
"$cxx" -std=c++17 ${CXXFLAGS:-} "$here/main.cpp" -o "$work/pc-consumer" ${LDFLAGS:-} $flags
check "$work/pc-consumer"
echo "consumer: OK"
