#!/usr/bin/env bash
# Starts, stops and reports a local llama.cpp OpenAI-compatible server (llama-cpp-python's
# `python -m llama_cpp.server`) serving the judge model installed by scripts/setup_llm.sh:
# chat completions, JSON-schema-constrained replies, and embeddings from the same model.
#
# Usage: scripts/llm_server.sh start|stop|status|env|model-path|bench [N]
#   start       install if needed (setup_llm.sh, fast when done), start on 127.0.0.1 on a
#               free port, wait until GET /v1/models answers, print eval-able lines:
#                 RAGMETER_JUDGE_URL=http://127.0.0.1:PORT/v1
#                 RAGMETER_JUDGE_MODEL=<model alias>
#                 RAGMETER_EMBED_URL=... RAGMETER_EMBED_MODEL=...  (same server and model)
#               e.g.  eval "$(scripts/llm_server.sh start)"
#               If a server of this run dir is already up, prints its lines again.
#   stop        stop the server of this run dir (by its pid file)
#   status      say whether it runs (exit 0) or not (exit 3)
#   env         print the lines of the running server (exit 3 if none)
#   model-path  print the GGUF path of the configured model
#   bench [N]   time N (default 3) judge-sized requests (~470 prompt + 100 completion
#               tokens) on the running server, then a 10-case faithfulness probe
# Environment:
#   RAGMETER_CACHE              cache root (default ~/.cache/ragmeter)
#   RAGMETER_LLM_RUN_DIR        pid, port, env and log files (default $RAGMETER_CACHE/llm-run)
#   RAGMETER_LLM_MODEL          model key for setup_llm.sh (default qwen2.5-coder-1.5b)
#   RAGMETER_LLM_PORT           fixed port instead of a free one
#   RAGMETER_LLM_CTX            context size in tokens (default 4096)
#   RAGMETER_LLM_THREADS        CPU threads (default: number of cores)
#   RAGMETER_LLM_BATCH          prompt batch size, also the longest embedding input (default 512)
#   RAGMETER_LLM_EMBEDDING      1 (default) also serve /v1/embeddings (mean pooling), 0 not
#   RAGMETER_LLM_LOGPROBS       1 keep logits of all tokens so logprobs work, 0 (default) faster
#   RAGMETER_LLM_PROMPT_CACHE_MB  the server's prompt cache in MB of model state (default 128;
#                               0: off): earlier prompts kept in RAM, so a request reuses the
#                               longest prefix it shares with any of them, not only with the
#                               request just before (docs/performance.md, "Fixed text first")
#   RAGMETER_LLM_START_TIMEOUT  seconds to wait for the server to answer (default 180)
#   RAGMETER_LLM_BUSY_WAIT      seconds `start` waits for a running server that does not answer
#                               (busy with a long prompt) before replacing it (default 600)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache_dir="${RAGMETER_CACHE:-$HOME/.cache/ragmeter}"
run_dir="${RAGMETER_LLM_RUN_DIR:-$cache_dir/llm-run}"
venv="$cache_dir/llm-venv"
pid_file="$run_dir/server.pid"
env_file="$run_dir/server.env"
log_file="$run_dir/server.log"

die() { echo "llm_server: $*" >&2; exit 1; }

# Is the pid in the pid file a live llama_cpp.server? (guards against a reused pid)
running_pid() {
  [ -f "$pid_file" ] || return 1
  local pid; pid="$(cat "$pid_file" 2>/dev/null || true)"
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -q "llama_cpp.server" || return 1
  echo "$pid"
}

# GET url; exit 0 when it answers HTTP 200 within 2 s.
http_ok() {
  "$venv/bin/python" - "$1" <<'EOF' 2>/dev/null
import sys, urllib.request
try:
    with urllib.request.urlopen(sys.argv[1], timeout=2) as r:
        sys.exit(0 if r.status == 200 else 1)
except Exception:
    sys.exit(1)
EOF
}

