"""DeepEval's conversational metrics (conversation tasks, docs/agents.md) against the FAKE judge
server (tests/fakes/fake_llm_server.cc, not a model): each metric is one call that lists the
items to judge, and its verdicts become the score as DeepEval 4.3.1 counts them (worked out
by hand below); the skips say why; the dry run plans one call per metric. The arithmetic
against DeepEval's own code: tests/oracle/test_deepeval_conversation.py; a real model:
tests/llm/test_agent_goal_llm.py."""

import json

from cli_shared import judge_flags, read_jsonl

# Messages, numbered as the judge sees them: 1 system, 2 user, 3 assistant (a call),
# 4 tool, 5 assistant, 6 user, 7 assistant (a call), 8 tool, 9 assistant.
ROW = {"messages": [
    {"role": "system", "content": "You are Ada, a polite travel agent for Rail Europe."},
    {"role": "user", "content": "Hi, I'm Sam. I want a train ticket from Paris to Lyon on 3 May."},
    {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {
        "name": "search_trains", "arguments": "{\"from\": \"Paris\", \"to\": \"Lyon\", \"date\": \"2026-05-03\"}"}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "TGV 6601 08:04"},
    {"role": "assistant", "content": "Sam, the TGV 6601 leaves Paris at 08:04 on 3 May. Shall I book it?"},
    {"role": "user", "content": "Yes please, one seat."},
    {"role": "assistant", "content": None, "tool_calls": [{"id": "c2", "type": "function", "function": {
        "name": "book", "arguments": "{\"train\": \"TGV 6601\", \"seats\": 2}"}}]},
    {"role": "tool", "tool_call_id": "c2", "content": "booked"},
    {"role": "assistant", "content": "Done: 2 seats on the TGV 6601."}],
    "chatbot_role": "a polite travel agent who only helps with train travel",
    "reference_topics": ["train travel", "bookings"]}


def verdicts(*items, reason="fake"):
    return json.dumps({"verdicts": [{"item": i, "verdict": v, "reason": f"about {i}"} for i, v in items],
                       "reason": reason})


def write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def score_one(run, tmp_path, server, metric, rows=None):
    out, traces = tmp_path / f"{metric}.jsonl", tmp_path / f"{metric}.traces.jsonl"
    p = run("eval", write(tmp_path / "c.jsonl", rows or [ROW]), "-m", metric, "--out", out,
            "--traces", traces, "-q", *judge_flags(server))
    assert p.returncode == 0, p.stderr
    calls = read_jsonl(traces) if traces.exists() else []
    return read_jsonl(out), calls


def test_each_metric_is_one_call_and_counts_as_deepeval(run, tmp_path, start_fake_llm_server):
    cases = {
        # 2 of 3 intentions judged; "idk" is dropped as DeepEval drops it: 1 / 2.
        "deepeval_conversation_completeness": (
            verdicts(("a ticket Paris-Lyon on 3 May", "yes"), ("one seat", "no"), ("price", "idk")), 0.5),
        # Message 5 left out (no fact before it is forgotten); 9 forgets "one seat": yes is the
        # failing verdict, 0 / 1.
        "deepeval_knowledge_retention": (verdicts(("9", "yes")), 0.0),
        # Only 5 named out of character; 9, not named, stays in role (DeepEval lists only the
        # breaks): (2 - 1) / 2.
        "deepeval_role_adherence": (verdicts(("5", "no")), 0.5),
        # Turns end at 5 and 9; "Yes." reads as yes; 7 was not asked and is dropped: 2 / 2.
        "deepeval_turn_relevancy": (verdicts(("5", "yes"), ("9", "Yes."), ("7", "no")), 1.0),
        # DeepEval's accuracy: one question handled right of two, (TP + TN) / all.
        "deepeval_topic_adherence": (verdicts(("train to Lyon", "yes"), ("book a seat", "no")), 0.5),
        # Call 1 right, call 2 books 2 seats for "one seat": 1 / 2.
        # ("call 2" is read as call 2; "message 3" names no call and is dropped.)
        "deepeval_argument_correctness": (verdicts(("1", "yes"), ("call 2", "no"), ("message 3", "no")), 0.5),
    }
    for metric, (reply, expected) in cases.items():
        (row,), calls = score_one(run, tmp_path, start_fake_llm_server(reply), metric)
        assert row["status"][metric] == "ok", (metric, row["reasons"])
        assert row["scores"][metric] == expected, (metric, row["scores"][metric], row["evidence"][metric])
        assert len(calls) == 1, metric
        body = json.dumps(calls[0]["request"], ensure_ascii=False)
        assert "9. assistant: Done: 2 seats on the TGV 6601." in body
        assert '3. assistant:\\n   -> search_trains({\\"from\\":\\"Paris\\"' in body, body[:3000]
        evidence = row["evidence"][metric]
        if metric == "deepeval_turn_relevancy":
            assert "MESSAGES TO JUDGE: 5, 9" in body
            assert evidence["asked"] == ["5", "9"] and evidence["dropped"] == 1
        if metric in ("deepeval_knowledge_retention", "deepeval_role_adherence"):
            assert "MESSAGES TO JUDGE: 5, 9" in body
        if metric == "deepeval_role_adherence":
            assert "CHATBOT ROLE:\\na polite travel agent who only helps with train travel" in body
            assert evidence["passed"] == ["9"] and evidence["failed"] == ["5"]
        if metric == "deepeval_argument_correctness":
            assert "TOOL CALLS TO JUDGE:\\ncall 1: search_trains(" in body
            assert "call 2: book({\\\"train\\\":\\\"TGV 6601\\\",\\\"seats\\\":2})" in body
        if metric == "deepeval_topic_adherence":
            assert "RELEVANT TOPICS:\\n- train travel\\n- bookings" in body
        if metric == "deepeval_conversation_completeness":
            assert "TO JUDGE" not in body and evidence["dropped"] == 1


