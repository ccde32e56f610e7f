"""agree(): how far each metric of a run agrees with your labels. The statistics are the
C++ library's (``ragmeter agree``); this module converts arguments and presents the JSON."""

from __future__ import annotations

import json
import os
from typing import Any, Dict, Iterable, List, Optional, Union

from . import _core
from ._data import to_source
from ._optional import import_pandas

__all__ = ["agree", "Agreement"]


class Agreement:
    """The agreement of a run with labels: ``agreement.report`` is the JSON that
    ``ragmeter agree --out`` writes, as a dict; ``repr`` is its terminal table.

    ``agreement["faithfulness"]`` is that metric's entry (counts, ``threshold``,
    ``errors``, ``statistics``); ``agreement.value("faithfulness", "cohen_kappa")`` one
    value; ``agreement.to_pandas()`` a row per (metric, statistic).
    """

    def __init__(self, json_text: str, table: str):
        self.report: Dict[str, Any] = json.loads(json_text)
        self._table = table

    @property
    def metrics(self) -> List[str]:
        return [m["metric"] for m in self.report["metrics"]]

    @property
    def errors(self) -> List[Dict[str, Any]]:
        """Labels and rows that could not be used: {"file", "line", "field", "message"}."""
        return self.report["errors"]

    def __getitem__(self, metric: str) -> Dict[str, Any]:
        for entry in self.report["metrics"]:
            if entry["metric"] == metric:
                return entry
        raise KeyError(f"no metric '{metric}' in this agreement")

    def __contains__(self, metric: object) -> bool:
        return metric in self.metrics

    def value(self, metric: str, statistic: str) -> Optional[float]:
        """The statistic's value for the metric (None when undefined)."""
        return self[metric]["statistics"][statistic]["value"]

    def threshold(self, metric: str) -> Optional[float]:
        """The pass mark chosen on the dev half (binary labels), in the metric's units."""
        mark = self[metric].get("threshold")
        return None if mark is None else mark["value"]

    def to_pandas(self):
        """A DataFrame, a row per (metric, statistic): subset, value, ci_low, ci_high, n,
        and the people's ceiling (ceiling, ceiling_low, ceiling_high, ceiling_n)."""
        pd = import_pandas("Agreement.to_pandas()")
        rows = []
        for entry in self.report["metrics"]:
            for name, s in entry["statistics"].items():
                ceiling = s.get("ceiling") or {}
                ci, cci = s.get("ci95") or [None, None], ceiling.get("ci95") or [None, None]
                rows.append({"metric": entry["metric"], "statistic": name, "subset": s["subset"],
                             "value": s["value"], "ci_low": ci[0], "ci_high": ci[1], "n": s["n"],
                             "ceiling": ceiling.get("value"), "ceiling_low": cci[0],
                             "ceiling_high": cci[1], "ceiling_n": ceiling.get("n")})
        return pd.DataFrame(rows)

    def __repr__(self) -> str:
        return self._table.rstrip("\n")

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:  # IPython
        printer.text(repr(self))


def agree(
    results: Any,
    labels: Any,
    *,
    scale: str = "binary",
    id: str = "id",
    annotator_column: str = "annotator",
    metrics: Union[None, str, Iterable[str]] = None,
    split_seed: int = 0,
    seed: int = 42,
    bootstrap_resamples: int = 1000,
    threads: Optional[int] = None,
    format: str = "auto",
) -> Agreement:
    """Measures how far each metric of `results` agrees with `labels`; see docs/agree.md.

    results: a ragmeter.Result (what evaluate() returns) or the path of a results file
        (``ragmeter eval --out``). Rows are named by their `id` column.
    labels: the labels as a path (JSONL, JSON or CSV), a list of dicts, a DataFrame...:
        an `id` column (``id_a``/``id_b`` for pairwise) and ``label`` or a metric's name,
        optionally ``:ANNOTATOR``, or an ``annotator`` column.
    scale: "binary" (1 = good), "ordinal:LO..HI", "pairwise" or "pairwise:LO..HI".

    Raises InvalidArgumentError when no label matches a row, a metric is not in the run
    or the scale is malformed. Labels that cannot be used are in ``.errors``.
    """
    if isinstance(metrics, str):
        metrics = [m for m in metrics.split(",") if m]
    run = getattr(results, "_run", None)
    target = run if run is not None else os.fspath(results)
    json_text, table = _core.agree(
        target, to_source(labels, format=format, name="<labels>"), scale=scale, id_column=id,
        annotator_column=annotator_column, metrics=list(metrics or []), split_seed=split_seed,
        seed=seed, bootstrap_resamples=bootstrap_resamples,
        threads=threads if threads is not None else (os.cpu_count() or 1))
    return Agreement(json_text, table)
