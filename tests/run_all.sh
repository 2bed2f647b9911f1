#!/usr/bin/env bash
# The course's test command: installs what is missing, then builds the solutions on the CPU
# backend and runs every test (backend, tooling, every chapter). No GPU needed.
set -euo pipefail
cd "$(dirname "$0")/.."
bash cmake/install-deps.sh cpu
cmake --workflow --preset cpu
