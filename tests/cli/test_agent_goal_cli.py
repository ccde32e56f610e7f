"""ragas's agent goal accuracy (docs/agents.md) against the FAKE judge server
(tests/fakes/fake_llm_server.cc, not a model: it answers every chat request with the reply
given here): what the one critic call sends (the numbered messages with their tool calls, the
conversation's last assistant text, the desired outcome), how its verdict becomes the score,
what the dry run plans, and what is skipped and why. The real model: tests/llm."""

import json

import pytest

from cli_shared import judge_flags, read_jsonl

BOOKING = {"id": "booking", "user_input": [
    {"type": "human", "content": "Book me a table for two at Chez Marie tonight at 8."},
    {"type": "ai", "content": "", "tool_calls": [
        {"name": "book_table", "args": {"restaurant": "Chez Marie", "people": 2, "time": "20:00"}}]},
    {"type": "tool", "content": "Booked: Chez Marie, 2 people, 20:00, confirmation 7731."},
    {"type": "ai", "content": "Your table for two at Chez Marie is booked for 8 pm (confirmation 7731)."}],
    "reference": "A table for two at Chez Marie is booked for 8 pm tonight."}


def write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.mark.parametrize("verdict", [1, 0])
def test_one_critic_call_reads_the_whole_conversation_and_its_verdict_is_the_score(
        run, tmp_path, start_fake_llm_server, verdict):
    server = start_fake_llm_server(json.dumps({"reason": "judged", "verdict": verdict}))
    out, traces = tmp_path / "out.jsonl", tmp_path / "traces.jsonl"
    p = run("eval", write(tmp_path / "c.jsonl", [BOOKING]), "-m",
            "ragas_agent_goal_accuracy,ragas_agent_goal_accuracy_without_reference",
            "--out", out, "--traces", traces, "-q", *judge_flags(server))
    assert p.returncode == 0, p.stderr
    (row,) = read_jsonl(out)
    for metric in ("ragas_agent_goal_accuracy", "ragas_agent_goal_accuracy_without_reference"):
        assert row["status"][metric] == "ok", row["reasons"]
        assert row["scores"][metric] == float(verdict)
        assert row["evidence"][metric]["reason"] == "judged"
        assert row["evidence"][metric]["votes"] == 1
    calls = read_jsonl(traces)
    assert len(calls) == 2  # one per metric, nothing turn by turn
    prompts = [json.dumps(c["request"]) for c in calls]
    for prompt in prompts:
        text = json.loads(prompt)
        body = json.dumps(text, ensure_ascii=False)
        assert "CONVERSATION:" in body
        assert "1. user: Book me a table for two at Chez Marie tonight at 8." in body
        assert '-> book_table({\\"restaurant\\":\\"Chez Marie\\",\\"people\\":2,\\"time\\":\\"20:00\\"})' in body
        assert "3. tool: Booked: Chez Marie" in body
        assert "RESPONSE:\\nYour table for two at Chez Marie is booked" in body
    with_reference = [p for p in prompts if "DESIRED OUTCOME:" in p]
    assert len(with_reference) == 1
    assert "A table for two at Chez Marie is booked for 8 pm tonight." in with_reference[0]


def test_skips_say_why_and_the_dry_run_plans_one_call_per_metric(run, tmp_path, start_fake_llm_server):
    no_reference = {k: v for k, v in BOOKING.items() if k != "reference"}
    single = {"user_input": "Book a table.", "response": "Done."}
    data = write(tmp_path / "c.jsonl", [BOOKING, no_reference, single])
    server = start_fake_llm_server(json.dumps({"reason": "judged", "verdict": 1}))
    metrics = "ragas_agent_goal_accuracy,ragas_agent_goal_accuracy_without_reference"
    out = tmp_path / "out.jsonl"
    p = run("eval", data, "-m", metrics, "--out", out, "-q", *judge_flags(server))
    assert p.returncode == 0, p.stderr
    booking, without, single_row = read_jsonl(out)
    assert booking["status"] == {m: "ok" for m in metrics.split(",")}
    assert without["status"]["ragas_agent_goal_accuracy"] == "skipped"
    assert without["reasons"]["ragas_agent_goal_accuracy"].startswith("field 'reference' is missing")
    assert without["status"]["ragas_agent_goal_accuracy_without_reference"] == "ok"
    for metric in metrics.split(","):
        assert single_row["status"][metric] == "skipped"
        assert "the row is single-turn" in single_row["reasons"][metric]
    # The offline judge cannot judge it: skipped, naming what would.
    p = run("eval", data, "-m", metrics, "--out", out, "-q")
    assert p.returncode == 0, p.stderr
    assert "needs an LLM judge" in read_jsonl(out)[0]["reasons"]["ragas_agent_goal_accuracy"]
    # The dry run: three critic calls (the booking's two, the other conversation's one).
    p = run("eval", data, "-m", metrics, "--dry-run", *judge_flags(server))
    assert p.returncode == 0, p.stderr
    assert "planned calls: 3 (critic 3)" in p.stdout, p.stdout


def test_the_dry_run_plans_single_turn_metrics_turn_by_turn(run, tmp_path, start_fake_llm_server):
    """Two turns with passages: faithfulness plans its claims and verdicts calls for each turn,
    as a single-turn row of that turn would; the conversation as a whole plans none."""
    conversation = {"user_input": [
        {"type": "human", "content": "Where is the tower?"},
        {"type": "ai", "content": "The tower is in Paris.", "retrieved_contexts": ["The tower stands in Paris."]},
        {"type": "human", "content": "How tall is it?"},
        {"type": "ai", "content": "It is 330 metres tall.", "retrieved_contexts": ["It is 330 metres tall."]}]}
    turns = [{"user_input": "Where is the tower?", "response": "The tower is in Paris.",
              "retrieved_contexts": ["The tower stands in Paris."]},
             {"user_input": "How tall is it?", "response": "It is 330 metres tall.",
              "retrieved_contexts": ["It is 330 metres tall."]}]
    server = start_fake_llm_server(json.dumps({"reason": "judged", "verdict": 1}))
    planned = []
    for name, rows in (("conversation", [conversation]), ("turns", turns)):
        p = run("eval", write(tmp_path / f"{name}.jsonl", rows), "-m", "faithfulness", "--dry-run",
                *judge_flags(server))
        assert p.returncode == 0, p.stderr
        planned.append([line for line in p.stdout.splitlines()
                        if line.startswith(("planned calls", "estimated tokens"))])
    assert planned[0] == planned[1] and planned[0], planned
