"""ragmeter: evaluate retrieval-augmented generation (RAG) systems.

    import ragmeter
    result = ragmeter.evaluate(samples, metrics=["faithfulness", "bleu"])
    result["faithfulness"]        # the mean
    result.to_pandas()            # a row per sample: fields, scores, status, reason
    result.summary                # what `ragmeter eval --summary` writes
    answers = ragmeter.run(questions, target=my_rag, eval="faithfulness")  # your system
    ragmeter.agree(result, "labels.csv")   # does each metric agree with your labels?

The scoring is the ragmeter C++ library's (the same code as the `ragmeter` program);
this package converts Python data into its rows and its results into Python values.
See docs/python.md.
"""

from __future__ import annotations

from . import adapters, errors, metrics, testing
from ._agree import Agreement, agree
from ._core import metric_table
from ._evaluate import aevaluate, evaluate, plan
from ._judges import LocalEmbedder, OfflineEmbedder, OfflineJudge, OpenAIEmbedder, OpenAIJudge
from ._result import Result
from ._run import RunResult, arun, run
from .errors import (
    DeadlineExceededError,
    FailedPreconditionError,
    InternalError,
    Interrupted,
    InvalidArgumentError,
    NotFoundError,
    RagmeterError,
    ResourceExhaustedError,
    UnavailableError,
)

try:
    from importlib.metadata import version as _version

    __version__ = _version("ragmeter")
except Exception:  # not installed as a distribution (a build tree)
    __version__ = "unknown"

__all__ = [
    "evaluate",
    "aevaluate",
    "plan",
    "agree",
    "Agreement",
    "Result",
    "OfflineJudge",
    "OpenAIJudge",
    "OfflineEmbedder",
    "LocalEmbedder",
    "OpenAIEmbedder",
    "run",
    "arun",
    "RunResult",
    "adapters",
    "metric_table",
    "metrics",
    "testing",
    "errors",
    "RagmeterError",
    "InvalidArgumentError",
    "NotFoundError",
    "UnavailableError",
    "DeadlineExceededError",
    "FailedPreconditionError",
    "InternalError",
    "ResourceExhaustedError",
    "Interrupted",
]
