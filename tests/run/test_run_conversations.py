"""`ragmeter run` on conversations (docs/run.md, "Conversations"): scripted user turns sent one
by one with the history, and a simulated user played by a chat model.

The target is the FAKE RAG target (tests/run/fake_rag_target.py: it names the turn it was asked
from the history it received); the simulated user's model is the FAKE OpenAI-compatible server
(tests/fakes/fake_llm_server.cc), scripted reply by reply. Neither is a model: the simulated
user against the real local judge is tests/llm/test_run_simulated_user_llm.py."""

from __future__ import annotations

import json
import os
import subprocess
import urllib.request
from pathlib import Path

import pytest

from run_testing import read_jsonl

REPO = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("RAGMETER_BUILD_DIR", REPO / "build"))


def write_rows(path, rows):
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def run(ragmeter_bin, *args, check=True):
    proc = subprocess.run([str(ragmeter_bin), "run", *map(str, args), "--quiet"], capture_output=True, text=True,
                          timeout=120)
    if check and proc.returncode not in (0, 3):
        raise AssertionError(f"ragmeter run failed ({proc.returncode}): {proc.stderr}")
    return proc


@pytest.fixture
def fake_user_model():
    """The FAKE OpenAI-compatible server as the simulated user's model; scripted per test."""
    binary = BUILD / "fakes" / "fake_llm_server"
    if not binary.exists():
        pytest.fail(f"{binary} is not built")
    proc = subprocess.Popen([str(binary), "--port", "0"], stdout=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{int(proc.stdout.readline().split()[-1])}"

    def script(replies, default=None):
        body = {"steps": [{"content": json.dumps(r)} for r in replies]}
        if default is not None:
            body["default"] = default
        request = urllib.request.Request(base + "/fake/script", data=json.dumps(body).encode(), method="POST")
        with urllib.request.urlopen(request, timeout=10) as reply:
            reply.read()

    def requests():
        with urllib.request.urlopen(base + "/fake/requests", timeout=10) as reply:
            return json.load(reply)

    yield base, script, requests
    proc.terminate()
    proc.wait(timeout=10)


OPENAI_ROW = {
    "id": "c1",
    "messages": [
        {"role": "system", "content": "You are the restaurant's assistant."},
        {"role": "user", "content": "hello"},
        {"role": "assistant", "content": "an old answer, not sent"},
        {"role": "user", "content": "please book for us"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "old", "type": "function", "function": {"name": "old_tool", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "old", "content": "old result"},
        {"role": "user", "content": "thanks"},
    ],
    "reference_tool_calls": [{"name": "book_table", "args": {"people": 2}}],
}
RAGAS_ROW = {"id": "c2", "user_input": [{"type": "human", "content": "first"},
                                        {"type": "ai", "content": "old"},
                                        {"type": "human", "content": "second"}]}
DEEPEVAL_ROW = {"id": "c3", "turns": [{"role": "user", "content": "only question"},
                                      {"role": "assistant", "content": "old"}],
                "scenario": "kept as a field", "expected_outcome": "kept too"}


def test_scripted_turns_are_sent_one_by_one_with_the_history_and_written_as_openai_messages(
        ragmeter_bin, fake_target, tmp_path):
    target = fake_target()
    rows = write_rows(tmp_path / "conv.jsonl", [OPENAI_ROW, RAGAS_ROW, DEEPEVAL_ROW,
                                                {"id": "s1", "user_input": "a single question"}])
    out = tmp_path / "out.jsonl"
    proc = run(ragmeter_bin, rows, "--target", target.url, "--out", out, "--summary", tmp_path / "s.json",
               "--concurrency", "1")
    assert proc.returncode == 0, proc.stderr
    written = read_jsonl(out)
    c1 = written[0]["messages"]
    # System first, then each user message with the target's reply; the row's own assistant
    # and tool messages are gone.
    assert [m["role"] for m in c1] == ["system", "user", "assistant", "user", "assistant", "user", "assistant"]
    assert [m["content"] for m in c1 if m["role"] == "assistant"] == [
        "reply 1 to hello", "reply 2 to please book for us", "reply 3 to thanks"]
    assert c1[2]["retrieved_contexts"] == ["passage for turn 1"]
    # The target's tool call, in OpenAI's shape with JSON-text arguments.
    assert c1[4]["tool_calls"] == [{"id": "call_2_1", "type": "function",
                                    "function": {"name": "book_table", "arguments": '{"people":2}'}}]
    assert "old_tool" not in json.dumps(c1)
    assert written[0]["prompt_tokens"] == 33 and written[0]["completion_tokens"] == 21
    # The ragas and DeepEval rows are written as messages too; their old shapes removed.
    assert "user_input" not in written[1] and "turns" not in written[2]
    assert [m["content"] for m in written[1]["messages"]] == ["first", "reply 1 to first", "second",
                                                             "reply 2 to second"]
    assert written[2]["scenario"] == "kept as a field"
    assert written[3]["response"] == "answer to a single question"  # single-turn rows as before
    # What the target received: each turn's body holds the history so far.
    asked = [r for r in target.requests() if r["body"] and "messages" in r["body"]]
    thanks = next(r for r in asked if r["question"] == "thanks")["body"]["messages"]
    assert [m["role"] for m in thanks] == ["system", "user", "assistant", "user", "assistant", "user"]
    assert thanks[4]["content"] == "reply 2 to please book for us" and thanks[4]["tool_calls"]
    summary = json.loads((tmp_path / "s.json").read_text())
    assert summary["conversations"] == {"rows": 3, "turns": 6, "turns_from_record": 0,
                                        "simulated_user": {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0}}
    assert summary["requests"] == 7

    # eval reads the run's conversations: ragas's tool_call_f1 on the one call made, equal to
    # the reference call {book_table, people: 2}: precision 1, recall 1.
    scored = tmp_path / "scored.jsonl"
    proc = subprocess.run([str(ragmeter_bin), "eval", str(out), "-m", "ragas_tool_call_f1", "--out", str(scored),
                           "--quiet"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    first = read_jsonl(scored)[0]
    assert first["scores"]["ragas_tool_call_f1"] == 1.0


def test_a_turn_is_retried_alone_and_a_rerun_is_served_from_the_record(ragmeter_bin, fake_target, tmp_path):
    target = fake_target()
    rows = write_rows(tmp_path / "conv.jsonl", [
        {"id": "r", "messages": [{"role": "user", "content": "start"}, {"role": "user", "content": "500 once now"}]}])
    out = tmp_path / "out.jsonl"
    proc = run(ragmeter_bin, rows, "--target", target.url, "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert [m["content"] for m in read_jsonl(out)[0]["messages"]] == [
        "start", "reply 1 to start", "500 once now", "reply 2 to 500 once now"]
    asked = [r["question"] for r in target.requests()]
    assert asked == ["start", "500 once now", "500 once now"]  # the first turn not asked again
    again = tmp_path / "again.jsonl"
    proc = run(ragmeter_bin, rows, "--target", target.url, "--out", again, "--record", str(out) + ".record",
               "--summary", tmp_path / "s.json")
    assert proc.returncode == 0
    assert read_jsonl(again) == read_jsonl(out)
    assert len(target.requests()) == 3
    assert json.loads((tmp_path / "s.json").read_text())["from_record"] == 1


def test_openai_replies_and_bad_tool_calls(ragmeter_bin, fake_target, tmp_path):
    target = fake_target()
    rows = write_rows(tmp_path / "conv.jsonl", [
        {"id": "o", "messages": [{"role": "user", "content": "openai shape please"}]},
        {"id": "b", "messages": [{"role": "user", "content": "fine"}, {"role": "user", "content": "bad arguments"}]},
    ])
    out = tmp_path / "out.jsonl"
    proc = run(ragmeter_bin, rows, "--target", target.url, "--out", out)
    assert proc.returncode == 3
    written = read_jsonl(out)
    reply = written[0]["messages"][1]
    assert reply["content"] == "" and reply["tool_calls"] == [
        {"id": "call_x", "type": "function", "function": {"name": "lookup", "arguments": '{"turn":1}'}}]
    error = written[1]["run_error"]
    assert error["kind"] == "bad_tool_calls"
    assert error["message"].startswith("turn 2: field 'tool_calls': tool call 0: 'function.arguments' is not JSON")
    assert "messages" in written[1] and written[1]["messages"][0]["content"] == "fine"  # the row's own
    # The turns answered before the failure are kept in the error, ending with the turn asked.
    assert error["turns_answered"] == 1
    assert [(m["role"], m["content"]) for m in error["messages"]] == [
        ("user", "fine"), ("assistant", "reply 1 to fine"), ("user", "bad arguments")]


SCENARIO = {"id": "sim", "scenario": "You want a table for two tonight at 8.",
            "expected_outcome": "The assistant confirms a booking for two at 8 pm.",
            "user_description": "Terse, in a hurry."}


def test_a_simulated_user_plays_the_scenario_until_the_outcome_is_reached(
        ragmeter_bin, fake_target, fake_user_model, tmp_path):
    base, script, requests = fake_user_model
    script([{"complete": False, "reason": "", "message": "Table for two tonight?"},
            {"complete": False, "reason": "no time yet", "message": "At 8, book it"},
            {"complete": True, "reason": "booked for two at 8", "message": ""}])
    target = fake_target()
    rows = write_rows(tmp_path / "sim.jsonl", [SCENARIO])
    out = tmp_path / "out.jsonl"
    proc = run(ragmeter_bin, rows, "--target", target.url, "--out", out, "--judge-url", base + "/v1",
               "--judge-model", "fake", "--cache-mode", "off", "--no-record", "--summary", tmp_path / "s.json")
    assert proc.returncode == 0, proc.stderr
    row = read_jsonl(out)[0]
    assert [m["content"] for m in row["messages"]] == [
        "Table for two tonight?", "reply 1 to Table for two tonight?", "At 8, book it", "reply 2 to At 8, book it"]
    assert row["messages"][3]["tool_calls"][0]["function"]["name"] == "book_table"
    assert row["simulation"] == {"user_turns": 2, "ended": "expected_outcome", "reason": "booked for two at 8"}
    assert row["scenario"] == SCENARIO["scenario"]
    prompts = [r["body"]["messages"][0]["content"] for r in requests()]
    assert len(prompts) == 3
    # The opening prompt shows the scenario and the user, not the outcome; the next ones
    # show the conversation so far and the expected outcome to check.
    assert SCENARIO["scenario"] in prompts[0] and SCENARIO["user_description"] in prompts[0]
    assert SCENARIO["expected_outcome"] not in prompts[0]
    assert "reply 1 to Table for two tonight?" in prompts[1] and SCENARIO["expected_outcome"] in prompts[1]
    assert "LANGUAGE: write in English." in prompts[0]
    summary = json.loads((tmp_path / "s.json").read_text())
    assert summary["conversations"]["simulated_user"] == {"calls": 3, "prompt_tokens": 30, "completion_tokens": 15}


def test_the_turn_limit_ends_a_simulation_and_failures_are_named(
        ragmeter_bin, fake_target, fake_user_model, tmp_path):
    base, script, requests = fake_user_model
    script([{"complete": False, "reason": "", "message": "Table for two?"}],
           default={"content": "this is not JSON"})
    target = fake_target()
    rows = write_rows(tmp_path / "sim.jsonl", [SCENARIO])
    out = tmp_path / "out.jsonl"
    proc = run(ragmeter_bin, rows, "--target", target.url, "--out", out, "--judge-url", base + "/v1",
               "--judge-model", "fake", "--cache-mode", "off", "--no-record", "--max-user-turns", "1")
    assert proc.returncode == 0, proc.stderr
    row = read_jsonl(out)[0]
    assert row["simulation"]["ended"] == "turn_limit" and row["simulation"]["user_turns"] == 1
    assert len(requests()) == 1  # no check after the last turn allowed
    # A second user turn meets a reply that is not JSON: the row fails, naming the turn.
    script([{"complete": False, "reason": "", "message": "Table for two?"}],
           default={"content": "this is not JSON"})
    proc = run(ragmeter_bin, rows, "--target", target.url, "--out", out, "--judge-url", base + "/v1",
               "--judge-model", "fake", "--cache-mode", "off", "--no-record",
               "--max-user-turns", "3")
    assert proc.returncode == 3
    error = read_jsonl(out)[0]["run_error"]
    assert error["kind"] == "simulated_user" and error["message"].startswith("user turn 2: ")
    assert error["turns_answered"] == 1
    assert [m["content"] for m in error["messages"]] == ["Table for two?", "reply 1 to Table for two?"]


def test_a_scenario_without_a_chat_model_is_refused_with_the_reason(ragmeter_bin, fake_target, tmp_path):
    target = fake_target()
    rows = write_rows(tmp_path / "sim.jsonl", [SCENARIO, {"id": "q", "user_input": "plain", "scenario": "x"}])
    out = tmp_path / "out.jsonl"
    proc = run(ragmeter_bin, rows, "--target", target.url, "--out", out)
    assert proc.returncode == 3
    first, second = read_jsonl(out)
    assert first["run_error"]["kind"] == "simulated_user"
    assert "--judge-url" in first["run_error"]["message"] and "simulated_user=" in first["run_error"]["message"]
    assert "messages" not in first["run_error"]  # nothing was answered
    assert second["response"] == "answer to plain"  # a question beside a scenario: single-turn
    assert [r["question"] for r in target.requests()] == ["plain"]


def test_a_conversation_cut_short_resumes_from_its_last_answered_turn(ragmeter_bin, fake_target, tmp_path):
    target = fake_target()
    rows = write_rows(tmp_path / "conv.jsonl", [
        {"id": "r", "messages": [{"role": "system", "content": "be brief"}, {"role": "user", "content": "start"},
                                 {"role": "user", "content": "500 once now"}, {"role": "user", "content": "last"}]}])
    out = tmp_path / "out.jsonl"
    # One attempt a turn: turn 2 fails; turn 1's reply is kept in the record.
    proc = run(ragmeter_bin, rows, "--target", target.url, "--out", out, "--max-attempts", "1")
    assert proc.returncode == 3
    assert read_jsonl(out)[0]["run_error"]["turns_answered"] == 1
    proc = run(ragmeter_bin, rows, "--target", target.url, "--out", out, "--summary", tmp_path / "s.json")
    assert proc.returncode == 0, proc.stderr
    # The rerun asks turn 2 with turn 1's recorded reply in the history, then turn 3.
    assert [r["question"] for r in target.requests()] == ["start", "500 once now", "500 once now", "last"]
    assert [m["content"] for m in target.requests()[2]["body"]["messages"]] == [
        "be brief", "start", "reply 1 to start", "500 once now"]
    assert [m["content"] for m in read_jsonl(out)[0]["messages"]] == [
        "be brief", "start", "reply 1 to start", "500 once now", "reply 2 to 500 once now", "last", "reply 3 to last"]
    summary = json.loads((tmp_path / "s.json").read_text())
    assert summary["conversations"]["turns"] == 2 and summary["conversations"]["turns_from_record"] == 1
    assert summary["from_record"] == 0  # the row was not served whole
    # --fresh asks every turn again.
    proc = run(ragmeter_bin, rows, "--target", target.url, "--out", out, "--fresh")
    assert proc.returncode == 0 and len(target.requests()) == 7


def test_a_run_killed_mid_conversation_asks_only_the_turns_left(ragmeter_bin, fake_target, tmp_path):
    import signal
    import sqlite3
    import time

    target = fake_target()
    rows = write_rows(tmp_path / "conv.jsonl", [
        {"id": "k", "messages": [{"role": "user", "content": "first"}, {"role": "user", "content": "slow second"}]}])
    out = tmp_path / "out.jsonl"
    proc = subprocess.Popen([str(ragmeter_bin), "run", str(rows), "--target", target.url, "--out", str(out),
                             "--quiet"])
    record = Path(str(out) + ".record")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # turn 1's progress committed, turn 2 (3 s) in flight
        if record.exists():
            with sqlite3.connect(record) as db:
                if db.execute("SELECT count(*) FROM answers WHERE key LIKE '%/progress'").fetchone()[0]:
                    break
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    assert [r["question"] for r in target.requests()][0] == "first"
    asked_before = len(target.requests())
    proc = run(ragmeter_bin, rows, "--target", target.url, "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert [r["question"] for r in target.requests()[asked_before:]] == ["slow second"]
    assert [m["content"] for m in read_jsonl(out)[0]["messages"]] == [
        "first", "reply 1 to first", "slow second", "reply 2 to slow second"]
