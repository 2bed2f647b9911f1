#!/usr/bin/env bash
# The main job: chooses the best backend present (CUDA with an NVIDIA GPU and nvcc, HIP with an
# AMD GPU and hipcc, else the CPU backend), installs only what that backend still lacks
# (cmake/install-deps.sh), builds the solutions, measures this machine's ceilings and runs every
# chapter's benchmark on each step file's taught variant and the peers: a line as each case
# finishes (its median time and the fraction of the ceiling that binds it), then the chapter's
# summary table. --all adds the experiments, the other variants each step file was tried with:
# the whole record, as profiling/validate_gpu.sh records it.
#   profiling/benchmark_all.sh [--all] [other benchmark options, e.g. --repetitions=5]
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/cuda/bin"
if command -v nvcc >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  preset=cuda
elif command -v hipcc >/dev/null && command -v rocminfo >/dev/null && rocminfo >/dev/null 2>&1; then
  preset=hip
else
  preset=cpu
  echo "No usable GPU: benchmarking on the CPU backend (its timings are not GPU timings)."
fi
bash cmake/install-deps.sh "$preset"
export COURSE_GIT_COMMIT=${COURSE_GIT_COMMIT:-$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)}
cmake --preset "$preset"
cmake --build --preset "$preset" --parallel
built=$SECONDS
build="build/$preset"
"$build/common/course_ceilings" --out="$build/ceilings.json"
for bench in "$build"/chapters/*/bench_*; do
  [[ -x $bench && $bench != *.json ]] || continue  # the executables, not their JSON output
  started=$SECONDS
  echo
  echo "=== $bench"
  "$bench" --quiet --ceilings="$build/ceilings.json" --benchmark_out="$bench.json" --benchmark_out_format=json "$@"
  echo "=== $(basename "$bench"): $((SECONDS - started)) s"
done
echo
echo "Main job: $SECONDS s in all, $built s of them installing and building."
echo "Benchmark JSON: $build/chapters/*/bench_*.json (profiling/plot.py draws them)."
