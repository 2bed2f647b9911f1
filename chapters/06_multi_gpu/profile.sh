#!/usr/bin/env bash
# Chapter 6's profiles, on this machine's GPUs:
#   traffic   step 00 at 512^3 on one GPU under Nsight Compute: the leapfrog kernel's and the
#             images' traffic at L1, L2 and HBM, each as a ratio to one 512^3 field (the update
#             must move 3: read u and u(n-1), write u(n+1)), with duration and achieved HBM
#             bandwidth (profiling/traffic.py: OUT_DIR/ncu.csv, traffic.csv, traffic.md);
#   timeline  steps 03, 04 and 05, 5 time steps a run, weak scaling at 512^3 per GPU on 1, 2, 4 ...
#             GPUs under Nsight Systems: every kernel and copy of every GPU with its stream, start
#             and end (OUT_DIR/timeline_cuda_gpu_trace.csv), where step 04's exchange should lie
#             under its interior kernel. (The report itself, large, is not kept.)
#   chapters/06_multi_gpu/profile.sh BUILD_DIR OUT_DIR [traffic|timeline]
# (default: both, the timeline only where nsys is on the PATH: the course's H100 and H200 machines
# have none that works, so there the default says so in one line and records the traffic.)
# Every step's kernel is named *_kernel (the state's fill and the harness's L2 flush are not).
# NVLink multicast stays off (NCCL_NVLS_ENABLE=0), as in every program of the chapter.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../../profiling/profile_checks.sh"
usage="usage: profile.sh BUILD_DIR OUT_DIR [traffic|timeline]"
[[ $# -eq 2 || $# -eq 3 ]] || { echo "error: $usage" >&2; exit 2; }
build=$1 out=$2 part=${3:-both}
[[ $part =~ ^(traffic|timeline|both)$ ]] || { echo "error: '$part' is not traffic, timeline or both" >&2; exit 2; }
profilers=(ncu)
[[ $part != timeline ]] || profilers=(nsys)
check_profile_inputs "$usage" "$build" "$out" chapters/06_multi_gpu/bench_multi_gpu "${profilers[@]}"
if [[ $part == both ]] && ! command -v nsys >/dev/null; then
  echo "note: nsys (NVIDIA's Nsight Systems) is not on the PATH: no timeline here, the traffic only"
  part=traffic
fi
export NCCL_NVLS_ENABLE=0
size=512
bench=$build/chapters/06_multi_gpu/bench_multi_gpu
mkdir -p "$out"

if [[ $part != timeline ]]; then
  python3 "$here/../../profiling/traffic.py" --kernels '_kernel' --array-bytes $((size * size * size * 4)) --out "$out" -- \
    "$bench" --gpus=1 --weak=$size --strong=64 --steps=1 --repetitions=1 --quiet --benchmark_filter="weak.*/00_one_gpu x1\$"
fi

if [[ $part != traffic ]]; then
  report=$(mktemp -d)
  trap 'rm -rf "$report"' EXIT
  nsys profile --trace=cuda,nvtx --output="$report/timeline" \
    "$bench" --weak=$size --strong=64 --steps=5 --repetitions=1 --quiet --benchmark_filter='weak.*/0[345]_'
  nsys stats --report cuda_gpu_trace --format csv --force-overwrite=true --output="$out/timeline" "$report/timeline.nsys-rep" >/dev/null
  echo "wrote $out/timeline_cuda_gpu_trace.csv"
fi