cmd_start() {
  mkdir -p "$run_dir"
  if pid="$(running_pid)" && [ -f "$env_file" ]; then
    # shellcheck disable=SC1090
    url="$(. "$env_file"; echo "$RAGMETER_JUDGE_URL")"
    # A server busy with a long prompt answers nothing else until it is done (llama-cpp-python
    # serves one request at a time): wait for it rather than stop a server others are using.
    local waited=0 busy_wait="${RAGMETER_LLM_BUSY_WAIT:-600}"
    while kill -0 "$pid" 2>/dev/null; do
      if http_ok "$url/models"; then
        echo "llm_server: already running (pid $pid)" >&2
        cat "$env_file"
        return 0
      fi
      [ "$waited" -ge "$busy_wait" ] && break
      [ "$waited" = 0 ] && echo "llm_server: pid $pid is running but not answering; waiting up to ${busy_wait} s (busy?)" >&2
      sleep 5
      waited=$((waited + 7))
    done
  fi
  cmd_stop >/dev/null 2>&1 || true

  # Install if needed; the last line is RAGMETER_LLM_MODEL_PATH=...
  local setup_out model_path alias
  setup_out="$("$here/setup_llm.sh")" || die "setup_llm.sh failed"
  model_path="$(printf '%s\n' "$setup_out" | sed -n 's/^RAGMETER_LLM_MODEL_PATH=//p' | tail -1)"
  [ -s "$model_path" ] || die "no model at '$model_path'"
  printf '%s\n' "$setup_out" | grep -v '^RAGMETER_LLM_MODEL_PATH=' >&2 || true
  alias="$(basename "$model_path" .gguf)"

  local port="${RAGMETER_LLM_PORT:-}"
  if [ -z "$port" ]; then
    port="$("$venv/bin/python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
  fi
  local threads="${RAGMETER_LLM_THREADS:-$(nproc)}"
  local ctx="${RAGMETER_LLM_CTX:-4096}"
  local prompt_cache_mb="${RAGMETER_LLM_PROMPT_CACHE_MB:-128}"
  [[ "$prompt_cache_mb" =~ ^[0-9]+$ ]] ||
    die "RAGMETER_LLM_PROMPT_CACHE_MB must be a whole number of MB (0: off), not '$prompt_cache_mb'"
  # n_batch also caps an embedding input (llama-cpp-python truncates it there), so it stays
  # 512 although every cached state carries an n_batch x vocabulary logits copy (311 MB
  # for this model) that the cache's size does not count (docs/performance.md).
  local batch="${RAGMETER_LLM_BATCH:-512}"
  [[ "$batch" =~ ^[1-9][0-9]*$ ]] || die "RAGMETER_LLM_BATCH must be a positive whole number, not '$batch'"
  local args=(
    --model "$model_path" --model_alias "$alias"
    --host 127.0.0.1 --port "$port"
    --n_ctx "$ctx" --n_batch "$batch" --n_threads "$threads" --n_threads_batch "$threads"
    --interrupt_requests false
  )
  if [ "${RAGMETER_LLM_LOGPROBS:-0}" = "1" ]; then args+=(--logits_all true); else args+=(--logits_all false); fi
  if [ "$prompt_cache_mb" -gt 0 ]; then
    args+=(--cache true --cache_type ram --cache_size "$((prompt_cache_mb * 1024 * 1024))")
  fi
  if [ "${RAGMETER_LLM_EMBEDDING:-1}" = "1" ]; then
    # Decoder models carry no pooling type: without one, /v1/embeddings would return one
    # vector per token. Mean pooling gives one vector per input (OpenAI shape).
    local arch
    arch="$("$venv/bin/python" - "$model_path" <<'EOF'
import struct, sys
with open(sys.argv[1], "rb") as f:
    assert f.read(4) == b"GGUF"
    f.read(4 + 8 + 8)
    (n,) = struct.unpack("<Q", f.read(8)); key = f.read(n).decode()
    (t,) = struct.unpack("<I", f.read(4)); (n,) = struct.unpack("<Q", f.read(8))
    print(f.read(n).decode() if key == "general.architecture" and t == 8 else "")
EOF
)" || arch=""
    args+=(--embedding true)
    [ -n "$arch" ] && args+=(--kv_overrides "$arch.pooling_type=int:1")
  fi

  : > "$log_file"
  local t0; t0="$(date +%s%N)"
  # OMP_WAIT_POLICY=passive: ggml's OpenMP barriers sleep instead of spinning. On a busy
  # machine (2 cores shared with compilers) spinning threads made requests ~10x slower.
  # setsid: own process group, so the server outlives this shell and is stopped alone.
  OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-passive}" setsid nohup "$venv/bin/python" -m llama_cpp.server "${args[@]}" >>"$log_file" 2>&1 < /dev/null &
  local pid=$!
  echo "$pid" > "$pid_file"

  local url="http://127.0.0.1:$port/v1"
  local timeout="${RAGMETER_LLM_START_TIMEOUT:-180}"
  local deadline=$(( $(date +%s) + timeout ))
  until http_ok "$url/models"; do
    if ! kill -0 "$pid" 2>/dev/null; then
      rm -f "$pid_file"
      tail -20 "$log_file" >&2
      die "the server exited while starting; log: $log_file"
    fi
    if [ "$(date +%s)" -ge "$deadline" ]; then
      cmd_stop >/dev/null 2>&1 || true
      tail -20 "$log_file" >&2
      die "the server did not answer within ${timeout}s; log: $log_file"
    fi
    sleep 0.5
  done
  local t1; t1="$(date +%s%N)"
  {
    echo "RAGMETER_JUDGE_URL=$url"
    echo "RAGMETER_JUDGE_MODEL=$alias"
    if [ "${RAGMETER_LLM_EMBEDDING:-1}" = "1" ]; then
      echo "RAGMETER_EMBED_URL=$url"
      echo "RAGMETER_EMBED_MODEL=$alias"
    fi
  } > "$env_file"
  echo "$port" > "$run_dir/server.port"
  local ms=$(( (t1 - t0) / 1000000 ))
  printf 'llm_server: started pid %s on port %s, answering after %d.%03d s (log: %s)\n' \
    "$pid" "$port" $((ms / 1000)) $((ms % 1000)) "$log_file" >&2
  cat "$env_file"
}

