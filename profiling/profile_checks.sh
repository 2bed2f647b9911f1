# What every chapters/*/profile.sh checks before it creates anything or starts a profiler (the
# script sources this file and calls it after checking how many arguments it got):
#   check_profile_inputs USAGE BUILD_DIR OUT_DIR BENCHMARK PROFILER...
# BENCHMARK is the chapter's benchmark under BUILD_DIR; any one of the PROFILERs will do (ncu, or
# ncu and rocprofv3 where profiling/traffic.py picks the one on the PATH). The first problem ends
# the script with one line: exit 2 for a bad argument, 1 for a missing profiler.
check_profile_inputs() {
  local usage=$1 build=$2 out=$3 bench=$4
  shift 4
  [[ -n $build && -n $out ]] || { echo "error: $usage" >&2; exit 2; }
  [[ -d $build ]] || { echo "error: $build: no such build folder ($usage)" >&2; exit 2; }
  [[ -x $build/$bench ]] || {
    echo "error: $build/$bench: not built: give the build folder of a GPU preset that holds it ($usage)" >&2; exit 2; }
  [[ ! -e $out || -d $out ]] || { echo "error: $out: is a file, not a folder for the outputs" >&2; exit 2; }
  local -A described=([ncu]="ncu (NVIDIA's Nsight Compute)" [rocprofv3]="rocprofv3 (ROCm's profiler)"
                      [nsys]="nsys (NVIDIA's Nsight Systems)")
  local profiler wanted=""
  for profiler in "$@"; do
    command -v "$profiler" >/dev/null && return 0
    wanted+=" or ${described[$profiler]}"
  done
  echo "error: ${wanted# or } is not on the PATH" >&2
  exit 1
}
