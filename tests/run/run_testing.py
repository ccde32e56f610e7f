"""Helpers of the `ragmeter run` tests (a module of its own: tests/cli has a conftest too)."""

import json
from pathlib import Path


def write_questions(path, questions, extra=None):
    with open(path, "w", encoding="utf-8") as f:
        for i, q in enumerate(questions):
            row = {"id": f"q{i}", "user_input": q, "reference": f"reference {i}"}
            row.update(extra or {})
            f.write(json.dumps(row) + "\n")
    return path


def read_jsonl(path):
    return [json.loads(line) for line in Path(path).read_text().splitlines()]
