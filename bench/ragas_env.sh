# Shared setup of the benchmarks that run ragas 0.4.3 beside ragmeter on the local LLM server
# (bench/ragas_side_by_side.sh, bench/llm_judge_agreement.sh). Sourced, not run.
#
# ragas_venv_setup         creates $RAGMETER_CACHE/ragas-venv once (ragas 0.4.3 from PyPI, which
#                          brings langchain-openai and the openai client; scipy for the
#                          statistics) and reuses it: a stamp records the pins. Sets $ragas_venv.
# bench_server_start ROOT  starts scripts/llm_server.sh in $RAGMETER_LLM_RUN_DIR (other users'
#                          servers are left alone) and exports RAGMETER_JUDGE_URL and friends;
#                          stops it on exit unless it was already running or keep_server=1.

ragas_version="0.4.3"
# ragas 0.4.3 imports langchain_community.chat_models.vertexai at import time, which
# langchain-community 0.4.2 removed (ragas issues #2741, #2745): pin the last release that has it.
ragas_pins=("ragas==$ragas_version" "langchain-community==0.4.1" "scipy")

ragas_venv_setup() {
  local cache="${RAGMETER_CACHE:-$HOME/.cache/ragmeter}"
  local python="${PYTHON:-python3}"
  ragas_venv="$cache/ragas-venv"
  local stamp="$ragas_venv/.ragmeter-ragas-stamp"
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "${ragas_pins[*]}" ]; then
    echo "setting up $ragas_venv (${ragas_pins[*]})" >&2
    [ -x "$ragas_venv/bin/python" ] || "$python" -m venv "$ragas_venv"
    "$ragas_venv/bin/pip" install -q --disable-pip-version-check "${ragas_pins[@]}" >&2
    "$ragas_venv/bin/python" -W ignore -c "import ragas, langchain_openai, scipy; assert ragas.__version__ == '$ragas_version', ragas.__version__"
    echo "${ragas_pins[*]}" > "$stamp"
  fi
}

bench_server_start() {
  local root="$1"
  bench_server_started_here=0
  if ! bash "$root/scripts/llm_server.sh" status >/dev/null 2>&1; then bench_server_started_here=1; fi
  eval "$(bash "$root/scripts/llm_server.sh" start)"
  export RAGMETER_JUDGE_URL RAGMETER_JUDGE_MODEL RAGMETER_EMBED_URL RAGMETER_EMBED_MODEL
  bench_server_root="$root"
  trap bench_server_stop EXIT
}

bench_server_stop() {
  if [ "${bench_server_started_here:-0}" = 1 ] && [ "${keep_server:-0}" = 0 ]; then
    bash "$bench_server_root/scripts/llm_server.sh" stop >&2 || true
  fi
}
