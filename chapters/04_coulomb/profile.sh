#!/usr/bin/env bash
# Chapter 4's profile per kernel: the pipes (multi-function unit, FMA), issue slots, instructions,
# the constant cache's hit rate, and the memory traffic.
#   chapters/04_coulomb/profile.sh BUILD_DIR OUT_DIR
# 2048 x 2048 points, enough blocks to fill the machine as the production size does, and 4096
# atoms: exactly one chunk of constant memory, so that every step is one launch and each
# kernel's counts cover all its work. Every step's kernel is named *_kernel.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../../profiling/profile_checks.sh"
usage="usage: profile.sh BUILD_DIR OUT_DIR"
[[ $# -eq 2 ]] || { echo "error: $usage" >&2; exit 2; }
build=$1 out=$2
check_profile_inputs "$usage" "$build" "$out" chapters/04_coulomb/bench_coulomb ncu rocprofv3
python3 "$here/../../profiling/traffic.py" \
  --kernels '_kernel' \
  --array-bytes $((2048 * 2048 * 4)) \
  --out "$out" -- \
  "$build/chapters/04_coulomb/bench_coulomb" --sizes=2048x2048:4096 --repetitions=1 --quiet
