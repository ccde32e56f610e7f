"""The whole path against the real local llama.cpp server: `ragmeter gen` makes two questions
from a bundled document (python3-doc's colorsys page), `ragmeter run --target baseline`
answers them with the same chunker, index and local model, and `--eval` scores them in the
same process. Kept tiny: the local model is slow.

Run:  RAGMETER_BUILD_DIR=build ~/.cache/ragmeter/venv/bin/python -m pytest -q tests/llm -k baseline
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BUILD_DIR = Path(os.environ.get("RAGMETER_BUILD_DIR", REPO / "build"))
PAGE = Path("/usr/share/doc/python3-doc/html/library/colorsys.html")

pytestmark = pytest.mark.llm


def chat_requests(log_file: str) -> int:
    return Path(log_file).read_text(encoding="utf-8", errors="replace").count("\"POST /v1/chat/completions HTTP")


def test_gen_then_baseline_run_then_scores_in_one_go(server, tmp_path):
    if not PAGE.exists():
        pytest.fail(f"{PAGE} is missing: scripts/setup.sh installs python3-doc")
    docs = tmp_path / "docs"
    docs.mkdir()
    shutil.copy(PAGE, docs / PAGE.name)
    llm = ["--judge-url", server["RAGMETER_JUDGE_URL"], "--judge-model", server["RAGMETER_JUDGE_MODEL"]]
    chunking = ["--chunk-size", "700", "--chunk-overlap", "70"]
    testset = tmp_path / "testset.jsonl"
    gen = subprocess.run([str(BUILD_DIR / "ragmeter"), "gen", str(docs), "--out", str(testset), "--size", "2",
                          "--seed", "5", *chunking, *llm, "--cache", str(tmp_path / "judge.sqlite"),
                          "--concurrency", "2", "--timeout", "600", "--chunks-out", str(tmp_path / "chunks.jsonl"),
                          "-q"], capture_output=True, text=True, timeout=3600)
    assert gen.returncode == 0, gen.stderr[-3000:]
    questions = [json.loads(line) for line in testset.read_text().splitlines()]
    assert 1 <= len(questions) <= 2
    chunks = {c["chunk_id"]: c for c in map(json.loads, (tmp_path / "chunks.jsonl").read_text().splitlines())}

    answers = tmp_path / "answers.jsonl"
    run_cmd = [str(BUILD_DIR / "ragmeter"), "run", str(testset), "--target", "baseline", "--docs", str(docs),
               "--llm-url", server["RAGMETER_JUDGE_URL"], "--llm-model", server["RAGMETER_JUDGE_MODEL"],
               "--top-k", "2", *chunking, "--llm-max-tokens", "64", "--concurrency", "2", "--timeout", "600",
               "--out", str(answers), "--summary", str(tmp_path / "run.json"),
               "--eval", "token_f1,rouge_l,faithfulness,context_recall", "--eval-out", str(tmp_path / "scores.jsonl"),
               "--eval-summary", str(tmp_path / "eval.json")]
    before = chat_requests(server["LOG_FILE"])
    run = subprocess.run(run_cmd, capture_output=True, text=True, timeout=3600)
    print(run.stdout, run.stderr[-3000:])
    assert run.returncode == 0, run.stderr[-3000:]
    assert chat_requests(server["LOG_FILE"]) - before == len(questions)  # one model call per question

    rows = [json.loads(line) for line in answers.read_text().splitlines()]
    assert [r["user_input"] for r in rows] == [q["user_input"] for q in questions]
    for row in rows:
        assert row["response"].strip()
        assert row["reference"]  # the test set's fields are kept
        assert len(row["retrieved_contexts"]) == 2
        # The baseline retrieves gen's own chunks: same chunker, same ids, same texts.
        for chunk_id, text in zip(row["retrieved_context_ids"], row["retrieved_contexts"]):
            assert chunks[chunk_id]["text"] == text
        assert row["prompt_tokens"] > 0 and row["completion_tokens"] > 0
    run_summary = json.loads((tmp_path / "run.json").read_text())
    assert run_summary["answered"] == len(questions) and run_summary["failed"] == 0
    assert run_summary["latency_ms"]["n"] == len(questions)

    scores = [json.loads(line) for line in (tmp_path / "scores.jsonl").read_text().splitlines()]
    assert len(scores) == len(questions)
    for score in scores:
        assert set(score["status"].values()) == {"ok"}
        assert all(0.0 <= v <= 1.0 for v in score["scores"].values())
    assert json.loads((tmp_path / "eval.json").read_text())["rows"] == {"read": len(questions), "rejected": 0}

    # Again: every answer comes from the record, the model is not asked.
    before = chat_requests(server["LOG_FILE"])
    again = subprocess.run(run_cmd, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr[-3000:]
    assert chat_requests(server["LOG_FILE"]) == before
    assert [json.loads(line)["response"] for line in answers.read_text().splitlines()] == \
        [r["response"] for r in rows]
