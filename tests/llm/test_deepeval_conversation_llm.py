"""DeepEval's conversational metrics end to end against the real local llama.cpp server
(docs/agents.md): one short train-booking conversation whose second tool call books two
seats where the user asked for one. Turn relevancy and argument correctness are each exactly
one chat request (the server's log counts them) whose verdicts cover the asked items, and a
score in [0, 1] (or `skipped` with the reason when no verdict was readable). The values are
the small model's; the test checks the mechanism, and docs/agents.md records what it saw.

Run:  RAGMETER_BUILD_DIR=build ~/.cache/ragmeter/venv/bin/python -m pytest -q tests/llm -k deepeval
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BUILD_DIR = Path(os.environ.get("RAGMETER_BUILD_DIR", REPO / "build"))
METRICS = ("deepeval_turn_relevancy", "deepeval_argument_correctness")

pytestmark = pytest.mark.llm

ROW = {"id": "train", "turns": [
    {"role": "user", "content": "I need a train from Paris to Lyon on 3 May."},
    {"role": "assistant", "content": "The TGV 6601 leaves Paris at 08:04 on 3 May. Shall I book it?",
     "tools_called": [{"name": "search_trains", "input_parameters": {"from": "Paris", "to": "Lyon", "date": "3 May"}}]},
    {"role": "user", "content": "Yes, book one seat."},
    {"role": "assistant", "content": "Done: your seats on the TGV 6601 are booked.",
     "tools_called": [{"name": "book", "input_parameters": {"train": "TGV 6601", "seats": 2}}]}]}


def chat_requests(log_file: str) -> int:
    text = Path(log_file).read_text(encoding="utf-8", errors="replace")
    return text.count("\"POST /v1/chat/completions HTTP")


def test_each_metric_is_one_call_whose_verdicts_cover_the_asked_items(server, tmp_path):
    data = tmp_path / "train.jsonl"
    data.write_text(json.dumps(ROW) + "\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    before = chat_requests(server["LOG_FILE"])
    proc = subprocess.run(
        [str(BUILD_DIR / "ragmeter"), "eval", str(data), "--metrics", ",".join(METRICS),
         "--judge-url", server["RAGMETER_JUDGE_URL"], "--judge-model", server["RAGMETER_JUDGE_MODEL"],
         "--cache-mode", "off", "--out", str(out), "-q"],
        capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 0, proc.stderr
    # One call per metric; a first 500 of llama-cpp-python is retried, so allow one more.
    assert 2 <= chat_requests(server["LOG_FILE"]) - before <= 3
    row = json.loads(out.read_text(encoding="utf-8"))
    asked = {"deepeval_turn_relevancy": ["2", "4"], "deepeval_argument_correctness": ["1", "2"]}
    for metric in METRICS:
        evidence = row["evidence"][metric]
        assert evidence["asked"] == asked[metric]
        assert evidence["verdicts"], evidence
        if row["status"][metric] == "ok":
            assert 0.0 <= row["scores"][metric] <= 1.0
            assert set(evidence["passed"]) | set(evidence["failed"]) <= set(asked[metric])
        else:
            assert row["status"][metric] == "skipped" and "DeepEval scores 1" in row["reasons"][metric]
    print("DeepEval conversation metrics seen:", row["scores"],
          {m: row["evidence"][m]["verdicts"] for m in METRICS})
