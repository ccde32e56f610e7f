"""Gates that cannot pass by accident (issue 34).

One rule for every CI gate (include/ragmeter/gates.h): a gate on a metric nothing was scored
for fails and says the metric was not scored; Holm's family leaves out metrics whose pairs
all tie. Expected values are worked out by hand below (the exact sign-flip p-value of m
same-sign differences is 2 / 2^m).
"""
import json
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "halueval_rag.jsonl"


def write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_a_threshold_on_a_metric_nothing_scored_fails_saying_it_was_not_scored(run):
    # The help's own example: ragchecker_hallucination is withdrawn from the default
    # (offline) judge, so every row is skipped; the gate fails and says why.
    p = run("eval", EXAMPLE, "-m", "ragchecker_hallucination", "-q",
            "--fail-over", "ragchecker_hallucination=0.5")
    assert p.returncode == 1, p.stderr
    assert "(none scored)" not in p.stderr and "is above" not in p.stderr
    assert ("--fail-over not met: ragchecker_hallucination: not scored (30 skipped, 0 failed: "
            "withdrawn from the offline judge") in p.stderr
    assert "so --fail-over 0.5 cannot be checked" in p.stderr


def test_a_regression_gate_on_a_metric_without_pairs_fails_as_eval_does(run, tmp_path):
    # No reference anywhere: token_f1 is skipped on every row of both runs (no pairs);
    # string_presence likewise, recall is scored (ids) and unchanged.
    rows = [{"user_input": f"q{i}", "response": "an answer", "retrieved_context_ids": ["a", "b"],
             "reference_context_ids": ["a"]} for i in range(5)]
    data = write(tmp_path / "d.jsonl", rows)
    base, new = tmp_path / "base.jsonl", tmp_path / "new.jsonl"
    for out in (base, new):
        assert run("eval", data, "-m", "token_f1,recall", "--out", out, "-q").returncode == 0
    gate = run("compare", base, new, "--fail-on-regression", "token_f1=0.1")
    assert gate.returncode == 1, gate.stdout + gate.stderr
    assert ("--fail-on-regression not met: token_f1: no sample was scored in both runs (0 scored "
            "in one run only), so --fail-on-regression 0.1 cannot be checked") in gate.stderr
    # A scored metric that did not move passes, as before.
    assert run("compare", base, new, "--fail-on-regression", "recall=0").returncode == 0


def test_holm_counts_only_metrics_with_a_non_zero_difference(run, tmp_path):
    # 20 rows; the new run's answer is wrong on 6 of them: token_f1 falls by 1 there (mean
    # -0.30, 0 wins, 6 losses). Five retrieval metrics read only the ids, which did not
    # change: all ties. The exact sign-flip p of 6 same-sign differences is 2/64; Holm over
    # the one metric that moved leaves it at 0.03125 < 0.05: a regression. Counting the
    # five tie-only metrics made it 6 * 2/64 = 0.1875 and the gate passed.
    rows = [{"id": f"r{i}", "user_input": f"question {i}", "response": f"answer {i}",
             "reference": f"answer {i}", "retrieved_context_ids": ["a", "b"],
             "reference_context_ids": ["b"]} for i in range(20)]
    worse = [dict(r, response="nothing at all") if i < 6 else r for i, r in enumerate(rows)]
    base, new = tmp_path / "base.jsonl", tmp_path / "new.jsonl"
    metrics = "token_f1,recall,precision,mrr,hit_rate,ndcg"
    for data, out in ((write(tmp_path / "b.jsonl", rows), base),
                      (write(tmp_path / "n.jsonl", worse), new)):
        assert run("eval", data, "-m", metrics, "--out", out, "-q").returncode == 0
    report = json.loads(run("compare", base, new, "--id", "id", "--json").stdout)
    by_name = {m["metric"]: m for m in report["metrics"]}
    f1 = by_name["token_f1"]
    assert (f1["wins"], f1["ties"], f1["losses"]) == (0, 14, 6)
    assert f1["mean_diff"] == pytest.approx(-0.3)
    assert f1["p_value"] == pytest.approx(2 / 64) and f1["p_exact"]
    assert f1["p_holm"] == pytest.approx(2 / 64)
    assert report["holm_family"] == 1
    for name in ("recall", "precision", "mrr", "hit_rate", "ndcg"):
        assert by_name[name]["ties"] == 20 and by_name[name]["p_holm"] == 1
    gate = run("compare", base, new, "--id", "id", "--fail-on-regression", "token_f1=0.02")
    assert gate.returncode == 1, gate.stdout + gate.stderr
    assert "regression: token_f1 got worse by more than 0.02" in gate.stderr
    assert "corrected across the 1 metric with a non-zero difference" in gate.stdout
