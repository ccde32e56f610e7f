"""`ragmeter gen --scenarios` through the CLI with a FAKE judge server
(tests/fakes/fake_llm_server.cc, not a model) scripted with exact replies: the rows and
their provenance against the request the judge got, the checks and their counted
rejections, --size, a stop, the offline judge refused, and the rows read by the
conversation reader of `ragmeter eval`.
"""
import json
import re
import signal
import urllib.request

import pytest

from cli_shared import fake_script, fake_stats, read_jsonl
from interrupt_testing import interrupt, read_jsonl_strict, start, wait_for

LEAVE = "Employees get 25 days of paid leave a year. Unused days carry over until March 31."
EXPENSES = "Travel expenses are refunded within 30 days when the receipt is uploaded to the portal."
TRAINING = "Every engineer may spend 5 days a year on courses that the company pays for in full."


def scenario(text, passages=("P1",), user="A junior developer in their first week, brief and polite.",
             outcome="The user learns the number of days and the rule that applies."):
    return {"expected_outcome": outcome, "passages": list(passages), "scenario": text,
            "user_description": user}


def reply(*scenarios):
    return {"content": json.dumps({"scenarios": list(scenarios)})}


@pytest.fixture
def docs(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "leave.md").write_text(f"# Leave\n\n{LEAVE}\n")
    (folder / "expenses.txt").write_text(EXPENSES + "\n")
    (folder / "training.md").write_text(f"# Training\n\n{TRAINING}\n")
    return folder


@pytest.fixture
def server(start_fake_llm_server):
    return start_fake_llm_server(json.dumps({"scenarios": []}))


def judge(url):
    # One context at a time: the replies answer the requests in script order. Hashed
    # word vectors for the index and the duplicate check: no model, the same every run.
    return ["--judge-url", url + "/v1", "--judge-model", "fake", "--cache-mode", "off",
            "--concurrency", "1", "--embedder", "offline"]


def chat_requests(url):
    """The chat requests the FAKE server got, oldest first, as parsed bodies."""
    with urllib.request.urlopen(url + "/fake/requests", timeout=10) as answer:
        requests = json.load(answer)
    bodies = [r["body"] if isinstance(r["body"], dict) else json.loads(r["body"])
              for r in requests if r["path"].endswith("/chat/completions")]
    return bodies


def shown_passages(body):
    """The passages a generation request showed, by label: {"P1": text, ...}."""
    user = body["messages"][1]["content"]
    section = user.split("Task:", 1)[0]
    return {label: text.strip() for label, text in
            re.findall(r"\[(P\d+)\]\n(.*?)(?=\n\n\[P\d+\]\n|\n\n$)", section, flags=re.S)}


