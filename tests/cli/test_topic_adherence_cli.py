"""ragas's topic adherence (docs/agents.md) against the FAKE judge server
(tests/fakes/fake_llm_server.cc, not a model): the three modes read one "topics" call, which
sends the numbered conversation and the reference topics; the skips say why; the dry run
plans one call. The arithmetic against ragas's own: tests/oracle/test_topic_adherence.py."""

import json

from cli_shared import judge_flags, read_jsonl

METRICS = "ragas_topic_adherence,ragas_topic_adherence_precision,ragas_topic_adherence_recall"
ROW = {"user_input": [
    {"type": "human", "content": "What will the weather be in Paris tomorrow?"},
    {"type": "ai", "content": "Sunny, 24 degrees."},
    {"type": "human", "content": "Who won the football match?"},
    {"type": "ai", "content": "Sorry, I only help with the weather."}],
    "reference_topics": ["weather", "travel"]}
REPLY = {"topics": [{"topic": "weather in Paris", "answered": True, "in_reference": True},
                    {"topic": "football", "answered": False, "in_reference": False}],
         "reason": "weather answered, football refused"}


def write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_one_topics_call_serves_the_three_modes(run, tmp_path, start_fake_llm_server):
    server = start_fake_llm_server(json.dumps(REPLY))
    out, traces = tmp_path / "out.jsonl", tmp_path / "traces.jsonl"
    p = run("eval", write(tmp_path / "c.jsonl", [ROW]), "-m", METRICS, "--out", out,
            "--traces", traces, "-q", *judge_flags(server))
    assert p.returncode == 0, p.stderr
    (row,) = read_jsonl(out)
    # One topic answered and in the reference, one refused and not: TP 1, FP 0, FN 0.
    for metric in METRICS.split(","):
        assert row["status"][metric] == "ok", row["reasons"]
        assert abs(row["scores"][metric] - 1.0) < 1e-9 and row["scores"][metric] < 1.0  # ragas's 1e-10
    assert row["evidence"]["ragas_topic_adherence"]["topics"] == REPLY["topics"]
    calls = read_jsonl(traces)
    assert len(calls) == 1 and calls[0]["request"]["messages"]
    body = json.dumps(calls[0]["request"], ensure_ascii=False)
    assert "1. user: What will the weather be in Paris tomorrow?" in body
    assert "4. assistant: Sorry, I only help with the weather." in body
    assert "REFERENCE TOPICS:\\n- weather\\n- travel" in body


def test_skips_say_why_and_the_dry_run_plans_one_call(run, tmp_path, start_fake_llm_server):
    no_topics = {k: v for k, v in ROW.items() if k != "reference_topics"}
    single = {"user_input": "Weather?", "response": "Sunny."}
    data = write(tmp_path / "c.jsonl", [ROW, no_topics, single])
    server = start_fake_llm_server(json.dumps(REPLY))
    out = tmp_path / "out.jsonl"
    p = run("eval", data, "-m", METRICS, "--out", out, "-q", *judge_flags(server))
    assert p.returncode == 0, p.stderr
    _, without, single_row = read_jsonl(out)
    assert without["reasons"]["ragas_topic_adherence"] == "field 'reference_topics' is missing or empty"
    assert "the row is single-turn" in single_row["reasons"]["ragas_topic_adherence"]
    p = run("eval", data, "-m", METRICS, "--dry-run", *judge_flags(server))
    assert p.returncode == 0, p.stderr
    assert "planned calls: 1 (topics 1)" in p.stdout, p.stdout
    p = run("eval", data, "-m", METRICS, "--out", out, "-q")  # the offline judge
    assert p.returncode == 0, p.stderr
    assert "needs an LLM judge" in read_jsonl(out)[0]["reasons"]["ragas_topic_adherence"]
    # A reply that is not the asked shape fails the metric, naming what is wrong.
    bad = start_fake_llm_server(json.dumps({"topics": [{"topic": "x", "answered": "yes"}], "reason": "r"}))
    p = run("eval", write(tmp_path / "one.jsonl", [ROW]), "-m", METRICS, "--out", out, "-q",
            "--allow-failures", *judge_flags(bad))
    assert p.returncode == 0, p.stderr
    (row,) = read_jsonl(out)
    assert row["status"]["ragas_topic_adherence"] == "failed"
