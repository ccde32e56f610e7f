"""`ragmeter eval` on conversations: the three input shapes, the rows it rejects (naming line
and field, the run going on), and what single-turn and conversation metrics do on the other
kind of row (single-turn metrics on conversations, turn by turn: test_conversation_turns_cli.py)."""

import json

from cli_shared import read_jsonl

WEATHER = {"name": "get_weather", "args": {"city": "Paris"}}

GOOD_RAGAS = {"user_input": [
    {"type": "human", "content": "Weather in Paris?"},
    {"type": "ai", "content": "", "tool_calls": [WEATHER]},
    {"type": "tool", "content": "sunny"},
    {"type": "ai", "content": "Sunny.", "retrieved_contexts": ["Paris is sunny today."]}],
    "reference_tool_calls": [WEATHER]}

GOOD_OPENAI = {"messages": [
    {"role": "user", "content": "Weather in Paris and Rome?"},
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}},
        {"id": "c2", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Rome"}'}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
    {"role": "tool", "tool_call_id": "c2", "content": "rain"},
    {"role": "assistant", "content": "Sunny in Paris, rain in Rome."}],
    "reference_tool_calls": [WEATHER]}

GOOD_DEEPEVAL = {"turns": [
    {"role": "user", "content": "Weather in Paris?"},
    {"role": "assistant", "content": "Sunny.", "retrieval_context": ["Paris: sun"],
     "tools_called": [{"name": "get_weather", "input_parameters": {"city": "Paris"}}]}],
    "expected_tools": [{"name": "get_weather", "input_parameters": {"city": "Paris"}},
                       {"name": "get_uv_index", "input_parameters": {"city": "Paris"}}]}


def bad_rows():
    """(row, field, words of the message) for each rejected row."""
    orphan_tool = {"user_input": [{"type": "human", "content": "hi"},
                                  {"type": "tool", "content": "sunny"}],
                   "reference_tool_calls": []}
    not_json = json.loads(json.dumps(GOOD_OPENAI))
    not_json["messages"][1]["tool_calls"][1]["function"]["arguments"] = "{city: Rome"
    unknown_role = {"messages": [{"role": "robot", "content": "beep"}]}
    wrong_id = json.loads(json.dumps(GOOD_OPENAI))
    wrong_id["messages"][3]["tool_call_id"] = "c9"
    deepeval_tool_turn = {"turns": [{"role": "tool", "content": "x"}]}
    list_arguments = {"user_input": [{"type": "ai", "content": "",
                                      "tool_calls": [{"name": "f", "args": [1, 2]}]}]}
    return [
        (orphan_tool, "user_input", "message 1: a tool message that follows no tool call"),
        (not_json, "messages", "message 1: tool call 1: 'function.arguments' is not JSON"),
        (unknown_role, "messages", "message 0: unknown role 'robot'"),
        (wrong_id, "messages", "message 3: 'tool_call_id' 'c9' names no tool call"),
        (deepeval_tool_turn, "turns", "message 0: unknown role 'tool'"),
        (list_arguments, "user_input", "'args' is an array, expected a JSON object"),
    ]


def test_bad_conversations_are_rejected_by_line_and_field_and_the_run_goes_on(run, tmp_path):
    bad = bad_rows()
    rows = [GOOD_RAGAS] + [row for row, _, _ in bad] + [GOOD_OPENAI, GOOD_DEEPEVAL]
    data = tmp_path / "conversations.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "out.jsonl"
    p = run("eval", data, "-m", "ragas_tool_call_accuracy,deepeval_tool_correctness", "--out", out)
    assert p.returncode == 3, p.stderr  # rows rejected, the run completed
    results = read_jsonl(out)
    assert len(results) == len(rows)
    for line, (_, field, words) in enumerate(bad, start=2):
        error = results[line - 1]["row_error"]
        assert error["field"] == field, error
        assert words in error["message"], error
        assert f"conversations.jsonl:{line}:" in p.stderr
    # The good rows around them are scored. ragas: one reference call, the ragas row calls
    # it exactly (1); the OpenAI row calls get_weather twice (names [gw, gw] vs [gw]: 0).
    first, openai_row, deepeval_row = results[0], results[-2], results[-1]
    assert first["scores"]["ragas_tool_call_accuracy"] == 1.0
    assert openai_row["scores"]["ragas_tool_call_accuracy"] == 0.0
    # DeepEval: expected [get_weather, get_uv_index], called [get_weather]: 1/2. Its row has
    # no reference_tool_calls under ragas's name but expected_tools, read for both.
    assert deepeval_row["scores"]["deepeval_tool_correctness"] == 0.5
    assert deepeval_row["scores"]["ragas_tool_call_accuracy"] == 0.0


def test_single_turn_metrics_go_turn_by_turn_and_conversation_metrics_skip_single_turn_rows(
        run, tmp_path):
    data = tmp_path / "mixed.jsonl"
    single = {"user_input": "Weather in Paris?", "response": "Sunny.", "reference": "Sunny."}
    data.write_text(json.dumps(GOOD_RAGAS) + "\n" + json.dumps(single) + "\n")
    out = tmp_path / "out.jsonl"
    p = run("eval", data, "-m", "exact_match,faithfulness,ragas_tool_call_f1", "--out", out)
    assert p.returncode == 0, p.stderr
    conversation, single_turn = read_jsonl(out)
    # A turn has no reference answer (test_conversation_turns_cli.py scores the rest).
    assert conversation["status"]["exact_match"] == "skipped"
    assert conversation["reasons"]["exact_match"].startswith(
        "no turn was scored: turn 1: field 'reference' is missing (a conversation's `reference` "
        "is its expected outcome")
    assert conversation["status"]["faithfulness"] == "ok"
    assert conversation["evidence"]["faithfulness"]["turns_total"] == 1
    assert conversation["scores"]["ragas_tool_call_f1"] == 1.0
    assert single_turn["scores"]["exact_match"] == 1.0
    assert single_turn["status"]["ragas_tool_call_f1"] == "skipped"
    assert "the row is single-turn" in single_turn["reasons"]["ragas_tool_call_f1"]


def test_a_conversation_without_reference_tool_calls_is_skipped_naming_the_field(run, tmp_path):
    row = {"user_input": GOOD_RAGAS["user_input"]}
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps(row) + "\n")
    out = tmp_path / "out.jsonl"
    assert run("eval", data, "-m", "conversation", "--out", out).returncode == 0
    (result,) = read_jsonl(out)
    assert set(result["status"].values()) == {"skipped"}
    assert "field 'reference_tool_calls' is missing" in result["reasons"]["ragas_tool_call_f1"]