def test_rows_carry_the_scenario_and_the_passages_the_judge_was_shown(run, tmp_path, docs, server):
    fake_script(server, {"steps": [
        reply(scenario("A new employee wants to know how many paid leave days they get.",
                       passages=["P2", "P1"])),
        reply(scenario("An engineer plans a course and asks who pays for it and for how long.")),
        reply(scenario("A manager asks about travel refunds for a trip to Lyon next month.")),
    ]})
    out, summary, chunks = tmp_path / "s.jsonl", tmp_path / "sum.json", tmp_path / "chunks.jsonl"
    p = run("gen", docs, "--out", out, "--scenarios", "--size", "2", "--neighbours", "1",
            "--summary", summary, "--chunks-out", chunks, *judge(server))
    assert p.returncode == 0, p.stderr
    rows = read_jsonl(out)
    assert len(rows) == 2  # --size: the third scripted reply is never asked for
    requests = chat_requests(server)
    assert len(requests) == 2 and fake_stats(server)["chat"] == 2
    for row in rows:
        assert list(row) == ["id", "scenario", "expected_outcome", "user_description",
                             "reference_contexts", "sources"]
        assert all(isinstance(row[k], str) and row[k] for k in
                   ("scenario", "expected_outcome", "user_description"))
    # The replies named passages by label: a row holds the texts its request showed under
    # those labels, in the order named, and their chunks' sources.
    shown = [shown_passages(body) for body in requests]
    assert [len(s) for s in shown] == [2, 2]  # the root and its one neighbour
    assert rows[0]["reference_contexts"] == [shown[0]["P2"], shown[0]["P1"]]
    assert rows[1]["reference_contexts"] == [shown[1]["P1"]]
    by_text = {c["text"]: c for c in read_jsonl(chunks)}
    for row in rows:
        assert [s["chunk_id"] for s in row["sources"]] == \
            [by_text[text]["chunk_id"] for text in row["reference_contexts"]]
        assert [s["path"] for s in row["sources"]] == \
            [by_text[text]["path"] for text in row["reference_contexts"]]
    assert [r["id"] for r in rows] == ["scenario-1", "scenario-2"]
    assert rows[0]["scenario"] == "A new employee wants to know how many paid leave days they get."
    # The request: the scenario prompt, a schema asking for exactly --per-context items.
    schema = requests[0]["response_format"]["json_schema"]["schema"]
    items = schema["properties"]["scenarios"]
    assert items["minItems"] == items["maxItems"] == 1
    assert set(items["items"]["required"]) == {"passages", "scenario", "user_description",
                                               "expected_outcome"}
    assert items["items"]["properties"]["passages"]["items"]["enum"] == ["P1", "P2"]
    assert "simulated user" in requests[0]["messages"][0]["content"]
    s = json.loads(summary.read_text())
    assert s["rows"] == 2 and s["requested"] == 2 and s["contexts_tried"] == 2
    assert s["scenarios_proposed"] == 2 and s["rejected"] == {}
    assert s["multi_context_rows"] == 1
    assert s["usage"]["by_call"]["scenarios"]["calls"] == 2
    assert "pairs_proposed" not in s and "by_type" not in s
    assert "scenarios proposed: 2" in p.stdout


def test_malformed_empty_pointing_and_duplicate_scenarios_are_rejected_and_counted(
        run, tmp_path, docs, server):
    first = "A new employee wants to know how many paid leave days they get each year."
    fake_script(server, {"steps": [
        {"content": "this is not JSON"}, {"content": "still not JSON"},        # one repair asked
        reply(scenario("An engineer asks who pays for courses.", user="  ")),  # empty user
        reply(scenario("A manager asks about travel refunds.", outcome="")),   # empty outcome
        reply(scenario("A reader asks what the passage says about courses.")),  # points at it
        reply(scenario("An engineer asks how many course days they may take.", passages=[])),
        reply(scenario(first)),                                                # accepted
        reply(scenario(first + " ")),                                          # a duplicate
        reply(scenario("A manager asks how fast travel expenses are refunded after a trip.")),
    ]})
    out, summary = tmp_path / "s.jsonl", tmp_path / "sum.json"
    p = run("gen", docs, "--out", out, "--scenarios", "--size", "2", "--neighbours", "0",
            "--summary", summary, *judge(server))
    assert p.returncode == 0, p.stderr
    rows = read_jsonl(out)
    assert [r["scenario"] for r in rows] == [
        first, "A manager asks how fast travel expenses are refunded after a trip."]
    s = json.loads(summary.read_text())
    rejected = s["rejected"]
    failed = [reason for reason in rejected if reason.startswith("generation failed")]
    assert len(failed) == 1 and rejected[failed[0]] == 1 and "JSON" in failed[0]
    assert {k: v for k, v in rejected.items() if k not in failed} == {
        "empty user description": 1, "empty expected outcome": 1,
        "scenario points at its source": 1,
        "names no passage, or one that does not exist": 1, "near-duplicate scenario": 1}
    # 8 contexts, the first of which yielded no scenario; its call was asked twice (the
    # client's one repair of a reply that is not JSON).
    assert s["contexts_tried"] == 8 and s["scenarios_proposed"] == 7
    assert fake_stats(server)["chat"] == 9
    for reason in ("empty user description", "near-duplicate scenario"):
        assert reason in p.stdout


