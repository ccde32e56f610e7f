#!/usr/bin/env python3
"""Writes the easiest form of a long-passage item for a judge: one sentence against its gold
passage alone (issue 39).

bench/data/long_passages.jsonl gives per item a right answer and a wrong one whose sentences
line up: the wrong answer is the right one with a fact or two changed. For each ITEM=PREFIX
given, this writes two rows of one sentence each, with the item's gold passage as the only
retrieved context and the sentence as its own reference:
  - ITEM:right  the right answer's sentence that starts with PREFIX (the passage states it);
  - ITEM:wrong  the wrong answer's sentence in the same place (one fact changed).
So a judge is asked neither to find the passage among three nor to read other claims: what it
scores here bounds what any plan built on it can score on the full rows. Run the rows with
`ragmeter eval ... --metrics faithfulness --repeat 5` to see how often the judge supports each
sentence (docs/dev/judge-measurements.md, "One sentence against its gold passage alone").
An item whose two answers do not line up sentence for sentence is refused (of the 42, kiwi-10).

Usage: python3 bench/long_passages_ceiling.py OUT.jsonl ITEM=PREFIX [ITEM=PREFIX ...]
e.g.   python3 bench/long_passages_ceiling.py ceiling.jsonl \
           'robustqa-78=Total housing costs' 'robustqa-181=Voltage-gated ion channels open'
"""

import json
import os
import re
import sys

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "long_passages.jsonl")


def sentences(text):
    """The answers' sentences: they are hand-written, each ends with . ! or ? before a capital
    letter or a quote (no abbreviations in them)."""
    return [s.strip() for s in re.split(r'(?<=[.!?])\s+(?=[A-Z"])', text) if s.strip()]


def rows_for(item, prefix):
    right, wrong = sentences(item["right"]), sentences(item["wrong"])
    if len(right) != len(wrong):
        sys.exit(f"{item['id']}: the right answer has {len(right)} sentences, the wrong one "
                 f"{len(wrong)}: they do not line up")
    places = [i for i, s in enumerate(right) if s.startswith(prefix)]
    if len(places) != 1:
        sys.exit(f"{item['id']}: {len(places)} sentences of the right answer start with {prefix!r}")
    i = places[0]
    contexts = item["retrieved_contexts"]
    gold = contexts[int(item["gold_rank"]) - 1]
    return [{"id": f"{item['id']}:{kind}", "user_input": item["user_input"], "response": text,
             "reference": text, "retrieved_contexts": [gold]}
            for kind, text in (("right", right[i]), ("wrong", wrong[i]))]


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    with open(DATA, encoding="utf-8") as f:
        items = {it["id"]: it for it in map(json.loads, f)}
    out = []
    for spec in argv[2:]:
        item_id, sep, prefix = spec.partition("=")
        if not sep or item_id not in items:
            sys.exit(f"{spec!r}: want ITEM=PREFIX with ITEM one of the set's ids")
        out += rows_for(items[item_id], prefix)
    with open(argv[1], "w", encoding="utf-8") as f:
        for row in out:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{len(out)} rows -> {argv[1]}")


if __name__ == "__main__":
    main(sys.argv)
