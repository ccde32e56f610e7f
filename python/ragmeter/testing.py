"""Assertions for CI, e.g. in pytest:

    def test_rag_quality():
        result = ragmeter.evaluate(load_samples(), metrics=["faithfulness", "token_f1"])
        ragmeter.testing.assert_thresholds(result, faithfulness=0.8, token_f1=0.6)

On failure the message names each metric below its threshold with its mean and 95%
confidence interval, and the worst samples with their scores and reasons, so a failing
CI log says where to look.
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Optional

from ._result import Result

__all__ = ["assert_thresholds", "ThresholdError"]


class ThresholdError(AssertionError):
    """A metric's mean is below its threshold (or nothing was scored)."""

    def __init__(self, message: str, failures: Dict[str, Optional[float]]):
        super().__init__(message)
        self.failures = failures  # metric -> its mean (None when none was scored)


def _text(value: Any, limit: int = 70) -> str:
    text = " ".join(str(value).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _worst(result: Result, metric: str, count: int) -> List[str]:
    """The `count` lowest-scored samples, then the failed and skipped ones, as lines."""
    frame_scores = result.scores(metric)
    columns = result._run.columns()
    status = columns["status"][metric]
    reasons = columns["reasons"][metric]
    scored = sorted((s, i) for i, s in enumerate(frame_scores) if s is not None)
    lines = []
    for score, i in scored[:count]:
        row = result.row(i)
        question = row.get("user_input", row.get("question", ""))
        lines.append(f"    row {i}: {score:.4f}  {_text(question)!r}")
    for i, st in enumerate(status):
        if st != "ok" and len(lines) < 2 * count:
            lines.append(f"    row {i}: {st}: {_text(reasons[i], 100)}")
    return lines


def assert_thresholds(result: Result, worst: int = 3, **thresholds: float) -> None:
    """Raises ThresholdError (an AssertionError) unless each named metric's mean is at
    least its threshold: ``assert_thresholds(result, faithfulness=0.8)``. A metric the
    run did not score, or of which no sample was scored, fails. `worst`: how many of the
    lowest-scored samples the message lists per failing metric."""
    if not thresholds:
        raise ValueError("assert_thresholds: name at least one metric=threshold")
    failures: Dict[str, Optional[float]] = {}
    lines: List[str] = []
    metrics = result.summary["metrics"]
    for metric, threshold in thresholds.items():
        if metric not in metrics:
            failures[metric] = None
            lines.append(f"{metric}: not in this result (metrics: {', '.join(result.metrics)})")
            continue
        stats = metrics[metric]
        mean = stats["mean"]
        if mean is not None and not math.isnan(mean) and mean >= threshold:
            continue
        failures[metric] = mean
        if mean is None:
            lines.append(
                f"{metric}: no sample scored (skipped {stats['skipped']}, failed "
                f"{stats['failed']}); threshold {threshold}"
            )
        else:
            low, high = stats["ci95"]
            lines.append(
                f"{metric}: mean {mean:.4f} < {threshold} (95% CI {low:.4f}..{high:.4f}, "
                f"n={stats['n']}, skipped {stats['skipped']}, failed {stats['failed']})"
            )
        lines.append(f"  worst samples:")
        lines.extend(_worst(result, metric, worst))
    if failures:
        raise ThresholdError("\n".join(["ragmeter thresholds not met:"] + lines), failures)
