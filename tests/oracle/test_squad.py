"""Oracle: ragmeter's SQuAD-style token metrics against the official SQuAD v2.0 script's logic.

Reference: the official SQuAD v2.0 evaluation script (evaluate-v2.0.py), re-implemented
below in a few lines of plain Python (no download): normalize_answer = lower(), drop every
character of string.punctuation, re.sub(r'\\b(a|an|the)\\b', ' ', ..., flags=re.UNICODE),
' '.join(text.split()); get_tokens = normalize_answer(s).split(); compute_exact compares
the normalised strings; compute_f1 counts common tokens with Counter(gold) & Counter(pred)
and is int(gold == pred) when either side has no tokens. Over several references the
script takes the max over the gold answers whose normalised text is non-empty (all of them
empty: the single gold answer ''). Because the oracle runs on Python's own str.lower(),
str.split() and re, whatever CPython counts as whitespace (\\x1c-\\x1f included), as a word
character for \\b (str.isalnum(): also '²', '½', 'Ⅻ') or as a case mapping (final sigma,
dotted İ) is the expected behaviour.

The two metrics of Adlakha et al. (TACL 2024) use the same tokens: answer_token_recall =
|Counter(ref) & Counter(resp)| / |ref| for the first reference (0 when it has no tokens);
k_precision = |Counter(resp) & Counter(tokens of every retrieved context, concatenated)|
/ |resp| (0 when the response has no tokens).

ragmeter is driven through its CLI: one `ragmeter eval --language en` run over all cases
(metrics token_f1, squad_exact_match, answer_token_recall, k_precision: SQuAD's tokens are
their English definition; a sample detected as another language counts ICU words, which
tests/cli/test_languages_cli.py checks), reading the per-row
results JSONL (`scores`, `status`). A literally empty response, first reference or
context list is `skipped` by ragmeter's field checks (include/ragmeter/sample.h); the
oracle expects exactly that, and scores everything else.

Cases (fixed seed, about 7,800, 1,667 of them real text): random words with repeats;
the articles a/an/the in every case and position, glued to punctuation ("the,", "(the)",
"a-b", "an_x", "the's"), to digits and underscores ("a1", "the_"), to non-ASCII letters,
marks and symbols ("éthe", "theé", "the é", "the\\u0301", "the😀"), and to numeric
non-digit word characters ("the²", "½a", "theⅫ"); punctuation-only and whitespace-only
strings; literally empty strings; numbers; several references where the best one wins,
and references that normalise to nothing among others; Unicode (accents, ÉCOLE, Greek
final sigma ΟΔΟΣ in its contexts, Turkish İ, CJK, emoji, combining marks, punctuation
outside string.punctuation such as «» “” — 。, the whitespace U+00A0 U+2003 U+3000
U+0085 U+2028, the non-spaces U+200B U+FEFF U+00AD, the ASCII separators \\x1c-\\x1f,
tabs and newlines); retrieved contexts cut at random points; and real answers, questions
and knowledge from tests/data/halueval_qa_one_turn.jsonl. Characters are limited to
those assigned in CPython's Unicode database (unicodedata.unidata_version).

Run: RAGMETER_BUILD_DIR=build ~/.cache/ragmeter/venv/bin/python \\
       -m pytest -q -p no:cacheprovider tests/oracle/test_squad.py
"""

import collections
import json
import os
import random
import re
import string
import subprocess
import time
import unicodedata
from pathlib import Path

import pytest
import regex

REPO = Path(__file__).resolve().parents[2]
BUILD_DIR = Path(os.environ.get("RAGMETER_BUILD_DIR", REPO / "build"))
RAGMETER = BUILD_DIR / "ragmeter"
DATA = REPO / "tests" / "data" / "halueval_qa_one_turn.jsonl"
TOLERANCE = 1e-9
SEED = 20240617
MIN_CASES = 1000
METRICS = ["token_f1", "squad_exact_match", "answer_token_recall", "k_precision"]


# ---------------------------------------------------------------- the oracle

