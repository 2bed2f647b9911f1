#!/usr/bin/env bash
# Chapter 1's memory traffic per kernel (L1, L2 read/write, HBM), with Nsight Compute.
#   chapters/01_transpose/profile.sh BUILD_DIR OUT_DIR
# Profiles the transposes and the column consumers at 16384 x 16384 (1073.7 MB, far larger than
# the 60 MB L2, so dirty lines left in L2 at a kernel's end are a small error on HBM writes).
# Every step's kernel is named *_kernel, and so is cuBLAS's geam; the harness's L2 flush is not.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../../profiling/profile_checks.sh"
usage="usage: profile.sh BUILD_DIR OUT_DIR"
[[ $# -eq 2 ]] || { echo "error: $usage" >&2; exit 2; }
build=$1 out=$2
check_profile_inputs "$usage" "$build" "$out" chapters/01_transpose/bench_transpose ncu rocprofv3
edge=16384
python3 "$here/../../profiling/traffic.py" \
  --kernels '_kernel' \
  --array-bytes $((edge * edge * 4)) \
  --out "$out" -- \
  "$build/chapters/01_transpose/bench_transpose" --rows=$edge --cols=$edge --repetitions=1 \
  --benchmark_filter='transpose|A\^T x, 2 passes'
