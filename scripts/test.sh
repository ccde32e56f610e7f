#!/usr/bin/env bash
# Sets everything up, builds, and runs every test:
#   1. unit tests and examples (ctest) on the Release build, warnings as errors;
#   2. the unit tests again under AddressSanitizer + UndefinedBehaviorSanitizer;
#   3. the oracle tests against the Python reference implementations and the CLI tests (pytest).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
venv="${RAGMETER_CACHE:-$HOME/.cache/ragmeter}/venv"

echo "== build (Release, -Werror)"
bash scripts/build.sh

echo "== unit tests and examples"
ctest --test-dir build --output-on-failure

echo "== unit tests under address + undefined sanitizers"
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRAGMETER_WERROR=ON \
  -DRAGMETER_SANITIZE=ON -DRAGMETER_BUILD_BENCH=OFF >/dev/null
cmake --build build-asan -j "$(nproc)" --target ragmeter_tests
./build-asan/ragmeter_tests --gtest_brief=1

echo "== oracle and CLI tests"
RAGMETER_BUILD_DIR="$PWD/build" "$venv/bin/python" -m pytest -q tests/oracle tests/cli
