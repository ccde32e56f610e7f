"""Oracle: ragmeter's ROUGE, Porter stemmer and string similarity against the references.

References: rouge-score (RougeScorer, rouge1/rouge2/rougeL/rougeLsum, with and without
stemming), NLTK's PorterStemmer (the mode rouge-score uses) and rapidfuzz.distance
(Levenshtein, Jaro, JaroWinkler, Hamming). Cases are generated with a fixed seed (random
words, repeated tokens, punctuation, numbers, empty and identical strings, multi-line
texts, accents, CJK, emoji) and taken from tests/data/halueval_qa_one_turn.jsonl.
Each test sends its whole batch through one run of the probe
<RAGMETER_BUILD_DIR>/probes/rouge_similarity_probe (default build dir /work/main/build).

Run: RAGMETER_BUILD_DIR=/work/build-rouge /root/.cache/ragmeter/venv/bin/python \
       -m pytest -q tests/oracle/test_rouge_similarity.py
"""

import json
import os
import random
import re
import subprocess
from pathlib import Path

import pytest
from nltk.stem.porter import PorterStemmer
from rapidfuzz.distance import Hamming, Jaro, JaroWinkler, Levenshtein
from rouge_score import rouge_scorer

BUILD_DIR = Path(os.environ.get("RAGMETER_BUILD_DIR", "/work/main/build"))
PROBE = BUILD_DIR / "probes" / "rouge_similarity_probe"
DATA = Path(__file__).resolve().parents[1] / "data" / "halueval_qa_one_turn.jsonl"
TOLERANCE = 1e-9
SEED = 20240611
MIN_CASES = 1000
ROUGE_TYPES = ["rouge1", "rouge2", "rougeL", "rougeLsum"]

ACCENTED = "àáâäãåçéèêëíìîïñóòôöõúùûüýÿœæøßÀÉÎÖÜÇÑ"
PUNCTUATION = [".", ",", "!", "?", ";", ":", "-", "--", "'", '"', "(", ")", "/", "&", "...", "'s"]
SUFFIXES = ["s", "es", "ies", "ied", "ed", "ing", "ly", "er", "est", "ness", "ful", "ment",
            "ation", "ational", "ization", "izer", "ical", "icate", "ative", "alize", "iciti",
            "ous", "ive", "ize", "able", "ible", "ant", "ement", "ent", "ion", "ism", "iti",
            "al", "ance", "ence", "eli", "alli", "entli", "ousli", "bli", "fulli", "logi",
            "aliti", "iviti", "biliti", "iveness", "fulness", "ousness", "alism", "ator",
            "enci", "anci", "e", "y", "ll", "eed", "sses", "ss", "at", "bl", "iz"]


def run_probe(requests):
    """Sends all requests through one probe run; returns its answers, in order."""
    if not PROBE.exists():
        pytest.fail(f"probe not built: {PROBE} (set RAGMETER_BUILD_DIR)")
    stdin = "".join(json.dumps(r) + "\n" for r in requests)
    done = subprocess.run([str(PROBE)], input=stdin, capture_output=True, text=True,
                          encoding="utf-8", timeout=120, check=True)
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(answers) == len(requests)
    errors = [(r, a) for r, a in zip(requests, answers) if isinstance(a, dict) and "error" in a]
    assert not errors, errors[:3]
    return answers


def compare(label, expected, got):
    """Asserts element-wise equality within TOLERANCE; prints cases and max difference."""
    assert len(expected) == len(got)
    worst = 0.0
    bad = []
    for case, (want, have) in enumerate(zip(expected, got)):
        diff = max(abs(w - h) for w, h in zip(want, have))
        worst = max(worst, diff)
        if diff > TOLERANCE:
            bad.append((case, want, have))
    print(f"{label}: {len(expected)} cases, max abs difference {worst:.3g}")
    assert not bad, f"{len(bad)} mismatches, first: {bad[:3]}"
    assert len(expected) >= MIN_CASES


# ---------------------------------------------------------------- case material


def halueval_rows():
    with DATA.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def corpus_words():
    words = set()
    for row in halueval_rows():
        for text in row.values():
            words.update(re.findall(r"[a-z0-9]+", text.lower()))
    return sorted(words)


