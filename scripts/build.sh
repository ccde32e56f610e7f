#!/usr/bin/env bash
# Configures and builds ragmeter into build/ (Release, warnings as errors).
# Usage: scripts/build.sh [extra cmake -D options]
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${RAGMETER_BUILD_DIR:-build}"
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DRAGMETER_WERROR=ON "$@" >/dev/null
cmake --build "$build_dir" -j "$(nproc)"
