"""Builds examples/halueval_rag.jsonl from HaluEval QA (tests/data/halueval_qa_one_turn.jsonl).

Each row is a RAG sample: the question, a retrieval of 4 passages (the gold passage at a
random rank among 3 distractor passages of other questions), the gold answer as reference,
and as response either the right answer or HaluEval's hallucinated answer (every third row),
marked in the carried-through column `hallucinated`. Deterministic (seed 7).

Run: python3 examples/make_halueval_rag.py > examples/halueval_rag.jsonl
"""
import json
import pathlib
import random

ROWS = 30
DISTRACTORS = 3

root = pathlib.Path(__file__).resolve().parent.parent
source = [json.loads(line) for line in open(root / "tests/data/halueval_qa_one_turn.jsonl", encoding="utf-8")]
rng = random.Random(7)
chosen = rng.sample(range(len(source)), ROWS)
for n, i in enumerate(chosen):
    row = source[i]
    others = rng.sample([j for j in range(len(source)) if j != i], DISTRACTORS)
    ids = [f"halueval-{j}" for j in others]
    ids.insert(rng.randrange(DISTRACTORS + 1), f"halueval-{i}")
    passages = {f"halueval-{j}": source[j]["knowledge"] for j in others + [i]}
    hallucinated = n % 3 == 2
    print(json.dumps({
        "id": f"q{n:02d}",
        "user_input": row["question"],
        "response": row["hallucinated_answer"] if hallucinated else row["right_answer"],
        "retrieved_contexts": [passages[k] for k in ids],
        "retrieved_context_ids": ids,
        "reference": row["right_answer"],
        "reference_contexts": [row["knowledge"]],
        "reference_context_ids": [f"halueval-{i}"],
        "hallucinated": hallucinated,
    }, ensure_ascii=False))
