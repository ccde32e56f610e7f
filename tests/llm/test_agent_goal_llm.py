"""ragas's agent goal accuracy and topic adherence end to end against the real local llama.cpp server
(docs/agents.md): two short agent conversations, one whose booking succeeded and one whose
booking the tool refused, each judged with and without the desired outcome. Every (sample,
metric) must be scored 0 or 1 with the judge's reason, by exactly one chat request each (the
server's log counts them), and the rerun must come from the cache. The values are the small
model's; the test checks the mechanism, and the values it saw are recorded in docs/agents.md.

Run:  RAGMETER_BUILD_DIR=build ~/.cache/ragmeter/venv/bin/python -m pytest -q tests/llm -k goal
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BUILD_DIR = Path(os.environ.get("RAGMETER_BUILD_DIR", REPO / "build"))
METRICS = "ragas_agent_goal_accuracy,ragas_agent_goal_accuracy_without_reference"

pytestmark = pytest.mark.llm


def booking(id_, tool_reply, final):
    return {"id": id_, "user_input": [
        {"type": "human", "content": "Book a table for two at Chez Marie tonight at 8 pm."},
        {"type": "ai", "content": "", "tool_calls": [
            {"name": "book_table", "args": {"restaurant": "Chez Marie", "people": 2, "time": "20:00"}}]},
        {"type": "tool", "content": tool_reply},
        {"type": "ai", "content": final}],
        "reference": "A table for two at Chez Marie is booked for 8 pm tonight."}


ROWS = [booking("booked", "OK: booked, 2 people, 20:00, confirmation 7731.",
                "Done: your table for two at Chez Marie is booked for 8 pm, confirmation 7731."),
        booking("refused", "ERROR: Chez Marie is fully booked tonight.",
                "Sorry, Chez Marie is fully booked tonight, so I could not book a table.")]


def chat_requests(log_file: str) -> int:
    text = Path(log_file).read_text(encoding="utf-8", errors="replace")
    return text.count("\"POST /v1/chat/completions HTTP")


def run_eval(server, tmp_path, name):
    data = tmp_path / "bookings.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    out = tmp_path / f"{name}.jsonl"
    proc = subprocess.run(
        [str(BUILD_DIR / "ragmeter"), "eval", str(data), "--metrics", METRICS,
         "--judge-url", server["RAGMETER_JUDGE_URL"], "--judge-model", server["RAGMETER_JUDGE_MODEL"],
         "--cache", str(tmp_path / "judge.sqlite"), "--out", str(out), "-q"],
        capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


def test_each_conversation_is_judged_in_one_call_per_metric_and_reruns_from_the_cache(server, tmp_path):
    before = chat_requests(server["LOG_FILE"])
    results = run_eval(server, tmp_path, "first")
    sent = chat_requests(server["LOG_FILE"]) - before
    # One call per (conversation, metric); a first 500 of llama-cpp-python is retried, so
    # allow a retry or two but never a call per turn.
    assert 4 <= sent <= 6, sent
    for row in results:
        for metric in METRICS.split(","):
            assert row["status"][metric] == "ok", row["reasons"]
            assert row["scores"][metric] in (0.0, 1.0)
            assert row["evidence"][metric]["reason"].strip()
    print("agent goal accuracy seen:", {r["id"]: r["scores"] for r in results})
    before = chat_requests(server["LOG_FILE"])
    again = run_eval(server, tmp_path, "second")
    assert chat_requests(server["LOG_FILE"]) == before
    assert [r["scores"] for r in again] == [r["scores"] for r in results]


def test_topic_adherence_is_one_call_listing_the_topics(server, tmp_path):
    """ragas's topic adherence with the real model: one "topics" call for the three modes,
    each topic with its two flags in the evidence, every score in [0, 1]."""
    row = {"id": "topics", "user_input": [
        {"type": "human", "content": "What will the weather be in Paris tomorrow?"},
        {"type": "ai", "content": "Tomorrow Paris will be sunny, 24 degrees."},
        {"type": "human", "content": "And who won the football match last night?"},
        {"type": "ai", "content": "Sorry, I can only help with the weather."}],
        "reference_topics": ["weather"]}
    data = tmp_path / "topics.jsonl"
    data.write_text(json.dumps(row) + "\n", encoding="utf-8")
    out = tmp_path / "topics_out.jsonl"
    before = chat_requests(server["LOG_FILE"])
    proc = subprocess.run(
        [str(BUILD_DIR / "ragmeter"), "eval", str(data), "--metrics",
         "ragas_topic_adherence,ragas_topic_adherence_precision,ragas_topic_adherence_recall",
         "--judge-url", server["RAGMETER_JUDGE_URL"], "--judge-model", server["RAGMETER_JUDGE_MODEL"],
         "--cache-mode", "off", "--out", str(out), "-q"],
        capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr
    assert 1 <= chat_requests(server["LOG_FILE"]) - before <= 2  # one call (and a retry at most)
    result = json.loads(out.read_text(encoding="utf-8"))
    for metric in ("ragas_topic_adherence", "ragas_topic_adherence_precision", "ragas_topic_adherence_recall"):
        assert result["status"][metric] in ("ok", "skipped"), result["reasons"]
        if result["status"][metric] == "ok":
            assert 0.0 <= result["scores"][metric] <= 1.0
            topics = result["evidence"][metric]["topics"]
            assert topics and all({"topic", "answered", "in_reference"} <= set(t) for t in topics)
        else:
            assert result["reasons"][metric] == "the judge found no topic in the conversation"
    print("topic adherence seen:", result["scores"], result["evidence"].get("ragas_topic_adherence"))
