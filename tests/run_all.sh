#!/usr/bin/env bash
# The course's test command: installs what is missing, then builds the solutions on the CPU
# backend and runs every test (backend, tooling, every chapter). No GPU needed. It takes no
# arguments; one chapter's tests: ctest --preset cpu -L chapter3 (after a first run).
set -euo pipefail
if [[ $# -gt 0 ]]; then
  echo "error: run_all.sh takes no arguments, not '$*': it runs every test; one chapter's: ctest --preset cpu -L chapterN" >&2
  exit 2
fi
cd "$(dirname "$0")/.."
bash cmake/install-deps.sh cpu
cmake --workflow --preset cpu
