"""Stands in for a retriever whose K you change: writes the bundled example with only the
first K retrieved passages (and their ids) of each row. The example holds four passages per
question, the gold one at a random rank, so a smaller K loses the gold passage on some rows.
Used by docs/report.md's walk-through:  python3 examples/retrieve_top_k.py 2 > k2.jsonl
"""
import json
import sys
from pathlib import Path

k = int(sys.argv[1])
source = Path(__file__).with_name("halueval_rag.jsonl")
for line in source.read_text(encoding="utf-8").splitlines():
    if line.strip():
        row = json.loads(line)
        row["retrieved_contexts"] = row["retrieved_contexts"][:k]
        row["retrieved_context_ids"] = row["retrieved_context_ids"][:k]
        print(json.dumps(row, ensure_ascii=False))
