"""A toy RAG system for `ragmeter run --target-cmd` (docs/run.md): JSON lines on stdin and
stdout, keyword retrieval over a few sentences, the first hit as the answer.

    ragmeter run testset.jsonl --target-cmd "python examples/rag_command.py" --out answers.jsonl
"""

import json
import sys

DOCS = {"d1": "The colorsys module converts colors between RGB and YIQ, HLS and HSV.",
        "d2": "keyword.iskeyword(s) returns True if s is a Python keyword."}

for line in sys.stdin:
    question = json.loads(line)["question"].lower()
    words = [w.strip("?.,") for w in question.split() if len(w) > 3]
    hits = [(i, t) for i, t in DOCS.items() if any(w in t.lower() for w in words)]
    answer = hits[0][1] if hits else "I do not know."
    print(json.dumps({"answer": answer, "contexts": [{"text": t, "id": i} for i, t in hits]}), flush=True)
