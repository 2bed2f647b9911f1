#!/usr/bin/env bash
# Everything chapter 6 measures, on the GPUs of one CUDA machine, into one folder: run it once on
# a one-GPU machine and once on each multi-GPU one (2, 4, 8 GPUs), each into its own folder.
#   chapters/06_multi_gpu/measure.sh OUT_DIR [STAGE...]
# Stages, in order (default: all of them):
#   build     cmake --preset cuda and the chapter's programs (configure.log says where NCCL was found)
#   test      ctest -L chapter6: every step on 1 to 4 ranks, the standing mode, the energy
#   ceilings  course_ceilings: copy, FMA, rsqrt and, with 2 GPUs or more, the peer copy (ceilings.json)
#   bench     strong 1024^3 and weak 512^3 per GPU on 1, 2, 4, ... every GPU here (bench.json)
#   small     strong 256^3 and weak 128^3 per GPU, 100 steps a run: where launches cost (bench-small.json)
#   pulse     the Ricker pulse for the lesson's picture (pulse.json; figures.py draws it)
#   profile   Nsight Compute traffic of step 00 and an Nsight Systems timeline of steps 03-05 (profile/)
#   tables    scaling.py's tables from bench.json and bench-small.json (scaling.md, scaling-small.md)
# Also gpu.txt (nvidia-smi -q) and topology.txt (nvidia-smi topo -m: how the GPUs are linked).
# A failing stage is reported and the others still run; the exit status says whether all passed.
# NVLink multicast stays off (NCCL_NVLS_ENABLE=0).
set -uo pipefail
usage="usage: measure.sh OUT_DIR [build|test|ceilings|bench|small|pulse|profile|tables ...]"
[[ $# -ge 1 && -n $1 && $1 != -* ]] || { echo "error: $usage" >&2; exit 2; }
out=$1
shift
stages=("$@")
((${#stages[@]})) || stages=(build test ceilings bench small pulse profile tables)
for stage in "${stages[@]}"; do
  [[ $stage =~ ^(build|test|ceilings|bench|small|pulse|profile|tables)$ ]] || { echo "error: unknown stage '$stage'; $usage" >&2; exit 2; }
done
nvidia-smi -L >/dev/null 2>&1 || { echo "error: no NVIDIA GPU here (nvidia-smi -L failed)" >&2; exit 2; }
mkdir -p "$out" || { echo "error: cannot create $out" >&2; exit 2; }
out=$(cd "$out" && pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
export NCCL_NVLS_ENABLE=0
export COURSE_GIT_COMMIT=${COURSE_GIT_COMMIT:-$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)}
build=build/cuda
bench=$build/chapters/06_multi_gpu/bench_multi_gpu
failed=()
# stage NAME LOG COMMAND...: runs COMMAND with its output in OUT_DIR/LOG, says how long it took
# and how it ended (with the log's last line), and keeps the names of the stages that failed.
stage() {
  local name=$1 log=$out/$2 started=$SECONDS
  shift 2
  "$@" >"$log" 2>&1
  local status=$?
  printf '%-14s %s after %ds: %s\n' "$name" "$( ((status == 0)) && echo ok || echo "FAILED ($status)")" \
    $((SECONDS - started)) "$(tail -n 1 "$log")"
  ((status == 0)) || failed+=("$name")
}
wanted() { [[ " ${stages[*]} " == *" $1 "* ]]; }

nvidia-smi -q >"$out/gpu.txt" 2>&1
nvidia-smi topo -m >"$out/topology.txt" 2>&1
echo "GPUs: $(nvidia-smi -L | wc -l), results in $out"
if wanted build; then
  stage configure configure.log cmake --preset cuda
  grep -E "NCCL" "$out/configure.log"
  stage build build.log cmake --build --preset cuda --parallel --target test_multi_gpu bench_multi_gpu course_ceilings
fi
wanted test && stage test ctest.log ctest --preset cuda -L '^chapter6$' --parallel 1
wanted ceilings && stage ceilings ceilings.log "$build/common/course_ceilings" --out="$out/ceilings.json"
ceilings=()
[[ -e $out/ceilings.json ]] && ceilings=(--ceilings="$out/ceilings.json")
wanted bench && stage bench bench.log "$bench" "${ceilings[@]}" \
  --benchmark_out="$out/bench.json" --benchmark_out_format=json
wanted small && stage small bench-small.log "$bench" "${ceilings[@]}" --strong=256 --weak=128 --steps=100 \
  --benchmark_out="$out/bench-small.json" --benchmark_out_format=json
wanted pulse && stage pulse pulse.log "$bench" --pulse="$out/pulse.json"
wanted profile && stage profile profile.log chapters/06_multi_gpu/profile.sh "$build" "$out/profile"
if wanted tables; then
  for run in bench bench-small; do
    [[ -e $out/$run.json ]] || continue
    stage "tables $run" "tables${run#bench}.log" python3 chapters/06_multi_gpu/scaling.py "$out/$run.json" \
      "${ceilings[@]}" --out "$out/scaling${run#bench}.md"
  done
fi

if ((${#failed[@]})); then
  echo "FAILED stages: ${failed[*]}"
  exit 1
fi
echo "all stages passed; results in $out"
