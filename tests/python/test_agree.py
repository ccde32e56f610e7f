"""ragmeter.agree and evaluate(labels=...): the C++ `agree` through the binding, giving the
same report as `ragmeter agree --out` on the same rows and labels (the statistics
themselves are checked against scipy, scikit-learn and krippendorff in tests/oracle)."""

import json

import pytest

import ragmeter

from conftest import EXAMPLE, read_jsonl

METRICS = ["k_precision", "token_f1"]


def labels_of(rows):
    """The example's own human-made label: 1 for a right answer, 0 for HaluEval's
    hallucinated one."""
    return [{"id": r["id"], "label": 0 if r["hallucinated"] else 1} for r in rows]


def without_names(report):
    return {k: v for k, v in report.items() if k not in ("results", "labels")}


def test_agree_on_an_evaluate_result_equals_the_cli(cli, tmp_path, example_rows):
    results = tmp_path / "results.jsonl"
    assert cli("eval", EXAMPLE, "--metrics", ",".join(METRICS), "--out", results, "-q").returncode == 0
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(json.dumps(r) + "\n" for r in labels_of(example_rows)))
    out = tmp_path / "agreement.json"
    done = cli("agree", results, labels, "--out", out, "--bootstrap-resamples", "300")
    assert done.returncode == 0, done.stderr
    expected = json.loads(out.read_text())

    result = ragmeter.evaluate(example_rows, metrics=METRICS, progress=False)
    agreement = ragmeter.agree(result, labels_of(example_rows), bootstrap_resamples=300)
    assert without_names(agreement.report) == without_names(expected)
    from_file = ragmeter.agree(str(results), str(labels), bootstrap_resamples=300)
    assert without_names(from_file.report) == without_names(expected)
    assert agreement.metrics == METRICS
    assert agreement.value("token_f1", "roc_auc") == \
        expected["metrics"][1]["statistics"]["roc_auc"]["value"]
    assert agreement.threshold("k_precision") == expected["metrics"][0]["threshold"]["value"]
    assert "pass mark (chosen on dev)" in repr(agreement)


def test_evaluate_with_labels_sets_the_agreement(example_rows):
    result = ragmeter.evaluate(example_rows, metrics=METRICS, progress=False,
                               labels=labels_of(example_rows))
    assert result.agreement is not None
    assert result.agreement.report["rows"]["labels_used"] == len(example_rows)
    assert result.agreement.report == result.agree(labels_of(example_rows)).report


def test_bad_labels_are_in_errors_and_no_match_raises(example_rows):
    result = ragmeter.evaluate(example_rows, metrics=METRICS, progress=False)
    labels = labels_of(example_rows) + [{"id": "nowhere", "label": 1}, {"id": "q01", "label": 5}]
    agreement = ragmeter.agree(result, labels, bootstrap_resamples=50)
    assert [(e["line"], e["field"]) for e in agreement.errors] == [(32, "label"), (31, "id")]
    with pytest.raises(ragmeter.InvalidArgumentError, match="no label of"):
        ragmeter.agree(result, [{"id": "nowhere", "label": 1}])
    with pytest.raises(ragmeter.InvalidArgumentError, match="--scale"):
        ragmeter.agree(result, labels, scale="likert")


def test_to_pandas_has_a_row_per_metric_and_statistic(example_rows):
    pytest.importorskip("pandas")
    result = ragmeter.evaluate(example_rows, metrics=METRICS, progress=False)
    frame = ragmeter.agree(result, labels_of(example_rows), bootstrap_resamples=50).to_pandas()
    assert len(frame) == 2 * 8  # binary labels: eight statistics per metric
    assert set(frame["statistic"]) >= {"cohen_kappa", "roc_auc", "kendall_tau_b"}
