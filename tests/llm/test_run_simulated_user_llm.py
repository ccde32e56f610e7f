"""A simulated user played by the real local model (docs/run.md, "Conversations"): the
llama.cpp server writes the user's messages for a booking scenario, the target is a small
scripted restaurant bot (a `--target-cmd` script written here, FAKE: not a model), and the
conversation runs for at most two user turns. Checked: one chat request per simulated user
turn (the server's log counts them), the user's messages are non-empty text that the target
received with the history, the row says how the simulation ended, and `ragmeter eval` reads
the conversation back. What the small model writes is its own; the test checks the mechanism.

Run:  RAGMETER_BUILD_DIR=build ~/.cache/ragmeter/venv/bin/python -m pytest -q tests/llm -k simulated
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BUILD_DIR = Path(os.environ.get("RAGMETER_BUILD_DIR", REPO / "build"))

pytestmark = pytest.mark.llm

BOT = r'''
import json, sys
for line in sys.stdin:
    request = json.loads(line)
    users = [m for m in request["messages"] if m["role"] == "user"]
    with open(sys.argv[1], "a", encoding="utf-8") as log:
        log.write(json.dumps(request["messages"]) + "\n")
    if len(users) == 1:
        reply = {"answer": "Happy to help with a booking. For how many people, and at what time?"}
    else:
        reply = {"answer": "Done: a table for two at 8 pm tonight is booked under your name.",
                 "tool_calls": [{"name": "book_table", "args": {"people": 2, "time": "20:00"}}]}
    print(json.dumps(reply), flush=True)
'''

SCENARIO = {"id": "booking",
            "scenario": "You want to book a table for two people tonight at 8 pm at the restaurant.",
            "expected_outcome": "The assistant confirms a booking for two people at 8 pm tonight.",
            "user_description": "A polite customer who writes short messages.",
            "reference_tool_calls": [{"name": "book_table", "args": {"people": 2, "time": "20:00"}}]}


def chat_requests(log_file: str) -> int:
    text = Path(log_file).read_text(encoding="utf-8", errors="replace")
    return text.count("\"POST /v1/chat/completions HTTP")


def test_the_local_model_plays_the_user_for_two_turns(server, tmp_path):
    bot = tmp_path / "bot.py"
    bot.write_text(BOT, encoding="utf-8")
    received = tmp_path / "received.jsonl"
    rows = tmp_path / "scenario.jsonl"
    rows.write_text(json.dumps(SCENARIO) + "\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    before = chat_requests(server["LOG_FILE"])
    proc = subprocess.run(
        [str(BUILD_DIR / "ragmeter"), "run", str(rows), "--target-cmd", f"{sys.executable} {bot} {received}",
         "--out", str(out), "--no-record", "--max-user-turns", "2",
         "--judge-url", server["RAGMETER_JUDGE_URL"], "--judge-model", server["RAGMETER_JUDGE_MODEL"],
         "--cache-mode", "off", "--summary", str(tmp_path / "summary.json"), "-q"],
        capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 0, proc.stderr
    row = json.loads(out.read_text(encoding="utf-8"))
    print(json.dumps(row["messages"], indent=1, ensure_ascii=False), row["simulation"])
    users = [m["content"] for m in row["messages"] if m["role"] == "user"]
    simulation = row["simulation"]
    # Two user turns at most; the model either ended at the outcome or the limit did.
    assert 1 <= simulation["user_turns"] == len(users) <= 2
    assert simulation["ended"] in ("expected_outcome", "turn_limit")
    if simulation["ended"] == "turn_limit":
        assert len(users) == 2
    assert all(isinstance(u, str) and u.strip() for u in users)
    # One chat request per simulated user call (a first 500 of llama-cpp-python is retried).
    calls = json.loads((tmp_path / "summary.json").read_text())["conversations"]["simulated_user"]["calls"]
    assert calls == len(users) + (simulation["ended"] == "expected_outcome")
    assert calls <= chat_requests(server["LOG_FILE"]) - before <= calls + 1
    # The bot received each user message with the history before it.
    histories = [json.loads(line) for line in received.read_text(encoding="utf-8").splitlines()]
    assert [h[-1]["content"] for h in histories] == users
    # eval reads the run's conversation: the tool metric is computed on it.
    scored = tmp_path / "scored.jsonl"
    proc = subprocess.run([str(BUILD_DIR / "ragmeter"), "eval", str(out), "-m", "ragas_tool_call_f1",
                           "--out", str(scored), "-q"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    scores = json.loads(scored.read_text())["scores"]
    if len(users) == 2:  # the bot's booking call equals the reference call
        assert scores["ragas_tool_call_f1"] == pytest.approx(1.0, abs=1e-12)
