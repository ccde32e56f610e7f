"""Oracle: the agreement statistics of `ragmeter agree` (src/eval/agreement_stats.cc,
src/eval/krippendorff_alpha.cc, bootstrap_interval in src/eval/stats.cc) against scipy,
scikit-learn and the `krippendorff` package, on generated data with many ties.

- pearson, spearman, kendall (tau-b, scipy's default): scipy.stats, to 1e-9;
- roc_auc, accuracy, balanced_accuracy, Cohen's kappa (unweighted, linear, quadratic, over
  every level of the scale): sklearn.metrics, to 1e-9;
- Krippendorff's alpha (nominal, ordinal, interval; units with missing values and 2 to 5
  coders): krippendorff.alpha, to 1e-9;
- the pass mark (threshold of best balanced accuracy, lowest on ties): a brute force over
  every candidate with sklearn's balanced_accuracy_score;
- pairwise accuracy: numpy on the definition;
- the bootstrap interval: the resampling rule written out again here (splitmix64, Lemire's
  bounded draw, one generator per resample seeded from (seed, index)) with sklearn's
  roc_auc_score on each resample and numpy.percentile: the bounds must be equal to 1e-9,
  since the draws are the same by definition.
Undefined statistics (no variance, one class) must be null where the references give NaN.

Run: RAGMETER_BUILD_DIR=build ~/.cache/ragmeter/venv/bin/python \\
       -m pytest -q -p no:cacheprovider tests/oracle/test_agreement.py
"""

import json
import math
import os
import subprocess
import warnings
from pathlib import Path

import krippendorff
import numpy as np
import pytest
from scipy import stats
from sklearn import metrics

REPO = Path(__file__).resolve().parents[2]
BUILD_DIR = Path(os.environ.get("RAGMETER_BUILD_DIR", REPO / "build"))
PROBE = BUILD_DIR / "probes" / "agreement_probe"
TOL = 1e-9


def run_probe(requests):
    if not PROBE.exists():
        pytest.fail(f"{PROBE} is not built")
    text = "".join(json.dumps(r) + "\n" for r in requests)
    out = subprocess.run([str(PROBE)], input=text, capture_output=True, text=True, check=True,
                         timeout=600)
    answers = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(answers) == len(requests)
    for a in answers:
        assert "error" not in a, a
    return answers


def same(ours, reference):
    """Ours (None when undefined) equals the reference (NaN when undefined)."""
    reference = float(reference)
    if math.isnan(reference):
        return ours is None
    return ours is not None and abs(ours - reference) <= TOL


def scores_with_ties(rng, n):
    kind = rng.integers(0, 4)
    if kind == 0:
        return rng.integers(0, 2, n).astype(float)           # binary
    if kind == 1:
        return rng.integers(0, 5, n) / 4.0                   # claims out of 4
    if kind == 2:
        return rng.random(n).round(1)                        # a few decimals
    return rng.random(n)                                     # continuous


def quietly(f, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*args, **kwargs)


def test_correlations_equal_scipys():
    rng = np.random.default_rng(3)
    cases = []
    for _ in range(300):
        n = int(rng.integers(2, 60))
        x = scores_with_ties(rng, n)
        y = rng.integers(1, 6, n).astype(float) if rng.random() < 0.5 else scores_with_ties(rng, n)
        cases.append((x, y))
    cases.append((np.ones(5), np.arange(5.0)))               # no variance: undefined
    cases.append((np.arange(5.0), np.arange(5.0)))           # perfect
    requests = []
    for x, y in cases:
        for op in ("pearson", "spearman", "kendall"):
            requests.append({"op": op, "x": x.tolist(), "y": y.tolist()})
    answers = iter(run_probe(requests))
    for x, y in cases:
        for reference in (quietly(stats.pearsonr, x, y)[0] if np.ptp(x) and np.ptp(y) else math.nan,
                          quietly(stats.spearmanr, x, y)[0],
                          quietly(stats.kendalltau, x, y)[0]):
            ours = next(answers)["value"]
            assert same(ours, reference), (x.tolist(), y.tolist(), ours, reference)


