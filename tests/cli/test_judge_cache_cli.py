"""The LLM judge's cache through `ragmeter eval`, counted at a FAKE server.

The fake OpenAI-compatible server (tests/fakes/fake_llm_server.cc, not a model) answers every
chat request with one fixed JSON reply that satisfies the claims schema and both verdict
schemas, and counts the requests it gets. That makes the number of calls exact:
  - a first run pays for every call of the compact plan (claims, then one verdict table);
  - a rerun pays for nothing;
  - a rerun where only the retriever changed (one chunk replaced) pays for one verdict call
    that holds only the new chunk: the claims call is a cache hit and the verdicts of the
    unchanged (claim, chunk) pairs come from the verdict store.
(The real local LLM server's end-to-end test is tests/llm/test_eval_llm_judge.py.)
"""
import json
import re
import urllib.request

import pytest

REPLY = json.dumps({
    # The claims of every sentence asked (up to S49: the 40-sentence answer below): one
    # claim, the same for all. A call of 10 or more sentences labels them "S01" ...
    # (llm-v6: padded so that the schema's sorted keys are in number order).
    **{f"S{n}": ["The tower is in Paris."] for n in range(1, 50)},
    **{f"S{n:02d}": ["The tower is in Paris."] for n in range(1, 10)},
    "verdicts": [{"claim": 1, "verdict": "Entailment", "reason": ""}],
    # The verdict table's cells: the one claim's evidence, quoted from the first chunk,
    # then the claim against up to four passages.
    "Evidence 1": "Paris has a tower.",
    "P1: claim 1": "Entailment", "P2: claim 1": "Entailment", "P3: claim 1": "Entailment",
    "P4: claim 1": "Entailment", "reason 1": "",
})


@pytest.fixture
def fake_server(start_fake_llm_server):
    return start_fake_llm_server(REPLY)


def chat_requests(base):
    with urllib.request.urlopen(base + "/fake/stats", timeout=10) as reply:
        return json.load(reply)["chat"]


def write_row(path, chunks):
    row = {"user_input": "Where is the tower?",
           "response": "The tower is in Paris. It is tall.",
           "reference": "The tower stands in Paris. It is old.",
           "retrieved_contexts": chunks}
    path.write_text(json.dumps(row) + "\n")


def test_a_rerun_pays_only_for_the_new_chunks(run, tmp_path, fake_server):
    data, cache = tmp_path / "d.jsonl", tmp_path / "judge.sqlite"
    judge = ["--judge-url", fake_server + "/v1", "--judge-model", "fake", "--cache", cache,
             "--metrics", "faithfulness,context_recall,factual_correctness", "-q"]

    write_row(data, ["Paris has a tower.", "The tower opened in 1889."])
    p = run("eval", data, *judge, "--summary", tmp_path / "s1.json")
    assert p.returncode == 0, p.stderr
    first = chat_requests(fake_server)
    # 1 claims call + 1 verdict table: the claim against both chunks, the reference and
    # the response at once.
    assert first == 2
    s1 = json.loads((tmp_path / "s1.json").read_text())
    assert s1["usage"]["by_call"]["claims"]["calls"] == 1
    assert s1["usage"]["by_call"]["verdicts"]["calls"] == 1
    assert s1["metrics"]["faithfulness"]["mean"] == 1.0
    with urllib.request.urlopen(fake_server + "/fake/requests", timeout=10) as reply:
        table = json.load(reply)[-1]["body"]["messages"][1]["content"]
    # The claim against both chunks and the reference; not against the response, whose
    # words hold it verbatim (Entailment without a call).
    # The task's fixed text first (the same in every table), then the passages.
    assert table.startswith("Task: ")
    assert ("\n\nPASSAGES:\n[P1]\nParis has a tower.\n\n[P2]\nThe tower opened in 1889."
            "\n\n[P3]\nThe tower stands in Paris. It is old.\n\nCLAIMS:\n") in table
    assert "[P4]" not in table

    p = run("eval", data, *judge, "--summary", tmp_path / "s2.json")
    assert p.returncode == 0, p.stderr
    assert chat_requests(fake_server) == first  # nothing sent
    s2 = json.loads((tmp_path / "s2.json").read_text())
    # Claims and verdicts are stored by text: both calls answered by their stores, counted
    # apart from the request cache so that the kinds' cache_hits add up to the top-level one.
    by_call = s2["usage"]["by_call"]
    assert by_call["claims"]["store_hits"] == 1
    assert by_call["verdicts"]["store_hits"] == 1
    assert sum(kind["cache_hits"] for kind in by_call.values()) == s2["usage"]["cache_hits"]

    write_row(data, ["Paris has a tower.", "A new chunk from another retriever."])
    p = run("eval", data, *judge)
    assert p.returncode == 0, p.stderr
    assert chat_requests(fake_server) == first + 1  # one call for the new chunk
    with urllib.request.urlopen(fake_server + "/fake/requests", timeout=10) as reply:
        last = json.load(reply)[-1]["body"]["messages"][1]["content"]
    assert "A new chunk from another retriever." in last
    assert "Paris has a tower." not in last  # its verdicts were stored

    # Replay mode: a miss is an error, reported per metric, and nothing is sent.
    write_row(data, ["A chunk never seen before."])
    p = run("eval", data, *judge, "--cache-mode", "replay", "--out", tmp_path / "o.jsonl")
    assert p.returncode == 3, p.stderr
    assert chat_requests(fake_server) == first + 1
    row = json.loads((tmp_path / "o.jsonl").read_text())
    assert row["status"]["faithfulness"] == "failed"
    assert "judge" in row["reasons"]["faithfulness"]


