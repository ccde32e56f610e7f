"""deepeval_task_completion (DeepEval 4.3.1's TaskCompletionMetric as one call, docs/agents.md)
against the FAKE judge server (tests/fakes/fake_llm_server.cc, not a model): the judge's verdict
in [0, 1] is the score, with the task, the outcome and the reason as evidence; a row's `task`
reaches the prompt and the evidence; a verdict outside [0, 1], not a number or missing fails
naming what the judge sent; the offline judge skips it; the dry run plans one call. DeepEval's
own reading and score: tests/oracle/test_deepeval_task_completion.py."""

import json

from cli_shared import judge_flags, read_jsonl

METRIC = "deepeval_task_completion"
# Messages, numbered as the judge sees them: 1 user, 2 assistant (a call), 3 tool,
# 4 assistant, 5 user, 6 assistant (a call), 7 tool, 8 assistant.
ROW = {"messages": [
    {"role": "user", "content": "I want a train ticket from Paris to Lyon on 3 May."},
    {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {
        "name": "search_trains", "arguments": "{\"from\": \"Paris\", \"to\": \"Lyon\", \"date\": \"2026-05-03\"}"}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "TGV 6601 08:04"},
    {"role": "assistant", "content": "The TGV 6601 leaves Paris at 08:04 on 3 May. Shall I book it?"},
    {"role": "user", "content": "Yes please, one seat."},
    {"role": "assistant", "content": None, "tool_calls": [{"id": "c2", "type": "function", "function": {
        "name": "book", "arguments": "{\"train\": \"TGV 6601\", \"seats\": 2}"}}]},
    {"role": "tool", "tool_call_id": "c2", "content": "booked"},
    {"role": "assistant", "content": "Done: 2 seats on the TGV 6601."}]}


def reply(verdict, drop=None):
    fields = {"task": "Book one seat on a Paris-Lyon train on 3 May",
              "outcome": "Found the TGV 6601 and booked 2 seats on it", "verdict": verdict,
              "reason": "The train is right but the seat count is not."}
    return json.dumps({k: v for k, v in fields.items() if k != drop})


def write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def score(run, tmp_path, server, rows=None, *flags):
    out, traces = tmp_path / "out.jsonl", tmp_path / "traces.jsonl"
    summary = tmp_path / "summary.json"
    p = run("eval", write(tmp_path / "rows.jsonl", rows or [ROW]), "-m", METRIC, "--out", out,
            "--traces", traces, "--summary", summary, "-q", *flags, *judge_flags(server))
    assert p.returncode == 0, p.stderr
    calls = read_jsonl(traces) if traces.exists() else []
    return read_jsonl(out), calls, json.loads(summary.read_text())


def test_the_verdict_is_the_score_with_the_task_and_outcome(run, tmp_path, start_fake_llm_server):
    (row,), calls, summary = score(run, tmp_path, start_fake_llm_server(reply(0.75)))
    assert row["status"][METRIC] == "ok", row["reasons"]
    assert row["scores"][METRIC] == 0.75
    evidence = row["evidence"][METRIC]
    assert evidence["task"] == "Book one seat on a Paris-Lyon train on 3 May"
    assert evidence["task_from_row"] is False
    assert evidence["outcome"] == "Found the TGV 6601 and booked 2 seats on it"
    assert evidence["reason"] == "The train is right but the seat count is not."
    assert "verdict_text" not in evidence
    # One call, named task_completion, showing the numbered conversation with every tool
    # call and its arguments.
    assert len(calls) == 1 and calls[0]["call"] == "task_completion"
    assert summary["usage"]["by_call"]["task_completion"]["calls"] == 1
    body = json.dumps(calls[0]["request"], ensure_ascii=False)
    assert "Task: judge how well the assistant completed the user's task" in body
    assert "1. user: I want a train ticket from Paris to Lyon on 3 May." in body
    assert '2. assistant:\\n   -> search_trains({\\"from\\":\\"Paris\\",\\"to\\":\\"Lyon\\",' \
           '\\"date\\":\\"2026-05-03\\"})' in body, body[:3000]
    assert '6. assistant:\\n   -> book({\\"train\\":\\"TGV 6601\\",\\"seats\\":2})' in body
    assert "8. assistant: Done: 2 seats on the TGV 6601." in body
    assert "TASK:" not in body


def test_a_task_given_by_the_row_reaches_the_prompt_and_the_evidence(run, tmp_path,
                                                                    start_fake_llm_server):
    given = {**ROW, "task": "Book exactly one seat on the first train from Paris to Lyon on 3 May"}
    (row,), calls, _ = score(run, tmp_path, start_fake_llm_server(reply("0.5")), [given])
    assert row["scores"][METRIC] == 0.5  # a string verdict, read as DeepEval reads it
    evidence = row["evidence"][METRIC]
    assert evidence["task"] == given["task"] and evidence["task_from_row"] is True
    assert evidence["verdict_text"] == "0.5"
    body = json.dumps(calls[0]["request"], ensure_ascii=False)
    assert "TASK:\\nBook exactly one seat on the first train from Paris to Lyon on 3 May" in body


def test_a_verdict_outside_the_range_not_a_number_or_missing_fails(run, tmp_path,
                                                                  start_fake_llm_server):
    cases = [
        (reply(1.3), "the judge's verdict 1.3 is outside [0, 1]"),
        (reply("high"), "the judge's verdict \"high\" is not a number"),
        (reply(True), "$.verdict: expected number or string"),
        # The schema requires it: one repair request, then the failure.
        (reply(None, drop="verdict"), "$.verdict: required property missing"),
    ]
    for content, reason in cases:
        (row,), calls, _ = score(run, tmp_path, start_fake_llm_server(content), None,
                                 "--allow-failures")
        assert row["status"][METRIC] == "failed", (content, row)
        assert reason in row["reasons"][METRIC], (content, row["reasons"][METRIC])
        assert METRIC not in row["scores"] or row["scores"][METRIC] is None


def test_skips_say_why_and_the_dry_run_plans_one_call(run, tmp_path, start_fake_llm_server):
    no_assistant = {"turns": [{"role": "user", "content": "Hello"}]}
    empty_task = {**ROW, "task": ""}
    single = {"user_input": "Book a train.", "response": "Booked."}
    with_task = {**ROW, "task": "Book one seat"}
    data = write(tmp_path / "rows.jsonl", [ROW, no_assistant, empty_task, single, with_task])
    server = start_fake_llm_server(reply(1))
    out = tmp_path / "out.jsonl"
    p = run("eval", data, "-m", METRIC, "--out", out, "-q", *judge_flags(server))
    assert p.returncode == 0, p.stderr
    full, none, empty, one_turn, given = read_jsonl(out)
    assert full["scores"][METRIC] == given["scores"][METRIC] == 1.0
    assert none["reasons"][METRIC].startswith("the conversation has no assistant message")
    assert empty["reasons"][METRIC] == "field 'task' is empty (give the task or leave the field out)"
    assert "the row is single-turn" in one_turn["reasons"][METRIC]
    p = run("eval", data, "-m", METRIC, "--dry-run", *judge_flags(server))
    assert p.returncode == 0, p.stderr
    assert "planned calls: 2 (" in p.stdout and "task_completion 2" in p.stdout, p.stdout
    p = run("eval", data, "-m", METRIC, "--out", out, "-q")  # the offline judge
    assert p.returncode == 0, p.stderr
    first = read_jsonl(out)[0]
    assert first["status"][METRIC] == "skipped"
    assert "needs an LLM judge" in first["reasons"][METRIC]