PUNCTUATION = frozenset(string.punctuation)
ARTICLES = re.compile(r"\b(a|an|the)\b", flags=re.UNICODE)


def normalize_answer(text):
    """SQuAD v2.0: lowercase, no ASCII punctuation, no articles, single spaces."""
    text = text.lower()
    text = "".join(ch for ch in text if ch not in PUNCTUATION)
    text = ARTICLES.sub(" ", text)
    return " ".join(text.split())


def get_tokens(text):
    return normalize_answer(text).split() if text else []


def common_count(a, b):
    return sum((collections.Counter(a) & collections.Counter(b)).values())


def compute_exact(gold, pred):
    return int(normalize_answer(gold) == normalize_answer(pred))


def compute_f1(gold, pred):
    gold_tokens, pred_tokens = get_tokens(gold), get_tokens(pred)
    if not gold_tokens or not pred_tokens:
        return int(gold_tokens == pred_tokens)
    same = common_count(gold_tokens, pred_tokens)
    if same == 0:
        return 0
    precision = 1.0 * same / len(pred_tokens)
    recall = 1.0 * same / len(gold_tokens)
    return (2 * precision * recall) / (precision + recall)


def gold_answers(references):
    """The script keeps the gold answers that normalise to something; none left: ['']."""
    kept = [a for a in references if normalize_answer(a)]
    return kept or [""]


def answer_token_recall(response, reference):
    gold = get_tokens(reference)
    if not gold:
        return 0.0
    return common_count(gold, get_tokens(response)) / len(gold)


def k_precision(response, contexts):
    pred = get_tokens(response)
    if not pred:
        return 0.0
    knowledge = [token for context in contexts for token in get_tokens(context)]
    return common_count(pred, knowledge) / len(pred)


def expected_scores(case):
    """Oracle value per metric; None where ragmeter's field checks must skip the metric."""
    response, refs, contexts = case["response"], case["references"], case["contexts"]
    out = dict.fromkeys(METRICS)
    if response == "":
        return out
    if refs[0] != "":
        golds = gold_answers(refs)
        out["squad_exact_match"] = float(max(compute_exact(g, response) for g in golds))
        out["token_f1"] = float(max(compute_f1(g, response) for g in golds))
        out["answer_token_recall"] = answer_token_recall(response, refs[0])
    if contexts:
        out["k_precision"] = k_precision(response, contexts)
    return out


# ---------------------------------------------------------------- case material

