#!/usr/bin/env bash
# Chapter 2's profile per kernel, every step for the 7-point star, the 27-point box and the
# radius-2 compound, in two Nsight Compute runs:
#   traffic  memory traffic (L1, L2 read/write, HBM) and how busy each unit is
#            (profiling/traffic.py: OUT_DIR/ncu.csv, traffic.csv, traffic.md);
#   stalls   why warps wait: for each reason, the cycles a warp spends stalled on it per
#            instruction it issues (they add up to the cycles between two of its instructions),
#            with the instructions executed and how often the schedulers issue (OUT_DIR/stalls.csv).
#   chapters/02_stencil/profile.sh BUILD_DIR OUT_DIR [traffic|stalls]     (default: both)
# At 512^3 the cube (536.9 MB) is far larger than the L2, as the profiler needs. Every step's
# kernel is named *_kernel (the harness's L2 flush is not), so new steps need no change here.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../../profiling/profile_checks.sh"
usage="usage: profile.sh BUILD_DIR OUT_DIR [traffic|stalls]"
[[ $# -eq 2 || $# -eq 3 ]] || { echo "error: $usage" >&2; exit 2; }
build=$1 out=$2 part=${3:-both}
[[ $part =~ ^(traffic|stalls|both)$ ]] || { echo "error: '$part' is not traffic, stalls or both" >&2; exit 2; }
profilers=(ncu)  # the stalls are Nsight Compute's; traffic.py also takes rocprofv3
[[ $part != traffic ]] || profilers+=(rocprofv3)
check_profile_inputs "$usage" "$build" "$out" chapters/02_stencil/bench_stencil "${profilers[@]}"
size=512
bench=("$build/chapters/02_stencil/bench_stencil" --size=$size --repetitions=1 --quiet
       --benchmark_filter="star7|box27|compound_r2")
mkdir -p "$out"

if [[ $part != stalls ]]; then
  python3 "$here/../../profiling/traffic.py" --kernels '_kernel' --array-bytes $((size * size * size * 4)) \
    --out "$out" -- "${bench[@]}"
fi

if [[ $part != traffic ]]; then
  reasons="barrier branch_resolving dispatch_stall drain imc_miss lg_throttle long_scoreboard math_pipe_throttle
           membar mio_throttle misc no_instruction not_selected selected short_scoreboard sleeping tex_throttle wait"
  wanted="gpu__time_duration.sum smsp__inst_executed.sum smsp__issue_active.avg.pct_of_peak_sustained_active
          sm__warps_active.avg.pct_of_peak_sustained_active smsp__average_warp_latency_per_inst_issued.ratio
          launch__registers_per_thread"
  for reason in $reasons; do wanted+=" smsp__average_warps_issue_stalled_${reason}_per_issue_active.ratio"; done
  # Only the metrics this GPU's Nsight Compute knows: an unknown one would stop the whole run.
  known=$(ncu --query-metrics 2>/dev/null | awk '{print $1}' || true)
  metrics=$(for m in $wanted; do if grep -qx "${m%%.*}" <<<"$known"; then echo "$m"; fi; done | paste -sd,)
  [[ -n $metrics ]] || metrics=$(tr -s ' \n' ',' <<<"$wanted" | sed 's/^,//; s/,$//')
  # Clocks as found, as traffic.py leaves them; the last launch of each kernel is the timed run.
  ncu --clock-control none --section WarpStateStats --metrics "$metrics" --kernel-name regex:'_kernel' \
    --csv --page raw --print-units base --log-file "$out/stalls.csv" "${bench[@]}" >/dev/null
  echo "wrote $out/stalls.csv"
fi