def random_unicode_word(rng):
    kind = rng.randrange(5)
    if kind == 0:
        return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz" + ACCENTED)
                       for _ in range(rng.randint(1, 9)))
    if kind == 1:
        return "".join(chr(rng.randint(0x4E00, 0x9FFF)) for _ in range(rng.randint(1, 4)))
    if kind == 2:
        return "".join(chr(rng.randint(0x1F600, 0x1F64F)) for _ in range(rng.randint(1, 3)))
    if kind == 3:
        # U+0130 lowercases to "i" + U+0307 and U+212A (Kelvin) to "k" in Python.
        return rng.choice(["İstanbul", "\u212aelvin", "\u212a", "DİYARBAKIR", "İ", "Ωmega",
                           "naïve", "Ǆemal", "ﬁnance", "Ⅻ", "①②", "٣٤"])
    return "".join(chr(rng.randint(0xAC00, 0xD7A3)) for _ in range(rng.randint(1, 3)))


def random_token(rng, vocab, unicode_share):
    roll = rng.random()
    if roll < unicode_share:
        return random_unicode_word(rng)
    if roll < unicode_share + 0.08:
        return rng.choice([str(rng.randint(0, 3000)), f"{rng.randint(0, 99)}.{rng.randint(0, 99)}",
                           f"{rng.randint(1, 9)},{rng.randint(100, 999)}", "2nd", "1990s", "3d"])
    if roll < unicode_share + 0.16:
        return rng.choice(PUNCTUATION)
    word = rng.choice(vocab)
    if rng.random() < 0.15:
        word = word.capitalize() if rng.random() < 0.7 else word.upper()
    return word


def random_text(rng, vocab, length, unicode_share=0.05):
    tokens = [random_token(rng, vocab, unicode_share) for _ in range(length)]
    pieces = []
    for token in tokens:
        pieces.append(token)
        pieces.append(rng.choice([" ", " ", " ", " ", "", "  ", "\t", ", ", ". "]))
    return "".join(pieces).strip() if rng.random() < 0.9 else "".join(pieces)


def multiline(rng, vocab, sentences, unicode_share=0.05):
    lines = [random_text(rng, vocab, rng.randint(0, 15), unicode_share) for _ in range(sentences)]
    text = rng.choice(["\n", "\n", "\n\n", "\r\n", "\n \n"]).join(lines)
    if rng.random() < 0.2:
        text = "\n" + text
    if rng.random() < 0.2:
        text += "\n"
    return text


def small_vocab(rng, vocab):
    """A few words, so that texts share tokens and n-grams and repeat them."""
    return rng.sample(vocab, rng.randint(2, 12))


def generated_rouge_pairs(rng, vocab):
    pairs = []
    for _ in range(300):  # random words, sharing a small vocabulary
        words = small_vocab(rng, vocab)
        pairs.append((random_text(rng, words, rng.randint(0, 40)),
                      random_text(rng, words, rng.randint(0, 40))))
    for _ in range(150):  # repeated tokens
        word = rng.choice(vocab)
        other = rng.choice(vocab)
        pairs.append((" ".join([word] * rng.randint(1, 8) + [other] * rng.randint(0, 3)),
                      " ".join([other] * rng.randint(0, 3) + [word] * rng.randint(1, 8))))
    for _ in range(200):  # multi-line texts for ROUGE-Lsum
        words = small_vocab(rng, vocab)
        pairs.append((multiline(rng, words, rng.randint(1, 6)),
                      multiline(rng, words, rng.randint(1, 6))))
    for _ in range(100):  # mostly non-ASCII
        words = small_vocab(rng, vocab)
        pairs.append((random_text(rng, words, rng.randint(0, 20), unicode_share=0.6),
                      random_text(rng, words, rng.randint(0, 20), unicode_share=0.6)))
    for _ in range(60):  # long texts: the LCS needs several 64-bit words
        words = small_vocab(rng, vocab)
        pairs.append((random_text(rng, words, rng.randint(60, 200)),
                      random_text(rng, words, rng.randint(60, 200))))
    for _ in range(60):  # identical
        text = multiline(rng, vocab, rng.randint(1, 3))
        pairs.append((text, text))
    edge = ["", " ", "\n", "\n\n", "...", "!!! ???", "a", "A", "0", "the", "İ", "\u212a", "東京",
            "😀", "café", "1,000.5", "a\nb", "\nthe cat\n", "running runs ran"]
    pairs += [(a, b) for a in edge for b in edge]
    return pairs


