"""Assertions for CI, e.g. in pytest:

    def test_rag_quality():
        result = ragmeter.evaluate(load_samples(), metrics=["faithfulness", "token_f1",
                                                            "ragchecker_hallucination"])
        ragmeter.testing.assert_thresholds(result, faithfulness=0.8, token_f1=0.6,
                                           fail_over={"ragchecker_hallucination": 0.1})

The rule is `ragmeter eval --fail-under / --fail-over`'s, from the same C++ code: a
higher-is-better metric takes a minimum (keyword arguments, or ``fail_under``), a
lower-is-better one a maximum (``fail_over``), each within the metric's range (ValueError
otherwise, as the CLI's exit code 2); a metric nothing was scored for fails, saying so.
On failure the message names each metric that missed with its mean and 95% confidence
interval, and the worst samples with their scores and reasons, so a failing CI log says
where to look.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional

from ._result import Result

__all__ = ["assert_thresholds", "ThresholdError"]


class ThresholdError(AssertionError):
    """A metric's mean missed its threshold (or nothing was scored)."""

    def __init__(self, message: str, failures: Dict[str, Optional[float]]):
        super().__init__(message)
        self.failures = failures  # metric -> its mean (None when none was scored)


def _text(value: Any, limit: int = 70) -> str:
    text = " ".join(str(value).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _worst(result: Result, metric: str, count: int, higher_is_better: bool) -> List[str]:
    """The `count` worst-scored samples (lowest, or highest for a lower-is-better metric),
    then the failed and skipped ones, as lines."""
    frame_scores = result.scores(metric)
    columns = result._run.columns()
    status = columns["status"][metric]
    reasons = columns["reasons"][metric]
    scored = sorted(((s, i) for i, s in enumerate(frame_scores) if s is not None),
                    key=lambda pair: (pair[0] if higher_is_better else -pair[0], pair[1]))
    lines = []
    for score, i in scored[:count]:
        row = result.row(i)
        question = row.get("user_input", row.get("question", ""))
        lines.append(f"    row {i}: {score:.4f}  {_text(question)!r}")
    for i, st in enumerate(status):
        if st != "ok" and len(lines) < 2 * count:
            lines.append(f"    row {i}: {st}: {_text(reasons[i], 100)}")
    return lines


def assert_thresholds(result: Result, worst: int = 3, *,
                      fail_under: Optional[Mapping[str, float]] = None,
                      fail_over: Optional[Mapping[str, float]] = None,
                      pass_k: str = "mean",
                      **thresholds: float) -> None:
    """Raises ThresholdError (an AssertionError) unless each higher-is-better metric's
    mean is at least its minimum (keyword arguments ``faithfulness=0.8``, or
    ``fail_under={"ndcg@10": 0.5}`` for names that are not identifiers) and each
    lower-is-better metric's mean at most its maximum (``fail_over={...}``). A metric the
    run did not score, or of which no sample was scored, fails. A threshold outside the
    metric's range, or a minimum for a lower-is-better metric (or the reverse), is a
    ValueError. `worst`: how many of the worst-scored samples the message lists per
    failing metric. `pass_k` reads a repeated sample (``evaluate(repeat=N)``) as
    ``ragmeter eval --pass-k`` does: "mean" (of its repeats), "all" (pass^k: its worst
    repeat) or "any" (pass@k: its best); docs/output.md, "Repeats"."""
    minimums = dict(fail_under or {})
    for metric, value in thresholds.items():
        if metric in minimums:
            raise ValueError(f"assert_thresholds: {metric} is given twice")
        minimums[metric] = value
    maximums = dict(fail_over or {})
    if not minimums and not maximums:
        raise ValueError("assert_thresholds: name at least one metric=threshold")
    gates = [(m, float(v), False) for m, v in minimums.items()]
    gates += [(m, float(v), True) for m, v in maximums.items()]
    failed = result._run.check_thresholds(gates, at_least="fail_under", at_most="fail_over",
                                          pass_k=pass_k)
    if not failed:
        return
    metrics = result.summary["metrics"]
    failures: Dict[str, Optional[float]] = {}
    lines: List[str] = []
    for entry in failed:
        metric = entry["metric"]
        if metric not in metrics:
            failures[metric] = None
            lines.append(f"{entry['message']} (metrics: {', '.join(result.metrics)})")
            continue
        failures[metric] = metrics[metric]["mean"]
        lines.append(entry["message"])
        lines.append("  worst samples:")
        lines.extend(_worst(result, metric, worst, metrics[metric]["higher_is_better"]))
    raise ThresholdError("\n".join(["ragmeter thresholds not met:"] + lines), failures)
