#!/usr/bin/env bash
# Installs the LlamaIndex packages that tests/python/test_run_llama_index.py drives, into a
# venv of their own outside the checkout: $RAGMETER_CACHE/llamaindex-venv (default
# ~/.cache/ragmeter/...). Idempotent and fast when done: a stamp holds the requirements and
# the interpreter it was made from, and nothing is installed while it matches.
#
# The venv is made from the interpreter given as $1 (default: the package test env's,
# $RAGMETER_CACHE/pyenv/bin/python), so the ragmeter wheel built for that interpreter
# imports in it. The test puts the installed ragmeter package on PYTHONPATH; nothing of
# ragmeter is installed here. Prints the venv's python as the last line.
set -euo pipefail

cache_dir="${RAGMETER_CACHE:-$HOME/.cache/ragmeter}"
base_python="${1:-$cache_dir/pyenv/bin/python}"
venv="$cache_dir/llamaindex-venv"
# llama-index-core: the framework (VectorStoreIndex, query engines); the OpenAI-like LLM
# and embedding classes talk to any OpenAI-compatible server (the local llama.cpp one).
requirements=(
  "llama-index-core==0.14.25"
  "llama-index-llms-openai-like==0.8.1"
  "llama-index-embeddings-openai-like==0.4.0"
)
[ -x "$base_python" ] || { echo "setup_llamaindex: no interpreter at $base_python (bash scripts/setup.sh)" >&2; exit 2; }
want="$("$base_python" -c 'import sys; print(sys.version)') ${requirements[*]}"
stamp="$venv/.ragmeter-stamp"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "setup_llamaindex: installing ${requirements[*]} into $venv" >&2
  rm -rf "$venv"
  "$base_python" -m venv "$venv"
  "$venv/bin/pip" install -q --upgrade pip >/dev/null
  "$venv/bin/pip" install -q "${requirements[@]}" >&2
  echo "$want" > "$stamp"
fi
echo "$venv/bin/python"
