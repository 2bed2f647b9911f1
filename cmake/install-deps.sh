#!/usr/bin/env bash
# Makes sure this machine can build the course for one backend, installing from Debian 12 /
# Ubuntu 24.04 packages only what is not usable already.
#   cmake/install-deps.sh [cpu|cuda|hip] [plots]     (default: cpu)
# What each needs, and what counts as present:
#   every backend: a C++20 compiler (c++), CMake >= 3.25 (`cmake --version`, wherever it comes
#                  from: apt, pip, conda, Kitware), Ninja (`ninja`), Python 3, and GoogleTest and
#                  Google Benchmark as CMake's find_package finds them (cmake/probe/);
#   cpu:           also Boost.Context (find_package, any version >= 1.74, any package name);
#   cuda:          also NVIDIA's CUDA Toolkit (nvcc on the PATH or in $CUDA_HOME/bin, by default
#                  /usr/local/cuda/bin), which this script does not install;
#   hip:           also a HIP toolchain: ROCm (ROCM_PATH or /opt/rocm), or Debian's hipcc, clang-15,
#                  libamdhip64-dev and rocm-device-libs;
#   plots:         matplotlib for the python3 on the PATH.
# With everything present it changes nothing and needs no network. Missing pieces are installed
# with apt-get (as root, or through sudo); when that is impossible or fails, one line says what
# is missing and how to get it, and the exit status is 1.
# For the tests: COURSE_APT_GET replaces apt-get (a fake package manager).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
usage="cmake/install-deps.sh [cpu|cuda|hip] [plots]"
backend=""
plots=false
for argument in "$@"; do
  case "$argument" in
    cpu | cuda | hip)
      [[ -z $backend || $backend == "$argument" ]] \
        || { echo "error: install-deps.sh: one backend at a time, not both $backend and $argument (usage: $usage)" >&2; exit 2; }
      backend=$argument ;;
    plots) plots=true ;;
    -h | --help) echo "usage: $usage"; exit 0 ;;
    *) echo "error: install-deps.sh: unknown argument '$argument' (usage: $usage)" >&2; exit 2 ;;
  esac
done
backend=${backend:-cpu}

missing=()     # Debian packages to install
unavailable=() # what no package here provides: "what: how to get it"
need() { missing+=("$@"); }

command -v c++ >/dev/null 2>&1 || need g++
command -v python3 >/dev/null 2>&1 || need python3
command -v ninja >/dev/null 2>&1 || need ninja-build
cmake_ok=false
if version=$(cmake --version 2>/dev/null | sed -nE '1s/.* ([0-9]+)\.([0-9]+).*/\1 \2/p') && [[ -n $version ]]; then
  read -r major minor <<<"$version"
  ((major > 3 || (major == 3 && minor >= 25))) && cmake_ok=true
fi
$cmake_ok || need cmake

# The libraries, as the build would find them (only when a usable cmake and compiler are here).
libraries=(GTest benchmark)
[[ $backend == cpu ]] && libraries+=(Boost)
declare -A package=([GTest]=libgtest-dev [benchmark]=libbenchmark-dev [Boost]=libboost-context-dev)
if $cmake_ok && command -v c++ >/dev/null 2>&1; then
  probe=$(mktemp -d)
  usable=$(cmake -S "$here/probe" -B "$probe" 2>/dev/null | sed -n 's/^-- usable: //p')
  rm -rf "$probe"
  for library in "${libraries[@]}"; do grep -qx "$library" <<<"$usable" || need "${package[$library]}"; done
else
  for library in "${libraries[@]}"; do need "${package[$library]}"; done
fi

case "$backend" in
  cuda)
    PATH="$PATH:${CUDA_HOME:-/usr/local/cuda}/bin" command -v nvcc >/dev/null 2>&1 \
      || unavailable+=("CUDA Toolkit (nvcc): install NVIDIA's CUDA Toolkit 12 or newer from developer.nvidia.com/cuda-downloads")
    ;;
  hip)
    if [[ ! -d ${ROCM_PATH:-/opt/rocm}/lib/cmake/hip-lang ]]; then
      command -v hipcc >/dev/null 2>&1 || need hipcc
      command -v clang++-15 >/dev/null 2>&1 || need clang-15
      ls /usr/lib/*/cmake/hip-lang >/dev/null 2>&1 || need libamdhip64-dev
      ls -d /usr/lib/*/amdgcn/bitcode >/dev/null 2>&1 || need rocm-device-libs
    fi
    ;;
esac
if $plots; then python3 -c "import matplotlib" >/dev/null 2>&1 || need python3-matplotlib; fi

if ((${#unavailable[@]})); then
  printf 'install-deps.sh: missing %s\n' "${unavailable[@]}" >&2
  exit 1
fi
((${#missing[@]})) || exit 0

echo "install-deps.sh: installing ${missing[*]}"
apt_get=${COURSE_APT_GET:-apt-get}
sudo=""
if [[ -z ${COURSE_APT_GET:-} && $(id -u) != 0 ]]; then
  if ! command -v sudo >/dev/null 2>&1; then
    echo "install-deps.sh: missing ${missing[*]}; install these packages as root (apt-get install ${missing[*]})" >&2
    exit 1
  fi
  sudo=sudo
fi
if ! { $sudo "$apt_get" update -qq && DEBIAN_FRONTEND=noninteractive $sudo "$apt_get" install -y -qq --no-install-recommends "${missing[@]}"; } >/dev/null 2>&1; then
  echo "install-deps.sh: missing ${missing[*]}, and $apt_get could not install them (no network or no such package?): install them, or their equivalents, yourself" >&2
  exit 1
fi
# Debian's matplotlib serves Debian's python3; another python3 first on the PATH needs its own.
if $plots && ! python3 -c "import matplotlib" >/dev/null 2>&1; then
  echo "install-deps.sh: $(command -v python3) cannot import matplotlib (Debian's package serves /usr/bin/python3): python3 -m pip install matplotlib" >&2
  exit 1
fi
