#!/usr/bin/env bash
# Chapter 3's profile per kernel, every step at 512^3, in two Nsight Compute runs:
#   traffic    memory traffic (L1, L2 read/write, HBM, each also as a ratio to the cube) and the
#              achieved HBM bandwidth (profiling/traffic.py: OUT_DIR/ncu.csv, traffic.csv, traffic.md);
#   resources  registers per thread, static shared memory per block, achieved occupancy and
#              shared-memory instructions per warp (OUT_DIR/resources.csv), the source
#              document's per-kernel figures.
#   chapters/03_seismic/profile.sh BUILD_DIR OUT_DIR [traffic|resources]     (default: both)
# Every step's kernel is named *_kernel (the harness's L2 flush is not), so a new step needs no
# change here; the last launch of each kernel is the timed run.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../../profiling/profile_checks.sh"
usage="usage: profile.sh BUILD_DIR OUT_DIR [traffic|resources]"
[[ $# -eq 2 || $# -eq 3 ]] || { echo "error: $usage" >&2; exit 2; }
build=$1 out=$2 part=${3:-both}
[[ $part =~ ^(traffic|resources|both)$ ]] || { echo "error: '$part' is not traffic, resources or both" >&2; exit 2; }
profilers=(ncu)  # the resources are Nsight Compute's; traffic.py also takes rocprofv3
[[ $part != traffic ]] || profilers+=(rocprofv3)
check_profile_inputs "$usage" "$build" "$out" chapters/03_seismic/bench_seismic "${profilers[@]}"
size=512
bench=("$build/chapters/03_seismic/bench_seismic" --size=$size --repetitions=1 --quiet)
mkdir -p "$out"

if [[ $part != resources ]]; then
  python3 "$here/../../profiling/traffic.py" --kernels '_kernel' --array-bytes $((size * size * size * 4)) \
    --out "$out" -- "${bench[@]}"
fi

if [[ $part != traffic ]]; then
  metrics=gpu__time_duration.sum,launch__registers_per_thread,launch__shared_mem_per_block_static,launch__occupancy_limit_registers,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum,launch__grid_size,launch__block_size
  ncu --clock-control none --metrics "$metrics" --kernel-name regex:'_kernel' \
    --csv --page raw --print-units base --log-file "$out/resources.csv" "${bench[@]}" >/dev/null
  echo "wrote $out/resources.csv"
fi
