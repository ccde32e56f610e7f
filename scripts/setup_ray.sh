#!/usr/bin/env bash
# The environment of the Ray tests and benchmarks (python/ragmeter/ray.py): Ray with Ray
# Data, pyarrow, pandas, pytest and pytest-timeout (every Ray test has a time limit) in
# $RAGMETER_CACHE/rayenv (default ~/.cache/ragmeter), outside the checkout. Idempotent: a
# stamp holds the package list; when it is current nothing runs (well under a second),
# when the list changed pip brings the existing environment to it (only what changed is
# downloaded), and a missing or broken environment is made anew. scripts/test_ray.sh runs
# it first.
set -euo pipefail
cache_dir="${RAGMETER_CACHE:-$HOME/.cache/ragmeter}"
rayenv="$cache_dir/rayenv"
ray_packages=("ray[data]==2.60.0" pyarrow==26.0.1 pandas==3.1.1 pytest==9.2.0 pytest-timeout==2.4.0)
stamp="$rayenv/.ragmeter-stamp"
want="${ray_packages[*]}"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  echo "setup_ray: ok ($rayenv)"
  exit 0
fi
if ! "$rayenv/bin/python" -c 'import sys' 2>/dev/null; then
  echo "setup_ray: creating the Ray environment in $rayenv"
  rm -rf "$rayenv"
  python3 -m venv "$rayenv"
  "$rayenv/bin/pip" install -q --upgrade pip >/dev/null
else
  echo "setup_ray: updating the Ray environment in $rayenv to: $want"
fi
rm -f "$stamp"  # written again only once the install succeeded
"$rayenv/bin/pip" install -q "${ray_packages[@]}"
echo "$want" > "$stamp"
echo "setup_ray: ok ($rayenv)"
