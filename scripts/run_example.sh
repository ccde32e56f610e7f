#!/usr/bin/env bash
# Sets everything up, builds, and scores the bundled example with the default judge.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh ragmeter >/dev/null
./build/ragmeter eval examples/halueval_rag.jsonl --out build/example_results.jsonl \
  --summary build/example_summary.json "$@"
echo "per-sample results: build/example_results.jsonl; summary: build/example_summary.json"
