#!/usr/bin/env bash
# The environment of the Ray tests and benchmarks (python/ragmeter/ray.py): Ray with Ray
# Data, pyarrow, pandas and pytest in $RAGMETER_CACHE/rayenv (default ~/.cache/ragmeter),
# outside the checkout. Idempotent: a stamp holds the package list, and the environment is
# rebuilt only when the list changes. scripts/test_ray.sh runs it first.
set -euo pipefail
cache_dir="${RAGMETER_CACHE:-$HOME/.cache/ragmeter}"
rayenv="$cache_dir/rayenv"
ray_packages=("ray[data]==2.60.0" pyarrow==26.0.1 pandas==3.1.1 pytest==9.2.0)
stamp="$rayenv/.ragmeter-stamp"
want="${ray_packages[*]}"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  echo "setup_ray: ok ($rayenv)"
  exit 0
fi
echo "setup_ray: creating the Ray environment in $rayenv"
rm -rf "$rayenv"
python3 -m venv "$rayenv"
"$rayenv/bin/pip" install -q --upgrade pip >/dev/null
"$rayenv/bin/pip" install -q "${ray_packages[@]}"
echo "$want" > "$stamp"
echo "setup_ray: ok ($rayenv)"
