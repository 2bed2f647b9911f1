#!/usr/bin/env bash
# The main job: chooses the best backend present (CUDA with an NVIDIA GPU and nvcc, HIP with an
# AMD GPU and hipcc, else the CPU backend), installs only what that backend still lacks
# (cmake/install-deps.sh), builds the solutions, measures this machine's ceilings and runs every
# chapter's benchmark on each step file's taught variant and the peers: a line as each case
# finishes (its median time and the fraction of the ceiling that binds it), then the chapter's
# summary table. --all adds the experiments, the other variants each step file was tried with:
# the whole record, as profiling/validate_gpu.sh records it.
#   profiling/benchmark_all.sh [--all] [--warm-l2] [--repetitions=N] [--benchmark_filter=REGEX]
#                              [--benchmark_context=KEY=VALUE]
# Those are the options every benchmark takes (a chapter's own, such as --rows, go to its
# benchmark alone); they, and the course's environment variables, are checked before anything is
# installed or built.
set -euo pipefail
cd "$(dirname "$0")/.."
refuse() { echo "error: benchmark_all.sh: $*" >&2; exit 2; }
seen=" "
for option in "$@"; do
  name=${option%%=*}
  [[ $seen != *" $name "* ]] || refuse "$name is given twice"
  seen+="$name "
  case $option in
    --all | --warm-l2) ;;
    --repetitions=*)
      value=${option#*=}
      [[ $value =~ ^[0-9]{1,5}$ ]] && ((10#$value >= 1 && 10#$value <= 10000)) \
        || refuse "--repetitions needs a whole number from 1 to 10000, not '$value'" ;;
    --benchmark_filter=?*)
      status=0
      grep -Eq -- "${option#*=}" </dev/null 2>/dev/null || status=$?
      ((status != 2)) || refuse "$option is not a valid regular expression" ;;
    --benchmark_context=?*=*) ;;
    --quiet | --ceilings=* | --benchmark_out=* | --benchmark_out_format=*)
      refuse "$name is set by benchmark_all.sh itself" ;;
    *)
      every="--all, --warm-l2, --repetitions=N, --benchmark_filter=REGEX, --benchmark_context=KEY=VALUE"
      refuse "'$option' is not an option every benchmark takes: $every (a chapter's own go to its benchmark alone)" ;;
  esac
done
# A wrong COURSE_* variable would stop every benchmark after the whole build: said now (once
# install-deps.sh has installed python3, if it was missing).
environment_checked=false
if command -v python3 >/dev/null; then python3 profiling/environment.py || exit 2; environment_checked=true; fi
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
$environment_checked || python3 profiling/environment.py || exit 2
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
