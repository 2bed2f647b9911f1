#!/usr/bin/env bash
# Chapter 2's memory traffic per kernel (L1, L2 read/write, HBM): every step, every stencil.
#   chapters/02_stencil/profile.sh BUILD_DIR OUT_DIR
# At 512^3 the cube (536.9 MB) is far larger than the L2, as the profiler needs.
set -euo pipefail
build=${1:?usage: profile.sh BUILD_DIR OUT_DIR}
out=${2:?usage: profile.sh BUILD_DIR OUT_DIR}
here=$(cd "$(dirname "$0")" && pwd)
size=512
python3 "$here/../../profiling/traffic.py" \
  --kernels 'naive_kernel|coalesced_kernel|shared_tile_kernel|circular_queue_kernel|plane_load_kernel|register_queue_kernel' \
  --array-bytes $((size * size * size * 4)) \
  --out "$out" -- \
  "$build/chapters/02_stencil/bench_stencil" --size=$size --repetitions=1 --quiet
