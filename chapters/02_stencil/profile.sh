#!/usr/bin/env bash
# Chapter 2's memory traffic per kernel (L1, L2 read/write, HBM) and what limits it: every step
# for the 27-point box and the radius-2 compound.
#   chapters/02_stencil/profile.sh BUILD_DIR OUT_DIR
# At 512^3 the cube (536.9 MB) is far larger than the L2, as the profiler needs. Every step's
# kernel is named *_kernel (the harness's L2 flush is not), so new steps need no change here.
set -euo pipefail
build=${1:?usage: profile.sh BUILD_DIR OUT_DIR}
out=${2:?usage: profile.sh BUILD_DIR OUT_DIR}
here=$(cd "$(dirname "$0")" && pwd)
size=512
python3 "$here/../../profiling/traffic.py" \
  --kernels '_kernel' \
  --array-bytes $((size * size * size * 4)) \
  --out "$out" -- \
  "$build/chapters/02_stencil/bench_stencil" --size=$size --repetitions=1 --quiet --benchmark_filter="box27|compound_r2"
