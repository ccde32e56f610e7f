#!/usr/bin/env bash
# Builds the Python package's wheel, installs it into a fresh virtual environment and runs
# tests/python against the installed package (not the source tree).
#   - the wheel is built from python/ with the build tools of $RAGMETER_CACHE/pyenv (set up
#     by scripts/setup.sh), with ccache and an incremental build directory, two jobs;
#   - the fresh environment is a new venv each run; the test-only packages (pandas,
#     datasets, pytest, the oracles) come from the cached pyenv through a .pth file, so
#     nothing but the wheel is installed into it;
#   - RAGMETER_BUILD_DIR (default build/) holds the `ragmeter` program the tests compare
#     with; RAGMETER_SKIP_LLM=1 leaves out the tests that need the local LLM server;
#   - RAGMETER_PY_TESTS (default tests/python) and RAGMETER_PY_DEPS (default the pyenv) pick
#     another suite and the environment its packages come from (scripts/test_ray.sh).
# Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"
cache_dir="${RAGMETER_CACHE:-$HOME/.cache/ragmeter}"
pyenv="$cache_dir/pyenv"
[ -x "$pyenv/bin/python" ] || { echo "test_python: $pyenv is missing (bash scripts/setup.sh)"; exit 2; }

export CMAKE_CXX_COMPILER_LAUNCHER="${CMAKE_CXX_COMPILER_LAUNCHER:-ccache}"
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$repo}"
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-2}"
wheel_dir="$repo/build-python/dist"
rm -rf "$wheel_dir"
echo "== python: build the wheel"
"$pyenv/bin/pip" wheel "$repo/python" --no-build-isolation --no-deps --quiet -w "$wheel_dir" \
  -C build-dir="$repo/build-python/cmake" -C cmake.define.RAGMETER_WERROR=ON
wheel=$(ls "$wheel_dir"/ragmeter-*.whl)

venv=$(mktemp -d "${TMPDIR:-/tmp}/ragmeter-venv.XXXXXX")
trap 'rm -rf "$venv"' EXIT
"$pyenv/bin/python" -m venv --without-pip "$venv"
deps_env="${RAGMETER_PY_DEPS:-$pyenv}"
tests_dir="${RAGMETER_PY_TESTS:-$repo/tests/python}"
deps_site=$("$deps_env/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
venv_site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
echo "$deps_site" > "$venv_site/ragmeter-test-deps.pth"
"$pyenv/bin/pip" --python "$venv/bin/python" install --no-deps --quiet "$wheel"
echo "== python: tests of the installed package ($(basename "$wheel"))"
marker=()
[ "${RAGMETER_SKIP_LLM:-0}" = "1" ] && marker=(-m "not llm")
cd "$venv"  # nothing of the checkout on sys.path
# A test past its hang guard (tests/python/conftest.py) ends pytest with every thread's
# stack in this file: show it, so a deadlock fails CI with its cause instead of hanging.
# (tests/ray limit each test with pytest-timeout instead.)
hang_log="$venv/hang.log"
status=0
RAGMETER_HANG_LOG="$hang_log" RAGMETER_BUILD_DIR="${RAGMETER_BUILD_DIR:-$repo/build}" "$venv/bin/python" -m pytest -q \
  -p no:cacheprovider --rootdir "$tests_dir" "${marker[@]}" "$@" "$tests_dir" || status=$?
if [ -s "$hang_log" ]; then
  echo "== python: a test hung" >&2
  cat "$hang_log" >&2
fi
exit "$status"
