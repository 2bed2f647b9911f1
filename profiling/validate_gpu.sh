#!/usr/bin/env bash
# The instructor's whole validation on a CUDA machine, in one command:
#   profiling/validate_gpu.sh [--dry-run] RESULTS_DIR [CHAPTER...]
# configure + build (cuda preset), ctest (every test, or the chosen chapters' and the course's
# own), the machine's ceilings, then for each chapter (every chapters/NN_name/, or the numbers
# given: 1 2) what its folder holds, by name:
#   bench_*.cpp  its benchmark, with --benchmark_out=RESULTS_DIR/chNN-bench.json
#   peer_*.py    each peer, with --out RESULTS_DIR/chNN-<peer>.json
#   profile.sh   its traffic profile, into RESULTS_DIR/chNN-profile/
#   test_*.cpp   compute-sanitizer (memcheck, racecheck, synccheck) over its solution tests
# and a plot of its benchmark (profiling/plot.py). --dry-run prints the stages without running them.
# Everything lands in RESULTS_DIR; a failing stage is reported and the others still run. Bad
# arguments, a RESULTS_DIR that cannot be created, or no NVIDIA GPU stop it at once, in one line
# and with exit status 2, before it writes anything (a dry run reports the missing GPU and goes on).
set -uo pipefail
dry_run=false
if [[ ${1:-} == --dry-run ]]; then dry_run=true; shift; fi
usage="usage: validate_gpu.sh [--dry-run] RESULTS_DIR [CHAPTER...]"
[[ $# -ge 1 && -n $1 && $1 != -* ]] || { echo "error: $usage" >&2; exit 2; }
results=$1
shift
root=$(cd "$(dirname "$0")/.." && pwd)

chapters=()
for folder in "$root"/chapters/[0-9][0-9]_*/; do chapters+=("$(basename "$folder")"); done
number_of() { sed -E 's/^0*([0-9])/\1/; s/_.*//' <<<"$1"; }  # "04_coulomb" -> 4, "007" -> 7, as text
numbers=$(for chapter in "${chapters[@]}"; do number_of "$chapter"; done | paste -sd' ')
selected=()
for wanted in "$@"; do
  [[ $wanted =~ ^[0-9]+$ ]] || { echo "error: '$wanted' is not a chapter number (chapters: $numbers)" >&2; exit 2; }
  match=""
  for chapter in "${chapters[@]}"; do
    [[ $(number_of "$chapter") == $(number_of "$wanted") ]] && match=$chapter
  done
  [[ -n $match ]] || { echo "error: no chapter $wanted to validate (chapters: $numbers)" >&2; exit 2; }
  [[ " ${selected[*]} " == *" $match "* ]] || selected+=("$match")
done
((${#selected[@]})) || selected=("${chapters[@]}")

# The results folder: there already, or creatable (its nearest existing ancestor a writable folder).
ancestor=$results
while [[ ! -e $ancestor ]]; do ancestor=$(dirname "$ancestor"); done
if [[ ! -d $ancestor ]]; then
  echo "error: $results: cannot create the results folder ($ancestor is not a folder)" >&2; exit 2
elif [[ ! -w $ancestor ]]; then
  echo "error: $results: cannot create the results folder ($ancestor is not writable)" >&2; exit 2
fi
no_gpu="no NVIDIA GPU here (nvidia-smi -L failed): this script validates on a CUDA machine"
if $dry_run; then
  nvidia-smi -L >/dev/null 2>&1 || echo "note: $no_gpu; a real run would stop here" >&2
else
  nvidia-smi -L >/dev/null 2>&1 || { echo "error: $no_gpu" >&2; exit 2; }
  absolute=$(mkdir -p "$results" 2>&1 && cd "$results" 2>&1 && pwd) \
    || { echo "error: $results: cannot create the results folder (${absolute##*: })" >&2; exit 2; }
  results=$absolute
fi
cd "$root"
build=build/cuda
export COURSE_GIT_COMMIT=${COURSE_GIT_COMMIT:-$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)}
failed=()
stage() {  # stage NAME LOG COMMAND...: run, log, remember failures
  local name=$1 log=$2; shift 2
  echo "== $name"
  if $dry_run; then echo "   $*  > $log"; return; fi
  if ! "$@" >"$results/$log" 2>&1; then failed+=("$name"); echo "   FAILED (see $log)"; fi
  tail -n 3 "$results/$log"
}

$dry_run || nvidia-smi -q >"$results/gpu.txt" 2>&1
stage configure configure.log cmake --preset cuda
stage build build.log cmake --build --preset cuda --parallel
if (($#)); then  # the chosen chapters' tests, and the course's own
  labels=$(printf '%s\n' "${selected[@]}" | sed -E 's/^0?([0-9]+)_.*/chapter\1/' | paste -sd'|')
  stage ctest ctest.log ctest --preset cuda --parallel 16 -L "^($labels|tooling|backend)$"
else
  stage ctest ctest.log ctest --preset cuda --parallel 16
fi
stage ceilings ceilings.log "$build/common/course_ceilings" --out="$results/ceilings.json"
for chapter in "${selected[@]}"; do
  n=ch${chapter:0:2}
  here=chapters/$chapter
  bench=$(basename "$(ls "$here"/bench_*.cpp)" .cpp)
  test=$(basename "$(ls "$here"/test_*.cpp)" .cpp)
  stage "$n benchmark" "$n-bench.log" "$build/$here/$bench" \
    --ceilings="$results/ceilings.json" --benchmark_out="$results/$n-bench.json" --benchmark_out_format=json
  peers=()
  for peer in "$here"/peer_*.py; do
    [[ -e $peer ]] || continue
    name=$(basename "$peer" .py)
    name=${name#peer_}
    stage "$n peer $name" "$n-$name.log" python3 "$peer" --out "$results/$n-$name.json"
    peers+=(--peers "$results/$n-$name.json")
  done
  if [[ -x $here/profile.sh ]]; then
    stage "$n profile" "$n-profile.log" "$here/profile.sh" "$build" "$results/$n-profile"
  fi
  for tool in memcheck racecheck synccheck; do
    stage "$n compute-sanitizer $tool" "sanitizer-$tool-$n.log" \
      timeout 300 compute-sanitizer --tool "$tool" --error-exitcode 1 "$build/$here/$test"
  done
  stage "$n plot" "$n-plot.log" python3 profiling/plot.py "$results/$n-bench.json" \
    --ceilings "$results/ceilings.json" --out "$results/$n-bench.png" "${peers[@]}"
done

if ((${#failed[@]})); then
  echo "FAILED stages: ${failed[*]}"
  exit 1
fi
$dry_run || echo "all stages passed; results in $results"