def real_rouge_pairs(rows):
    pairs = []
    for i, row in enumerate(rows):
        pairs.append((row["hallucinated_answer"], row["right_answer"]))
        pairs.append((row["question"], row["knowledge"]))
        nxt = rows[(i + 1) % len(rows)]
        # Newline-separated sentences, as ROUGE-Lsum expects.
        pairs.append((row["knowledge"].replace(". ", ".\n"),
                      (row["question"] + "\n" + nxt["knowledge"]).replace(". ", ".\n")))
        pairs.append((row["right_answer"] + "\n" + row["hallucinated_answer"], row["question"]))
    return pairs


def stem_words(rng, vocab):
    words = set(vocab)
    bases = rng.sample(vocab, 800)
    for base in bases:
        for suffix in rng.sample(SUFFIXES, 6):
            words.add(base + suffix)
            words.add(base[:-1] + suffix)
    letters = "aeiouybcdglmnrstwxzkp"
    for _ in range(3000):
        stem = "".join(rng.choice(letters) for _ in range(rng.randint(1, 7)))
        words.add(stem + rng.choice(SUFFIXES + [""]))
    words.update(["sky", "skies", "dying", "lying", "tying", "news", "innings", "inning",
                  "outings", "outing", "cannings", "canning", "howe", "proceed", "exceed",
                  "succeed", "y", "yy", "yyyy", "yyyyyyyyy", "by", "ies", "dies", "flies",
                  "died", "spied", "feed", "agreed", "bled", "sing", "hopping", "filing",
                  "geology", "analogously", "controll", "roll", "generalizations", "a", "",
                  "Running", "CARESSES", "oed", "owed", "axing", "ying", "eying"])
    return sorted(words)


def random_string(rng, alphabet, length):
    return "".join(rng.choice(alphabet) for _ in range(length))