def test_kendall_on_large_inputs_equals_scipy():
    """The O(n log n) merge-sort count against scipy on inputs where many ties of x, of y
    and of both meet."""
    rng = np.random.default_rng(5)
    requests, references = [], []
    for n in (500, 2000, 5000):
        x = rng.integers(0, 7, n).astype(float)
        y = (x + rng.integers(-2, 3, n)).astype(float)
        requests.append({"op": "kendall", "x": x.tolist(), "y": y.tolist()})
        references.append(stats.kendalltau(x, y)[0])
    for answer, reference in zip(run_probe(requests), references):
        assert same(answer["value"], reference)


def test_roc_auc_and_accuracies_equal_sklearns():
    rng = np.random.default_rng(7)
    requests, references = [], []
    for _ in range(300):
        n = int(rng.integers(1, 80))
        labels = rng.integers(0, 2, n)
        scores = scores_with_ties(rng, n) + 0.3 * labels * rng.random()
        predicted = rng.integers(0, 2, n)
        requests.append({"op": "roc_auc", "scores": scores.tolist(), "labels": labels.tolist()})
        references.append(quietly(metrics.roc_auc_score, labels, scores)
                          if len(set(labels.tolist())) == 2 else math.nan)
        requests.append({"op": "accuracy", "predicted": predicted.tolist(), "truth": labels.tolist()})
        references.append(metrics.accuracy_score(labels, predicted))
        requests.append({"op": "balanced_accuracy", "predicted": predicted.tolist(),
                         "truth": labels.tolist()})
        references.append(quietly(metrics.balanced_accuracy_score, labels, predicted))
    for answer, reference in zip(run_probe(requests), references):
        assert same(answer["value"], reference), (answer, reference)


def test_balanced_accuracy_over_several_classes_equals_sklearns():
    rng = np.random.default_rng(8)
    requests, references = [], []
    for _ in range(100):
        n = int(rng.integers(1, 50))
        truth = rng.integers(1, 6, n)
        predicted = np.clip(truth + rng.integers(-1, 2, n), 1, 5)
        requests.append({"op": "balanced_accuracy", "predicted": predicted.tolist(),
                         "truth": truth.tolist()})
        references.append(quietly(metrics.balanced_accuracy_score, truth, predicted))
    for answer, reference in zip(run_probe(requests), references):
        assert same(answer["value"], reference)


@pytest.mark.parametrize("weights", ["none", "linear", "quadratic"])
def test_cohen_kappa_equals_sklearns(weights):
    rng = np.random.default_rng({"none": 11, "linear": 12, "quadratic": 13}[weights])
    requests, references = [], []
    for _ in range(200):
        n = int(rng.integers(1, 60))
        k = int(rng.integers(2, 6))
        a = rng.integers(0, k, n)
        b = np.where(rng.random(n) < 0.6, a, rng.integers(0, k, n))
        if rng.random() < 0.05:
            a = b = np.zeros(n, dtype=int)  # one category used by both: undefined
        requests.append({"op": "kappa", "a": a.tolist(), "b": b.tolist(), "categories": k,
                         "weights": weights})
        references.append(quietly(metrics.cohen_kappa_score, a, b, labels=list(range(k)),
                                  weights=None if weights == "none" else weights))
    for answer, reference in zip(run_probe(requests), references):
        assert same(answer["value"], reference), (answer, reference)


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_krippendorff_alpha_equals_the_krippendorff_package(level):
    rng = np.random.default_rng({"nominal": 21, "ordinal": 22, "interval": 23}[level])
    requests, references = [], []
    for _ in range(200):
        coders = int(rng.integers(2, 6))
        units = int(rng.integers(2, 40))
        levels = int(rng.integers(2, 6))
        truth = rng.integers(1, levels + 1, units)
        data = np.where(rng.random((coders, units)) < 0.7, truth,
                        rng.integers(1, levels + 1, (coders, units))).astype(float)
        data[rng.random((coders, units)) < 0.25] = np.nan  # missing values
        unit_values = [[v for v in data[:, u].tolist() if not math.isnan(v)] for u in range(units)]
        pairable = [u for u in unit_values if len(u) >= 2]
        distinct = {v for u in pairable for v in u}
        if not pairable or len(set(np.unique(data[~np.isnan(data)]).tolist())) < 2:
            reference = math.nan
        else:
            reference = quietly(krippendorff.alpha, reliability_data=data,
                                level_of_measurement=level)
            if len(distinct) < 2:
                reference = math.nan  # every pairable value equal: 0 / 0
        requests.append({"op": "alpha", "units": unit_values, "level": level})
        references.append(reference)
    for answer, reference in zip(run_probe(requests), references):
        assert same(answer["value"], reference), (answer, reference)


