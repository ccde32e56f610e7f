#!/usr/bin/env bash
# The benchmark environment for the local embedder: a separate Python environment with
# sentence-transformers and torch (CPU; PyPI's torch wheel, whatever its dependencies),
# cached outside the checkout in $RAGMETER_CACHE/st-venv (default ~/.cache/ragmeter).
# Several GB: not part of the default test suite. Used by
# bench/sentence_embedder_reference.py. Idempotent: fast when present.
set -euo pipefail
cache_dir="${RAGMETER_CACHE:-$HOME/.cache/ragmeter}"
venv="$cache_dir/st-venv"
packages=(sentence-transformers==6.2.0 torch==2.15.0 numpy)
stamp="$venv/.ragmeter-stamp"
want="${packages[*]}"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "setup_reference_embedder: creating $venv (sentence-transformers, torch)"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --upgrade pip >/dev/null
  "$venv/bin/pip" install -q "${packages[@]}"
  echo "$want" > "$stamp"
fi
bash "$(dirname "$0")/../scripts/setup_embedder.sh" >/dev/null
echo "setup_reference_embedder: ok ($venv)"
