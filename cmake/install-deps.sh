#!/usr/bin/env bash
# Installs what the course needs from Debian 12 / Ubuntu 24.04 packages, only what is missing.
#   cmake/install-deps.sh [cpu|hip|plots]...   (cpu is always included)
# cpu:   compiler, CMake, Ninja, GoogleTest, Google Benchmark, Boost.Context, Python
# hip:   Debian's HIP for AMD GPUs (hipcc, clang-15, the HIP runtime and device libraries)
# plots: matplotlib, for profiling/plot.py
# CUDA comes from NVIDIA's CUDA Toolkit, which this script does not install.
set -euo pipefail
packages=(g++ cmake ninja-build git python3 libgtest-dev libbenchmark-dev libboost-context-dev)
for extra in "$@"; do
  case "$extra" in
    cpu) ;;
    hip) packages+=(hipcc clang-15 libamdhip64-dev rocm-device-libs) ;;
    plots) packages+=(python3-matplotlib) ;;
    *) echo "install-deps.sh: unknown set '$extra' (cpu, hip, plots)" >&2; exit 2 ;;
  esac
done
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]} == 0)); then
  exit 0
fi
echo "installing: ${missing[*]}"
sudo=""
if [[ $(id -u) != 0 ]]; then
  command -v sudo >/dev/null || { echo "install-deps.sh: need root (or sudo) to install ${missing[*]}" >&2; exit 1; }
  sudo=sudo
fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
