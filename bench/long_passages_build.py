#!/usr/bin/env python3
"""Builds bench/data/long_passages.jsonl: questions with long retrieved passages (issue 39).

The shape real RAG samples have and HaluEval's (passages of about 350 characters) does not:
three retrieved passages of 2,000 to 4,000 characters each, whole documents, the one that
holds the answer at rank 1, 2 or 3, the two others from other documents on a near topic.

Source: the long reference answers (`gt_answer`) of RAGChecker's human-labelled set
(bench/data/ragchecker_human_labeled.json.gz, Apache-2.0, bench/data/LICENSE.ragchecker), in two
parts, each one document:
  - `kiwi`: 20 texts of 2,000 to 4,000 characters (questions about NLP research, answered in a
    few paragraphs with citations);
  - `robustqa`: 22 texts of 1,000 to 1,850 characters from its forum parts (finance, cooking,
    travel, games, mathematics, biology, computing, English usage), added when the kiwi part's
    8 dev items proved too few to tune on (bench/data/long_passages_answers_robustqa.json).
Per item:
  - the question: RAGChecker's `query`;
  - the gold passage: that item's `gt_answer`, whole;
  - two distractors: the `gt_answer`s of the two other items of the same part and split that
    share the most content words with the question (ties: lower instance id first);
  - the gold passage's rank: 1 + (place of the item in its part's split, in instance id order) % 3;
  - a right answer and a wrong one, written by hand for this set
    (bench/data/long_passages_answers.json): the right one states, in other words, facts
    of the gold passage only; the wrong one has the same shape with one or two facts
    changed so that the passage contradicts them or does not state them.
Split: RAGChecker's own (bench/offline_judge_quality.py's split_of("ragchecker", id)), so
that an item of its test half is in this set's test half too; distractors come from the
item's own half, so tuning on dev never reads a test text. dev is for tuning; test is read
once a change is settled (docs/judges.md says when it was).

Usage: python3 bench/long_passages_build.py [--out bench/data/long_passages.jsonl]
Deterministic: the same inputs give the same bytes.
"""

import argparse
import gzip
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import offline_judge_quality as ojq  # noqa: E402  (the split and content words)

# (part, its hand-written answers); rows are written part by part, so that the kiwi part's
# items keep their place (`--long-skip` counts from the split's first item).
PARTS = (("kiwi", os.path.join(HERE, "data", "long_passages_answers.json")),
         ("robustqa", os.path.join(HERE, "data", "long_passages_answers_robustqa.json")))
OUT = os.path.join(HERE, "data", "long_passages.jsonl")
PASSAGES = 3


def ragchecker_items():
    """Each RAGChecker instance once (its first annotation), by instance id."""
    with gzip.open(ojq.RAGCHECKER, "rt", encoding="utf-8") as f:
        annotations = json.load(f)
    first = {}
    for a in annotations:
        first.setdefault(a["instance_id"], a)
    return first


def nearest(question, candidates, texts, count):
    """The `count` candidate ids whose text shares the most content words with the question."""
    words = ojq.content_words(question)
    ranked = sorted(candidates, key=lambda k: (-len(words & ojq.content_words(texts[k])), k))
    return ranked[:count]


def build():
    items = ragchecker_items()
    rows = []
    for part, answers_file in PARTS:
        answers = json.load(open(answers_file, encoding="utf-8"))["items"]
        ids = sorted(a["instance_id"] for a in answers)
        by_id = {a["instance_id"]: a for a in answers}
        texts = {i: items[i]["gt_answer"].strip() for i in ids}
        for half in ("dev", "test"):
            mine = [i for i in ids if ojq.split_of("ragchecker", i) == half]
            for place, i in enumerate(mine):
                others = nearest(items[i]["query"], [k for k in mine if k != i], texts, PASSAGES - 1)
                gold = place % PASSAGES
                contexts = [texts[k] for k in others]
                contexts.insert(gold, texts[i])
                rows.append({
                    "id": f"{part}-{i}", "split": half,
                    "source": f"ragchecker {items[i]['dataset']} instance {i}",
                    "user_input": items[i]["query"].strip(),
                    "right": by_id[i]["right"], "wrong": by_id[i]["wrong"],
                    "retrieved_contexts": contexts, "gold_rank": gold + 1,
                    "distractors": [f"{part}-{k}" for k in others],
                })
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=OUT)
    a = ap.parse_args()
    rows = build()
    with open(a.out, "w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    halves = {h: sum(r["split"] == h for r in rows) for h in ("dev", "test")}
    lengths = sorted(len(c) for r in rows for c in r["retrieved_contexts"])
    print(f"{len(rows)} items ({halves['dev']} dev, {halves['test']} test) -> {a.out}; "
          f"passages {lengths[0]} to {lengths[-1]} characters, median {lengths[len(lengths) // 2]}")


if __name__ == "__main__":
    main()