ARTICLE_FORMS = ["the", "The", "THE", "tHe", "a", "A", "an", "An", "AN", "aN"]
# Articles glued to ASCII punctuation, digits, underscores and letters.
GLUED_ASCII = [
    "the,", "(the)", "a-b", "an_x", "the's", "the.", ".the", "'a'", '"an"', "[the]", "a/b",
    "the-end", "an.", "...a", "the!", "A.", "a1", "1a", "the2", "2the", "an3", "a1b", "_a",
    "a_", "the_", "_the_", "xthe", "thex", "athe", "thea", "ana", "thethe", "the-the",
    "a.a", "a a a", "t-h-e", "a&b", "(a)", "{an}", "<the>", "@the", "#a", "the:", "a;",
    "the?", "an'", "'the", "A-", "-an-", "the--a", "a...an", "THE.", "(An)", "a,b,c",
    "the\tcat", "the\nend", "a\r\nb", "e.g.", "i.e.", "U.S.A.", "anthe", "an-the",
]
# Articles next to non-ASCII letters, marks, symbols, punctuation and spaces.
GLUED_UNICODE = [
    "éthe", "theé", "the é", "é the", "éa", "aé", "é a é", "ana\u0301", "the\u0301",
    "\u0301the", "a\u0308", "the😀", "😀a", "👍🏽the", "the東", "東the", "an東京", "東京 the",
    "theß", "ßthe", "the«", "«the»", "“the”", "‘a’", "the—a", "a–an", "the…", "the。",
    "。a", "a、", "「the」", "a\u00a0the", "the\u3000a", "the\u2003an", "a\u0085the",
    "the\u2028a", "the\u200bx", "the\u200dx", "the\ufeff", "\u00adthe", "the\u00ad",
    "theİ", "İthe", "İ the", "aı", "ıa", "theΣ", "ΣA", "the ΟΔΟΣ", "anΩ", "Ωan", "theⓐ",
    "ⓐthe", "theʰ", "ʰa", "ªthe", "the٣", "٣a", "the１", "ａthe", "ＴＨＥ", "ｔｈｅ a",
    "the𝟙", "a¿", "¡the!", "the·a", "a•", "the†", "«A»", "“THE”", "the\u2019s", "an’t",
]
# Articles next to characters that str.isalnum() counts (so \b does) but that are neither
# letters nor decimal digits: superscripts, fractions, Roman numerals, circled numbers.
GLUED_NUMERIC = [
    "the²", "²the", "a½", "½a", "theⅫ", "Ⅻthe", "an①", "①an", "the〇", "〇a", "ᛮthe",
    "a¼x", "the³ x", "x ²a", "an⁴", "the₂", "₂a", "Ⅷan", "the፩", "a𐄇", "the三", "三a",
]
SIGMA = [
    "ΟΔΟΣ", "ΟΔΟΣ.", "ΟΔΟΣ's", "ΟΔΟΣ.Α", "ΑΣ'Α", "Α'Σ", "Σ", "ΣΑ", "AΣ", "1Σ", "ΑΣ1",
    "ΑΣ_Β", "ΑΣ\u0301", "ΑΣ\u0301Β", "ΑΣ\u00adΒ", "ΑΣ:Β", "Α:Σ", "ΣΣ", "ΑΣΣ", "ΑΣ-Β",
    "ΣΟΦΟΣ ΑΝΘΡΩΠΟΣ", "ὈΔΥΣΣΕΎΣ", "ΑΣ\u200dΒ", "ΑΣ Β", "ΑΣ\x1cΒ",
]
UNICODE_WORDS = [
    "ÉCOLE", "école", "ecole", "École", "NAÏVE", "naïve", "nai\u0308ve", "CAFÉ", "café",
    "cafe\u0301", "e\u0301", "É", "İstanbul", "İSTANBUL", "istanbul", "İ", "i\u0307", "ı",
    "DİYARBAKIR", "straße", "STRASSE", "ẞ", "ß", "ǅemal", "Ǆemal", "ﬁnance", "\u212aelvin",
    "Å", "Ωmega", "ΩMEGA", "ΟΔΟΣ", "οδος", "οδοσ", "東京", "日本語", "北京大学", "の",
    "한국어", "😀", "👍🏽", "👨\u200d👩\u200d👧", "1\ufe0f\u20e3", "🇫🇷", "مرحبا", "नमस्ते",
    "Ⓐ", "ⓐbc", "１２３", "٣٤", "𝟙", "ʰ", "ª", "Ⅻ", "ⅻ", "½", "²", "Straße", "ÅNGSTRÖM",
    "Ελληνικά", "ΕΛΛΗΝΙΚΆ", "Привет", "ПРИВЕТ", "ǈ", "Ǉ", "ŉ", "ΐ", "Ｋ", "ꭰ", "Ꭰ",
]
NON_ASCII_PUNCT = ["«", "»", "“", "”", "‘", "’", "—", "–", "…", "。", "、", "「", "」", "¿",
                   "¡", "·", "•", "§", "¶", "†", "‰", "′", "〜", "！", "？", "（", "）", "¬"]
ASCII_PUNCT = [".", ",", "!", "?", ";", ":", "-", "--", "'", '"', "(", ")", "...", "'s",
               "[", "]", "{", "}", "/", "\\", "@", "#", "$", "%", "^", "&", "*", "+", "=",
               "<", ">", "|", "~", "`", "_"]
NUMBERS = ["0", "1", "42", "2024", "3.14", "1,000", "1,000,000", "-5", "+7", "1990s", "2nd",
           "3rd", "10%", "$5", "1/2", "1e6", "0x1F", "12:30", "2020-01-01", "٣", "１２３",
           "𝟙", "½", "²", "Ⅻ", "①", "三", "〇", "1\u00a0000", "1 000", "007", "00"]
