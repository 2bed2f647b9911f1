#!/usr/bin/env bash
# Chapter 3's profile per kernel, every step at 512^3, in three Nsight Compute runs:
#   traffic    memory traffic (L1, L2 read/write, HBM, each also as a ratio to the cube) and the
#              achieved HBM bandwidth (profiling/traffic.py: OUT_DIR/ncu.csv, traffic.csv, traffic.md);
#   resources  registers per thread, static shared memory per block, achieved occupancy and
#              shared-memory instructions per warp (OUT_DIR/resources.csv), the source
#              document's per-kernel figures;
#   stalls     what the warps wait for and what the memory side carries (OUT_DIR/stalls.csv): per
#              stall reason the cycles a warp spends on it per instruction issued (they add up to
#              the cycles between two of its instructions), issue and achieved occupancy; the L2's
#              throughput (all its traffic, bytes per second), its read and write sectors and hit
#              rate; DRAM's read and write bytes apart. tables.py's stalls table reads it.
#   chapters/03_seismic/profile.sh BUILD_DIR OUT_DIR [traffic|resources|stalls]     (default: all three)
# Every step's kernel is named *_kernel (the harness's L2 flush is not), so a new step needs no
# change here; the last launch of each kernel is the timed run.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../../profiling/profile_checks.sh"
usage="usage: profile.sh BUILD_DIR OUT_DIR [traffic|resources|stalls]"
[[ $# -eq 2 || $# -eq 3 ]] || { echo "error: $usage" >&2; exit 2; }
build=$1 out=$2 part=${3:-all}
[[ $part =~ ^(traffic|resources|stalls|all)$ ]] || { echo "error: '$part' is not traffic, resources, stalls or all" >&2; exit 2; }
profilers=(ncu)  # the resources and stalls are Nsight Compute's; traffic.py also takes rocprofv3
[[ $part != traffic ]] || profilers+=(rocprofv3)
check_profile_inputs "$usage" "$build" "$out" chapters/03_seismic/bench_seismic "${profilers[@]}"
size=512
bench=("$build/chapters/03_seismic/bench_seismic" --size=$size --repetitions=1 --quiet)
mkdir -p "$out"

if [[ $part == traffic || $part == all ]]; then
  python3 "$here/../../profiling/traffic.py" --kernels '_kernel' --array-bytes $((size * size * size * 4)) \
    --out "$out" -- "${bench[@]}"
fi

if [[ $part == resources || $part == all ]]; then
  metrics=gpu__time_duration.sum,launch__registers_per_thread,launch__shared_mem_per_block_static,launch__occupancy_limit_registers,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum,launch__grid_size,launch__block_size
  ncu --clock-control none --metrics "$metrics" --kernel-name regex:'_kernel' \
    --csv --page raw --print-units base --log-file "$out/resources.csv" "${bench[@]}" >/dev/null
  echo "wrote $out/resources.csv"
fi

if [[ $part == stalls || $part == all ]]; then
  # WarpStateStats brings smsp__average_warps_issue_stalled_<reason>_per_issue_active.ratio for
  # every reason this GPU has; the rest are asked for by name, those this Nsight Compute does not
  # know left out (one unknown metric would stop the whole run).
  wanted="gpu__time_duration.sum smsp__inst_executed.sum smsp__issue_active.avg.pct_of_peak_sustained_active
          sm__warps_active.avg.pct_of_peak_sustained_active smsp__average_warp_latency_per_inst_issued.ratio
          lts__t_bytes.sum.per_second lts__t_sectors_op_read.sum lts__t_sectors_op_write.sum
          lts__t_sector_hit_rate.pct dram__bytes_read.sum dram__bytes_write.sum
          dram__throughput.avg.pct_of_peak_sustained_elapsed launch__registers_per_thread"
  known=$(ncu --query-metrics 2>/dev/null | awk '{print $1}' || true)
  metrics=$(for metric in $wanted; do
              if [[ -z $known ]] || grep -qx "${metric%%.*}" <<<"$known"; then echo "$metric"; fi
            done | paste -sd,)
  ncu --clock-control none --section WarpStateStats --metrics "$metrics" --kernel-name regex:'_kernel' \
    --csv --page raw --print-units base --log-file "$out/stalls.csv" "${bench[@]}" >/dev/null
  echo "wrote $out/stalls.csv"
fi
