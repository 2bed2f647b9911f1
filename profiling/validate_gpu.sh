#!/usr/bin/env bash
# The instructor's whole validation on a CUDA machine, in one command:
#   profiling/validate_gpu.sh RESULTS_DIR [CHAPTER...]
# configure + build (cuda preset), ctest, the machine's ceilings, then for each chapter (all, or
# the numbers given: 1 2) its benchmark (JSON), traffic profile and compute-sanitizer (memcheck,
# racecheck, synccheck) over its solution tests.
# Everything lands in RESULTS_DIR; a failing stage is reported and the others still run.
set -uo pipefail
results=${1:?usage: validate_gpu.sh RESULTS_DIR [CHAPTER...]}
shift
for chapter in "$@"; do
  [[ $chapter == [12] ]] || { echo "error: no chapter '$chapter' to validate (chapters: 1 2)" >&2; exit 2; }
done
chapters=" ${*:-1 2} "
mkdir -p "$results"
results=$(cd "$results" && pwd)
cd "$(dirname "$0")/.."
build=build/cuda
export COURSE_GIT_COMMIT=${COURSE_GIT_COMMIT:-$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)}
failed=()
stage() {  # stage NAME LOG COMMAND...: run, log, remember failures
  local name=$1 log=$2; shift 2
  echo "== $name"
  if ! "$@" >"$results/$log" 2>&1; then failed+=("$name"); echo "   FAILED (see $log)"; fi
  tail -n 3 "$results/$log"
}

nvidia-smi -q >"$results/gpu.txt" 2>&1 || true
stage configure configure.log cmake --preset cuda
stage build build.log cmake --build --preset cuda --parallel
stage ctest ctest.log ctest --preset cuda --parallel 16
stage ceilings ceilings.log "$build/common/course_ceilings" --out="$results/ceilings.json"
sanitize() {  # sanitize N TEST: the three compute-sanitizer tools over one chapter's tests
  for tool in memcheck racecheck synccheck; do
    stage "compute-sanitizer $tool (chapter $1)" "sanitizer-$tool-ch0$1.log" \
      timeout 200 compute-sanitizer --tool "$tool" --error-exitcode 1 "$2"
  done
}
if [[ $chapters == *" 1 "* ]]; then
  stage "chapter 1 benchmark" ch01-bench.log "$build/chapters/01_transpose/bench_transpose" \
    --ceilings="$results/ceilings.json" --benchmark_out="$results/ch01-bench.json" --benchmark_out_format=json
  stage "chapter 1 profile" ch01-profile.log chapters/01_transpose/profile.sh "$build" "$results/ch01-profile"
  sanitize 1 "$build/chapters/01_transpose/test_transpose"
fi
if [[ $chapters == *" 2 "* ]]; then
  stage "chapter 2 benchmark" ch02-bench.log "$build/chapters/02_stencil/bench_stencil" \
    --ceilings="$results/ceilings.json" --benchmark_out="$results/ch02-bench.json" --benchmark_out_format=json
  stage "chapter 2 conv3d peer" ch02-conv3d.log python3 chapters/02_stencil/peer_conv3d.py --out "$results/ch02-conv3d.json"
  stage "chapter 2 profile" ch02-profile.log chapters/02_stencil/profile.sh "$build" "$results/ch02-profile"
  sanitize 2 "$build/chapters/02_stencil/test_stencil"
fi

if ((${#failed[@]})); then
  echo "FAILED stages: ${failed[*]}"
  exit 1
fi
echo "all stages passed; results in $results"
