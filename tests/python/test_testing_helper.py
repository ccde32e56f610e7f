"""ragmeter.testing.assert_thresholds: passes silently, fails with the metric, its mean and
CI, and the worst samples with their reasons."""

from pathlib import Path

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
    with pytest.raises(AssertionError, match="bleu: not in this run"):
        assert_thresholds(result, bleu=0.1)


EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "halueval_rag.jsonl"


@pytest.fixture(scope="module")
def hallucination():
    """ragchecker_hallucination (lower is better), scored by the offline judge when forced."""
    return ragmeter.evaluate(str(EXAMPLE), metrics="ragchecker_hallucination,token_f1",
                             offline_score_withdrawn=True, progress=False)


# The CLI refuses `--fail-under ragchecker_hallucination=...` with exit code 2; the helper
# passed it (as a minimum, which a high hallucination rate met): one rule for both now.
def test_a_minimum_on_a_lower_is_better_metric_is_refused_as_the_cli_refuses_it(hallucination):
    mean = hallucination["ragchecker_hallucination"]
    assert 0 < mean < 1
    with pytest.raises(ValueError, match="ragchecker_hallucination is better lower, so its gate "
                                         "is a maximum; use fail_over"):
        assert_thresholds(hallucination, ragchecker_hallucination=mean / 2)
    with pytest.raises(ValueError, match="token_f1 is better higher, so its gate is a minimum; "
                                         "use fail_under"):
        assert_thresholds(hallucination, fail_over={"token_f1": 0.5})
    with pytest.raises(ValueError, match="outside the metric's range"):
        assert_thresholds(hallucination, token_f1=1.5)


def test_fail_over_gates_a_lower_is_better_metric_with_its_worst_samples(hallucination):
    mean = hallucination["ragchecker_hallucination"]
    assert_thresholds(hallucination, fail_over={"ragchecker_hallucination": mean + 0.01})
    with pytest.raises(ThresholdError) as info:
        assert_thresholds(hallucination, fail_over={"ragchecker_hallucination": mean - 0.01},
                          worst=1)
    message = str(info.value)
    assert f"ragchecker_hallucination: mean {mean:.4f} > {mean - 0.01}" in message
    # The worst sample of a lower-is-better metric is a highest-scored one.
    assert "    row " in message and ": 1.0000  " in message


def test_a_metric_nothing_scored_fails_saying_it_was_not_scored(result):
    # Under the default offline judge ragchecker_hallucination is withdrawn: all skipped.
    skipped = ragmeter.evaluate(ROWS, metrics="ragchecker_hallucination", progress=False)
    with pytest.raises(ThresholdError) as info:
        assert_thresholds(skipped, fail_over={"ragchecker_hallucination": 0.5})
    assert ("ragchecker_hallucination: not scored (4 skipped, 0 failed: withdrawn from the "
            "offline judge") in str(info.value)
    assert "so fail_over 0.5 cannot be checked" in str(info.value)
    assert info.value.failures == {"ragchecker_hallucination": None}