SEPARATORS = [" "] * 24 + ["  ", "\t", "\n", "\r\n", " \n ", "\x0b", "\x0c", "\r", ""]
UNICODE_SPACES = ["\u00a0", "\u2003", "\u3000", "\u0085", "\u2028", "\u2029", "\u1680",
                  "\u2000", "\u200a", "\u202f", "\u205f"]
CONTROL_SEPARATORS = ["\x1c", "\x1d", "\x1e", "\x1f"]  # str.split() splits on these
NOT_SPACES = ["\u200b", "\u200d", "\ufeff", "\u180e", "\u00ad", "\x00", "\x07", "\x1b",
              "\x7f"]  # str.split() does not
BASIC_WORDS = ["cat", "dog", "sat", "on", "mat", "Paris", "born", "river", "city", "film",
               "of", "in", "is", "was", "it", "and", "to", "x", "y", "i", "A1", "an", "the"]


def halueval_rows():
    with DATA.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def corpus_words(rows):
    words = set()
    for row in rows:
        for text in row.values():
            words.update(re.findall(r"[A-Za-z0-9']+", text))
    return sorted(words)


def join(rng, tokens, separators=SEPARATORS):
    text = ""
    for i, token in enumerate(tokens):
        text += (rng.choice(separators) if i else "") + token
    if rng.random() < 0.1:
        text = rng.choice(separators) + text
    if rng.random() < 0.1:
        text += rng.choice(separators)
    return text


def vary(rng, tokens, pool):
    """A noisy copy: dropped, replaced, repeated, re-cased or punctuated tokens, a swap."""
    out = []
    for token in tokens:
        r = rng.random()
        if r < 0.1:
            continue
        if r < 0.2:
            out.append(rng.choice(pool))
        elif r < 0.27:
            out.extend([token, token])
        elif r < 0.33:
            out.append(token.upper())
        elif r < 0.38:
            out.append(token + rng.choice(ASCII_PUNCT))
        else:
            out.append(token)
    if len(out) > 2 and rng.random() < 0.3:
        i = rng.randrange(len(out) - 1)
        out[i], out[i + 1] = out[i + 1], out[i]
    return out


def cut(rng, text):
    """`text` cut at 0 to 4 random code-point positions: contexts to concatenate."""
    points = sorted(rng.randint(0, len(text)) for _ in range(rng.randint(0, 4)))
    pieces, start = [], 0
    for p in points + [len(text)]:
        pieces.append(text[start:p])
        start = p
    return pieces


def contexts_for(rng, response, refs, pool):
    roll = rng.random()
    if roll < 0.25:
        return [refs[0]]
    if roll < 0.4:
        return cut(rng, refs[0] + rng.choice([" ", "\n", ""]) + response)
    if roll < 0.55:
        return cut(rng, response)
    if roll < 0.7:
        return [join(rng, [rng.choice(pool) for _ in range(rng.randint(0, 12))])
                for _ in range(rng.randint(1, 4))]
    if roll < 0.8:
        return list(refs)
    if roll < 0.88:
        return ["", refs[0], ""]
    if roll < 0.93:
        return [""]
    if roll < 0.96:
        return []
    return [response, response]


class Cases:
    def __init__(self):
        self.items = []
        self.counts = collections.Counter()

    def add(self, category, response, refs, contexts, as_list=None):
        refs = list(refs)
        self.counts[category] += 1
        self.items.append({"id": f"{category}#{self.counts[category]}", "category": category,
                           "response": response, "references": refs, "contexts": list(contexts),
                           "as_list": len(refs) > 1 if as_list is None else as_list})


def probe(cases, category, text):
    """`text` against its own SQuAD normal form, both ways round (ragmeter lowercasing or
    splitting otherwise drops exact match, recall or K-precision below 1), and against
    itself with every "a", "an" and "the" cut out whatever surrounds it (ragmeter's \\b
    deciding otherwise flips exact match)."""
    normal = normalize_answer(text) or " "
    cases.add(category, text, [normal], [normal])
    cases.add(category, normal, [text], [text])
    cut_out = re.sub(r"(?i)the|an|a", " ", text).strip(" ") or "x"
    cases.add(category, text, [cut_out], [cut_out])


