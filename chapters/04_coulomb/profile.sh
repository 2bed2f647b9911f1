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

# NVIDIA only: how the compiled hot loops space their MUFU instructions (mufu_spacing.py, from
# cuobjdump -sass of the steps' library), and per-instruction stall sampling of the XU-bound
# kernels (steps 05-07; Nsight Compute's SourceCounters and WarpStateStats sections), summed per
# kernel and reason by stall_reasons.py (stalls-by-reason.txt; the report and its per-instruction
# CSV, 8-9 MB each, stay in a temporary folder).
if command -v cuobjdump >/dev/null && command -v ncu >/dev/null; then
  scratch=$(mktemp -d)
  trap 'rm -rf "$scratch"' EXIT
  cuobjdump -sass "$build/chapters/04_coulomb/lib04_coulomb_steps.a" | python3 "$here/mufu_spacing.py" >"$out/mufu-spacing.txt"
  ncu --clock-control none --section SourceCounters --section WarpStateStats \
    --kernel-name 'regex:^(shared_atoms_kernel|split_kernel|split_balanced_kernel|constant_coarsening_kernel)$' \
    --launch-count 16 -f -o "$scratch/stalls" \
    "$build/chapters/04_coulomb/bench_coulomb" --sizes=2048x2048:4096 --repetitions=1 --quiet \
    --benchmark_filter='05_shared_atoms_8x4|06_split_6_of_32|07_constant_8x4_points$' >/dev/null
  ncu --import "$scratch/stalls.ncu-rep" --page source --print-source sass --csv |
    python3 "$here/stall_reasons.py" >"$out/stalls-by-reason.txt"
fi
