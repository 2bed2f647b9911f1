#!/usr/bin/env bash
# Configuring the HIP backend where no HIP toolchain is installed (simulated by pointing the
# search at folders that do not exist) stops with one message that names the install command,
# and caches no HIP compiler, so the same build folder configures once the toolchain is there.
#   tests/tooling/hip_toolchain_missing.sh SOURCE_DIR SCRATCH_DIR
set -uo pipefail
source=$1 build=$2
rm -rf "$build"
output=$(cmake -S "$source" -B "$build" -G Ninja -DGPU_BACKEND=HIP -DCMAKE_HIP_ARCHITECTURES=gfx90a \
               -DCOURSE_ROCM_ROOT=/nonexistent/rocm -DCOURSE_DEBIAN_HIP_LANG_DIR=/nonexistent/hip-lang 2>&1)
status=$?
fail() { echo "FAIL: $*"; echo "$output"; exit 1; }
((status != 0)) || fail "the configure succeeded"
flat=$(tr -s ' \n' '  ' <<<"$output")  # CMake wraps its messages
grep -q "bash cmake/install-deps.sh hip" <<<"$flat" || fail "the message does not name the install command"
if grep -q "^CMAKE_HIP_COMPILER" "$build/CMakeCache.txt" 2>/dev/null; then fail "a HIP compiler was cached"; fi
echo "one clear error, nothing cached"
rm -rf "$build"
