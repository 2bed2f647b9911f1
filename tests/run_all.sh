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
# A wrong COURSE_* or GTEST_* variable would fail every test after the whole build: said now (once
# install-deps.sh has installed python3, if it was missing).
environment_checked=false
if command -v python3 >/dev/null; then python3 profiling/environment.py || exit 2; environment_checked=true; fi
bash cmake/install-deps.sh cpu
$environment_checked || python3 profiling/environment.py || exit 2
cmake --workflow --preset cpu