def test_an_unjudged_turn_is_named_and_left_out(run, tmp_path, start_fake_llm_server):
    (row,), _ = score_one(run, tmp_path, start_fake_llm_server(verdicts(("5", "no"))),
                          "deepeval_turn_relevancy")
    evidence = row["evidence"]["deepeval_turn_relevancy"]
    assert row["scores"]["deepeval_turn_relevancy"] == 0.0
    assert evidence["not_judged"] == ["9"]
    assert any("no verdict for 9" in w for w in evidence["warnings"]), evidence
    # No readable verdict at all: skipped as the judge's failure, not as an empty conversation.
    (row,), _ = score_one(run, tmp_path, start_fake_llm_server(verdicts(("5", "idk"), ("9", "maybe"))),
                          "deepeval_turn_relevancy")
    assert row["status"]["deepeval_turn_relevancy"] == "skipped"
    assert row["reasons"]["deepeval_turn_relevancy"] == (
        "the judge gave no readable verdict on the 2 items asked (DeepEval scores 1)")


def test_skips_say_why_and_the_dry_run_plans_one_call_each(run, tmp_path, start_fake_llm_server):
    no_role = {k: v for k, v in ROW.items() if k != "chatbot_role"}
    no_calls = {"turns": [{"role": "user", "content": "Hello"}, {"role": "assistant", "content": "Hi!"}],
                "chatbot_role": "a greeter"}
    single = {"user_input": "Weather?", "response": "Sunny."}
    data = write(tmp_path / "c.jsonl", [ROW, no_role, no_calls, single])
    metrics = ("deepeval_role_adherence,deepeval_argument_correctness,deepeval_turn_relevancy,"
               "deepeval_conversation_completeness,deepeval_knowledge_retention")
    server = start_fake_llm_server(verdicts(("2", "yes")))
    out = tmp_path / "out.jsonl"
    p = run("eval", data, "-m", metrics, "--out", out, "-q", *judge_flags(server))
    assert p.returncode == 0, p.stderr
    full, without_role, without_calls, single_row = read_jsonl(out)
    assert without_role["reasons"]["deepeval_role_adherence"] == "field 'chatbot_role' is missing or empty"
    assert without_calls["reasons"]["deepeval_argument_correctness"].startswith(
        "the conversation has no tool call (DeepEval scores 1")
    assert "the row is single-turn" in single_row["reasons"]["deepeval_turn_relevancy"]
    # "2" is no assistant message: every verdict dropped, so nothing counts and the metric
    # says so instead of DeepEval's 1 (the completeness task counts any item: 1 / 1).
    assert full["status"]["deepeval_knowledge_retention"] == "skipped"
    assert "DeepEval scores 1" in full["reasons"]["deepeval_knowledge_retention"]
    assert full["scores"]["deepeval_conversation_completeness"] == 1.0
    p = run("eval", data, "-m", metrics, "--dry-run", *judge_flags(server))
    assert p.returncode == 0, p.stderr
    # ROW: all five; no_role: four (no role); no_calls: four (no tool call); single: none.
    assert "planned calls: 13 (" in p.stdout, p.stdout
    assert "deepeval_argument_correctness 2" in p.stdout and "deepeval_role_adherence 2" in p.stdout
    p = run("eval", data, "-m", metrics, "--out", out, "-q")  # the offline judge
    assert p.returncode == 0, p.stderr
    assert "needs an LLM judge" in read_jsonl(out)[0]["reasons"]["deepeval_turn_relevancy"]
    bad = start_fake_llm_server(json.dumps({"verdicts": "none", "reason": "r"}))
    p = run("eval", write(tmp_path / "one.jsonl", [ROW]), "-m", "deepeval_turn_relevancy", "--out",
            out, "-q", "--allow-failures", *judge_flags(bad))
    assert p.returncode == 0, p.stderr
    (row,) = read_jsonl(out)
    assert row["status"]["deepeval_turn_relevancy"] == "failed"
    assert "$.verdicts: expected array" in row["reasons"]["deepeval_turn_relevancy"]
