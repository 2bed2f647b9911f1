#!/usr/bin/env bash
# The HIP backend's configure stops with one message that says what to do, and leaves nothing
# wrong in the cache:
#   1. no HIP toolchain installed (simulated by pointing the search at folders that do not
#      exist): the message names the install command, and no HIP compiler is cached;
#   2. a build folder where an earlier configure cached the wrong compiler: the message says to
#      delete the folder (only where Debian's HIP is installed, as on CI).
#   tests/tooling/hip_toolchain_missing.sh SOURCE_DIR SCRATCH_DIR
set -uo pipefail
source=$1 build=$2
fail() { echo "FAIL: $*"; echo "$output"; exit 1; }
configure() { output=$(cmake -S "$source" -B "$build" -G Ninja -DGPU_BACKEND=HIP -DCMAKE_HIP_ARCHITECTURES=gfx90a "$@" 2>&1); }
flat() { tr -s ' \n' '  ' <<<"$output"; }  # CMake wraps its messages

rm -rf "$build"
configure -DCOURSE_ROCM_ROOT=/nonexistent/rocm -DCOURSE_DEBIAN_HIP_LANG_DIR=/nonexistent/hip-lang && fail "the configure succeeded"
grep -q "bash cmake/install-deps.sh hip" <<<"$(flat)" || fail "the message does not name the install command"
if grep -q "^CMAKE_HIP_COMPILER" "$build/CMakeCache.txt" 2>/dev/null; then fail "a HIP compiler was cached"; fi
echo "no toolchain: one clear error, nothing cached"

if [[ -d /usr/lib/x86_64-linux-gnu/cmake/hip-lang ]] && command -v clang++-15 >/dev/null; then
  rm -rf "$build"
  configure -DCOURSE_ROCM_ROOT=/nonexistent/rocm -DCMAKE_HIP_COMPILER=/usr/bin/c++ && fail "the configure succeeded"
  grep -q "Delete $build and configure again" <<<"$(flat)" || fail "the message does not say to delete the folder"
  echo "a wrong cached compiler: one clear error"
fi
rm -rf "$build"