def test_a_set_the_checks_cannot_fill_exits_3_and_per_context_fills_exactly_the_size(
        run, tmp_path, docs, server):
    same = scenario("A new employee wants to know how many paid leave days they get.")
    fake_script(server, {"default": reply(same)})
    out, summary = tmp_path / "s.jsonl", tmp_path / "sum.json"
    p = run("gen", docs, "--out", out, "--scenarios", "--size", "2", "--max-contexts", "3",
            "--summary", summary, *judge(server))
    assert p.returncode == 3 and "only 1 of 2 rows" in p.stderr
    assert len(read_jsonl(out)) == 1
    assert json.loads(summary.read_text())["rejected"] == {"near-duplicate scenario": 2}
    # Three scenarios from one call, a set of two: the third is not needed.
    fake_script(server, {"default": reply(
        scenario("A new employee wants to know how many paid leave days they get."),
        scenario("An engineer asks who pays for courses and for how many days a year."),
        scenario("A manager asks how fast travel expenses are refunded after a trip."))})
    p = run("gen", docs, "--out", out, "--scenarios", "--size", "2", "--per-context", "3",
            "--summary", summary, *judge(server))
    assert p.returncode == 0, p.stderr
    assert len(read_jsonl(out)) == 2
    s = json.loads(summary.read_text())
    assert s["rejected"] == {"not needed: the set was full": 1} and s["contexts_tried"] == 1


def test_the_offline_judge_cannot_write_scenarios(run, tmp_path, docs):
    out = tmp_path / "s.jsonl"
    for flags in ([], ["--judge", "offline"]):
        p = run("gen", docs, "--out", out, "--scenarios", *flags)
        assert p.returncode == 2
        assert "scenario generation needs an LLM judge" in p.stderr
        assert "the offline judge cannot write scenarios" in p.stderr
        assert not out.exists()
    # Question types and the closed-book check are the questions' own.
    p = run("gen", docs, "--out", out, "--scenarios", "--types", "simple=1",
            "--judge-url", "http://127.0.0.1:9/v1", "--judge-model", "m")
    assert p.returncode == 2 and "--types" in p.stderr and not out.exists()


def test_a_generated_row_is_read_by_the_conversation_reader_of_eval(run, tmp_path, docs, server):
    fake_script(server, {"default": reply(
        scenario("A new employee wants to know how many paid leave days they get."))})
    out = tmp_path / "s.jsonl"
    p = run("gen", docs, "--out", out, "--scenarios", "--size", "1", *judge(server))
    assert p.returncode == 0, p.stderr
    row = read_jsonl(out)[0]
    # What a simulated run would add: the conversation, and here no expected tool.
    conversation = {**row, "expected_tools": [], "turns": [
        {"role": "user", "content": "How many paid leave days do I get?"},
        {"role": "assistant", "content": "25 days a year."}]}
    data, summary = tmp_path / "conv.jsonl", tmp_path / "eval.json"
    data.write_text(json.dumps(conversation) + "\n")
    p = run("eval", data, "--metrics", "deepeval_tool_correctness", "--summary", summary,
            "--out", tmp_path / "o.jsonl")
    assert p.returncode == 0, p.stderr
    assert json.loads(summary.read_text())["rows"] == {"read": 1, "rejected": 0}
    # The reader does read the scenario's fields: a scenario that is not text is named.
    data.write_text(json.dumps({**conversation, "scenario": 5}) + "\n")
    p = run("eval", data, "--metrics", "deepeval_tool_correctness", "--out", tmp_path / "o.jsonl")
    assert p.returncode == 3 and "field 'scenario': expected text" in p.stderr


def test_a_stop_writes_the_scenarios_accepted_before_it(tmp_path, docs, server):
    fake_script(server, {"steps": [
        reply(scenario("A new employee wants to know how many paid leave days they get.")),
        reply(scenario("An engineer asks who pays for courses and for how many days a year.")),
    ], "default": {"kind": "hang"}})
    out, summary = tmp_path / "s.jsonl", tmp_path / "sum.json"
    proc = start(["gen", docs, "--out", out, "--scenarios", "--size", "5", "--summary", summary,
                  "-q", *judge(server)])
    wait_for(lambda: fake_stats(server)["chat"] >= 3, timeout=30, what="the third call, hanging")
    rc, stderr, _ = interrupt(proc, signal.SIGINT)
    assert rc == 130, stderr
    rows = read_jsonl_strict(out)
    assert [r["id"] for r in rows] == ["scenario-1", "scenario-2"]
    s = json.loads(summary.read_text())
    assert s["cancelled"] is True and s["rows"] == 2 and s["rejected"] == {}
