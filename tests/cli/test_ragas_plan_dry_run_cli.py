"""The dry run plans `--plan ragas` from the same scope rows the run asks by
(src/judge/llm/ragas_scopes.cc): for every metric that reads a claim ledger, and for all of
them in one run, the calls planned by kind are the calls the run makes. Calls are counted
at the FAKE server (tests/fakes/fake_llm_server.cc, not a model), whose one reply satisfies
the claims and the verdicts schemas for texts of one sentence (one claim each, one verdict
a call), which the rows' texts are."""
import json
import re

import pytest

from cli_shared import JUDGE_ROW
from test_metric_table_cli import REPLY as TABLE_REPLY, planned_calls

# The metric table test's reply (claims, the compact plan's table cells, questions), with
# the ragas plan's one-verdict reply added.
REPLY = json.dumps({**json.loads(TABLE_REPLY),
                    "verdicts": [{"claim": 1, "verdict": "Entailment", "reason": ""}]})
ROWS = [
    {**JUDGE_ROW, "id": "one-chunk"},
    {"id": "three-chunks", "user_input": "Where is the Eiffel Tower, and how tall is it?",
     "response": "The Eiffel Tower is in Paris and it is 330 metres tall.",
     "reference": "The tower stands in Paris, 330 metres high.",
     "retrieved_contexts": ["The Eiffel Tower is in Paris.", "It is 330 metres tall.",
                            "Lyon is a city in France."]},
    {"id": "short-answer", "user_input": "Which city has the Eiffel Tower?", "response": "Paris",
     "reference": "Paris", "retrieved_contexts": ["The Eiffel Tower is in Paris."]},
]


@pytest.fixture
def fake_server(start_fake_llm_server):
    return start_fake_llm_server(REPLY)


def sent_calls(summary):
    """The requests sent by kind: the summary's calls less those the claim store answered
    (a text's claims are asked once, whichever scope asks first)."""
    calls = {}
    for kind, tally in (summary["usage"].get("by_call") or {}).items():
        calls[kind] = tally["calls"] - tally.get("store_hits", 0)
    return {k: v for k, v in calls.items() if v}


def ledger_metrics(run):
    """The judged metrics that ask for claims (the metric reference's "LLM judge calls")."""
    p = run("metrics", "--markdown")
    assert p.returncode == 0, p.stderr
    rows = re.finditer(r"^\| `([a-z_0-9]+)` \| judged \|[^\n]*\| ([a-z_, ]*claims[a-z_, ]*) \|", p.stdout, re.M)
    return [m.group(1) for m in rows]


@pytest.mark.parametrize("row", ROWS, ids=[r["id"] for r in ROWS])
def test_planned_ragas_calls_are_the_calls_made(run, tmp_path, fake_server, row):
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps(row) + "\n")
    judge = ["--judge-url", fake_server + "/v1", "--judge-model", "fake", "--plan", "ragas",
             "--cache-mode", "off", "-q"]
    metrics = ledger_metrics(run)
    assert {"faithfulness", "context_precision", "noise_sensitivity_relevant",
            "factual_correctness"} <= set(metrics)
    mismatches = {}
    for metric in metrics + [",".join(metrics)]:
        dry = run("eval", data, "-m", metric, "--dry-run", *judge)
        assert dry.returncode == 0, dry.stderr
        assert "plan: ragas" in dry.stdout
        summary = tmp_path / "summary.json"
        real = run("eval", data, "-m", metric, "--summary", summary, "--allow-failures", *judge)
        assert real.returncode == 0, (metric, real.stderr)
        planned, made = planned_calls(dry.stdout), sent_calls(json.loads(summary.read_text()))
        if planned != made:
            mismatches[metric] = (planned, made)
    assert mismatches == {}
