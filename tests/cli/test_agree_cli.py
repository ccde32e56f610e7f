"""`ragmeter agree` on the bundled example, whose rows carry a human-made label
(`hallucinated`: HaluEval's hallucinated answer in every third row).

The expected values are computed here, from the results file and the labels, with
scikit-learn and scipy, and the dev/test split with hashlib as docs/agree.md defines it:
the CLI must give the same numbers, count and place every bad label, and exit 3 while
still measuring the rest."""

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from sklearn import metrics

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "halueval_rag.jsonl"
METRICS = ["k_precision", "token_f1", "faithfulness"]


def is_dev(item, seed=0):
    return int(hashlib.sha256(f"ragmeter-agree:{seed}:{item}".encode()).hexdigest()[:8], 16) % 2 == 0


@pytest.fixture
def results(run, tmp_path):
    out = tmp_path / "results.jsonl"
    done = run("eval", EXAMPLE, "--metrics", ",".join(METRICS), "--out", out, "-q")
    assert done.returncode == 0, done.stderr
    return out


def example_labels():
    rows = [json.loads(line) for line in EXAMPLE.read_text().splitlines() if line.strip()]
    return [(r["id"], 0 if r["hallucinated"] else 1) for r in rows]


def scores_of(results, metric):
    out = {}
    for line in Path(results).read_text().splitlines():
        row = json.loads(line)
        if row["status"][metric] == "ok":
            out[row["id"]] = row["scores"][metric]
    return out


def test_agreement_equals_sklearn_and_scipy_on_the_example(run, results, tmp_path):
    labels = tmp_path / "labels.csv"
    labels.write_text("id,label\n" + "".join(f"{i},{y}\n" for i, y in example_labels()))
    out = tmp_path / "agreement.json"
    done = run("agree", results, labels, "--out", out, "--bootstrap-resamples", "200")
    assert done.returncode == 0, done.stderr
    assert "pass mark (chosen on dev)" in done.stdout
    report = json.loads(out.read_text())
    assert report["errors"] == [] and report["rows"]["labels_used"] == 30
    truth = dict(example_labels())
    for entry in report["metrics"]:
        scores = scores_of(results, entry["metric"])
        ids = [i for i in truth if i in scores]
        x = np.array([scores[i] for i in ids])
        y = np.array([truth[i] for i in ids])
        s = entry["statistics"]
        assert entry["labels"] == len(ids)
        assert s["roc_auc"]["value"] == pytest.approx(metrics.roc_auc_score(y, x), abs=1e-12)
        assert s["pearson"]["value"] == pytest.approx(stats.pearsonr(x, y)[0], abs=1e-9)
        assert s["kendall_tau_b"]["value"] == pytest.approx(stats.kendalltau(x, y)[0], abs=1e-9)
        # The pass mark: the lowest score of best balanced accuracy on the dev half.
        dev = np.array([is_dev(i) for i in ids])
        candidates = sorted(set(x[dev].tolist()))
        accuracies = [metrics.balanced_accuracy_score(y[dev], (x[dev] >= t).astype(int))
                      for t in candidates]
        mark = min(t for t, a in zip(candidates, accuracies) if a >= max(accuracies) - 1e-12)
        assert entry["threshold"]["value"] == mark
        test = ~dev
        predicted = (x[test] >= mark).astype(int)
        assert s["accuracy"]["n"] == int(test.sum())
        assert s["accuracy"]["value"] == pytest.approx(metrics.accuracy_score(y[test], predicted))
        assert s["cohen_kappa"]["value"] == pytest.approx(
            metrics.cohen_kappa_score(y[test], predicted, labels=[0, 1]), abs=1e-12)
        low, high = s["roc_auc"]["ci95"]
        assert low <= s["roc_auc"]["value"] <= high


