#!/usr/bin/env bash
# `ragmeter gen` on the bundled corpus with the project's local LLM judge, for the figures
# of docs/testset.md: the encyclopedia passages of examples/halueval_rag.jsonl (HotpotQA /
# Wikipedia, CC BY-SA 4.0; examples/LICENSE.halueval), one text file per distinct passage.
# Prints gen's summary lines; the summary JSON is WORK_DIR/summary.json. One request at a
# time, a minute or so each: run it in the background.
#
#   bash bench/gen_coverage.sh [WORK_DIR] [SIZE]   (defaults /tmp/ragmeter-gen-coverage, 5)
set -euo pipefail
cd "$(dirname "$0")/.."
work="${1:-/tmp/ragmeter-gen-coverage}"
size="${2:-5}"
build_dir="${RAGMETER_BUILD_DIR:-build}"
mkdir -p "$work/docs"
python3 - "$work/docs" <<'PY'
import hashlib, json, pathlib, sys
out = pathlib.Path(sys.argv[1])
seen = set()
for line in open("examples/halueval_rag.jsonl"):
    for passage in json.loads(line)["retrieved_contexts"]:
        passage = passage.strip()
        if passage and passage not in seen:
            seen.add(passage)
            name = hashlib.sha256(passage.encode()).hexdigest()[:12]
            (out / f"{name}.txt").write_text(passage + "\n")
print(f"{len(seen)} passages in {out}")
PY
eval "$(bash scripts/llm_server.sh start)"
"$build_dir/ragmeter" gen "$work/docs" --out "$work/testset.jsonl" --size "$size" --seed 7 \
    --judge-url "$RAGMETER_JUDGE_URL" --judge-model "$RAGMETER_JUDGE_MODEL" \
    --cache "$work/judge.sqlite" --concurrency 1 --timeout 900 --summary "$work/summary.json" \
    "${@:3}"