def pair_from(rng, cases, category, pool, length, separators=SEPARATORS, low=0):
    tokens = [rng.choice(pool) for _ in range(rng.randint(low, length))]
    response = join(rng, tokens, separators)
    roll = rng.random()
    if roll < 0.6:
        reference = join(rng, vary(rng, tokens, pool), separators)
    elif roll < 0.75:
        reference = response
    else:
        reference = join(rng, [rng.choice(pool) for _ in range(rng.randint(low, length))],
                         separators)
    if rng.random() < 0.1:
        reference = normalize_answer(response)
    if rng.random() < 0.5:
        response, reference = reference, response
    if reference == "" and rng.random() < 0.8:
        reference = rng.choice([" ", "the", "."])
    if response == "" and rng.random() < 0.8:
        response = rng.choice(["\t", "a", "!"])
    refs = [reference]
    cases.add(category, response, refs, contexts_for(rng, response, refs, pool),
              as_list=rng.random() < 0.2)


def generated_cases(rng, vocab):
    cases = Cases()
    for _ in range(400):  # random words sharing a small vocabulary, with repeats
        pool = rng.sample(vocab, rng.randint(2, 10)) + rng.sample(ARTICLE_FORMS, 2)
        pool += rng.sample(ASCII_PUNCT, 2)
        pair_from(rng, cases, "random_words", pool, 25)
    for _ in range(120):  # the same tokens many times: Counter & Counter
        w, v = rng.sample(vocab, 2)
        a = [w] * rng.randint(1, 6) + [v] * rng.randint(0, 4)
        b = [v] * rng.randint(0, 5) + [w] * rng.randint(1, 6)
        rng.shuffle(a)
        rng.shuffle(b)
        refs = [" ".join(b)]
        cases.add("repeats", " ".join(a), refs, contexts_for(rng, " ".join(a), refs, [w, v]))
    for _ in range(350):  # articles in every case, position and neighbourhood
        pool = ARTICLE_FORMS * 2 + GLUED_ASCII + rng.sample(BASIC_WORDS, 5)
        pair_from(rng, cases, "articles", pool, 10, low=1)
    for token in ARTICLE_FORMS + GLUED_ASCII:  # each alone, first, last, in the middle
        for text in [token, token + " x", "x " + token, "x " + token + " y", token + token]:
            probe(cases, "articles", text)
        cases.add("articles", token, [token.upper()], [token.upper(), "x"])
    for _ in range(200):
        pool = GLUED_UNICODE + ARTICLE_FORMS + rng.sample(UNICODE_WORDS, 4)
        pair_from(rng, cases, "articles_unicode", pool, 8, low=1)
    for token in GLUED_UNICODE:
        for text in [token, "x " + token, token + " x", token.upper()]:
            probe(cases, "articles_unicode", text)
    for token in GLUED_NUMERIC:
        for text in [token, token + " x", "x " + token, token.upper()]:
            probe(cases, "numeric_word_chars", text)
    for _ in range(60):
        pool = GLUED_NUMERIC + ARTICLE_FORMS + ["x", "y", "²", "½", "Ⅻ", "ⅻ", "①", "〇", "三"]
        pair_from(rng, cases, "numeric_word_chars", pool, 6, low=1)
    for _ in range(100):  # punctuation only, against words, punctuation or articles
        punct = "".join(rng.choice(ASCII_PUNCT + [" ", ""]) for _ in range(rng.randint(1, 8)))
        if not punct:
            punct = "?"
        other = rng.choice([punct[::-1], "x", "the", "a!", "x.", "...", " ", "«»", "“x”",
                            "".join(rng.sample(ASCII_PUNCT, 3))])
        refs = [other, punct] if rng.random() < 0.2 else [other]
        if rng.random() < 0.5:
            cases.add("punctuation_only", punct, refs, [other, "."])
        else:
            cases.add("punctuation_only", other, [punct], [punct])
    edge = ["", " ", "\n", "\t \n", "!!!", ".", "the", "a an the", "The.", "x", "X", "the x",
            "«»", "。", "\u00a0", "\x1c", "\u200b", "_"]
    for response in edge:
        for reference in edge:
            cases.add("empty", response, [reference], [reference] if reference else [])
    for response in edge:  # literally empty lists and contexts
        cases.add("empty", response, ["x"], [])
        cases.add("empty", response, ["x"], [""])
        cases.add("empty", response, ["", "x"], ["x"])
    for _ in range(120):
        pool = NUMBERS + rng.sample(BASIC_WORDS, 3) + ["a", "the"]
        pair_from(rng, cases, "numbers", pool, 8, low=1)
    for number in NUMBERS:
        probe(cases, "numbers", number)
        probe(cases, "numbers", f"the {number} a{number} {number}an")
    for _ in range(300):  # mostly non-ASCII, Unicode whitespace and non-spaces
        pool = (rng.sample(UNICODE_WORDS, 6) + rng.sample(NON_ASCII_PUNCT, 3) + SIGMA[:3]
                + rng.sample(BASIC_WORDS, 3) + ARTICLE_FORMS[:3] + rng.sample(NOT_SPACES, 2))
        pair_from(rng, cases, "unicode", pool, 12, SEPARATORS + UNICODE_SPACES * 2, low=1)
    for text in SIGMA + UNICODE_WORDS + NON_ASCII_PUNCT:
        cases.add("unicode", text, [text.lower()], [text.upper()])
        cases.add("unicode", text.upper(), [text], [text.lower(), text.casefold()])
        probe(cases, "unicode", text)
        probe(cases, "unicode", f"The {text}. {text.upper()}, the{text}")
    for space in UNICODE_SPACES + NOT_SPACES:
        cases.add("unicode", f"cat{space}dog", ["cat dog"], [f"dog{space}cat"])
        cases.add("unicode", f"{space}the{space}", ["x"], [f"the{space}x"])
        probe(cases, "unicode", f"x{space}the{space}a{space}an{space}{space}y{space}")
    for _ in range(100):  # ASCII control separators, which str.split() treats as spaces
        pool = rng.sample(BASIC_WORDS, 4) + ARTICLE_FORMS[:4] + ["é", "東京"]
        pair_from(rng, cases, "control_separators", pool, 8, SEPARATORS + CONTROL_SEPARATORS * 6,
                  low=1)
    for sep in CONTROL_SEPARATORS:
        cases.add("control_separators", f"cat{sep}dog", ["cat dog"], [f"dog{sep}cat"])
        cases.add("control_separators", f"{sep}the{sep}", ["x"], [f"the{sep}x"])
        cases.add("control_separators", f"a{sep}b", [f"a{sep}b"], [f"b{sep}a"])
        probe(cases, "control_separators", f"x{sep}the{sep}a{sep}an{sep}{sep}y{sep}")
    for _ in range(220):  # several references: the best one wins
        pool = rng.sample(vocab, rng.randint(3, 10)) + ["the", "a"]
        tokens = [rng.choice(pool) for _ in range(rng.randint(1, 12))]
        response = join(rng, tokens)
        refs = [join(rng, vary(rng, tokens, pool)) for _ in range(rng.randint(1, 4))]
        refs += [join(rng, [rng.choice(pool) for _ in range(rng.randint(1, 8))])
                 for _ in range(rng.randint(0, 2))]
        if rng.random() < 0.2:
            refs.append(response.upper())
        rng.shuffle(refs)
        refs = [r if normalize_answer(r) else "x" for r in refs]
        cases.add("multi_ref", response, refs, contexts_for(rng, response, refs, pool),
                  as_list=True)
    for _ in range(80):  # references that normalise to nothing among others
        empties = ["the", " ", "...", "a an", "!", "\n", "The."]
        words = rng.sample(vocab, 3)
        refs = [rng.choice(words)] + rng.sample(empties, rng.randint(1, 2))
        refs += rng.sample(words, rng.randint(0, 2))
        rng.shuffle(refs)
        if refs[0] == "":
            refs[0] = "the"
        response = rng.choice(empties + [rng.choice(words), " ".join(words)])
        cases.add("multi_ref_empty_gold", response, refs, [refs[-1]], as_list=True)
    for _ in range(150):  # contexts cut anywhere, even inside articles and words
        pool = rng.sample(vocab, 5) + GLUED_ASCII[:10] + rng.sample(UNICODE_WORDS, 3)
        text = join(rng, [rng.choice(pool) for _ in range(rng.randint(1, 20))])
        response = join(rng, vary(rng, text.split(), pool)) or "x"
        cases.add("k_precision_cut", response, [text or "x"], cut(rng, text))
    return cases


