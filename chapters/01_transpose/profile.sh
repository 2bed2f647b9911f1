#!/usr/bin/env bash
# Chapter 1's memory traffic per kernel (L1, L2 read/write, HBM), with Nsight Compute.
#   chapters/01_transpose/profile.sh BUILD_DIR OUT_DIR
# Profiles the transposes and the column consumers at 16384 x 16384 (1073.7 MB, far larger than
# the 60 MB L2, so dirty lines left in L2 at a kernel's end are a small error on HBM writes).
# Every step's kernel is named *_kernel, and so is cuBLAS's geam; the harness's L2 flush is not.
set -euo pipefail
build=${1:?usage: profile.sh BUILD_DIR OUT_DIR}
out=${2:?usage: profile.sh BUILD_DIR OUT_DIR}
here=$(cd "$(dirname "$0")" && pwd)
edge=16384
python3 "$here/../../profiling/traffic.py" \
  --kernels '_kernel' \
  --array-bytes $((edge * edge * 4)) \
  --out "$out" -- \
  "$build/chapters/01_transpose/bench_transpose" --rows=$edge --cols=$edge --repetitions=1 \
  --benchmark_filter='transpose|A\^T x, 2 passes'
