#!/usr/bin/env bash
# The slow-judge scenario of issue 19: `ragmeter eval --metrics ragas` at --concurrency 16
# against the REAL local judge (scripts/llm_server.sh: llama.cpp through llama-cpp-python,
# one request at a time on this machine), on ROWS rows with CONTEXTS contexts each, through
# bench/counting_proxy.py, which counts the requests the server received and those the
# client abandoned mid-reply.
#
#   bash bench/slow_judge_bench.sh [--binary build/ragmeter] [--rows 3] [--contexts 5]
#        [--context-chars 2000] [--cap-seconds 2400] [--out DIR]
#
# Rows come from examples/halueval_rag.jsonl: each context joins consecutive passages of the
# examples up to --context-chars characters (2,000: prompts of about 3,000 tokens with five),
# so the prompts are the size the issue saw. The judge cache is off: every call is paid.
# Prints one JSON line: wall seconds (of the eval, capped at --cap-seconds), whether it
# finished, the proxy's requests and abandoned requests (and their upstream seconds), and
# the summary's requests, timed-out attempts, estimated abandoned server seconds and the
# concurrency it settled on. Run it under `nice`; it starts and stops its own server
# unless RAGMETER_JUDGE_URL and RAGMETER_JUDGE_MODEL are set.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
binary="$here/build/ragmeter"
rows=3 contexts=5 context_chars=2000 cap=2400 out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --binary) binary="$2"; shift 2 ;;
    --rows) rows="$2"; shift 2 ;;
    --contexts) contexts="$2"; shift 2 ;;
    --context-chars) context_chars="$2"; shift 2 ;;
    --cap-seconds) cap="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    *) echo "usage: $0 [--binary PATH] [--rows N] [--contexts N] [--context-chars N] [--cap-seconds S] [--out DIR]" >&2; exit 2 ;;
  esac
done
out="${out:-$(mktemp -d)}"
mkdir -p "$out"
python="${RAGMETER_PYTHON:-$HOME/.cache/ragmeter/venv/bin/python}"
[ -x "$python" ] || python=python3

started_server=0
if [ -z "${RAGMETER_JUDGE_URL:-}" ] || [ -z "${RAGMETER_JUDGE_MODEL:-}" ]; then
  export RAGMETER_LLM_RUN_DIR="$out/llm-run"
  eval "$(bash "$here/scripts/llm_server.sh" start)"
  started_server=1
fi
proxy_pid=""
cleanup() {
  [ -n "$proxy_pid" ] && kill "$proxy_pid" 2>/dev/null || true
  if [ "$started_server" = 1 ]; then bash "$here/scripts/llm_server.sh" stop >/dev/null 2>&1 || true; fi
}
trap cleanup EXIT

upstream="${RAGMETER_JUDGE_URL%/v1}"
"$python" "$here/bench/counting_proxy.py" --upstream "$upstream" --port-file "$out/proxy.port" \
  --log "$out/proxy.jsonl" 2>"$out/proxy.err" &
proxy_pid=$!
for _ in $(seq 1 100); do [ -s "$out/proxy.port" ] && break; sleep 0.1; done
port="$(cat "$out/proxy.port")"

"$python" - "$here/examples/halueval_rag.jsonl" "$out/data.jsonl" "$rows" "$contexts" "$context_chars" <<'EOF'
import json, sys
source, target, rows, contexts, chars = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:])
examples = [json.loads(line) for line in open(source)]
passages = [c for e in examples for c in e["retrieved_contexts"]]
at = 0
with open(target, "w") as f:
    for e in examples[:rows]:
        row = {k: e[k] for k in ("id", "user_input", "response", "reference")}
        row["retrieved_contexts"] = []
        for _ in range(contexts):
            text = ""
            while len(text) < chars:
                text += passages[at % len(passages)] + " "
                at += 1
            row["retrieved_contexts"].append(text.strip())
        f.write(json.dumps(row) + "\n")
EOF

t0="$(date +%s.%N)"
finished=true
timeout "$cap" "$binary" eval "$out/data.jsonl" --metrics ragas --judge-url "http://127.0.0.1:$port/v1" \
  --judge-model "$RAGMETER_JUDGE_MODEL" --concurrency 16 --cache-mode off --allow-failures -q \
  --summary "$out/summary.json" --out "$out/results.jsonl" >"$out/eval.out" 2>"$out/eval.err" || {
  code=$?; [ "$code" = 124 ] && finished=false; }
t1="$(date +%s.%N)"
sleep 2  # let the proxy book the last replies
"$python" - "$port" "$out" "$t0" "$t1" "$finished" "$binary" <<'EOF'
import json, sys, urllib.request
port, out, t0, t1, finished, binary = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), sys.argv[5], sys.argv[6]
stats = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/__proxy/stats"))["phases"]["default"]
try:
    summary = json.load(open(f"{out}/summary.json"))
except (OSError, ValueError):
    summary = {}
judge = summary.get("judge", {})
print(json.dumps({
    "binary": binary, "finished": finished == "true", "wall_seconds": round(t1 - t0, 1),
    "proxy_requests": stats["requests"], "proxy_abandoned": stats.get("abandoned"),
    "proxy_abandoned_seconds": round(stats.get("abandoned_seconds", 0.0), 1),
    "proxy_by_status": stats["by_status"],
    "summary_requests": summary.get("usage", {}).get("requests"),
    "failed_calls": summary.get("usage", {}).get("failed_calls"),
    "timed_out_attempts": judge.get("timed_out_attempts"),
    "abandoned_server_seconds": judge.get("abandoned_server_seconds"),
    "concurrency": judge.get("concurrency"),
    "out": out}))
EOF
