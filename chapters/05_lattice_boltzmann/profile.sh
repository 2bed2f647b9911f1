#!/usr/bin/env bash
# Chapter 5's profile per kernel: every step's kernels on a 4096 x 4096 channel, two time steps
# each (so that the in-place steps' two kinds of step are both profiled), under Nsight Compute: memory traffic at L1, L2 (read, write) and HBM, each also as a
# ratio to one state in float32 (4096^2 x 9 x 4 bytes = 604 MB; a float32 fused step's fewest
# bytes are 2 of it, a 16-bit step's 1), duration and achieved HBM bandwidth
# (profiling/traffic.py: OUT_DIR/ncu.csv, traffic.csv, traffic.md).
#   chapters/05_lattice_boltzmann/profile.sh BUILD_DIR OUT_DIR [BENCH_OPTION...]
# (BENCH_OPTION: bench_lbm's own, e.g. --benchmark_filter='1[12]_' for steps 11 and 12 alone.)
# Every step's kernel is named *_kernel; the layout conversions that load and store a state
# (to_*_layout, from_*_layout) and the harness's L2 flush are not, so they are left out. The last
# launch of each kernel is the one reported.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../../profiling/profile_checks.sh"
usage="usage: profile.sh BUILD_DIR OUT_DIR [BENCH_OPTION...]"
[[ $# -ge 2 ]] || { echo "error: $usage" >&2; exit 2; }
build=$1 out=$2
shift 2
check_profile_inputs "$usage" "$build" "$out" chapters/05_lattice_boltzmann/bench_lbm ncu rocprofv3
n=4096
python3 "$here/../../profiling/traffic.py" --kernels '_kernel' --array-bytes $((n * n * 9 * 4)) --out "$out" -- \
  "$build/chapters/05_lattice_boltzmann/bench_lbm" --sizes=${n}x$n --steps=2 --cpu-size=64x64 --repetitions=1 --quiet "$@"