cmd_stop() {
  local pid
  if ! pid="$(running_pid)"; then
    rm -f "$pid_file" "$env_file"
    echo "llm_server: not running"
    return 0
  fi
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 50); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.2
  done
  if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null || true; fi
  rm -f "$pid_file" "$env_file"
  echo "llm_server: stopped pid $pid"
}

cmd_status() {
  local pid
  if pid="$(running_pid)"; then
    echo "llm_server: running, pid $pid, log $log_file"
    [ -f "$env_file" ] && cat "$env_file"
    return 0
  fi
  echo "llm_server: not running"
  return 3
}

# Benchmark of the running server: N sequential judge-sized requests (~470 prompt tokens,
# 100 completion tokens; the prompt starts with a unique id so no KV-cache prefix is
# reused), with llama.cpp's own prompt/generation speeds from the server log and the
# server's CPU seconds; then a 10-case faithfulness probe (schema-constrained verdicts).
cmd_bench() {
  local pid; pid="$(running_pid)" || die "not running (start it first)"
  # shellcheck disable=SC1090
  . "$env_file"
  "$venv/bin/python" - "$RAGMETER_JUDGE_URL" "$RAGMETER_JUDGE_MODEL" "$log_file" "$pid" "${1:-3}" <<'EOF'
import json, os, re, sys, time, urllib.request
url, model, log, pid, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
hz = os.sysconf("SC_CLK_TCK")

def cpu_seconds():
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / hz

def chat(payload):
    req = urllib.request.Request(url + "/chat/completions", data=json.dumps(payload).encode(),
                                 headers={"Content-Type": "application/json"})
    t0 = time.monotonic()
    with urllib.request.urlopen(req, timeout=1800) as r:
        body = json.load(r)
    return time.monotonic() - t0, body

def last_perf(kind):
    lines = [l for l in open(log, errors="replace") if "llama_perf_context_print" in l]
    if kind == "prompt":
        lines = [l for l in lines if "prompt eval time" in l]
    else:
        lines = [l for l in lines if re.search(r":\s+eval time", l)]
    m = re.search(r"/\s+(\d+) (?:tokens|runs).*?([\d.]+) tokens per second", lines[-1]) if lines else None
    return (int(m.group(1)), float(m.group(2))) if m else (0, 0.0)

passage = ("Retrieved passage: The Amazon rainforest covers much of the Amazon basin of South America. "
           "The basin encompasses seven million square kilometres, of which five and a half million are "
           "covered by the rainforest. The region includes territory belonging to nine nations. ") * 8
print(f"judge-sized requests against {model} (load average {os.getloadavg()[0]:.1f}):")
for i in range(runs):
    msgs = [{"role": "system", "content": f"[run {i} {time.time()}] You are an impartial judge of retrieval-augmented answers."},
            {"role": "user", "content": passage + "\nQuestion: How large is the Amazon basin?\n"
             "Answer: About seven million square kilometres.\nExplain in detail, step by step, "
             "whether the answer is faithful to the passage, quoting the passage."}]
    c0 = cpu_seconds()
    wall, body = chat({"model": model, "messages": msgs, "temperature": 0, "max_tokens": 100})
    c1 = cpu_seconds()
    time.sleep(0.3)  # let the server flush its timings to the log
    (pn, ptps), (gn, gtps) = last_perf("prompt"), last_perf("eval")
    u = body["usage"]
    # llama.cpp's prompt timer is sometimes bogus on a server's first requests (millions of tok/s)
    pspeed = f"{ptps:.1f} tok/s" if ptps < 1e5 else "? tok/s (timer glitch)"
    print(f"  run {i}: {wall:.2f} s wall, {u['prompt_tokens']} prompt + {u['completion_tokens']} completion tokens, "
          f"prompt eval {pn} tok at {pspeed}, generation {gn} tok at {gtps:.1f} tok/s, "
          f"server CPU {c1 - c0:.1f} s, load {os.getloadavg()[0]:.1f}", flush=True)

schema = {"type": "object", "properties": {
    "verdict": {"type": "string", "enum": ["supported", "unsupported"]},
    "score": {"type": "integer", "minimum": 1, "maximum": 5}, "reason": {"type": "string"}},
    "required": ["verdict", "score", "reason"], "additionalProperties": False}
system = ("You are a strict fact-checking judge. Reply in JSON with keys verdict "
          "(supported|unsupported), score (1-5) and reason.")
cases = [
    ("The Great Wall of China is over 21,000 km long and was built over many centuries.", "The Great Wall is more than 21,000 km long.", "supported"),
    ("The Great Wall of China is over 21,000 km long and was built over many centuries.", "The Great Wall was built in a single decade.", "unsupported"),
    ("Marie Curie won the Nobel Prize in Physics in 1903 and in Chemistry in 1911.", "Marie Curie won two Nobel Prizes.", "supported"),
    ("Marie Curie won the Nobel Prize in Physics in 1903 and in Chemistry in 1911.", "Marie Curie won the Nobel Prize in Literature.", "unsupported"),
    ("Python was created by Guido van Rossum and first released in 1991.", "Python was first released in 1991.", "supported"),
    ("Python was created by Guido van Rossum and first released in 1991.", "Python was created by James Gosling.", "unsupported"),
    ("Water boils at 100 degrees Celsius at sea level.", "At sea level, water boils at 100 °C.", "supported"),
    ("Water boils at 100 degrees Celsius at sea level.", "Water boils at 50 degrees Celsius at sea level.", "unsupported"),
    ("The company's revenue grew 12% in 2023, driven by cloud services.", "Cloud services drove the company's 2023 revenue growth.", "supported"),
    ("The company's revenue grew 12% in 2023, driven by cloud services.", "The company's revenue fell in 2023.", "unsupported"),
]
right, t0 = 0, time.monotonic()
for context, claim, want in cases:
    _, body = chat({"model": model, "temperature": 0, "max_tokens": 128,
                    "response_format": {"type": "json_object", "schema": schema},
                    "messages": [{"role": "system", "content": system},
                                 {"role": "user", "content": f"Context: {context}\nClaim: {claim}\n"
                                                             "Is the claim supported by the context?"}]})
    try:
        got = json.loads(body["choices"][0]["message"]["content"])["verdict"]
    except (ValueError, KeyError) as e:
        got = f"invalid JSON ({e})"
    right += got == want
print(f"faithfulness probe: {right}/{len(cases)} verdicts right in {time.monotonic() - t0:.1f} s "
      f"(load average {os.getloadavg()[0]:.1f})")
EOF
}

case "${1:-}" in
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  env) if running_pid >/dev/null && [ -f "$env_file" ]; then cat "$env_file"; else exit 3; fi ;;
  model-path) "$here/setup_llm.sh" --model-path ;;
  bench) cmd_bench "${2:-3}" ;;
  *) echo "usage: $0 start|stop|status|env|model-path|bench [N]" >&2; exit 2 ;;
esac
