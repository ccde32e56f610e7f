"""Oracle: the variance components of repeated judgements (src/eval/repeats.cc,
include/ragmeter/repeats.h) against numpy and scipy on generated data.

- MS_between / MS_within against scipy.stats.f_oneway's F statistic, which is exactly that
  ratio for the same groups (balanced and unbalanced);
- MS_within, MS_between, the grand mean and Searle's k0 against numpy sums of squares;
- the judge's share against 1 - ICC(1), with ICC(1) = (MS_b - MS_w) / (MS_b + (k - 1) MS_w)
  (Shrout & Fleiss 1979) computed from scipy's one-way ANOVA for equal group sizes, where
  the sample variance is not truncated;
- the estimator recovers the variances it was generated with (a one-way random-effects
  model, 400 samples x 5 repeats) within sampling error.

Groups are generated with a fixed seed: continuous scores, 0/1 verdicts, a few levels
(0, 1/3, 2/3, 1), equal and unequal numbers of repeats, 2..60 samples.

Run: RAGMETER_BUILD_DIR=build ~/.cache/ragmeter/venv/bin/python \\
       -m pytest -q -p no:cacheprovider tests/oracle/test_repeats.py
"""

import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

REPO = Path(__file__).resolve().parents[2]
BUILD_DIR = Path(os.environ.get("RAGMETER_BUILD_DIR", REPO / "build"))
PROBE = BUILD_DIR / "probes" / "repeats_probe"


def run_probe(cases):
    if not PROBE.exists():
        pytest.fail(f"{PROBE} is not built (scripts/build.sh repeats_probe)")
    text = "".join(json.dumps({"groups": [list(map(float, g)) for g in c]}) + "\n" for c in cases)
    out = subprocess.run([str(PROBE)], input=text, capture_output=True, text=True, check=True,
                         timeout=600)
    return [json.loads(line) for line in out.stdout.splitlines()]


def generate(rng, case):
    n = int(rng.integers(2, 61))
    equal = case % 2 == 0
    sizes = np.full(n, int(rng.integers(2, 7))) if equal else rng.integers(1, 7, n)
    if not equal and sizes.sum() == n:  # at least one sample needs two repeats
        sizes[0] = 2
    kind = case % 3
    groups = []
    for size in sizes:
        centre = rng.random()
        if kind == 0:  # continuous
            groups.append(np.clip(centre + 0.2 * rng.standard_normal(size), 0, 1))
        elif kind == 1:  # a 0/1 verdict that a judge gives with the sample's probability
            groups.append((rng.random(size) < centre).astype(float))
        else:  # a few levels, as faithfulness with three claims
            groups.append(np.round(np.clip(centre + 0.3 * rng.standard_normal(size), 0, 1) * 3) / 3)
    return groups


def numpy_components(groups):
    values = np.concatenate(groups)
    n, total = len(groups), len(values)
    grand = values.mean()
    ss_between = sum(len(g) * (g.mean() - grand) ** 2 for g in groups)
    ss_within = sum(((g - g.mean()) ** 2).sum() for g in groups)
    sizes = np.array([len(g) for g in groups], dtype=float)
    return {"grand_mean": grand, "ms_between": ss_between / (n - 1),
            "ms_within": ss_within / (total - n),
            "k0": (total - (sizes ** 2).sum() / total) / (n - 1)}


def test_mean_squares_and_k0_equal_numpy_and_their_ratio_scipys_f():
    rng = np.random.default_rng(38)
    cases = [generate(rng, case) for case in range(120)]
    for groups, got in zip(cases, run_probe(cases)):
        want = numpy_components(groups)
        assert got["defined"]
        assert got["groups"] == len(groups)
        assert got["values"] == sum(len(g) for g in groups)
        for key in ("grand_mean", "ms_between", "ms_within", "k0"):
            assert got[key] == pytest.approx(want[key], rel=1e-12, abs=1e-15), key
        assert got["within"] == pytest.approx(want["ms_within"], rel=1e-12, abs=1e-15)
        between = max(0.0, (want["ms_between"] - want["ms_within"]) / want["k0"])
        assert got["between"] == pytest.approx(between, rel=1e-12, abs=1e-15)
        if want["ms_within"] > 0:
            f = stats.f_oneway(*groups).statistic
            assert got["ms_between"] / got["ms_within"] == pytest.approx(f, rel=1e-10)


def test_the_judges_share_is_one_minus_icc1_for_equal_repeats():
    rng = np.random.default_rng(381)
    cases = [generate(rng, 2 * case) for case in range(60)]  # even cases: equal sizes
    for groups, got in zip(cases, run_probe(cases)):
        k = len(groups[0])
        result = stats.f_oneway(*groups)
        if not np.isfinite(result.statistic) or got["within"] == 0:
            continue
        f = result.statistic  # MS_b / MS_w
        icc1 = (f - 1) / (f + k - 1)
        if icc1 >= 0:  # where the sample variance is not truncated at 0
            assert got["judge_share"] == pytest.approx(1 - icc1, rel=1e-10)
        else:
            assert got["between"] == 0 and got["judge_share"] == 1


def test_the_estimates_recover_the_variances_of_a_random_effects_model():
    rng = np.random.default_rng(3838)
    n, k, sample_var, judge_var = 400, 5, 0.04, 0.01
    effects = rng.normal(0.6, np.sqrt(sample_var), n)
    groups = [effect + rng.normal(0, np.sqrt(judge_var), k) for effect in effects]
    [got] = run_probe([groups])
    # Standard errors: MS_w has 1600 df (relative SE ~ sqrt(2/1600) = 3.5%); the sample
    # variance ~ sqrt(2/399) = 7%. Four of them.
    assert got["within"] == pytest.approx(judge_var, rel=0.15)
    assert got["between"] == pytest.approx(sample_var, rel=0.30)
    assert got["judge_share"] == pytest.approx(judge_var / (judge_var + sample_var), abs=0.05)


def test_undefined_without_two_samples_or_a_second_repeat():
    got = run_probe([[[0.5, 0.7]], [[0.5], [0.7]], [[1, 1], [1, 1]]])
    assert not got[0]["defined"] and not got[1]["defined"]
    assert got[2]["defined"] and got[2]["judge_share"] is None
