#!/usr/bin/env bash
# Configures and builds ragmeter into build/ (Release, warnings as errors).
# Usage: scripts/build.sh [target ...]   (no target: everything, tests and benchmarks included)
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${RAGMETER_BUILD_DIR:-build}"
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DRAGMETER_WERROR=ON >/dev/null
targets=()
for t in "$@"; do targets+=(--target "$t"); done
cmake --build "$build_dir" -j "$(nproc)" "${targets[@]}"
