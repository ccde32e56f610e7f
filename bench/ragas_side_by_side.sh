#!/usr/bin/env bash
# Side-by-side benchmark of ragas 0.4.3 and ragmeter's compact plan on the same local LLM
# server (scripts/llm_server.sh), the same samples and the same seven metrics, counted by the
# same proxy (bench/counting_proxy.py). A benchmark, not a test: it prints figures.
#
# Usage: bench/ragas_side_by_side.sh [--samples N] [--offset I] [--part-size P] [--resume]
#            [--outdir DIR] [--phases ragas,ragmeter] [--workers W] [--ragas-metrics a,b]
#            [--keep-server]
#   --part-size P  run in parts of P samples (each part: ragas, then ragmeter, on the same
#                  samples), so a long run yields figures part by part; --resume with the
#                  same --outdir keeps the parts already done
# Environment:
#   RAGMETER_CACHE            cache root (default ~/.cache/ragmeter); the venv is $RAGMETER_CACHE/ragas-venv
#   RAGMETER_BUILD_DIR        build dir holding ragmeter (default /work/build-ragas, built if missing)
#   RAGMETER_LLM_RUN_DIR      run dir of this benchmark's own server (default /tmp/ragas-bench-run)
#   PYTHON                    python3 used to create the venv (default python3)
#
# Steps: 1. the ragas venv (ragas==0.4.3 from PyPI, which brings langchain-openai and the
# openai client), created once and reused (a stamp records the version); 2. ragmeter built
# if absent; 3. the server started in its own run dir (stopped at the end unless it was
# already running or --keep-server); 4. bench/ragas_side_by_side.py compare: the proxy, ragas,
# ragmeter, the report (report.md, report.json in the output dir).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
build="${RAGMETER_BUILD_DIR:-/work/build-ragas}"
export RAGMETER_LLM_RUN_DIR="${RAGMETER_LLM_RUN_DIR:-/tmp/ragas-bench-run}"
python="${PYTHON:-python3}"
# shellcheck source=bench/ragas_env.sh
. "$here/ragas_env.sh"

samples=20 offset=0 part_size=0 resume=0 outdir="" phases="ragas,ragmeter" workers=4 ragas_metrics="" keep_server=0
while [ $# -gt 0 ]; do
  case "$1" in
    --samples) samples="$2"; shift 2 ;;
    --offset) offset="$2"; shift 2 ;;
    --part-size) part_size="$2"; shift 2 ;;
    --resume) resume=1; shift ;;
    --outdir) outdir="$2"; shift 2 ;;
    --phases) phases="$2"; shift 2 ;;
    --workers) workers="$2"; shift 2 ;;
    --ragas-metrics) ragas_metrics="$2"; shift 2 ;;
    --keep-server) keep_server=1; shift ;;
    -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done
[ -n "$outdir" ] || outdir="/tmp/ragas-side-by-side-$(date +%Y%m%d-%H%M%S)"
mkdir -p "$outdir"

# 1. the venv, once
ragas_venv_setup
venv="$ragas_venv"

# 2. ragmeter
if [ ! -x "$build/ragmeter" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >&2
  cmake --build "$build" -j2 --target ragmeter >&2
fi

# 3. the server (its own run dir, so other users' servers are left alone)
bench_server_start "$root"

# 4. the comparison
extra=()
[ -n "$ragas_metrics" ] && extra+=(--ragas-metrics "$ragas_metrics")
[ "$resume" = 1 ] && extra+=(--resume)
"$python" "$here/ragas_side_by_side.py" compare \
  --samples "$samples" --offset "$offset" --part-size "$part_size" --outdir "$outdir" --phases "$phases" --workers "$workers" \
  --llm-url "$RAGMETER_JUDGE_URL" --model "$RAGMETER_JUDGE_MODEL" --embed-model "$RAGMETER_EMBED_MODEL" \
  --ragmeter "$build/ragmeter" --ragas-python "$venv/bin/python" \
  --server-pid-file "$RAGMETER_LLM_RUN_DIR/server.pid" "${extra[@]}"
# 5. ragmeter's exact tokens: it streams, and llama-cpp-python's streams carry no usage, so
# count its --traces with the model's tokenizer (bench/trace_tokens.py), then report again
cache_root="${RAGMETER_CACHE:-$HOME/.cache/ragmeter}"
model_file="$cache_root/llm-models/$RAGMETER_JUDGE_MODEL.gguf"
if [ -f "$model_file" ]; then
  for traces in "$outdir"/part-*/ragmeter_traces.jsonl; do
    [ -f "$traces" ] || continue
    counts="$(dirname "$traces")/ragmeter_trace_tokens.json"
    [ -f "$counts" ] || "$cache_root/llm-venv/bin/python" "$here/trace_tokens.py" --model "$model_file" "$traces" > "$counts" 2>/dev/null \
      || { echo "trace_tokens failed for $traces" >&2; rm -f "$counts"; }
  done
  # report.md too: the first one (from the compare step) had only the estimated counts
  "$python" "$here/ragas_side_by_side.py" report --outdir "$outdir"
fi
echo "results in $outdir (report.md, report.json)" >&2
