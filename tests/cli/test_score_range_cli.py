"""Scores stay in their metric's declared range (issue 34): answer_correctness was -0.024 on
the bundled example's q20, from a negative cosine. Every other range check runs in every test
that produces results (the summary and the writers refuse a score outside its range)."""
import json
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "halueval_rag.jsonl"


def read(path):
    return [json.loads(l) for l in path.read_text(encoding="utf-8").splitlines()]


def test_answer_correctness_counts_a_negative_cosine_as_no_similarity(run, tmp_path):
    # q20's response and reference have a negative cosine under the local embedder (the
    # default when installed, as here); answer_correctness was 0.75 * 0 + 0.25 * (-0.096).
    out = tmp_path / "r.jsonl"
    p = run("eval", EXAMPLE, "-m", "semantic_similarity,factual_correctness,answer_correctness",
            "--embedder", "local", "--out", out, "-q")
    assert p.returncode == 0, p.stderr
    rows = {r["id"]: r for r in read(out)}
    assert rows["q20"]["scores"]["semantic_similarity"] < 0
    for key, row in rows.items():
        s = row["scores"]
        if row["status"]["answer_correctness"] != "ok":
            continue
        expected = 0.75 * s["factual_correctness"] + 0.25 * max(0.0, s["semantic_similarity"])
        assert s["answer_correctness"] == pytest.approx(expected, abs=1e-12), key
        assert 0.0 <= s["answer_correctness"] <= 1.0, key
    assert rows["q20"]["scores"]["answer_correctness"] == pytest.approx(
        0.75 * rows["q20"]["scores"]["factual_correctness"], abs=1e-12)
