#!/usr/bin/env bash
# Fragment claims before and after issue 17's claims change, with the project's local LLM
# judge: texts (bench/claim_fragments.py texts), claims from the judge's request before the
# change and from the judge now (bench/claims_before_after_bench.cc), then the counter
# (bench/claim_fragments.py count). One request at a time; about 20 requests of a minute or
# more each on a 2-core machine: run it in the background.
#
#   bash bench/claim_fragments.sh [WORK_DIR]     (default /tmp/ragmeter-claim-fragments)
# Needs build/bench/claims_before_after_bench (scripts/build.sh claims_before_after_bench).
set -euo pipefail
cd "$(dirname "$0")/.."
work="${1:-/tmp/ragmeter-claim-fragments}"
mkdir -p "$work"
build_dir="${RAGMETER_BUILD_DIR:-build}"
eval "$(bash scripts/llm_server.sh start)"
python3 bench/claim_fragments.py texts "$work/texts.jsonl"
"$build_dir/bench/claims_before_after_bench" --judge-url "$RAGMETER_JUDGE_URL" \
    --judge-model "$RAGMETER_JUDGE_MODEL" --cache "$work/judge.sqlite" \
    --in "$work/texts.jsonl" --out "$work/claims.jsonl"
python3 bench/claim_fragments.py count "$work/claims.jsonl"
