"""Oracle test: ragmeter's cmrc_f1 and cmrc_em against the CMRC 2018 scorer's definition.

The reference is the official evaluate script's definition (ymcui/cmrc2018,
cmrc2018_evaluate.py v5: mixed_segmentation, find_lcs, calc_f1_score, calc_em_score),
restated below for Python 3 with NLTK 3.10 (in the oracle venv) doing its word
tokenization. One deliberate difference: the script calls nltk.word_tokenize, which first
splits a run into sentences with Punkt; Punkt's model is NLTK data, not on PyPI, so both
sides tokenize each run as one sentence (word_tokenize(run, preserve_line=True)).

Cases: Chinese sentences from tests/data/bleu_languages/ocnli_dev_sample.jsonl (OCNLI dev,
CC BY-NC 2.0) cut into answer-like spans, mixed with English words, numbers, the script's
punctuation list, quotes and contractions, with predictions that overlap the answers in
part. Every value must be equal (to 1e-12), every segment list identical.

Run: RAGMETER_BUILD_DIR=$PWD/build ~/.cache/ragmeter/venv/bin/python -m pytest -q \
       tests/oracle/test_cmrc.py
"""

import json
import os
import random
import subprocess
from pathlib import Path

from nltk.tokenize import word_tokenize

BUILD_DIR = Path(os.environ.get("RAGMETER_BUILD_DIR", "/work/main/build"))
PROBE = BUILD_DIR / "probes" / "cmrc_probe"
DATA = Path(__file__).resolve().parents[1] / "data" / "bleu_languages" / "ocnli_dev_sample.jsonl"
SEED = 2018
CASES = 1500

# The script's sp_char list (its "……" entry is two characters: it never equals one).
PUNCTUATION = ["-", ":", "_", "*", "^", "/", "\\", "~", "`", "+", "=", "，", "。", "：", "？",
               "！", "“", "”", "；", "’", "《", "》", "……", "·", "、", "「", "」", "（", "）",
               "－", "～", "『", "』"]


def segments(text):
    """mixed_segmentation(text, rm_punc=True)."""
    out, run = [], ""
    for char in text.lower().strip():
        if char in PUNCTUATION:
            continue
        if "\u4e00" <= char <= "\u9fa5":
            if run:
                out.extend(word_tokenize(run, preserve_line=True))
                run = ""
            out.append(char)
        else:
            run += char
    if run:
        out.extend(word_tokenize(run, preserve_line=True))
    return out


def longest_common_run(a, b):
    """find_lcs's length."""
    best = 0
    previous = [0] * (len(b) + 1)
    for i in range(len(a)):
        current = [0] * (len(b) + 1)
        for j in range(len(b)):
            if a[i] == b[j]:
                current[j + 1] = previous[j] + 1
                best = max(best, current[j + 1])
        previous = current
    return best


def f1(prediction, answers):
    scores = []
    for answer in answers:
        ans, pred = segments(answer), segments(prediction)
        common = longest_common_run(ans, pred)
        if common == 0:
            scores.append(0)
            continue
        precision = 1.0 * common / len(pred)
        recall = 1.0 * common / len(ans)
        scores.append((2 * precision * recall) / (precision + recall))
    return max(scores)


def without_punctuation(text):
    return "".join(c for c in text.lower().strip() if c not in PUNCTUATION)


def exact_match(prediction, answers):
    return 1 if any(without_punctuation(a) == without_punctuation(prediction) for a in answers) else 0


def run_probe(requests):
    assert PROBE.exists(), f"build the probe first: {PROBE} (set RAGMETER_BUILD_DIR)"
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in requests)
    done = subprocess.run([str(PROBE)], input=text.encode("utf-8"), capture_output=True,
                          check=True, timeout=300)
    answers = [json.loads(line) for line in done.stdout.decode("utf-8").splitlines()]
    assert len(answers) == len(requests)
    errors = [(r, a) for r, a in zip(requests, answers) if "error" in a]
    assert not errors, errors[:3]
    return answers


INSERTS = ["iPhone 6s", "2015", "3.14", "1,000", "U.S.", "it's", "don't", "can't", "NBA",
           " the ", "Mr. Smith", "(a)", "[1]", "\"quoted\"", "'single'", "e-mail", "a--b",
           "x: y", "5%", "$3", "A&B", "…", "……", "——", "《", "》", "，", "。", "？", "！",
           "“", "”", "：", "、", "·", "（", "）", "-", "/", "+", "=", " ", "  ", "\t",
           "ＡＢＣ", "１２", "ａ", "東京", "㐀", "龥", "龦", "ｶﾀ", "İ", "Straße", "wanna",
           "gonna", "cannot", "'tis", "more'n", "d'ye", "?", "!", ";", "@", "#", "...", "end."]


def chinese_spans(rng, sentences, count):
    spans = []
    for _ in range(count):
        s = rng.choice(sentences)
        i = rng.randrange(len(s))
        spans.append(s[i:i + rng.randint(1, 12)])
    return spans


def mixed(rng, spans):
    parts = [rng.choice(spans) if rng.random() < 0.55 else rng.choice(INSERTS)
             for _ in range(rng.randint(1, 6))]
    return "".join(parts)


def perturb(rng, text):
    chars = list(text)
    out = []
    for c in chars:
        r = rng.random()
        if r < 0.1:
            continue
        out.append(rng.choice(INSERTS) if r < 0.2 else c)
    return "".join(out)


def cases():
    rng = random.Random(SEED)
    with open(DATA, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    sentences = [r["sentence1"] for r in rows] + [r["sentence2"] for r in rows]
    spans = chinese_spans(rng, sentences, 400)
    out = []
    for _ in range(CASES):
        answers = [mixed(rng, spans) for _ in range(rng.choice([1, 1, 2, 3]))]
        kind = rng.random()
        if kind < 0.1:
            prediction = answers[0]
        elif kind < 0.2:
            prediction = "  " + answers[-1] + rng.choice(["。", "！", " ", "……"])
        elif kind < 0.3:
            prediction = mixed(rng, spans)
        else:
            prediction = perturb(rng, rng.choice(answers)) + rng.choice(["", mixed(rng, spans)])
        out.append((prediction, answers))
    return out


def test_segments_match_the_script():
    texts = [t for prediction, answers in cases() for t in [prediction] + answers]
    got = run_probe([{"metric": "segments", "text": t} for t in texts])
    bad = [(t, g["segments"], segments(t)) for t, g in zip(texts, got)
           if g["segments"] != segments(t)]
    print(f"\n{len(texts)} texts segmented, {len(bad)} differ")
    assert not bad, bad[:3]


def test_f1_and_exact_match_match_the_script():
    all_cases = cases()
    requests, expected = [], []
    for prediction, answers in all_cases:
        requests.append({"metric": "f1", "prediction": prediction, "answers": answers})
        expected.append(f1(prediction, answers))
        requests.append({"metric": "em", "prediction": prediction, "answers": answers})
        expected.append(exact_match(prediction, answers))
    got = [a["value"] for a in run_probe(requests)]
    bad = [(r, g, w) for r, g, w in zip(requests, got, expected) if abs(g - w) > 1e-12]
    f1s = sorted(expected[0::2])
    ems = sum(expected[1::2])
    print(f"\n{len(all_cases)} cases: F1 quartiles {f1s[len(f1s) // 4]:.3f} "
          f"{f1s[len(f1s) // 2]:.3f} {f1s[3 * len(f1s) // 4]:.3f}; exact matches {ems}")
    assert not bad, bad[:3]
