"""Oracle: ragmeter's WordPiece tokenizer against Hugging Face `tokenizers` on all-MiniLM-L6-v2's
tokenizer.json.

Reference: the `tokenizers` package (PyPI, pinned in scripts/setup.sh) loading the same
tokenizer.json that `--embedder local` reads (installed by scripts/setup_embedder.sh).
The file asks for truncation to 128 and padding to 128; sentence-transformers overrides
both (no padding for one text, truncation to the model's max_seq_length, 256), so the
oracle turns them off and compares (a) every id of the untruncated encoding and (b) the
encoding truncated to 256 ids, [CLS] and [SEP] included (tokenizers' enable_truncation(256)),
which is what sentence-transformers feeds the model.

Cases (fixed seed, about 3,500): the questions, answers and knowledge paragraphs of
tests/data/halueval_qa_one_turn.jsonl (real English, some longer than 256 tokens) and
cut-and-joined mixtures of them; words with accents in composed and decomposed forms,
Greek (final sigma), Cyrillic, Turkish dotted I, CJK ideographs (with Hangul and kana,
which are not split), emoji, fullwidth forms and ligatures; punctuation of many scripts
and the ASCII symbols BERT counts as punctuation; white space of every kind, control and
format characters (dropped), U+FFFD and NUL; the special tokens [CLS] [SEP] [MASK] in the
text, glued to words and in lower case; words of 99 to 102 characters around
max_input_chars_per_word; empty and whitespace-only texts; and random code points of
every plane (assigned and not).

Run: RAGMETER_BUILD_DIR=build ~/.cache/ragmeter/venv/bin/python \\
       -m pytest -q -p no:cacheprovider tests/oracle/test_wordpiece_tokenizer.py
"""

import json
import os
import random
import subprocess
import unicodedata
from pathlib import Path

import pytest

tokenizers = pytest.importorskip("tokenizers")

REPO = Path(__file__).resolve().parents[2]
BUILD_DIR = Path(os.environ.get("RAGMETER_BUILD_DIR", REPO / "build"))
PROBE = BUILD_DIR / "probes" / "wordpiece_probe"
MODEL_DIR = Path(
    os.environ.get(
        "RAGMETER_EMBEDDER_MODEL",
        Path(os.environ.get("RAGMETER_CACHE", Path.home() / ".cache" / "ragmeter"))
        / "models" / "all-MiniLM-L6-v2",
    )
)
TOKENIZER_JSON = MODEL_DIR / "tokenizer.json"
DATA = REPO / "tests" / "data" / "halueval_qa_one_turn.jsonl"
MAX_SEQ_LENGTH = 256  # sentence_bert_config.json of the model

WORDS = [
    "café", "naïve", "Ångström", "Straße", "Ærøskøbing", "façade", "résumé", "jalapeño",
    "cafe\u0301", "nai\u0308ve", "ΟΔΟΣ", "Σίσυφος", "ελληνικά", "Москва", "привет", "İstanbul",
    "ıi", "東京", "北京大学", "漢字かなカナ", "한국어", "こんにちは", "𠀀𠀁", "🙂", "👍🏽", "🇫🇷",
    "ｆｕｌｌｗｉｄｔｈ", "ﬁne", "ﬂow", "Ⅻ", "²", "½", "№", "€100", "$5", "x^2", "a+b=c", "<tag>",
    "`code`", "a|b", "~home", "e-mail", "don't", "U.S.A.", "...", "«quoted»", "“smart”", "—",
    "、", "。", "！", "¿qué?", "¡hola!", "1,000.5", "3.14159", "2024-11-25", "C++", "#hash",
    "@user", "https://example.org/a?b=c&d=e", "[CLS]", "[SEP]", "[MASK]", "[cls]", "[PAD]",
    "x[SEP]y", "[UNK]", "unaffable", "tokenization", "supercalifragilisticexpialidocious",
    "ДЖ", "ǅ", "ﬀ", "\u0130", "Ⓐ", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "ÀÉÎÕÜ", "z\u0327\u0301", "\u05e9\u05dc\u05d5\u05dd",
    "\u0645\u0631\u062d\u0628\u0627", "\u0928\u092e\u0938\u094d\u0924\u0947", "\u0e2a\u0e27\u0e31\u0e2a\u0e14\u0e35",
]
SPACES = [" ", "  ", "\t", "\n", "\r\n", "\u00a0", "\u2003", "\u3000", "\u0085", "\u2028", "\u202f"]
INVISIBLE = ["\u200b", "\ufeff", "\u00ad", "\u200d", "\x00", "\ufffd", "\x07", "\x1b", "\x0b",
             "\x0c", "\x1c", "\ue000", "\U000e0001"]


def halueval_texts():
    texts = []
    for line in DATA.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        texts.extend([row["question"], row["right_answer"], row["hallucinated_answer"],
                      row["knowledge"]])
    return texts


def random_code_point(rng):
    while True:
        plane = rng.choice([0, 0, 0, 1, 2, 14])
        c = rng.randrange(plane * 0x10000, plane * 0x10000 + 0x10000)
        if 0xD800 <= c <= 0xDFFF:
            continue  # a lone surrogate cannot be written as UTF-8
        return chr(c)


