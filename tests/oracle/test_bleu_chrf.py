"""Oracle test: ragmeter's BLEU, chrF and chrF++ against sacreBLEU 2.6.

Drives the probe <build>/probes/bleu_chrf_probe (RAGMETER_BUILD_DIR, default
/work/main/build) with one batch of JSON requests per test and requires every value to
equal sacreBLEU's score / 100 within 1e-9. Cases are generated with a fixed seed (random
word sequences sharing n-grams with their references, punctuation, numbers, HTML
entities, empty and identical strings, accents, CJK, emoji, mixed Unicode whitespace)
and taken from real text in tests/data/halueval_qa_one_turn.jsonl.

Run: /root/.cache/ragmeter/venv/bin/python -m pytest -q tests/oracle/test_bleu_chrf.py
"""

import json
import os
import random
import re
import subprocess
from pathlib import Path

import pytest
from sacrebleu.metrics import BLEU, CHRF
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

REPO = Path(__file__).resolve().parents[2]
BUILD_DIR = Path(os.environ.get("RAGMETER_BUILD_DIR", "/work/main/build"))
PROBE = BUILD_DIR / "probes" / "bleu_chrf_probe"
HALUEVAL = REPO / "tests" / "data" / "halueval_qa_one_turn.jsonl"
TOLERANCE = 1e-9
SEED = 20240601
CASES = 1200  # generated cases per test; real-text cases come on top

WORDS = [
    # plain words, many repeats so that hypotheses and references share n-grams
    "the", "the", "the", "a", "a", "of", "of", "and", "in", "to", "is", "was", "it",
    "for", "with", "as", "by", "at", "from", "cat", "dog", "sat", "on", "mat", "house",
    "Paris", "London", "president", "film", "album", "born", "American", "river", "city",
    "The", "It", "He", "She", "They", "first", "second", "largest", "known", "name",
    # punctuation and numbers that 13a and chrF++ split in different ways
    "Mr.", "U.S.", "e.g.", "3.14", "1,000", "1990-2000", "42", "2-3", "-5", "e-mail",
    "don't", "O'Neil", "co-operate", "x/y", "C++", "AT&T", "$5", "50%", "#1", "@home",
    "(see", "below)", '"quoted"', "'single'", "end.", "comma,", "semi;", "colon:",
    "what?", "wow!", "...", "--", ".", ",", "!", "?", "(", ")", "-", "'", '"', "a.b",
    "x,y", "7.", ",8", "9,", ".5", "[1]", "{x}", "~", "^", "_", "`", "|", "\\", "<", ">",
    "=", "*", "+", ":",
    # HTML entities and mteval's <skipped>
    "&quot;", "&amp;", "&lt;", "&gt;", "&amp;lt;", "&quot;x&quot;", "<skipped>", "&",
    "a&amp;b", "<skip<skipped>ped>",
    # Unicode: accents, CJK, emoji, Greek final sigma, dotted I, combining marks, digits
    "naïve", "café", "Ünïcödé", "東京", "日本語", "の", "😀", "👍🏽", "Σίσυφος", "ΣΑΣ",
    "İstanbul", "straße", "ÉCOLE", "e\u0301", "مرحبا", "नमस्ते", "ñ", "１２３", "٣",
    "«quote»", "—", "…", "€5", "½",
]
SEPARATORS = [" "] * 30 + [
    "  ", "\t", "\n", "\u00a0", "\u3000", "\u2009", "\r\n", " \n ", "-\n", "", "\x0b",
    "\x1c", "\u2028", "\u0085",
]


def run_probe(requests):
    """Sends all requests to the probe at once; returns the parsed answers."""
    assert PROBE.exists(), f"build the probe first: {PROBE} (set RAGMETER_BUILD_DIR)"
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in requests)
    result = subprocess.run(
        [str(PROBE)], input=text.encode("utf-8"), capture_output=True, check=True, timeout=120
    )
    answers = [json.loads(line) for line in result.stdout.decode("utf-8").splitlines()]
    assert len(answers) == len(requests)
    for request, answer in zip(requests, answers):
        assert "error" not in answer, (request, answer)
    return answers


def compare(requests, expected):
    """Requires the probe's values to equal `expected` within TOLERANCE."""
    answers = run_probe(requests)
    worst = 0.0
    for request, answer, want in zip(requests, answers, expected):
        diff = abs(answer["value"] - want)
        worst = max(worst, diff)
        assert diff <= TOLERANCE, (request, answer["value"], want)
    print(f"\n{len(requests)} cases compared, max |diff| = {worst:.3g}")


