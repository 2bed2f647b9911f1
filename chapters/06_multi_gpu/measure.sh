#!/usr/bin/env bash
# What chapter 6 records on a CUDA machine, with every GPU it has, into the course's layout:
#   chapters/06_multi_gpu/measure.sh RESULTS_DIR [validate|extras|mpi]   (default: all three, in order)
#   validate  profiling/validate_gpu.sh RESULTS_DIR 6: build, the chapter's tests, the ceilings
#             (the peer copy too, with 2 GPUs or more), the benchmark (strong 1024^3 and weak
#             512^3 per GPU on 1, 2, 4 ... every GPU), profile.sh (traffic and timeline), the
#             plot; compute-sanitizer only on a machine of one GPU (--no-sanitizers otherwise:
#             what it checks does not depend on the count).
#   extras    into the same folder, RESULTS_DIR/chapters/06_multi_gpu/results/GPU/:
#             bench-small.json (strong 256^3, weak 128^3, 100 steps a run: where launches cost),
#             pulse.json (the Ricker pulse at 128^3, for figures.py --pulse) and topology.txt
#             (nvidia-smi topo -m: how the GPUs are linked), each noted in its README.md.
#   mpi       into the same folder, the ranks as MPI processes (a build that found MPI):
#             bench-mpi-N.json, `mpirun -np N bench_multi_gpu --all` for N = 1, 2, 4 ... every GPU
#             (the threads' bench.json beside it, experiments included), after the tests under mpirun -np 2 and -np N and
#             compute-sanitizer memcheck over a two-rank run of the tests.
# Then copy RESULTS_DIR/chapters/ over chapters/ and run profiling/report.py chapters/06_multi_gpu.
# A GPU model keeps one folder: record it on the machine with the most GPUs of that model (its
# run holds every smaller count too). NVLink multicast stays off (NCCL_NVLS_ENABLE=0).
set -uo pipefail
usage="usage: measure.sh RESULTS_DIR [validate|extras|mpi]"
[[ $# -ge 1 && $# -le 2 && -n $1 && $1 != -* ]] || { echo "error: $usage" >&2; exit 2; }
[[ $# -eq 1 || $2 =~ ^(validate|extras|mpi)$ ]] || { echo "error: '$2' is not validate, extras or mpi; $usage" >&2; exit 2; }
results=$1 part=${2:-all}
[[ $results == /* ]] || results=$PWD/$results  # as given, from here: the script works from the course's root
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU') || { echo "error: no NVIDIA GPU here (nvidia-smi -L failed)" >&2; exit 2; }
export NCCL_NVLS_ENABLE=0
status=0

if [[ $part == all || $part == validate ]]; then
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
  # check NAME COMMAND...: runs it with its output in RESULTS_DIR/NAME.log and notes how it ended
  # in the README (once, however often it ran).
  check() {
    local name=$1 log=$results/ch06-$1.log verdict=passed
    shift
    "$@" >"$log" 2>&1 || { verdict=FAILED; status=1; }
    echo "== $name: $verdict"
    [[ -f $folder/README.md ]] && sed -i "/^- $name: /d" "$folder/README.md"
    echo "- $name: $verdict, by \`chapters/06_multi_gpu/measure.sh\`" >>"$folder/README.md"
  }
  if [[ $part == all || $part == extras ]]; then
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
  if [[ $part == all || $part == mpi ]]; then
    tests=build/cuda/chapters/06_multi_gpu/test_multi_gpu
    mpirun=$(command -v mpirun) || { echo "== mpi: FAILED (no mpirun here)"; exit 1; }
    # A container's root may start ranks only when told so; one rank a GPU, no oversubscription.
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    # The failing-rank test ends its run by MPI_Abort, so it runs alone (as ctest runs it).
    for ranks in 2 "$gpus"; do
      check "the tests as $ranks MPI processes" "$mpirun" -np "$ranks" "$tests" --gtest_brief=1 \
        --gtest_filter='-Hangs.ARankThatFailsEndsTheRunOfTheOthers'
    done
    # NCCL's set-up asks for kernels it has no image of here and handles the error itself; every
    # call of the course's own is checked where it is made, so only memory errors count.
    check "compute-sanitizer memcheck over the tests as 2 MPI processes" "$mpirun" -np 2 \
      compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode=1 "$tests" --gtest_brief=1 \
      --gtest_filter='-Hangs.*'
    for ((ranks = 1; ranks <= gpus; ranks *= 2)); do
      extra "the benchmark as $ranks MPI processes" "bench-mpi-$ranks.json" "$mpirun" -np "$ranks" "$bench" --all \
        "${ceilings[@]}" --benchmark_out="$folder/bench-mpi-$ranks.json" --benchmark_out_format=json
    done
  fi
fi
exit $status
