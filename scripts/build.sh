#!/usr/bin/env bash
# Configures and builds ragmeter into build/ (Release, warnings as errors).
# Usage: scripts/build.sh [target ...]   (no target: everything, tests and benchmarks included)
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${RAGMETER_BUILD_DIR:-build}"
# ccache (installed by setup.sh) keeps compiled objects in ~/.ccache; with the checkout as base
# directory a fresh clone elsewhere (CI) reuses them, so a rebuild costs only what changed.
if command -v ccache >/dev/null; then
  export CMAKE_CXX_COMPILER_LAUNCHER="${CMAKE_CXX_COMPILER_LAUNCHER:-ccache}"
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}"
fi
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DRAGMETER_WERROR=ON >/dev/null
targets=()
for t in "$@"; do targets+=(--target "$t"); done
cmake --build "$build_dir" -j "$(nproc)" "${targets[@]}"