def test_a_premise_longer_than_the_window_is_split_not_truncated(run, tmp_path, fake_server):
    # One chunk of 40 sentences (~1,800 bytes, ~600 estimated tokens) against a 1,000-token
    # window: the reply reserve (250) and the fixed prompt leave less than the chunk and
    # the claims need, so the chunk's verdict call is split into pieces, each judged. The
    # chunk names Paris, as the fake's claim does: an Entailment of a claim whose name the
    # premise lacks is taken away in code (src/judge/llm/verdict_checks.h).
    chunk = " ".join(f"Sentence number {i} says the tower in Paris is tall." for i in range(40))
    data = tmp_path / "d.jsonl"
    write_row(data, [chunk])
    base = ["--judge-url", fake_server + "/v1", "--judge-model", "fake", "--cache-mode", "off",
            "--metrics", "faithfulness", "-q", "--out", tmp_path / "o.jsonl"]
    p = run("eval", data, *base)
    assert p.returncode == 0, p.stderr
    unsplit = chat_requests(fake_server)  # claims + one verdict table
    assert unsplit == 2
    p = run("eval", data, *base, "--judge-context-tokens", "1000")
    assert p.returncode == 0, p.stderr
    split_calls = chat_requests(fake_server) - unsplit
    # claims + a table of the short texts + the chunk on its own, in several pieces
    assert split_calls > 3
    row = json.loads((tmp_path / "o.jsonl").read_text())
    assert row["status"]["faithfulness"] == "ok" and row["scores"]["faithfulness"] == 1.0
    # Every piece the fake server saw is a part of the chunk; together they hold all of it.
    with urllib.request.urlopen(fake_server + "/fake/requests", timeout=10) as reply:
        bodies = [r["body"] for r in json.load(reply)]
    premises = []
    for body in bodies[-split_calls:]:
        user = body["messages"][1]["content"]
        if "\n\nPREMISE:\n" in user and "Sentence number" in user:  # after the task's text
            start = user.index("\n\nPREMISE:\n") + len("\n\nPREMISE:\n")
            premises.append(user[start:user.index("\n\nCLAIMS:", start)])
    assert len(premises) >= 2
    assert " ".join(premises) == chunk


def test_texts_longer_than_the_window_are_read_in_pieces_for_claims(run, tmp_path, fake_server):
    # Each sentence names Paris, as the fake's claim does (a claim naming what its sentence
    # does not is dropped: standalone_claims), and no other name or number (a sentence whose
    # claims leave one out is read whole: claims_keep_facts).
    long_answer = " ".join("It is a fact that the tower in Paris is " + "very " * (i % 5) + "tall."
                           for i in range(40))
    row = {"user_input": "Where is the tower?", "response": long_answer,
           "reference": "The tower stands in Paris. It is old.",
           "retrieved_contexts": ["Paris has a tower."]}
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps(row) + "\n")
    summary = tmp_path / "s.json"
    p = run("eval", data, "--judge-url", fake_server + "/v1", "--judge-model", "fake",
            "--cache-mode", "off", "--metrics", "faithfulness", "-q", "--summary", summary,
            "--judge-context-tokens", "1000")
    assert p.returncode == 0, p.stderr
    by_call = json.loads(summary.read_text())["usage"]["by_call"]
    # The response alone needs more than one piece; the reference has its own call.
    assert by_call["claims"]["calls"] >= 3
    with urllib.request.urlopen(fake_server + "/fake/requests", timeout=10) as reply:
        bodies = [r["body"] for r in json.load(reply)]
    pieces = [b["messages"][1]["content"] for b in bodies
              if b["response_format"]["json_schema"]["name"] == "claims"
              and "It is a fact" in b["messages"][1]["content"]]
    # Each piece is one text of its call, its sentences labelled "[Sn] ".
    texts = [re.sub(r"\[S\d+\] ", "", p[p.index("TEXT 1:\n") + len("TEXT 1:\n"):p.index("\n\nKEYS:")])
             for p in pieces]
    assert len(texts) >= 2 and " ".join(texts) == long_answer  # nothing dropped


def test_the_ragas_plan_makes_ragas_calls_per_metric(run, tmp_path, fake_server):
    data = tmp_path / "d.jsonl"
    write_row(data, ["Paris has a tower.", "The tower opened in 1889."])
    common = ["--judge-url", fake_server + "/v1", "--judge-model", "fake", "--cache-mode", "off",
              "-q", "--metrics", "faithfulness,context_precision,context_recall"]
    p = run("eval", data, *common, "--plan", "ragas", "--summary", tmp_path / "s.json")
    assert p.returncode == 0, p.stderr
    # faithfulness: statements + 1 verdict call on the joined contexts (2);
    # context_recall: the same for the reference (2); context_precision: 1 per chunk (2).
    assert chat_requests(fake_server) == 6
    s = json.loads((tmp_path / "s.json").read_text())
    assert s["judge"]["name"].endswith("ragas plan)")
    assert s["usage"]["by_call"]["claims"]["calls"] == 2
    assert s["usage"]["by_call"]["verdicts"]["calls"] == 4
    for name in ("faithfulness", "context_precision", "context_recall"):
        assert s["metrics"][name]["n"] == 1
    assert s["metrics"]["context_precision"]["mean"] == 1.0  # every chunk "useful"
    # The compact plan asks 2 calls for the same three metrics (and any more).
    p = run("eval", data, *common)
    assert chat_requests(fake_server) == 6 + 2
