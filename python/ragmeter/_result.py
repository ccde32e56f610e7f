"""The result of evaluate(): per-sample scores with their status and reason, the summary
(the same JSON as ``ragmeter eval --summary``), evidence and usage. All values come from
the C++ run; this class only presents them."""

from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Optional, Union

from . import _core
from ._optional import import_pandas

__all__ = ["Result"]


class Result:
    """Scores of one evaluation.

    ``result["faithfulness"]`` is the metric's mean over its scored samples (None when
    none was scored), as ragas's result gives it; ``result.summary`` the summary as a
    dict; ``result.to_pandas()`` a row per sample. ``repr(result)`` is the summary table.
    """

    def __init__(self, run: "_core.Run"):
        self._run = run
        self._summary: Optional[Dict[str, Any]] = None
        # evaluate(..., labels=...): the agreement of this run with those labels.
        self.agreement = None

    @property
    def metrics(self) -> List[str]:
        """The metric names, in run order (the keys of ``summary["metrics"]``)."""
        return list(self._run.metrics)

    @property
    def cancelled(self) -> bool:
        """True when the run was stopped (Ctrl-C) before the end of the data."""
        return bool(self._run.cancelled)

    def __len__(self) -> int:
        return len(self._run)

    def __getitem__(self, metric: str) -> Optional[float]:
        return self._run.mean(metric)

    def __contains__(self, metric: object) -> bool:
        return metric in self._run.metrics

    def keys(self) -> List[str]:
        return self.metrics

    @property
    def summary(self) -> Dict[str, Any]:
        """The summary JSON of ``ragmeter eval --summary`` as a dict: ``{"metrics": {name:
        {"mean", "std", "ci95", "n", "skipped", "failed"[, "corpus"]}}, "usage", "judge",
        "rows"}``."""
        if self._summary is None:
            self._summary = json.loads(self._run.summary_json())
        return self._summary

    @property
    def usage(self) -> Dict[str, Any]:
        """Judge requests, tokens and cost of the run (zeros for the offline judge)."""
        return self.summary["usage"]

    def summary_json(self) -> str:
        """The exact text ``ragmeter eval --summary FILE`` writes for this run."""
        return self._run.summary_json()

    def scores(self, metric: str) -> List[Optional[float]]:
        """Per-sample scores of `metric` in input order (None where skipped or failed)."""
        if metric not in self:
            raise KeyError(f"no metric '{metric}' in this result")
        return self._run.columns()["scores"][metric]

    def repeats(self, metric: str) -> List[Optional[List[Optional[float]]]]:
        """Per-sample scores of each repeat of `metric` (``evaluate(repeat=N)``), in input
        order: a list of N (None where a repeat was not scored) per sample; None for every
        sample when the metric was judged once."""
        if metric not in self:
            raise KeyError(f"no metric '{metric}' in this result")
        column = self._run.columns()["repeats"].get(metric)
        return column if column is not None else [None] * len(self)

    def to_pandas(self):
        """A pandas DataFrame, a row per sample: the sample's own fields, then per metric
        the columns ``<metric>`` (score, NaN unless ok), ``<metric>_status`` ("ok",
        "skipped", "failed") and ``<metric>_reason``, and for a repeated metric
        ``<metric>_repeats`` (each repeat's score); and ``row_error`` when some row
        was rejected."""
        pd = import_pandas("Result.to_pandas()")

        columns = self._run.columns()
        data: Dict[str, Any] = dict(columns["fields"])
        for metric in self._run.metrics:
            data[metric] = pd.array(
                [float("nan") if s is None else s for s in columns["scores"][metric]],
                dtype="float64",
            )
            data[f"{metric}_status"] = columns["status"][metric]
            data[f"{metric}_reason"] = columns["reasons"][metric]
            if metric in columns["repeats"]:
                data[f"{metric}_repeats"] = columns["repeats"][metric]
        if any(error is not None for error in columns["row_error"]):
            data["row_error"] = columns["row_error"]
        return pd.DataFrame(data, index=pd.RangeIndex(len(self)))

    def row(self, i: int) -> Dict[str, Any]:
        """Sample i's own fields as given (an empty dict for a rejected row)."""
        return self._run.row(i)

    def evidence(self, i: int) -> Dict[str, Any]:
        """Sample i's evidence, metric -> detail (claims and verdicts for judged metrics,
        precision and recall for ROUGE, ...), as in the results file."""
        return self._run.evidence(i)

    def to_jsonl(self, path: Union[str, "os.PathLike[str]"]) -> None:
        """Writes the per-sample results as ``ragmeter eval --out FILE.jsonl`` does
        (docs/output.md), byte for byte."""
        self._run.write_jsonl(os.fspath(path))

    def agree(self, labels: Any, **options: Any):
        """``ragmeter.agree(self, labels, **options)``: how far each metric agrees with
        your labels (a ragmeter.Agreement)."""
        from ._agree import agree

        return agree(self, labels, **options)

    def __repr__(self) -> str:
        return self._run.summary_table().rstrip("\n")

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:  # IPython
        printer.text(repr(self))