# ---------------------------------------------------------------------------------
# Case generation
# ---------------------------------------------------------------------------------


def join(rng, words):
    """Joins words mostly with spaces, sometimes with other (Unicode) whitespace or
    nothing, with optional leading and trailing whitespace."""
    text = ""
    for i, word in enumerate(words):
        text += (rng.choice(SEPARATORS) if i else "") + word
    if rng.random() < 0.1:
        text = rng.choice(SEPARATORS) + text
    if rng.random() < 0.15:
        text += rng.choice(SEPARATORS + ["-", "- \n", "\n\n"])
    return text


def random_words(rng, low=0, high=35):
    return [rng.choice(WORDS) for _ in range(rng.randint(low, high))]


def mutate(rng, words):
    """A noisy copy: substitutions, deletions, insertions, case changes, a swapped pair."""
    out = []
    for word in words:
        r = rng.random()
        if r < 0.08:
            continue
        if r < 0.16:
            out.append(rng.choice(WORDS))
        elif r < 0.20:
            out.extend([word, rng.choice(WORDS)])
        elif r < 0.23:
            out.append(word.upper())
        else:
            out.append(word)
    if len(out) > 2 and rng.random() < 0.3:
        i = rng.randrange(len(out) - 1)
        out[i], out[i + 1] = out[i + 1], out[i]
    return out


def character_soup(rng):
    """Short strings dense in what 13a treats specially: [.,], '-', digits, entities."""
    alphabet = list(".,-0123456789a &;'\"/<>\n\t") + ["&quot;", "&amp;", "&lt;", "&gt;",
                                                     "<skipped>", "-\n", "é", "東", "\u00a0"]
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 20)))


