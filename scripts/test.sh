#!/usr/bin/env bash
# Sets everything up, builds, and runs every test:
#   1. unit tests and examples (ctest) on the Release build, warnings as errors;
#   2. the unit tests again under AddressSanitizer + UndefinedBehaviorSanitizer;
#   3. the oracle tests against the Python reference implementations, the CLI tests, the
#      `ragmeter run` tests against fake targets (tests/run), the HTML report's tests in
#      headless Chromium (tests/report), and the
#      end-to-end tests against a real local LLM server (llama.cpp, started and stopped here);
#   4. the Python package: a wheel built from python/, installed into a fresh virtual
#      environment, and tests/python run against it (scripts/test_python.sh);
#   5. the Ray path on a local Ray cluster (scripts/test_ray.sh; about 3 minutes, plus the
#      Ray environment's one-time install; RAGMETER_SKIP_RAY=1 leaves it out).
# RAGMETER_SKIP_LLM=1 leaves out the LLM server and its tests (they need a one-time build of
# llama-cpp-python, cached outside the checkout by scripts/setup_llm.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
if [ "${RAGMETER_SKIP_LLM:-0}" != "1" ]; then
  bash scripts/setup_llm.sh >/dev/null
fi
venv="${RAGMETER_CACHE:-$HOME/.cache/ragmeter}/venv"

echo "== build (Release, -Werror)"
bash scripts/build.sh

echo "   (${SECONDS} s since the start)"
echo "== unit tests and examples"
ctest --test-dir build --output-on-failure

echo "   (${SECONDS} s since the start)"
echo "== unit tests under address + undefined sanitizers"
if command -v ccache >/dev/null; then  # as scripts/build.sh: reuse objects across clones
  export CMAKE_CXX_COMPILER_LAUNCHER="${CMAKE_CXX_COMPILER_LAUNCHER:-ccache}"
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}"
  # This build has debug info (-g), for which ccache also hashes the working directory,
  # so no other clone's objects would ever match: leave the directory out.
  export CCACHE_NOHASHDIR=1
fi
# -O1 -g1 (line tables, no variable info): the sanitizers' reports keep file and line, and
# the build compiles in about half the time of RelWithDebInfo's -O2 -g (docs/performance.md,
# "The test suite's own cost").
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRAGMETER_WERROR=ON \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
  -DRAGMETER_SANITIZE=ON -DRAGMETER_BUILD_BENCH=OFF >/dev/null
cmake --build build-asan -j "$(nproc)" --target ragmeter_tests
./build-asan/ragmeter_tests --gtest_brief=1

echo "   (${SECONDS} s since the start)"
echo "== oracle, CLI and local LLM server tests"
RAGMETER_BUILD_DIR="$PWD/build" "$venv/bin/python" -m pytest -q -p no:cacheprovider \
  --durations=15 tests/oracle tests/cli tests/run tests/report tests/llm

echo "   (${SECONDS} s since the start)"
echo "== Python package: build the wheel, install it into a fresh venv, test it"
bash scripts/test_python.sh

echo "   (${SECONDS} s since the start)"
echo "== Ray: ragmeter.ray on a local cluster, the same wheel"
bash scripts/test_ray.sh
echo "== all tests passed in ${SECONDS} s"
