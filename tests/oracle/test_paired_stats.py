"""Oracle: ragmeter's paired statistics (src/eval/paired_stats.cc) against scipy.stats.

- The sign-flip test: scipy.stats.permutation_test on the differences as one sample with
  permutation_type='samples' (scipy flips each observation's sign independently), the mean
  as the statistic, two-sided. With n_resamples=inf scipy enumerates every assignment: the
  exact p-values must agree to 1e-12. Above ragmeter's exact limit (20 non-zero
  differences) both are Monte Carlo: they must agree within four standard errors.
- The paired bootstrap interval: scipy.stats.bootstrap on the differences, method
  'percentile', 95%: both Monte Carlo with different generators, so the bounds must agree
  within 0.15 standard errors of the mean difference (the percentile bounds' own Monte
  Carlo error at 10,000 resamples is about 0.03 of it) plus one step 1/n of the lattice
  that discrete scores put the bootstrap means on.
- mean difference and win / tie / loss counts against numpy.

Pairs are generated with a fixed seed: binary scores (many ties), continuous scores,
few distinct levels, lower-is-better metrics, tiny samples (n = 1..20) and larger ones.

Run: RAGMETER_BUILD_DIR=build ~/.cache/ragmeter/venv/bin/python \\
       -m pytest -q -p no:cacheprovider tests/oracle/test_paired_stats.py
"""

import json
import math
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

REPO = Path(__file__).resolve().parents[2]
BUILD_DIR = Path(os.environ.get("RAGMETER_BUILD_DIR", REPO / "build"))
PROBE = BUILD_DIR / "probes" / "paired_stats_probe"


def run_probe(cases):
    if not PROBE.exists():
        pytest.fail(f"{PROBE} is not built")
    text = "".join(json.dumps(c) + "\n" for c in cases)
    out = subprocess.run([str(PROBE)], input=text, capture_output=True, text=True, check=True,
                         timeout=600)
    return [json.loads(line) for line in out.stdout.splitlines()]


def generate(rng, n):
    kind = rng.integers(0, 4)
    if kind == 0:  # binary, many ties
        base = rng.integers(0, 2, n).astype(float)
        new = np.where(rng.random(n) < 0.3, 1.0 - base, base)
    elif kind == 1:  # continuous
        base = rng.random(n)
        new = np.clip(base + rng.normal(0.05, 0.2, n), 0, 1)
    elif kind == 2:  # a few levels (claims out of 4)
        base = rng.integers(0, 5, n) / 4.0
        new = rng.integers(0, 5, n) / 4.0
    else:  # mostly equal with a few changes
        base = rng.random(n).round(2)
        new = base.copy()
        idx = rng.choice(n, size=max(1, n // 5), replace=False)
        new[idx] = rng.random(len(idx)).round(2)
    return base.tolist(), new.tolist(), bool(rng.integers(0, 2))


def scipy_sign_flip(d, n_resamples, seed=0):
    if np.all(np.abs(d) <= 1e-12) or len(d) == 1:
        return 1.0  # scipy needs two observations; one difference's sign flip is as extreme
    res = stats.permutation_test((d,), np.mean, permutation_type="samples", vectorized=True,
                                 n_resamples=n_resamples, alternative="two-sided",
                                 random_state=np.random.default_rng(seed))
    return float(res.pvalue)


def test_exact_sign_flip_p_values_equal_scipys_enumeration():
    rng = np.random.default_rng(1)
    cases = []
    for _ in range(120):
        n = int(rng.integers(1, 15))
        base, new, higher = generate(rng, n)
        cases.append({"base": base, "new": new, "higher_is_better": higher, "resamples": 200})
    results = run_probe(cases)
    exact_checked = 0
    for case, got in zip(cases, results):
        d = np.array(case["new"]) - np.array(case["base"])
        assert got["p_exact"]
        want = scipy_sign_flip(d, np.inf)
        assert got["p_value"] == pytest.approx(want, abs=1e-12), (case, got, want)
        assert got["mean_diff"] == pytest.approx(float(np.mean(d)), abs=1e-12)
        better = d if case["higher_is_better"] else -d
        assert got["wins"] == int(np.sum(better > 1e-12))
        assert got["losses"] == int(np.sum(better < -1e-12))
        assert got["ties"] == int(np.sum(np.abs(d) <= 1e-12))
        exact_checked += 1
    assert exact_checked == 120


def test_monte_carlo_sign_flip_agrees_with_scipy_within_its_error():
    rng = np.random.default_rng(2)
    cases = []
    for _ in range(12):
        n = int(rng.integers(25, 120))
        base, new, higher = generate(rng, n)
        cases.append({"base": base, "new": new, "higher_is_better": higher, "resamples": 200,
                      "permutations": 20000})
    for case, got in zip(cases, run_probe(cases)):
        d = np.array(case["new"]) - np.array(case["base"])
        nonzero = int(np.sum(np.abs(d) > 1e-12))
        want = scipy_sign_flip(d, 20000)
        assert got["p_exact"] == (nonzero <= 20)
        p = max(want, 1 / 20001)
        tolerance = 4 * math.sqrt(2 * p * (1 - p) / 20000) + 2e-4
        assert abs(got["p_value"] - want) <= tolerance, (got["p_value"], want, tolerance)


def test_paired_bootstrap_interval_agrees_with_scipy_percentile_bootstrap():
    rng = np.random.default_rng(3)
    cases = []
    for _ in range(15):
        n = int(rng.integers(20, 300))
        base, new, higher = generate(rng, n)
        cases.append({"base": base, "new": new, "higher_is_better": higher, "resamples": 10000,
                      "permutations": 1000})
    for case, got in zip(cases, run_probe(cases)):
        d = np.array(case["new"]) - np.array(case["base"])
        se = float(np.std(d, ddof=1) / math.sqrt(len(d)))
        if se == 0:
            assert got["ci95"] == [pytest.approx(float(d[0])), pytest.approx(float(d[0]))]
            continue
        res = stats.bootstrap((d,), np.mean, method="percentile", n_resamples=10000,
                              confidence_level=0.95, random_state=np.random.default_rng(7))
        lo, hi = res.confidence_interval
        # Scores on a lattice (0/1, quarters) give bootstrap means on a lattice of step
        # at most 1/n: a bound may sit one step away from scipy's.
        tolerance = 0.15 * se + 1 / len(d)
        assert abs(got["ci95"][0] - lo) <= tolerance, (got["ci95"], lo, hi, se)
        assert abs(got["ci95"][1] - hi) <= tolerance, (got["ci95"], lo, hi, se)


def test_same_seed_same_statistics():
    rng = np.random.default_rng(4)
    base, new, _ = generate(rng, 60)
    case = {"base": base, "new": new, "resamples": 2000, "permutations": 5000, "seed": 9}
    first, second = run_probe([case, case])
    assert first == second
