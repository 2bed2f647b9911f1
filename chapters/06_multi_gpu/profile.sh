#!/usr/bin/env bash
# Chapter 6's profiles, on this machine's GPUs:
#   traffic   step 00 at 512^3 on one GPU under Nsight Compute: the leapfrog kernel's and the
#             images' traffic at L1, L2 and HBM, each as a ratio to one 512^3 field (the update
#             must move 3: read u and u(n-1), write u(n+1)), with duration and achieved HBM
#             bandwidth (profiling/traffic.py: OUT_DIR/ncu.csv, traffic.csv, traffic.md);
#   timeline  steps 03, 04 and 05, 5 time steps a run, on 1, 2, 4 ... GPUs (weak scaling at 512^3
#             per GPU) under Nsight Systems: OUT_DIR/timeline.nsys-rep, and every kernel and copy
#             of every GPU with its start and end in OUT_DIR/timeline_cuda_gpu_trace.csv, where
#             step 04's exchange should lie under its interior kernel.
#   chapters/06_multi_gpu/profile.sh BUILD_DIR OUT_DIR [traffic|timeline]     (default: both)
# NVLink multicast stays off (NCCL_NVLS_ENABLE=0), as in every program of the chapter.
set -euo pipefail
usage="usage: profile.sh BUILD_DIR OUT_DIR [traffic|timeline]"
build=${1:?$usage}
out=${2:?$usage}
part=${3:-both}
[[ $part =~ ^(traffic|timeline|both)$ ]] || { echo "error: '$part' is not traffic, timeline or both" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
bench=$build/chapters/06_multi_gpu/bench_multi_gpu
[[ -x $bench ]] || { echo "error: $bench is not built (cmake --build $build --target bench_multi_gpu)" >&2; exit 2; }
export NCCL_NVLS_ENABLE=0
size=512
mkdir -p "$out"

if [[ $part != timeline ]]; then
  python3 "$here/../../profiling/traffic.py" --kernels '_kernel' --array-bytes $((size * size * size * 4)) --out "$out" -- \
    "$bench" --gpus=1 --weak=$size --strong=64 --steps=1 --repetitions=1 --quiet --benchmark_filter="weak.*/00_one_gpu x1\$"
fi

if [[ $part != traffic ]]; then
  if ! command -v nsys >/dev/null; then
    echo "error: nsys (Nsight Systems) is not on the PATH: no timeline" >&2
    exit 1
  fi
  nsys profile --trace=cuda,nvtx --force-overwrite=true --output="$out/timeline" \
    "$bench" --weak=$size --strong=64 --steps=5 --repetitions=1 --quiet --benchmark_filter='weak.*/0[345]_'
  nsys stats --report cuda_gpu_trace --format csv --force-overwrite=true --output="$out/timeline" "$out/timeline.nsys-rep" >/dev/null
  echo "wrote $out/timeline.nsys-rep and $out/timeline_cuda_gpu_trace.csv"
fi
