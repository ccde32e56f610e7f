"""ragmeter.testing.assert_thresholds: passes silently, fails with the metric, its mean and
CI, and the worst samples with their reasons."""

import pytest

import ragmeter
from ragmeter.testing import ThresholdError, assert_thresholds

ROWS = [
    {"user_input": "q0", "response": "the cat sat on the mat", "reference": "the cat sat on the mat"},
    {"user_input": "q1", "response": "a dog", "reference": "the cat sat on the mat"},
    {"user_input": "q2", "response": "the cat", "reference": "the cat sat on the mat"},
    {"user_input": "q3", "response": "the cat sat"},  # no reference: skipped
]


@pytest.fixture(scope="module")
def result():
    return ragmeter.evaluate(ROWS, metrics="token_f1,exact_match", progress=False)


def test_passes_when_every_mean_reaches_its_threshold(result):
    assert_thresholds(result, token_f1=0.3, exact_match=1 / 3)


def test_failure_message_names_metric_mean_ci_and_worst_samples(result):
    with pytest.raises(AssertionError) as info:
        assert_thresholds(result, token_f1=0.9, exact_match=0.0, worst=2)
    message = str(info.value)
    stats = result.summary["metrics"]["token_f1"]
    low, high = stats["ci95"]
    # token_f1 (SQuAD tokens, articles dropped): 1; 0 ("dog" shares nothing); "cat" against
    # cat/sat/on/mat: p = 1, r = 1/4, F1 = 0.4. Mean 1.4 / 3 = 7/15.
    assert stats["mean"] == pytest.approx(7 / 15)
    assert f"token_f1: mean {7 / 15:.4f} < 0.9 (95% CI {low:.4f}..{high:.4f}, n=3, skipped 1, failed 0)" in message
    lines = message.splitlines()
    worst = [l for l in lines if l.startswith("    row")]
    assert worst[0] == "    row 1: 0.0000  'q1'"
    assert worst[1] == "    row 2: 0.4000  'q2'"
    assert "row 3: skipped:" in message and "reference" in message
    assert "exact_match" not in message  # met
    assert isinstance(info.value, ThresholdError) and info.value.failures == {"token_f1": stats["mean"]}


def test_a_metric_not_in_the_result_fails(result):
    with pytest.raises(AssertionError, match="bleu: not in this result"):
        assert_thresholds(result, bleu=0.1)