def test_bad_labels_are_named_by_line_and_field_and_the_rest_is_measured(run, results, tmp_path):
    lines = ["id,label,label:second"]
    lines += [f"{i},{y},{y if n % 5 else 1 - y}" for n, (i, y) in enumerate(example_labels())]
    lines += ["q99,1,1", "q01,yes,1", ",1,0"]
    labels = tmp_path / "labels.csv"
    labels.write_text("\n".join(lines) + "\n")
    out = tmp_path / "agreement.json"
    done = run("agree", results, labels, "--out", out, "--bootstrap-resamples", "100")
    assert done.returncode == 3, done.stderr
    report = json.loads(out.read_text())
    # Line 1 is the header, the example's rows are lines 2 to 31.
    where = {(e["line"], e["field"]): e["message"] for e in report["errors"]}
    assert set(where) == {(32, "id"), (33, "label"), (33, "label:second"), (34, "id")}
    assert "'q99' matches no row" in where[(32, "id")]
    assert "outside the declared scale binary" in where[(33, "label")]
    assert "by annotator 'second' (the first is on line 3)" in where[(33, "label:second")]
    assert "labels.csv:33: field 'label'" in done.stdout
    k_precision = report["metrics"][0]
    assert k_precision["metric"] == "k_precision" and k_precision["most_labels_per_item"] == 2
    assert k_precision["labels"] == 60  # 30 rows x (an anonymous label and annotator 'second')
    ceiling = k_precision["statistics"]["cohen_kappa"]["ceiling"]
    assert ceiling is not None and ceiling["value"] < 1.0


def test_a_metric_without_variance_is_an_error_and_the_others_are_measured(run, tmp_path):
    rows = [json.loads(line) for line in EXAMPLE.read_text().splitlines() if line.strip()]
    data = tmp_path / "data.jsonl"
    # Every reference set to the response: exact_match is 1 on every row.
    data.write_text("".join(json.dumps({**r, "reference": r["response"]}) + "\n" for r in rows))
    results = tmp_path / "results.jsonl"
    assert run("eval", data, "--metrics", "exact_match,k_precision", "--out", results,
               "-q").returncode == 0
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(json.dumps({"id": i, "label": y}) + "\n" for i, y in example_labels()))
    out = tmp_path / "agreement.json"
    done = run("agree", results, labels, "--out", out, "--bootstrap-resamples", "50")
    assert done.returncode == 3
    exact, k_precision = json.loads(out.read_text())["metrics"]
    assert "do not vary" in exact["errors"][0] and exact["statistics"] == {}
    assert exact["metric"] == "exact_match" and "error: its scores do not vary" in done.stdout
    assert k_precision["errors"] == [] and k_precision["statistics"]["roc_auc"]["value"] is not None


def test_no_label_matching_a_row_is_unusable_input(run, results, tmp_path):
    labels = tmp_path / "labels.csv"
    labels.write_text("id,label\nzz1,1\nzz2,0\n")
    done = run("agree", results, labels)
    assert done.returncode == 2
    assert "no label of" in done.stderr and "by the 'id' column" in done.stderr


def test_ordinal_labels_on_the_metrics_own_scale_get_kappa_and_alpha(run, results, tmp_path):
    # Ratings 1..3 that follow the hallucination label, and token_f1 is not on that scale.
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(json.dumps({"id": i, "label": 1 + 2 * y - (n % 4 == 0) * y})
                              + "\n" for n, (i, y) in enumerate(example_labels())))
    out = tmp_path / "agreement.json"
    done = run("agree", results, labels, "--scale", "ordinal:1..3", "--metrics", "token_f1",
               "--out", out, "--bootstrap-resamples", "50")
    assert done.returncode == 0, done.stderr
    [entry] = json.loads(out.read_text())["metrics"]
    assert entry["on_label_scale"] is False
    assert set(entry["statistics"]) == {"pearson", "spearman", "kendall_tau_b"}
    truth = {i: 1 + 2 * y - (n % 4 == 0) * y for n, (i, y) in enumerate(example_labels())}
    scores = scores_of(results, "token_f1")
    ids = [i for i in truth if i in scores]
    expected = stats.spearmanr([scores[i] for i in ids], [truth[i] for i in ids])[0]
    assert entry["statistics"]["spearman"]["value"] == pytest.approx(expected, abs=1e-9)


def test_pairwise_labels_without_their_id_columns_say_so(run, results, tmp_path):
    labels = tmp_path / "labels.csv"
    labels.write_text("id,label\nq00,1\n")
    done = run("agree", results, labels, "--scale", "pairwise")
    assert done.returncode == 2
    assert "no usable label in" in done.stderr and "field 'id_a': missing" in done.stderr