def generated_pair(rng):
    """A hypothesis and 1 to 4 references, with special cases mixed in."""
    base = random_words(rng)
    kind = rng.random()
    n_refs = rng.choice([1, 1, 1, 2, 3, 4])
    refs = [join(rng, mutate(rng, base)) for _ in range(n_refs)]
    if kind < 0.04:
        refs = [character_soup(rng) for _ in refs]
        hyp = refs[0][: len(refs[0]) // 2] + character_soup(rng)
    elif kind < 0.07:
        hyp = ""
    elif kind < 0.10:
        refs[0] = ""
        hyp = join(rng, mutate(rng, base))
    elif kind < 0.15:
        hyp = refs[0]
    elif kind < 0.20:
        hyp = join(rng, random_words(rng, 0, 5))
    elif kind < 0.25:
        hyp = join(rng, random_words(rng))
    else:
        hyp = join(rng, mutate(rng, base))
    return hyp, refs


def sentences(text):
    return [s for s in re.split(r"(?<=[.!?])\s+", text) if s]


def halueval_pairs():
    """Real text: answers against each other, against the question and the knowledge."""
    pairs = []
    with open(HALUEVAL, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    for row in rows:
        right, wrong = row["right_answer"], row["hallucinated_answer"]
        knowledge, question = row["knowledge"], row["question"]
        pairs.append((right, [wrong]))
        pairs.append((wrong, [right]))
        pairs.append((wrong, sentences(knowledge)[:4]))
        pairs.append((question, [knowledge]))
        pairs.append((right + " " + question, [question, right, wrong]))
    return pairs


def bleu_options(rng, smoothing):
    options = {"smooth_method": smoothing}
    if smoothing in ("floor", "add-k") and rng.random() < 0.3:
        options["smooth_value"] = round(rng.uniform(0.01, 2.0), 3)
    if rng.random() < 0.2:
        options["tokenize"] = "none"
    if rng.random() < 0.25:
        options["lowercase"] = True
    return options


def chrf_options(rng, word_order):
    options = {"word_order": word_order}
    if rng.random() < 0.3:
        options["eps_smoothing"] = True
    if rng.random() < 0.15:
        options["whitespace"] = True
    if rng.random() < 0.2:
        options["lowercase"] = True
    if rng.random() < 0.1:
        options["beta"] = rng.choice([1, 3])
    if rng.random() < 0.05:
        options["char_order"] = rng.choice([3, 8])
    return options


def sacrebleu_bleu(options, effective_order):
    return BLEU(
        smooth_method=options.get("smooth_method", "exp"),
        smooth_value=options.get("smooth_value"),
        tokenize=options.get("tokenize", "13a"),
        lowercase=options.get("lowercase", False),
        effective_order=effective_order,
    )


def sacrebleu_chrf(options):
    return CHRF(
        char_order=options.get("char_order", 6),
        word_order=options.get("word_order", 0),
        beta=options.get("beta", 2),
        lowercase=options.get("lowercase", False),
        whitespace=options.get("whitespace", False),
        eps_smoothing=options.get("eps_smoothing", False),
    )


def reference_streams(corpus_refs):
    """sacreBLEU's layout (one stream per reference position, None where a segment
    has fewer references) from ragmeter's (the references of each segment)."""
    width = max(len(refs) for refs in corpus_refs)
    return [[refs[k] if k < len(refs) else None for refs in corpus_refs] for k in range(width)]


def sentence_cases(seed):
    rng = random.Random(seed)
    cases = [generated_pair(rng) for _ in range(CASES)]
    real = halueval_pairs()
    rng.shuffle(real)
    return rng, cases + real[:CASES]


def corpora(seed, count=CASES):
    """Corpora of 1 to 8 segments, generated or real; all segments have a reference."""
    rng = random.Random(seed)
    real = halueval_pairs()
    out = []
    for _ in range(count):
        size = rng.randint(1, 8)
        if rng.random() < 0.5:
            segments = [generated_pair(rng) for _ in range(size)]
        else:
            segments = rng.sample(real, size)
        out.append(([h for h, _ in segments], [refs for _, refs in segments]))
    return rng, out


# ---------------------------------------------------------------------------------
# Tests
# ---------------------------------------------------------------------------------


def check_sentences(metric, cases, make_options, make_scorer):
    """Scores each (hyp, refs) case with the probe and with sacreBLEU's sentence_score."""
    requests, expected = [], []
    for hyp, refs in cases:
        options = make_options()
        requests.append({"metric": metric, "hyp": hyp, "refs": refs, "options": options})
        expected.append(make_scorer(options).sentence_score(hyp, refs).score / 100)
    compare(requests, expected)


def check_corpora(metric, cases, make_options, make_scorer):
    """Scores each (hyps, refs) corpus with the probe and with sacreBLEU's corpus_score."""
    requests, expected = [], []
    for hyps, refs in cases:
        options = make_options()
        requests.append({"metric": metric, "hyps": hyps, "refs": refs, "options": options})
        score = make_scorer(options).corpus_score(hyps, reference_streams(refs))
        expected.append(score.score / 100)
    compare(requests, expected)


def test_tokenize_13a_matches_sacrebleu():
    rng = random.Random(SEED)
    texts = [join(rng, random_words(rng)) for _ in range(CASES)]
    texts += [character_soup(rng) for _ in range(5 * CASES)]
    texts += [h for h, _ in halueval_pairs()[:CASES]]
    texts += ["a..b", "1..b", "1.,2", "a...", "x.,y", ".,.,", "1-2-3", "a-\nb", "&amp;quot;"]
    answers = run_probe([{"metric": "tokenize_13a", "text": t} for t in texts])
    tokenizer = Tokenizer13a()
    for text, answer in zip(texts, answers):
        assert answer["tokens"] == tokenizer(text), text


@pytest.mark.parametrize("smoothing", ["exp", "floor", "add-k", "none"])
def test_sentence_bleu_matches_sacrebleu(smoothing):
    rng, cases = sentence_cases(SEED + 1)
    check_sentences(
        "sentence_bleu", cases, lambda: bleu_options(rng, smoothing),
        lambda options: sacrebleu_bleu(options, effective_order=True))


def test_corpus_bleu_matches_sacrebleu():
    rng, cases = corpora(SEED + 2)

    def make_options():
        options = bleu_options(rng, rng.choice(["exp", "floor", "add-k", "none"]))
        options["effective_order"] = rng.random() < 0.3
        return options

    check_corpora(
        "corpus_bleu", cases, make_options,
        lambda options: sacrebleu_bleu(options, options["effective_order"]))


@pytest.mark.parametrize("word_order", [0, 2], ids=["chrF", "chrF++"])
def test_sentence_chrf_matches_sacrebleu(word_order):
    rng, cases = sentence_cases(SEED + 3 + word_order)
    check_sentences("sentence_chrf", cases, lambda: chrf_options(rng, word_order), sacrebleu_chrf)


@pytest.mark.parametrize("word_order", [0, 2], ids=["chrF", "chrF++"])
def test_corpus_chrf_matches_sacrebleu(word_order):
    rng, cases = corpora(SEED + 6 + word_order)
    check_corpora("corpus_chrf", cases, lambda: chrf_options(rng, word_order), sacrebleu_chrf)