def mutate(rng, text, alphabet):
    chars = list(text)
    for _ in range(rng.randint(0, max(1, len(chars) // 4))):
        op = rng.randrange(3)
        pos = rng.randint(0, len(chars))
        if op == 0:
            chars.insert(pos, rng.choice(alphabet))
        elif chars and pos < len(chars):
            if op == 1:
                del chars[pos]
            else:
                chars[pos] = rng.choice(alphabet)
    return "".join(chars)


def similarity_pairs():
    rng = random.Random(SEED + 2)
    rows = halueval_rows()
    alphabets = ["ab", "abc", "abcdefgh", "abcdefghijklmnopqrstuvwxyz ", "aé😀東",
                 "xyzÀÉ東京😀😃"]
    pairs = []
    for _ in range(500):  # random strings across the 64-character block boundary
        alphabet = rng.choice(alphabets)
        a = random_string(rng, alphabet, rng.choice([rng.randint(0, 10), rng.randint(0, 70),
                                                     rng.randint(55, 200)]))
        b = mutate(rng, a, alphabet) if rng.random() < 0.6 else random_string(
            rng, alphabet, rng.randint(0, 140))
        pairs.append((a, b))
    for i, row in enumerate(rows):  # real text
        pairs.append((row["right_answer"], row["hallucinated_answer"]))
        pairs.append((row["question"], rows[(i + 7) % len(rows)]["question"]))
        if i % 3 == 0:
            pairs.append((row["knowledge"], mutate(rng, row["knowledge"], "aeiou ")))
    for _ in range(100):  # typos in a prefix-sharing word (Jaro-Winkler's boost)
        word = rng.choice(rows)["right_answer"][:rng.randint(1, 12)]
        pairs.append((word, mutate(rng, word, "abcdefghijklmnopqrstuvwxyz")))
    edge = ["", "a", "b", "ab", "ba", "abc", "東", "😀", "é", "e\u0301", "martha", "marhta",
            "dwayne", "duane", "dixon", "dicksonx", "kitten", "sitting"]
    pairs += [(a, b) for a in edge for b in edge]
    return pairs


# ---------------------------------------------------------------- tests


@pytest.mark.parametrize("stem", [False, True], ids=["no_stem", "stem"])
def test_rouge_equals_rouge_score(stem):
    rng = random.Random(SEED)
    vocab = corpus_words()
    pairs = generated_rouge_pairs(rng, vocab) + real_rouge_pairs(halueval_rows())
    scorer = rouge_scorer.RougeScorer(ROUGE_TYPES, use_stemmer=stem)
    answers = run_probe([{"fn": "rouge", "cand": c, "ref": r, "stem": stem} for c, r in pairs])
    references = [scorer.score(ref, cand) for cand, ref in pairs]  # score(target, prediction)
    for rouge_type in ROUGE_TYPES:
        expected = [(s[rouge_type].precision, s[rouge_type].recall, s[rouge_type].fmeasure)
                    for s in references]
        got = [answer[rouge_type] for answer in answers]
        compare(f"{rouge_type} stem={stem}", expected, got)


def test_porter_stem_equals_nltk():
    rng = random.Random(SEED + 1)
    words = stem_words(rng, corpus_words())
    stemmer = PorterStemmer()
    answers = run_probe([{"fn": "porter_stem", "word": w} for w in words])
    mismatches = [(w, stemmer.stem(w), a) for w, a in zip(words, answers) if stemmer.stem(w) != a]
    print(f"porter_stem: {len(words)} words, {len(mismatches)} mismatches")
    assert not mismatches, mismatches[:10]
    assert len(words) >= MIN_CASES


def test_rouge_tokenize_equals_rouge_score_tokenizer():
    rng = random.Random(SEED + 3)
    vocab = corpus_words()
    texts = [random_text(rng, vocab, rng.randint(0, 30), unicode_share=0.3) for _ in range(1000)]
    from rouge_score import tokenizers
    for stem in (False, True):
        tokenizer = tokenizers.DefaultTokenizer(use_stemmer=stem)
        answers = run_probe([{"fn": "rouge_tokenize", "text": t, "stem": stem} for t in texts])
        expected = [tokenizer.tokenize(t) for t in texts]
        mismatches = [(t, e, a) for t, e, a in zip(texts, expected, answers) if e != a]
        assert not mismatches, mismatches[:5]


MEASURES = {
    "levenshtein_similarity": Levenshtein.normalized_similarity,
    "levenshtein_distance": Levenshtein.distance,
    "jaro": Jaro.similarity,
    "jaro_winkler": JaroWinkler.similarity,
    "hamming_similarity": Hamming.normalized_similarity,
    "hamming_distance": Hamming.distance,
}


@pytest.mark.parametrize("fn", sorted(MEASURES))
def test_string_similarity_equals_rapidfuzz(fn):
    pairs = similarity_pairs()
    answers = run_probe([{"fn": fn, "a": a, "b": b} for a, b in pairs])
    expected = [(MEASURES[fn](a, b),) for a, b in pairs]
    compare(fn, expected, [(answer,) for answer in answers])


def test_jaro_winkler_prefix_weights_equal_rapidfuzz():
    pairs = similarity_pairs()
    rng = random.Random(SEED + 4)
    weights = [rng.choice([0.0, 0.05, 0.1, 0.15, 0.2, 0.25]) for _ in pairs]
    answers = run_probe([{"fn": "jaro_winkler", "a": a, "b": b, "prefix_weight": w}
                         for (a, b), w in zip(pairs, weights)])
    expected = [(JaroWinkler.similarity(a, b, prefix_weight=w),) for (a, b), w in zip(pairs, weights)]
    compare("jaro_winkler prefix_weight", expected, [(answer,) for answer in answers])


def test_invalid_utf8_compares_as_surrogate_escaped_bytes():
    rng = random.Random(SEED + 5)
    pieces = [b"a", b"b", b"\xc3\xa9", b"\xff", b"\x80", b"\xc3", b"\xe2\x82", b"\xed\xa0\x80",
              b"\xf4\x90\x80\x80", b"\xc0\xaf", b"\xf0\x9f\x98\x80", b"\xe6\x9d\xb1"]
    pairs = [(b"".join(rng.choice(pieces) for _ in range(rng.randint(0, 20))),
              b"".join(rng.choice(pieces) for _ in range(rng.randint(0, 20)))) for _ in range(1000)]
    requests, expected = [], []
    for a, b in pairs:
        sa = a.decode("utf-8", "surrogateescape")
        sb = b.decode("utf-8", "surrogateescape")
        for fn in ("levenshtein_similarity", "jaro_winkler", "hamming_similarity"):
            requests.append({"fn": fn, "a_hex": a.hex(), "b_hex": b.hex()})
            expected.append((MEASURES[fn](sa, sb),))
    answers = run_probe(requests)
    compare("invalid UTF-8 (surrogateescape)", expected, [(answer,) for answer in answers])
