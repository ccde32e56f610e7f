#!/usr/bin/env bash
# The Ray tests (tests/ray): makes the Ray environment (scripts/setup_ray.sh, once), then
# builds the wheel and runs tests/ray against it in a fresh venv that sees the Ray
# environment's packages (scripts/test_python.sh does both). They start a local Ray
# cluster (3 logical CPUs: 2 scorer workers and Ray Data's reads) and the FAKE judge server
# ($RAGMETER_BUILD_DIR/fakes/fake_llm_server), stop both, and take about two minutes (5
# tests in 106 to 144 s on the loaded 2-core machine, the wheel already built), each test
# limited to 240 s by pytest-timeout. RAGMETER_SKIP_RAY=1 skips them. Extra arguments go
# to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${RAGMETER_SKIP_RAY:-0}" = "1" ]; then
  echo "test_ray: skipped (RAGMETER_SKIP_RAY=1)"
  exit 0
fi
bash scripts/setup_ray.sh
cache_dir="${RAGMETER_CACHE:-$HOME/.cache/ragmeter}"
RAGMETER_PY_DEPS="$cache_dir/rayenv" RAGMETER_PY_TESTS="$PWD/tests/ray" \
  bash scripts/test_python.sh "$@"