def cases():
    rng = random.Random(20)
    real = halueval_texts()
    out = ["", " ", "   ", "\t\n", "\u3000\u00a0", "\u200b", "[CLS]", "[SEP][SEP]", "x" * 99,
           "x" * 100, "x" * 101, "é" * 100, "é" * 101, "ab" * 51]
    out += real
    for _ in range(600):  # real text cut and joined, with spacing changed
        a, b = rng.choice(real), rng.choice(real)
        i, j = rng.randrange(len(a) + 1), rng.randrange(len(b) + 1)
        out.append(a[:i] + rng.choice(SPACES + [""]) + b[j:])
    for _ in range(1200):  # mixtures of the word list, spaces and invisible characters
        n = rng.randrange(1, 25)
        parts = []
        for _ in range(n):
            r = rng.random()
            if r < 0.55:
                parts.append(rng.choice(WORDS))
            elif r < 0.75:
                parts.append(rng.choice(real).split()[0] if rng.random() < 0.5 else "word")
            elif r < 0.9:
                parts.append(rng.choice(INVISIBLE))
            else:
                parts.append("".join(rng.choice("abcdefghij") for _ in range(rng.randrange(95, 105))))
            parts.append(rng.choice(SPACES + ["", ""]))
        text = "".join(parts)
        if rng.random() < 0.2:
            text = unicodedata.normalize(rng.choice(["NFD", "NFC", "NFKC"]), text)
        out.append(text)
    for _ in range(300):  # random code points of every plane, assigned or not
        out.append("".join(random_code_point(rng) if rng.random() < 0.6 else rng.choice(" ab,")
                           for _ in range(rng.randrange(1, 30))))
    for _ in range(40):  # long texts: several paragraphs, past 256 tokens
        out.append(" ".join(rng.choice(real) for _ in range(rng.randrange(5, 30))))
    return out


@pytest.fixture(scope="module")
def oracle():
    if not TOKENIZER_JSON.exists():
        pytest.fail(f"{TOKENIZER_JSON} is missing: run scripts/setup_embedder.sh")
    full = tokenizers.Tokenizer.from_file(str(TOKENIZER_JSON))
    full.no_truncation()
    full.no_padding()
    cut = tokenizers.Tokenizer.from_file(str(TOKENIZER_JSON))
    cut.no_padding()
    cut.enable_truncation(MAX_SEQ_LENGTH)
    return full, cut


def run_probe(requests):
    assert PROBE.exists(), f"{PROBE} is missing: build the wordpiece_probe target"
    lines = "".join(json.dumps(r) + "\n" for r in requests)
    done = subprocess.run([str(PROBE), str(TOKENIZER_JSON)], input=lines.encode(),
                          capture_output=True, check=True, timeout=300)
    answers = [json.loads(line) for line in done.stdout.decode().splitlines()]
    assert len(answers) == len(requests)
    return answers


def test_token_ids_equal_tokenizers(oracle):
    full, cut = oracle
    texts = cases()
    assert len(texts) > 3000
    requests = [{"text": t} for t in texts] + [{"text": t, "max_length": MAX_SEQ_LENGTH} for t in texts]
    answers = run_probe(requests)
    expected = [e.ids for e in full.encode_batch(texts)] + [e.ids for e in cut.encode_batch(texts)]
    mismatches = [(r, a, e) for r, a, e in zip(requests, answers, expected) if a.get("ids") != e]
    for request, answer, want in mismatches[:5]:
        print(repr(request["text"][:200]), request.get("max_length"), "\n  got ", answer, "\n  want", want)
    assert not mismatches, f"{len(mismatches)} of {len(requests)} encodings differ"
    # The cases do reach what they are meant to: truncation, [UNK] and long inputs.
    assert sum(len(e) > MAX_SEQ_LENGTH for e in expected[: len(texts)]) >= 30
    assert sum(100 in e for e in expected) >= 100


def test_truncated_texts_keep_their_first_254_pieces(oracle):
    full, _ = oracle
    long_text = " ".join(halueval_texts()[:200])
    ids = full.encode(long_text).ids
    assert len(ids) > 2 * MAX_SEQ_LENGTH
    (answer,) = run_probe([{"text": long_text, "max_length": MAX_SEQ_LENGTH}])
    assert answer["ids"] == ids[: MAX_SEQ_LENGTH - 1] + [102]


def test_every_code_point_between_letters_equals_tokenizers(oracle):
    # "a" + c + "a" for every code point of planes 0, 1, 2 and 14 (where every assigned
    # character of Unicode 15 but the plane-3 ideographs lives): the category, white
    # space, case, accent and CJK rules of each character, as tokenizers has them. This
    # found the tables tokenizers uses to be older than ICU's (wordpiece_tokenizer.cc).
    full, _ = oracle
    points = [c for plane in (0, 1, 2, 14) for c in range(plane << 16, (plane + 1) << 16)
              if not 0xD800 <= c <= 0xDFFF]
    texts = ["a" + chr(c) + "a" for c in points]
    answers = run_probe([{"texts": texts[i:i + 4096]} for i in range(0, len(texts), 4096)])
    got = [ids for answer in answers for ids in answer["ids"]]
    want = [e.ids for e in full.encode_batch(texts)]
    differ = [hex(c) for c, g, w in zip(points, got, want) if g != w]
    assert not differ, f"{len(differ)} code points differ: {differ[:20]}"
