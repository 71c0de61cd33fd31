#!/bin/sh
# `cmake --install` (cmake/install.cmake): the installed tree, moved elsewhere (it is
# relocatable, as the Python wheel needs), serves a plugin author: the example plugin
# (conformance/examples/naive_plugin.c) built out of tree against the installed package, once with
# find_package(optcert) and once with pkg-config, and certified by the installed optcert with
# the installed vectors and fast backend.
#   install_package.sh BUILD_DIR
set -eu
build=$(cd "$1" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "install_package: $*"; [ -f "$tmp/out" ] && cat "$tmp/out"; exit 1; }
cmake --install "$build" --prefix "$tmp/stage" >/dev/null
mv "$tmp/stage" "$tmp/prefix"
prefix=$tmp/prefix
optcert=$prefix/bin/optcert
[ -f "$prefix/include/optcert/impl.h" ] || fail "no include/optcert/impl.h"
[ -d "$prefix/share/optcert/vectors/gen" ] && fail "the generator's sources were installed"
# The installed headers' contracts read as the proofs read them: optcert/mixed.h includes the
# generated element-wise ACSL under __FRAMAC__ (cmake/install.cmake installs it beside it).
logic=elementwise_logic.h
[ -f "$prefix/include/optcert/$logic" ] || fail "no $logic beside the installed optcert/mixed.h"
if command -v frama-c >/dev/null; then
    printf '#include "optcert/guarded_step.h"\n#include "optcert/elementwise.h"\n' >"$tmp/acsl.c"
    frama-c -cpp-extra-args="-I$prefix/include" "$tmp/acsl.c" >"$tmp/out" 2>&1 &&
        ! grep -q "annot-error" "$tmp/out" || fail "Frama-C does not read the installed headers"
fi

# The installed optcert reads the installed vectors, not the source tree's.
"$optcert" vectors check >"$tmp/out" || fail "installed vectors do not match their manifest"
grep -qF "$prefix/bin/../share/optcert/vectors/MANIFEST.sha256: matches the files" "$tmp/out" ||
    fail "installed optcert does not use the installed vectors"

# find_package(optcert): a plugin project of its own.
mkdir "$tmp/cmake-plugin"
cat >"$tmp/cmake-plugin/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.20)
project(naive_plugin_outside LANGUAGES C)
find_package(optcert 0.1 REQUIRED)
add_library(naive MODULE $src/conformance/examples/naive_plugin.c)
target_compile_options(naive PRIVATE -O2 -ffp-contract=fast)
target_link_libraries(naive PRIVATE optcert::impl m)
file(GENERATE OUTPUT \${CMAKE_BINARY_DIR}/certify.sh CONTENT
     "exec \$<TARGET_FILE:optcert::optcert> certify --impl \$<TARGET_FILE:naive> \"\\\$@\"\n")
CMAKE
cmake -S "$tmp/cmake-plugin" -B "$tmp/cmake-plugin/build" -DCMAKE_PREFIX_PATH="$prefix" >"$tmp/out" ||
    fail "find_package(optcert) failed"
cmake --build "$tmp/cmake-plugin/build" >"$tmp/out" 2>&1 || fail "plugin build (find_package) failed"
grep -qF "exec $prefix/bin/optcert certify" "$tmp/cmake-plugin/build/certify.sh" ||
    fail "optcert::optcert is not the installed optcert"
sh "$tmp/cmake-plugin/build/certify.sh" >"$tmp/out" || fail "find_package plugin does not conform"
grep -q "^verdict: CONFORMS$" "$tmp/out" && grep -q "vectors: the shipped vectors" "$tmp/out" ||
    fail "find_package plugin: no conforming certificate on the shipped vectors"

# pkg-config: the same plugin by hand.
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
cflags=$(pkg-config --cflags optcert) || fail "pkg-config optcert failed"
pc_optcert=$(pkg-config --variable=optcert optcert)
[ "$(cd "$(dirname "$pc_optcert")" && pwd)" = "$prefix/bin" ] || fail "pkg-config optcert=$pc_optcert"
[ -f "$(pkg-config --variable=vectorsdir optcert)/MANIFEST.sha256" ] || fail "pkg-config vectorsdir"
# shellcheck disable=SC2086 # cflags is a list of flags
cc -O2 -ffp-contract=fast -shared -fPIC $cflags "$src/conformance/examples/naive_plugin.c" -lm \
    -o "$tmp/libnaive_pc.so" || fail "plugin build (pkg-config) failed"
"$pc_optcert" certify --impl "$tmp/libnaive_pc.so" >"$tmp/out" || fail "pkg-config plugin does not conform"
grep -q "^verdict: CONFORMS$" "$tmp/out" || fail "pkg-config plugin: no conforming certificate"

# The installed fast backend is the one loaded (when this build has it).
if [ -d "$prefix/lib/optcert" ]; then
    LD_DEBUG=files "$optcert" certify --impl fast-cpu --family adam-torch >"$tmp/out" 2>&1 ||
        fail "installed fast-cpu does not conform"
    grep -qF "file=$prefix/bin/../lib/optcert/liboptcert_fast_cpu_plugin.so" "$tmp/out" ||
        fail "installed optcert did not load the installed fast-cpu backend"
fi
echo "install_package: find_package and pkg-config plugins certified by the installed optcert"
