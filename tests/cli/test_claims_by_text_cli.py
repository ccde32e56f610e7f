"""Claims are a function of the text, counted at a FAKE judge server.

The fake OpenAI-compatible server (tests/fakes/fake_llm_server.cc, not a model) answers
every chat request with one fixed JSON reply holding the claims of two sentences and the
cells of a verdict table, and keeps the requests it got, so the claims calls can be
counted exactly:
  - a row whose response and reference are the same text is read once, and faithfulness
    and context_recall, which read the same claims against the same chunk, agree;
  - a second row with the same answer pays for no claims call;
  - a rerun on the same cache file pays for nothing.
(Issue 17: the claims call once split a response into three claims and left the identical
reference as one, and the two metrics disagreed, 1.0 against 0.0, about the same words.)
"""
import json
import urllib.request

QUESTION = "Who founded PharmaCann?"
ANSWER = "PharmaCann was founded in 2014 by Theodore Scott. It is based in Illinois."
CHUNK = "PharmaCann, founded in 2014 by Theodore Scott, is based in Illinois."

REPLY = json.dumps({
    # "Theodore Scott" is a fragment: the judge puts its sentence in its place.
    "S1": ["PharmaCann was founded in 2014.", "Theodore Scott"],
    "S2": ["PharmaCann is based in Illinois."],
    # Each claim's evidence, quoted from the chunk (required by the table's schema).
    "Evidence 1": CHUNK, "Evidence 2": CHUNK, "Evidence 3": CHUNK,
    "P1: claim 1": "Entailment", "P1: claim 2": "Neutral", "P1: claim 3": "Entailment",
    # P2 is the reference (claim 2 is its words: judged without a call) or, when the second
    # row asks for both of its chunks at once, the chunk "Chicago.": claim 2 stays unsupported.
    "P2: claim 1": "Entailment", "P2: claim 2": "Neutral", "P2: claim 3": "Entailment",
    "reason 1": "", "reason 2": "not in the chunk", "reason 3": "",
})


def requests_made(base):
    with urllib.request.urlopen(base + "/fake/requests", timeout=10) as reply:
        return [r["body"] for r in json.load(reply)]


def claims_calls(base):
    """Distinct claims requests (a transport retry resends the same body)."""
    return len({json.dumps(body, sort_keys=True) for body in requests_made(base)
                if body["response_format"]["json_schema"]["name"] == "claims"})


def test_the_same_words_get_one_extraction_and_the_same_scores(run, tmp_path, start_fake_llm_server):
    fake = start_fake_llm_server(REPLY)
    rows = [{"user_input": QUESTION, "response": ANSWER, "reference": ANSWER,
             "retrieved_contexts": [CHUNK]},
            {"user_input": QUESTION, "response": ANSWER, "retrieved_contexts": [CHUNK, "Chicago."]}]
    data, cache, out = tmp_path / "d.jsonl", tmp_path / "judge.sqlite", tmp_path / "o.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in rows))
    judge = ["--judge-url", fake + "/v1", "--judge-model", "fake", "--cache", cache,
             "--metrics", "faithfulness,context_recall", "-q", "--out", out,
             "--allow-failures",
             # One row at a time: the fake's one canned reply maps to other cells when the two
             # rows' calls interleave, and two rows racing for one claims key are the in-process
             # unit test's case (ClaimsByTextTest); seen flaky here at full concurrency.
             "--concurrency", "1", "--threads", "1"]

    p = run("eval", data, *judge, "--summary", tmp_path / "s1.json")
    assert p.returncode == 0, p.stderr
    # One claims call for both rows: the reference is the response's text, and the
    # second row's answer was read already.
    assert claims_calls(fake) == 1, [b["messages"][1]["content"] for b in requests_made(fake)]
    first, second = [json.loads(line) for line in out.read_text().splitlines()]
    claims = [c["claim"] for c in first["evidence"]["faithfulness"]["claims"]]
    assert claims == ["PharmaCann was founded in 2014.",
                      "PharmaCann was founded in 2014 by Theodore Scott.",
                      "PharmaCann is based in Illinois."]
    assert [c["claim"] for c in first["evidence"]["context_recall"]["claims"]] == claims
    assert [c["claim"] for c in second["evidence"]["faithfulness"]["claims"]] == claims
    # The same claims against the same chunk: the same score (claim 2 unsupported).
    assert first["scores"]["faithfulness"] == first["scores"]["context_recall"] == 2 / 3
    assert second["scores"]["faithfulness"] == 2 / 3

    sent = len(requests_made(fake))
    p = run("eval", data, *judge, "--summary", tmp_path / "s2.json")
    assert p.returncode == 0, p.stderr
    assert len(requests_made(fake)) == sent  # a rerun sends nothing
    by_call = json.loads((tmp_path / "s2.json").read_text())["usage"]["by_call"]
    # One per row, answered by the claim store (counted apart from the request cache).
    assert by_call["claims"]["store_hits"] == by_call["claims"]["calls"] == 2
    assert by_call["claims"]["cache_hits"] == 0
    assert json.loads(out.read_text().splitlines()[0])["scores"] == first["scores"]