def real_cases(cases, rng, rows):
    for i, row in enumerate(rows):
        knowledge = row["knowledge"]
        sentences = [s for s in re.split(r"(?<=[.!?])(?=[A-Z ])", knowledge) if s.strip()]
        cases.add("real", row["hallucinated_answer"], [row["right_answer"]], [knowledge])
        variant = rng.choice([row["right_answer"].upper(), "The " + row["right_answer"] + ".",
                              row["right_answer"] + ", the answer", row["right_answer"]])
        cases.add("real", row["right_answer"], [variant], sentences)
        cases.add("real", knowledge, [row["question"]],
                  [row["question"], rows[(i + 1) % len(rows)]["knowledge"]])
        if i % 3 == 0:
            others = [rows[(i + k) % len(rows)]["right_answer"] for k in (7, 11)]
            refs = others + [row["right_answer"]]
            rng.shuffle(refs)
            cases.add("real", row["hallucinated_answer"], refs, sentences[:1], as_list=True)


def assigned_in_python(text):
    return all(unicodedata.category(ch) != "Cn" for ch in text)


def all_cases():
    rng = random.Random(SEED)
    rows = halueval_rows()
    cases = generated_cases(rng, corpus_words(rows))
    real_cases(cases, rng, rows)
    for case in cases.items:
        for text in [case["response"], *case["references"], *case["contexts"]]:
            assert assigned_in_python(text), f"{case['id']}: {text!r} has unassigned characters"
    return cases.items


