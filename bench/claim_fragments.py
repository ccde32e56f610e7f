#!/usr/bin/env python3
"""Claims that do not stand alone: the texts to extract from, and the fragment counter.

    python3 bench/claim_fragments.py texts OUT.jsonl        # the ~10 RAGChecker texts
    python3 bench/claim_fragments.py count CLAIMS.jsonl     # fragments before / after

bench/claims_before_after_bench.cc extracts the claims in between (bench/claim_fragments.sh
runs all three). The texts are RAGChecker's (Apache-2.0, LICENSE.ragchecker beside each
file): the responses and reference answers of its two worked examples
(tests/data/ragchecker_checking_outputs.json), then the shortest reference answers and
responses of its human-labelled set (bench/data/ragchecker_human_labeled.json.gz) until
there are ten.

The counter (no part-of-speech model is installed offline here, so a documented
heuristic, deliberately not the rule of the judge's post-check): a claim is a FRAGMENT when
  - it has no verb: no word that is an auxiliary or modal (is, was, has, can, ...), a common
    irregular verb form (became, won, led, made, ...), a word in -ed of
    four letters or more, or a lower-case word in -s (not -ss, -us, -is, -ous, -ics) that
    does not follow a determiner, a number, a preposition or a conjunction (a third-person
    present verb: "blue represents peace", "the Nile flows north"); a word in -ing alone
    does not count ("stretching 6,650 km" is a fragment); or
  - it starts with a pronoun (it, he, she, they, this, these, those, its, his, her, their,
    him, them), whose referent a claim read alone does not have.
It is run on RAGChecker's own claims of the worked examples too (their triplets joined by
spaces), as a check of what it flags in claims written by a larger model.
"""
import gzip
import json
import pathlib
import re
import sys

REPO = pathlib.Path(__file__).resolve().parents[1]
AUX = set("is are was were be been being am has have had do does did will would can could may "
          "might shall should must cannot isn't aren't wasn't weren't doesn't don't didn't won't "
          "hasn't haven't".split())
IRREGULAR = set("began begun became become born brought built bought came chose chosen drew "
                "drawn drove fell felt found fought flew gave given got grew grown held hid kept "
                "knew known led left lost made meant met paid put ran rose risen said sat saw seen "
                "sent set sold spent spoke spoken stood struck taught told thought took taken "
                "understood won wrote written went gone wore worn lay lies means".split())
NOT_BEFORE_VERB = set("the a an its their his her our your my this that these those of in on at "
                      "for with by to from into and or but as than many several some all both "
                      "few other such each every no".split())
PRONOUNS = set("it he she they this these those its his her their him them".split())


def words(text):
    return re.findall(r"[A-Za-z][A-Za-z'\u2019-]*|\d[\d,.]*", text)


def has_verb(claim):
    tokens = words(claim)
    for i, word in enumerate(tokens):
        lower = word.lower()
        if lower in AUX or lower in IRREGULAR:
            return True
        if len(lower) >= 4 and lower.endswith("ed"):
            return True
        previous = tokens[i - 1].lower() if i else ""
        if (word == lower and len(lower) >= 4 and lower.endswith("s")
                and not lower.endswith(("ss", "us", "is", "ous", "ics"))
                and i > 0 and previous not in NOT_BEFORE_VERB and not previous[0].isdigit()):
            return True
    return False


def starts_with_pronoun(claim):
    tokens = words(claim)
    return bool(tokens) and tokens[0].lower() in PRONOUNS


def fragment_kinds(claim):
    kinds = []
    if not has_verb(claim):
        kinds.append("no verb")
    if starts_with_pronoun(claim):
        kinds.append("leading pronoun")
    return kinds


def texts(out):
    rows = []
    checking = json.loads((REPO / "tests/data/ragchecker_checking_outputs.json").read_text())
    for result in checking["results"]:
        for field in ("response", "gt_answer"):
            rows.append({"source": f"checking {result['query_id']} {field}",
                         "question": result["query"], "text": result[field]})
    labelled = json.load(gzip.open(REPO / "bench/data/ragchecker_human_labeled.json.gz"))
    candidates, seen = [], set()
    for item in labelled:
        if item["instance_id"] in seen:
            continue
        seen.add(item["instance_id"])
        for field, text in (("gt_answer", item["gt_answer"]), ("model1", item["model1"]["response"])):
            if 150 <= len(text) <= 600:
                candidates.append((len(text), item["instance_id"], field, item["query"], text))
    for _, instance, field, question, text in sorted(candidates)[:10 - len(rows)]:
        rows.append({"source": f"human_labeled {instance} {field}", "question": question, "text": text})
    with open(out, "w") as f:
        for row in rows:
            f.write(json.dumps(row) + "\n")
    print(f"{len(rows)} texts, {sum(len(r['text']) for r in rows)} bytes, to {out}")


def tally(claims_lists):
    claims = [c for claims in claims_lists for c in claims]
    kinds = [fragment_kinds(c) for c in claims]
    return {"claims": len(claims), "fragments": sum(1 for k in kinds if k),
            "no verb": sum(1 for k in kinds if "no verb" in k),
            "leading pronoun": sum(1 for k in kinds if "leading pronoun" in k),
            "flagged": [c for c, k in zip(claims, kinds) if k]}


def count(path):
    rows = [json.loads(line) for line in open(path)]
    ok = [r for r in rows if isinstance(r["before"], list) and isinstance(r["after"], list)
          and isinstance(r["prompt"], list)]
    variants = {
        "before (prompt of 86b7655)": [r["before"] for r in ok],
        "after, prompt only": [[c for s in r["prompt"] for c in (s["claims"] or [])] for r in ok],
        "after, prompt + post-check": [r["after"] for r in ok],
    }
    checking = json.loads((REPO / "tests/data/ragchecker_checking_outputs.json").read_text())
    variants["RAGChecker's own claims (worked examples)"] = [
        [" ".join(t) for t in result[field]] for result in checking["results"]
        for field in ("response_claims", "gt_answer_claims")]
    print(f"texts: {len(rows)} ({len(rows) - len(ok)} with a failed call left out)")
    print(f"{'claims of':46} {'claims':>6} {'fragments':>9} {'share':>6} {'no verb':>7} {'pronoun':>7}")
    summary = {}
    for name, lists in variants.items():
        t = tally(lists)
        share = t["fragments"] / t["claims"] if t["claims"] else 0.0
        print(f"{name:46} {t['claims']:6d} {t['fragments']:9d} {share:6.1%} {t['no verb']:7d} "
              f"{t['leading pronoun']:7d}")
        summary[name] = {k: v for k, v in t.items() if k != "flagged"}
        summary[name]["flagged"] = t["flagged"]
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("texts", "count"):
        sys.exit(__doc__)
    (texts if sys.argv[1] == "texts" else count)(sys.argv[2])
