"""A long verdict table whose reply negates the claim is asked again narrower, at a FAKE server.

The fake OpenAI-compatible server (tests/fakes/fake_llm_server.cc, not a model) is scripted
with exact replies: the claims call's, then a verdict table over two passages of about 2,700
characters whose one Contradiction has as reason the claim with a "not" inserted (the sign
issue 39's local 1.5B model showed on long passages), then, for every later call, a table of
one passage that finds the claim and quotes it. The judge sees the sign and asks the claim
again against each passage alone: faithfulness is 1.0, where the table as it came gave 0.0
(src/judge/llm/verdict_signs.h; the reason each re-asked cell carries is checked in
tests/unit/llm_long_passages_test.cc).
"""
import json
import urllib.request

from cli_shared import fake_script, judge_flags, read_jsonl

CLAIM = "The tower is in Paris."
GOLD = "The tower is in Paris and opened in 1889."


def passage(lead, size=2700):
    """`lead`, then sentences about nothing the claim names, to about `size` characters."""
    text, n = lead, 1
    while len(text) < size:
        text += f" Section {n} describes the gardens and the river walks."
        n += 1
    return text


def reply(content):
    return {"content": json.dumps(content)}


def chat_bodies(base):
    with urllib.request.urlopen(base + "/fake/requests", timeout=10) as answer:
        return [r["body"] for r in json.load(answer) if "messages" in r["body"]]


def test_a_table_reply_that_negates_the_claim_is_asked_again_passage_by_passage(
        run, tmp_path, start_fake_llm_server):
    fake = start_fake_llm_server("{}")
    fake_script(fake, {
        "steps": [reply({"S1": [CLAIM]}),
                  reply({"Evidence 1": GOLD, "P1: claim 1": "Neutral",
                         "P2: claim 1": "Contradiction", "reason 1": "The tower is not in Paris."})],
        "default": reply({"Evidence 1": GOLD, "P1: claim 1": "Entailment", "reason 1": ""})})
    passages = [passage("The museum has a large garden."), passage(GOLD)]
    data, out = tmp_path / "d.jsonl", tmp_path / "o.jsonl"
    data.write_text(json.dumps({"user_input": "Where is the tower?", "response": CLAIM,
                                "retrieved_contexts": passages}) + "\n")
    p = run("eval", data, *judge_flags(fake), "--metrics", "faithfulness", "-q", "--out", out,
            "--concurrency", "1", "--threads", "1")
    assert p.returncode == 0, p.stderr
    row = read_jsonl(out)[0]
    assert row["scores"]["faithfulness"] == 1.0, row

    # The claims call, the table of both passages, then one call per passage.
    bodies = chat_bodies(fake)
    assert len(bodies) == 4, [b["messages"][-1]["content"][-300:] for b in bodies]
    table, *narrow = [b["messages"][-1]["content"] for b in bodies[1:]]
    assert all(text in table for text in passages)
    assert sorted(sum(text in asked for text in passages) for asked in narrow) == [1, 1]
    assert {passages.index(t) for asked in narrow for t in passages if t in asked} == {0, 1}

    # The claim stands on the gold passage alone (the first passage's Entailment falls: its
    # quote is not there).
    claim = row["evidence"]["faithfulness"]["claims"][0]
    assert (claim["verdict"], claim["chunks"]) == ("Entailment", [1])