def test_krippendorff_alpha_of_the_packages_documented_example():
    """The reliability data of the package's docstring (Krippendorff's own example)."""
    nan = math.nan
    data = [[nan, nan, nan, nan, nan, 3, 4, 1, 2, 1, 1, 3, 3, nan, 3],
            [1, nan, 2, 1, 3, 3, 4, 3, nan, nan, nan, nan, nan, nan, nan],
            [nan, nan, 2, 1, 3, 4, 4, nan, 2, 1, 1, 3, 3, nan, 4]]
    units = [[row[u] for row in data if not math.isnan(row[u])] for u in range(15)]
    nominal, interval = run_probe([{"op": "alpha", "units": units, "level": "nominal"},
                                   {"op": "alpha", "units": units, "level": "interval"}])
    assert round(nominal["value"], 6) == 0.691358
    assert round(interval["value"], 6) == 0.810845


def test_threshold_is_the_lowest_of_best_balanced_accuracy():
    rng = np.random.default_rng(31)
    requests, cases = [], []
    for _ in range(200):
        n = int(rng.integers(2, 60))
        labels = rng.integers(0, 2, n)
        scores = scores_with_ties(rng, n) + 0.2 * labels * rng.random()
        requests.append({"op": "threshold", "scores": scores.tolist(), "labels": labels.tolist()})
        cases.append((scores, labels))
    for answer, (scores, labels) in zip(run_probe(requests), cases):
        if len(set(labels.tolist())) < 2:
            assert answer["value"] is None
            continue
        candidates = sorted(set(scores.tolist()))
        accuracies = [metrics.balanced_accuracy_score(labels, (scores >= t).astype(int))
                      for t in candidates]
        best = max(accuracies)
        lowest = min(t for t, a in zip(candidates, accuracies) if a >= best - 1e-12)
        assert answer["value"] == lowest
        assert abs(answer["balanced_accuracy"] - best) <= TOL


def test_pairwise_accuracy_follows_its_definition():
    rng = np.random.default_rng(41)
    requests, references = [], []
    for _ in range(200):
        n = int(rng.integers(1, 40))
        preference = rng.integers(-2, 3, n).astype(float)
        delta = rng.integers(-2, 3, n) / 4.0
        chosen = preference != 0
        outcome = np.where(delta == 0, 0.5, (np.sign(delta) == np.sign(preference)).astype(float))
        references.append(outcome[chosen].mean() if chosen.any() else math.nan)
        requests.append({"op": "pairwise", "delta": delta.tolist(),
                         "preference": preference.tolist()})
    for answer, reference in zip(run_probe(requests), references):
        assert same(answer["value"], reference)


# ---- The bootstrap: the same draws, written out independently ------------------------------

MASK = (1 << 64) - 1


class SplitMix64:
    def __init__(self, seed):
        self.state = seed & MASK

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def below(self, n):  # Lemire's multiply-shift
        return (self.next() * n) >> 64


def resample_indices(seed, b, n):
    rng = SplitMix64(SplitMix64(seed ^ ((0xD1B54A32D192ED03 * (b + 1)) & MASK)).next())
    return [rng.below(n) for _ in range(n)]


@pytest.mark.parametrize("threads", [1, 3])
def test_bootstrap_interval_of_auroc_equals_the_same_draws_through_sklearn(threads):
    rng = np.random.default_rng(51)
    n, resamples, seed = 40, 300, 1234
    labels = rng.integers(0, 2, n)
    scores = (rng.integers(0, 5, n) / 4.0 + 0.3 * labels).round(2)
    values = []
    for b in range(resamples):
        idx = resample_indices(seed, b, n)
        if len(set(labels[idx].tolist())) == 2:
            values.append(metrics.roc_auc_score(labels[idx], scores[idx]))
    low, high = np.percentile(values, [2.5, 97.5])
    [answer] = run_probe([{"op": "bootstrap_auc", "scores": scores.tolist(),
                           "labels": labels.tolist(), "resamples": resamples, "seed": seed,
                           "threads": threads}])
    assert abs(answer["low"] - low) <= TOL and abs(answer["high"] - high) <= TOL
    assert answer["undefined"] == resamples - len(values)
