#!/usr/bin/env bash
# The instructor's whole validation on a CUDA machine, in one command:
#   profiling/validate_gpu.sh [--dry-run] [--no-sanitizers] RESULTS_DIR [CHAPTER...]
# configure + build (cuda preset), ctest (every test, or the chosen chapters' and the course's
# own), the machine's ceilings, then for each chapter (every chapters/NN_name/, or the numbers
# given: 1 2) what its folder holds, by name:
#   bench_*.cpp  its benchmark with --all (every taught step, experiment and peer), into bench.json
#   peer_*.py    each peer, into <peer>.json (peer_torch.py: torch.json)
#   profile.sh   its traffic profile (ncu.csv, traffic.csv, traffic.md, ...)
#   test_*.cpp   compute-sanitizer (memcheck, racecheck, synccheck) over its solution tests
# and a plot of its benchmark (profiling/plot.py, bench.png). Each chapter's files land in
# RESULTS_DIR/chapters/NN_name/results/GPU/, GPU named after the GPU measured (results.py
# --gpu-folder: h200, h100-80gb-hbm3), with the ceilings and a README.md saying GPU, date, commit
# and how each stage went: the folder the chapter commits as it is (copy RESULTS_DIR/chapters/
# over chapters/, then profiling/report.py chapters/NN_name). The logs stay in RESULTS_DIR. Run
# again into the same RESULTS_DIR, it starts each chosen chapter's folder and the ceilings anew (an
# earlier run's files there are removed first), so nothing stale is named or committed beside a
# stage that failed this time.
# --dry-run prints the stages without running them; --no-sanitizers leaves out compute-sanitizer
# (what it checks does not depend on the GPU: record it on one, save the time on the others). A failing stage is reported and the others
# still run. Bad arguments, a RESULTS_DIR that cannot be created, a course environment variable
# that its programs would refuse (profiling/environment.py), or no NVIDIA GPU stop it at once, in
# one line and with exit status 2, before it writes anything (a dry run reports the missing GPU
# and goes on).
set -uo pipefail
dry_run=false sanitizers=true
while [[ ${1:-} == --dry-run || ${1:-} == --no-sanitizers ]]; do
  [[ $1 == --dry-run ]] && dry_run=true || sanitizers=false
  shift
done
usage="usage: validate_gpu.sh [--dry-run] [--no-sanitizers] RESULTS_DIR [CHAPTER...]"
[[ $# -ge 1 && -n $1 && $1 != -* ]] || { echo "error: $usage" >&2; exit 2; }
results=$1
shift
given="$*"  # the chapters asked for, as given, for the READMEs
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
python3 "$root/profiling/environment.py" || exit 2
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
stages=()          # the stages run, in order
declare -A outcome # stage name -> passed | FAILED (see LOG)
stage() {  # stage NAME LOG COMMAND...: run, log, remember how it went
  local name=$1 log=$2; shift 2
  echo "== $name"
  if $dry_run; then echo "   $*  > $log"; return; fi
  stages+=("$name")
  if "$@" >"$results/$log" 2>&1; then
    outcome[$name]=passed
  else
    failed+=("$name")
    outcome[$name]="FAILED (see $log in the run's folder)"
    echo "   FAILED (see $log)"
  fi
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
$dry_run || rm -f "$results/ceilings.json"  # an earlier run's, which a failed stage would leave to name the GPU
stage ceilings ceilings.log "$build/common/course_ceilings" --out="$results/ceilings.json"
# The GPU the ceilings measured (the benchmarks' device 0), else nvidia-smi's first.
if $dry_run; then
  gpu_folder=GPU
else
  gpu=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["gpu"])' "$results/ceilings.json" 2>/dev/null) \
    || gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
  gpu_folder=$(python3 profiling/results.py --gpu-folder "$gpu") || exit 2
fi

# The README.md of a chapter's results: what ran, where, and how each stage went.
describe_run() {  # describe_run CHAPTER FOLDER N
  local chapter=$1 out=$2 n=$3 name files
  {
    echo "# Chapter $(number_of "$chapter") results on the $gpu"
    echo
    echo "Recorded by \`profiling/validate_gpu.sh $($sanitizers || echo "--no-sanitizers ")RESULTS_DIR${given:+ $given}\` on $(date -u +%F), commit"
    echo "\`$COURSE_GIT_COMMIT\`, on an $gpu (driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -n 1);"
    echo "clocks left as found, \`bench.json\`'s context records them)."
    echo
    echo "| stage | result |"
    echo "|---|---|"
    for name in "${stages[@]}"; do  # the whole run's stages and this chapter's
      [[ $name == ch[0-9][0-9]\ * && $name != "$n "* ]] || echo "| ${name#"$n "} | ${outcome[$name]} |"
    done
    $sanitizers || echo "| compute-sanitizer | not run here (--no-sanitizers): its checks do not depend on the GPU |"
    echo
    files=$(cd "$out" && ls | grep -vx README.md | sed 's/.*/`&`/' | paste -sd, | sed 's/,/, /g')
    echo "Files: ${files:-none}."
  } >"$out/README.md"
}

for chapter in "${selected[@]}"; do
  n=ch${chapter:0:2}
  here=chapters/$chapter
  out=$results/chapters/$chapter/results/$gpu_folder
  if ! $dry_run; then
    mkdir -p "$out"
    find "$out" -maxdepth 1 -type f -delete  # an earlier run's files: the README lists this run's only
  fi
  bench=$(basename "$(ls "$here"/bench_*.cpp)" .cpp)
  test=$(basename "$(ls "$here"/test_*.cpp)" .cpp)
  stage "$n benchmark" "$n-bench.log" "$build/$here/$bench" --all --quiet \
    --ceilings="$results/ceilings.json" --benchmark_out="$out/bench.json" --benchmark_out_format=json
  peers=()
  for peer in "$here"/peer_*.py; do
    [[ -e $peer ]] || continue
    name=$(basename "$peer" .py)
    name=${name#peer_}
    stage "$n peer $name" "$n-$name.log" python3 "$peer" --out "$out/$name.json"
    peers+=(--peers "$out/$name.json")
  done
  if [[ -x $here/profile.sh ]]; then
    stage "$n profile" "$n-profile.log" "$here/profile.sh" "$build" "$out"
  fi
  # NCCL, when it makes a communicator, asks for the attributes of kernels it has no image of for
  # this GPU and handles the "no kernel image" it gets: memcheck would count each as an error. The
  # chapter's own runtime calls are checked by its code, so there API errors are not reported.
  api_errors=()
  [[ $chapter == 06_* ]] && api_errors=(--report-api-errors no)
  for tool in memcheck racecheck synccheck; do
    $sanitizers || continue
    stage "$n compute-sanitizer $tool" "sanitizer-$tool-$n.log" \
      timeout 300 compute-sanitizer --tool "$tool" "${api_errors[@]}" --error-exitcode 1 "$build/$here/$test"
  done
  stage "$n plot" "$n-plot.log" python3 profiling/plot.py "$out/bench.json" \
    --ceilings "$results/ceilings.json" --out "$out/bench.png" "${peers[@]}"
  if ! $dry_run; then
    [[ -f $results/ceilings.json ]] && cp "$results/ceilings.json" "$out/"
    describe_run "$chapter" "$out" "$n"
  fi
done

if ((${#failed[@]})); then
  echo "FAILED stages: ${failed[*]}"
  exit 1
fi
$dry_run || echo "all stages passed; each chapter's results in $results/chapters/NN_name/results/$gpu_folder/"
