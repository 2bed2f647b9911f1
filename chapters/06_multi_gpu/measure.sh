#!/usr/bin/env bash
# What chapter 6 records on a CUDA machine, with every GPU it has, into the course's layout:
#   chapters/06_multi_gpu/measure.sh RESULTS_DIR [validate|extras]      (default: both, in order)
#   validate  profiling/validate_gpu.sh RESULTS_DIR 6: build, the chapter's tests, the ceilings
#             (the peer copy too, with 2 GPUs or more), the benchmark (strong 1024^3 and weak
#             512^3 per GPU on 1, 2, 4 ... every GPU), profile.sh (traffic and timeline), the
#             plot; compute-sanitizer only on a machine of one GPU (--no-sanitizers otherwise:
#             what it checks does not depend on the count).
#   extras    into the same folder, RESULTS_DIR/chapters/06_multi_gpu/results/GPU/:
#             bench-small.json (strong 256^3, weak 128^3, 100 steps a run: where launches cost),
#             pulse.json (the Ricker pulse at 128^3, for figures.py --pulse) and topology.txt
#             (nvidia-smi topo -m: how the GPUs are linked), each noted in its README.md.
# Then copy RESULTS_DIR/chapters/ over chapters/ and run profiling/report.py chapters/06_multi_gpu.
# A GPU model keeps one folder: record it on the machine with the most GPUs of that model (its
# run holds every smaller count too). NVLink multicast stays off (NCCL_NVLS_ENABLE=0).
set -uo pipefail
usage="usage: measure.sh RESULTS_DIR [validate|extras]"
[[ $# -ge 1 && $# -le 2 && -n $1 && $1 != -* ]] || { echo "error: $usage" >&2; exit 2; }
[[ $# -eq 1 || $2 =~ ^(validate|extras)$ ]] || { echo "error: '$2' is not validate or extras; $usage" >&2; exit 2; }
results=$1 part=${2:-both}
[[ $results == /* ]] || results=$PWD/$results  # as given, from here: the script works from the course's root
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU') || { echo "error: no NVIDIA GPU here (nvidia-smi -L failed)" >&2; exit 2; }
export NCCL_NVLS_ENABLE=0
status=0

if [[ $part != extras ]]; then
  sanitizers=()
  ((gpus == 1)) || sanitizers=(--no-sanitizers)
  profiling/validate_gpu.sh "${sanitizers[@]}" "$results" 6 || status=1
fi

if [[ $part != validate ]]; then
  gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
  folder=$results/chapters/06_multi_gpu/results/$(python3 profiling/results.py --gpu-folder "$gpu") || exit 2
  bench=build/cuda/chapters/06_multi_gpu/bench_multi_gpu
  [[ -x $bench ]] || { echo "error: $bench is not built: run the validate part first" >&2; exit 2; }
  mkdir -p "$folder" || exit 2
  ceilings=()
  [[ -f $folder/ceilings.json ]] && ceilings=(--ceilings="$folder/ceilings.json")
  # extra NAME FILE COMMAND...: runs it with its output in RESULTS_DIR/NAME.log, says how it
  # ended, and notes FILE in the README (once, however often it ran).
  extra() {
    local name=$1 file=$2 log=$results/ch06-$1.log
    shift 2
    if "$@" >"$log" 2>&1; then
      echo "== $name: ok ($file)"
      [[ -f $folder/README.md ]] && sed -i "/^- \`$file\`: /d" "$folder/README.md"
      echo "- \`$file\`: $name, by \`chapters/06_multi_gpu/measure.sh\`" >>"$folder/README.md"
    else
      echo "== $name: FAILED (see $log)"
      status=1
    fi
  }
  extra "small problems" bench-small.json "$bench" "${ceilings[@]}" --strong=256 --weak=128 --steps=100 \
    --benchmark_out="$folder/bench-small.json" --benchmark_out_format=json
  extra "the Ricker pulse" pulse.json "$bench" --pulse="$folder/pulse.json"
  # nvidia-smi writes beside the file, which replaces it only when complete.
  topology() {
    nvidia-smi topo -m >"$folder/topology.txt.partial" && mv "$folder/topology.txt.partial" "$folder/topology.txt" \
      || { rm -f "$folder/topology.txt.partial"; return 1; }
  }
  extra "GPU topology" topology.txt topology
fi
exit $status
