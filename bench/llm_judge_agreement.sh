#!/usr/bin/env bash
# The LLM judge against people, beside ragas: ragas 0.4.3, ragmeter's compact plan and
# ragmeter's --plan ragas on the same rows (the test halves of HaluEval and the RAGChecker
# human labels, as split by bench/offline_judge_quality.py), against the same local LLM server
# (scripts/llm_server.sh), counted by the same proxy (bench/counting_proxy.py). A benchmark,
# not a test: it prints figures (report.md, report.json in the output dir).
#
# Usage: bench/llm_judge_agreement.sh [--halueval N] [--ragchecker N] [--halueval-part P] [--halueval-skip N]
#            [--halueval-passages K] [--long N] [--long-part P] [--long-skip N]
#            [--ragchecker-part P] [--tools ragas,compact,ragas_plan] [--split dev|test]
#            [--judge-cache FILE] [--outdir DIR] [--resume] [--keep-server]
# Environment:
#   RAGMETER_CACHE        cache root (default ~/.cache/ragmeter); the venv is $RAGMETER_CACHE/ragas-venv
#   RAGMETER_BUILD_DIR    directory holding the ragmeter binary (default build)
#   RAGMETER_LLM_RUN_DIR  run dir of this benchmark's own server (default /tmp/llm-judge-agreement-run)
#   RAGMETER_LLM_MODEL    model key of scripts/setup_llm.sh (default qwen2.5-coder-1.5b)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
build="${RAGMETER_BUILD_DIR:-$root/build}"
export RAGMETER_LLM_RUN_DIR="${RAGMETER_LLM_RUN_DIR:-/tmp/llm-judge-agreement-run}"
# shellcheck source=bench/ragas_env.sh
. "$here/ragas_env.sh"

outdir="" keep_server=0 args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --outdir) outdir="$2"; shift 2 ;;
    --keep-server) keep_server=1; shift ;;
    --resume) args+=("$1"); shift ;;
    --halueval|--ragchecker|--halueval-part|--halueval-skip|--halueval-passages|--ragchecker-part|--long|--long-part|--long-skip|--tools|--split|--judge-cache)
      args+=("$1" "$2"); shift 2 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done
[ -n "$outdir" ] || outdir="/tmp/llm-judge-agreement-$(date +%Y%m%d-%H%M%S)"
mkdir -p "$outdir"
[ -x "$build/ragmeter" ] || { echo "no $build/ragmeter: build it (scripts/build.sh) or set RAGMETER_BUILD_DIR" >&2; exit 1; }

ragas_venv_setup
bench_server_start "$root"
"$ragas_venv/bin/python" "$here/llm_judge_agreement.py" run --outdir "$outdir" \
  --llm-url "$RAGMETER_JUDGE_URL" --model "$RAGMETER_JUDGE_MODEL" --embed-model "$RAGMETER_EMBED_MODEL" \
  --ragmeter "$build/ragmeter" --ragas-python "$ragas_venv/bin/python" \
  --server-pid-file "$RAGMETER_LLM_RUN_DIR/server.pid" \
  --llm-python "${RAGMETER_CACHE:-$HOME/.cache/ragmeter}/llm-venv/bin/python" \
  --model-file "$(bash "$root/scripts/setup_llm.sh" --model-path)" "${args[@]}"
echo "results in $outdir (report.md, report.json)" >&2
