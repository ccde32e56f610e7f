"""One table of metric facts (issue 16): the dry-run plan, the groups and the usage figures come
from src/metrics/builtin.cc and agree with what a real run does. Calls are counted at the FAKE
server (tests/fakes/fake_llm_server.cc, not a model), whose one reply satisfies every schema."""
import json
import re

import pytest

from cli_shared import JUDGE_ROW

# Every judge schema at once: claims, verdict cells, questions, entities, sentences, a critic
# verdict, a rubric score.
REPLY = json.dumps({
    "response_claims": ["The tower is in Paris."], "reference_claims": ["The tower is in Paris."],
    # The claims call asks sentence by sentence ([S1], [S2], ...; llm_claims.cc).
    **{f"S{s}": ["The tower is in Paris."] for s in (1, 2, 3)},
    **{f"Evidence {c}": "Paris has a tower." for c in (1, 2)},  # quoted from the chunk
    **{f"P{p}: claim {c}": "Entailment" for p in (1, 2, 3) for c in (1, 2)},
    "reason 1": "", "reason 2": "", "reason": "", "verdict": 1, "score": 4,
    "questions": ["Where is the tower?"], "response_is_noncommittal": False,
    "reference_entities": ["Paris"], "context_entities": ["Paris"], "entities": ["Paris"],
    "sentences": ["Paris has a tower."]})
ROW = {**JUDGE_ROW, "reference_contexts": ["The tower is in Paris."]}


@pytest.fixture
def fake_server(start_fake_llm_server):
    return start_fake_llm_server(REPLY)


def judged_metrics(run):
    p = run("metrics", "--markdown")
    assert p.returncode == 0
    return [m.group(1) for m in re.finditer(r"^\| `([a-z_0-9]+)` \| judged \|", p.stdout, re.M)]


def planned_calls(stdout):
    match = re.search(r"planned calls: (\d+)(?: \(([^)]*)\))?", stdout)
    assert match, stdout
    calls = {}
    for part in filter(None, (match.group(2) or "").split(", ")):
        kind, n = part.rsplit(" ", 1)
        calls[kind] = int(n)
    assert sum(calls.values()) == int(match.group(1))
    return calls


def made_calls(summary):
    calls = {}
    for kind, tally in (summary["usage"].get("by_call") or {}).items():
        kind = kind.split(":")[0]  # critic:NAME
        calls[kind] = calls.get(kind, 0) + tally["calls"]
    return {k: v for k, v in calls.items() if v}


def test_the_dry_run_plans_the_calls_a_real_run_makes_for_every_judged_metric(run, tmp_path,
                                                                               fake_server):
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps(ROW) + "\n")
    judge = ["--judge-url", fake_server + "/v1", "--judge-model", "fake",
             "--embedder-url", fake_server + "/v1", "--embedder-model", "fake-embedder",
             "--cache-mode", "off", "-q"]
    metrics = judged_metrics(run)
    assert "context_relevance" in metrics and "summary_score" in metrics
    mismatches = {}
    for metric in metrics:
        dry = run("eval", data, "-m", metric, "--dry-run", *judge)
        assert dry.returncode == 0, dry.stderr
        summary = tmp_path / f"{metric}.json"
        real = run("eval", data, "-m", metric, "--summary", summary, *judge)
        assert real.returncode == 0, (metric, real.stderr)
        planned, made = planned_calls(dry.stdout), made_calls(json.loads(summary.read_text()))
        if planned != made:
            mismatches[metric] = (planned, made)
    assert mismatches == {}


def test_usage_figures_agree_on_a_cached_rerun(run, tmp_path, fake_server):
    data, cache = tmp_path / "d.jsonl", tmp_path / "judge.sqlite"
    data.write_text(json.dumps(ROW) + "\n" + json.dumps({**ROW, "response": "It is tall."}) + "\n")
    judge = ["--judge-url", fake_server + "/v1", "--judge-model", "fake", "--cache", cache,
             "-m", "faithfulness,context_recall,answer_relevancy,context_entity_recall", "-q"]
    for name in ("first.json", "rerun.json"):
        traces = tmp_path / (name + ".traces")
        assert run("eval", data, *judge, "--summary", tmp_path / name,
                   "--traces", traces).returncode == 0
        usage = json.loads((tmp_path / name).read_text())["usage"]
        by_call = usage["by_call"].values()
        assert sum(t["cache_hits"] for t in by_call) == usage["cache_hits"], name
        assert sum(t["prompt_tokens"] for t in by_call) == usage["prompt_tokens"], name
        assert sum(t["completion_tokens"] for t in by_call) == usage["completion_tokens"], name
        # Each trace line says which kind of call it is.
        lines = [json.loads(line) for line in traces.read_text().splitlines()]
        assert lines and all(line["call"] in usage["by_call"] for line in lines)
    rerun = json.loads((tmp_path / "rerun.json").read_text())["usage"]
    assert rerun["requests"] == 0 and rerun["cache_hits"] > 0 and rerun["prompt_tokens"] == 0


def test_groups_come_from_the_table(run, tmp_path):
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps(ROW) + "\n")
    summary = tmp_path / "s.json"
    assert run("eval", data, "-m", "ragas", "--summary", summary, "-q").returncode == 0
    assert list(json.loads(summary.read_text())["metrics"]) == [
        "faithfulness", "answer_relevancy", "context_precision", "context_recall"]
    help_text = run("eval", "--help").stdout
    assert "'ragas' (ragas's default four)" in help_text
