#!/usr/bin/env bash
# Throughput of `ragmeter eval` before and after a change, measured in one script: two
# binaries (for example a build of the base commit and the current one) score the same rows
# in turn, alternating, RUNS times each, and the median wall times and their ratio are printed.
#
#   bash bench/binary_ab.sh BEFORE_BINARY AFTER_BINARY [METRICS] [COPIES] [RUNS]
#
# The rows are examples/halueval_rag.jsonl repeated COPIES times (default 400: 12,000 rows);
# METRICS defaults to text,retrieval; 2 scoring threads. A ratio within a few percent of 1
# is noise on a shared machine: run it again before reading more into it.
set -euo pipefail
before=$1; after=$2; metrics=${3:-text,retrieval}; copies=${4:-400}; runs=${5:-5}
cd "$(dirname "$0")/.."
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
for _ in $(seq 1 "$copies"); do cat examples/halueval_rag.jsonl; done > "$work/rows.jsonl"
for _ in $(seq 1 "$runs"); do
  for which in before after; do
    bin=${!which}
    start=$(date +%s.%N)
    "$bin" eval "$work/rows.jsonl" --metrics "$metrics" -q --allow-failures --threads 2 > /dev/null 2>&1
    echo "$which $(echo "$(date +%s.%N) - $start" | bc)"
  done
done > "$work/runs.txt"
python3 - "$work/runs.txt" "$metrics" "$(wc -l < "$work/rows.jsonl")" <<'PY'
import statistics, sys
runs = [line.split() for line in open(sys.argv[1])]
median = {w: statistics.median(float(t) for k, t in runs if k == w) for w in ("before", "after")}
print(f"{sys.argv[3]} rows, metrics {sys.argv[2]}: median before {median['before']:.3f} s, "
      f"after {median['after']:.3f} s, ratio after/before {median['after'] / median['before']:.3f}")
PY