def hints(case):
    """Which known-sensitive inputs a case holds, to name them in a failure."""
    texts = [case["response"], *case["references"], *case["contexts"]]
    joined = "".join(texts)
    found = []
    if any(ch in joined for ch in CONTROL_SEPARATORS):
        found.append("\\x1c-\\x1f")
    if any(ch.isalnum() and not (ch.isalpha() or ch.isdecimal()) for ch in joined):
        found.append("numeric non-digit \\w")
    if len(case["references"]) > 1 and any(not normalize_answer(r) for r in case["references"]):
        found.append("reference normalising to nothing among several")
    if any(not ch.isascii() and ch.isspace() for ch in joined):
        found.append("Unicode space")
    return found


# ---------------------------------------------------------------- running ragmeter


@pytest.fixture(scope="module")
def compared(tmp_path_factory):
    """Every case with the oracle's values and ragmeter's scores and statuses."""
    if not RAGMETER.exists():
        pytest.fail(f"{RAGMETER} is not built (set RAGMETER_BUILD_DIR)")
    cases = all_cases()
    folder = tmp_path_factory.mktemp("squad")
    data, out = folder / "cases.jsonl", folder / "results.jsonl"
    with data.open("w", encoding="utf-8") as f:
        for case in cases:
            row = {"id": case["id"], "response": case["response"]}
            if case["as_list"]:
                row["ground_truths"] = case["references"]
            else:
                row["reference"] = case["references"][0]
            row["retrieved_contexts"] = case["contexts"]
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    start = time.monotonic()
    done = subprocess.run([str(RAGMETER), "eval", str(data), "-m", ",".join(METRICS),
                           "--out", str(out), "-q", "--bootstrap-resamples", "0", "--language", "en"],
                          capture_output=True, text=True, timeout=300)
    print(f"\nragmeter eval: {len(cases)} cases in {time.monotonic() - start:.2f} s")
    assert done.returncode == 0, done.stderr
    with out.open(encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    assert [r.get("id") for r in rows] == [c["id"] for c in cases], "result rows out of order"
    return [(case, expected_scores(case), row) for case, row in zip(cases, rows)]


def describe(case):
    return (f"{case['id']}: response={case['response']!r} references={case['references']!r} "
            f"contexts={case['contexts']!r}")


# ---------------------------------------------------------------- tests


def test_cases_cover_every_kind(compared):
    categories = collections.Counter(case["category"] for case, _, _ in compared)
    print(dict(categories))
    assert len(compared) >= MIN_CASES, f"only {len(compared)} cases"
    for name in ["random_words", "repeats", "articles", "articles_unicode", "numeric_word_chars",
                 "punctuation_only", "empty", "numbers", "unicode", "control_separators",
                 "multi_ref", "multi_ref_empty_gold", "k_precision_cut", "real"]:
        assert categories[name] >= 20, f"category {name}: {categories[name]} cases"
    # Non-trivial: scores other than 0 and 1, perfect and zero matches, skips.
    values = [want["token_f1"] for _, want, _ in compared if want["token_f1"] is not None]
    assert sum(0 < v < 1 for v in values) >= 300
    assert sum(v == 1 for v in values) >= 100 and sum(v == 0 for v in values) >= 100
    assert sum(want["k_precision"] is None for _, want, _ in compared) >= 20


# Letters of the scripts written without spaces (ICU's Script property, as
# has_unspaced_letters in src/core/language.cc reads it): a text holding one is counted in
# ICU words, not SQuAD's white-space tokens, by every metric here but squad_exact_match
# (docs/languages.md: "a Chinese response in an English sample is not one token").
UNSPACED = regex.compile(r"[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}"
                         r"\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]")


def counted_in_words(case, metric):
    if metric == "squad_exact_match":
        return False
    others = case["contexts"] if metric == "k_precision" else case["references"]
    return any(UNSPACED.search(text) for text in [case["response"], *others])


@pytest.mark.parametrize("metric", METRICS)
def test_metric_equals_squad_oracle(compared, metric):
    mismatches = []
    worst = 0.0
    in_words = 0
    for case, want, row in compared:
        expected, got, status = want[metric], row["scores"][metric], row["status"][metric]
        if expected is not None and counted_in_words(case, metric):
            in_words += 1  # not SQuAD's definition, but scored (test_languages_cli.py has values)
            if status != "ok":
                mismatches.append((case, "ok (ICU words)", f"{status} {got!r}"))
            continue
        if expected is None:
            if status != "skipped" or got is not None:
                mismatches.append((case, "skipped", f"{status} {got!r}"))
            continue
        if status != "ok" or got is None:
            mismatches.append((case, expected, f"{status} ({row['reasons'].get(metric)})"))
            continue
        worst = max(worst, abs(expected - got))
        if abs(expected - got) > TOLERANCE:
            mismatches.append((case, expected, got))
    scored = sum(want[metric] is not None for _, want, _ in compared)
    print(f"{metric}: {len(compared)} cases ({scored} scored, {in_words} of them in ICU words), "
          f"max abs difference {worst:.3g}")
    assert in_words < scored / 4, "most cases must be compared with SQuAD's definition"
    by_category = collections.Counter(case["category"] for case, _, _ in mismatches)
    by_hint = collections.Counter(h for case, _, _ in mismatches for h in hints(case) or ["-"])
    lines = [f"  {describe(case)} -> oracle {want!r}, ragmeter {got!r} {hints(case)}"
             for case, want, got in mismatches[:25]]
    assert not mismatches, (
        f"{metric}: {len(mismatches)} of {len(compared)} cases differ from the SQuAD v2.0 "
        f"oracle; by category {dict(by_category)}; by input kind {dict(by_hint)}\n"
        + "\n".join(lines))
