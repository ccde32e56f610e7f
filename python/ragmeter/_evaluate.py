"""evaluate() and aevaluate(): keyword arguments named as ``ragmeter eval``'s flags,
turned into one call of the C++ evaluation (which releases the GIL while it scores)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from typing import Any, Dict, Iterable, List, Optional, Union

from . import _core
from ._data import to_source
from ._judges import judge_options
from ._progress import Progress, ProgressArg
from ._result import Result
from .errors import InvalidArgumentError, Interrupted

__all__ = ["evaluate", "aevaluate"]

MetricsArg = Union[None, str, Iterable[Any]]


def _metric_spec(metrics: MetricsArg) -> Optional[str]:
    """A --metrics value from a str, a list of names, or metric objects with a ``name``
    (ragas's metric instances: ``ragas.metrics.faithfulness.name == "faithfulness"``)."""
    if metrics is None:
        return None
    if isinstance(metrics, str):
        return metrics
    names = []
    for metric in metrics:
        name = metric if isinstance(metric, str) else getattr(metric, "name", None)
        if not isinstance(name, str):
            raise InvalidArgumentError(
                f"metrics: {metric!r} is neither a metric name nor an object with a .name"
            )
        names.append(name)
    if not names:
        raise InvalidArgumentError("metrics: the list is empty")
    return ",".join(names)


def _column_map(column_map: Union[None, Mapping, Iterable[str]]) -> Dict[str, str]:
    """{user column: field}, or the CLI's "COLUMN=FIELD" strings."""
    if column_map is None:
        return {}
    if isinstance(column_map, Mapping):
        return {str(k): str(v) for k, v in column_map.items()}
    mapping = {}
    for spec in column_map:
        column, eq, field = str(spec).partition("=")
        if not eq:
            raise InvalidArgumentError(f"column_map: expected COLUMN=FIELD, got '{spec}'")
        mapping[column] = field
    return mapping


def _critics(critic: Union[None, str, Mapping, Iterable[str]]) -> List[str]:
    """--critic NAME=DEFINITION values, or a dict {name: definition}."""
    if critic is None:
        return []
    if isinstance(critic, str):
        return [critic]
    if isinstance(critic, Mapping):
        return [f"{name}={definition}" for name, definition in critic.items()]
    return [str(c) for c in critic]


def evaluate(
    data: Any,
    metrics: MetricsArg = None,
    judge: Any = None,
    embedder: Any = None,
    *,
    column_map: Union[None, Mapping, Iterable[str]] = None,
    critic: Union[None, str, Mapping, Iterable[str]] = None,
    critic_votes: int = 1,
    threads: Optional[int] = None,
    limit: int = 0,
    strict: bool = False,
    format: str = "auto",
    seed: int = 42,
    bootstrap_resamples: int = 1000,
    rouge_stem: bool = False,
    rouge_tokenizer: str = "default",
    bleu_smoothing: str = "exp",
    bleu_tokenize: str = "13a",
    context_match_threshold: float = 0.5,
    progress: ProgressArg = True,
    keep_evidence: bool = True,
    config: Optional[Union[str, "os.PathLike[str]"]] = None,
    judge_url: Optional[str] = None,
    judge_model: Optional[str] = None,
    judge_key_env: Optional[str] = None,
    embedder_url: Optional[str] = None,
    embedder_model: Optional[str] = None,
    embedder_model_path: Optional[Union[str, "os.PathLike[str]"]] = None,
    concurrency: Optional[int] = None,
    cache: Optional[Union[str, "os.PathLike[str]"]] = None,
    cache_mode: Optional[str] = None,
    max_cost: Optional[float] = None,
    timeout: Optional[float] = None,
    deadline: Optional[float] = None,
    judge_context_tokens: Optional[int] = None,
    plan: Optional[str] = None,
    offline_score_withdrawn: bool = False,
    repeat: int = 1,
    repeat_temperature: float = 0.7,
    media_root: Optional[Union[str, "os.PathLike[str]"]] = None,
    allow_media_urls: bool = False,
    max_image_bytes: Optional[int] = None,
    ocr_language: Optional[str] = None,
    language: Optional[str] = None,
    deepeval_tool_params: Optional[Iterable[str]] = None,
    labels: Any = None,
    label_scale: str = "binary",
    label_id: str = "id",
    _cancel: Optional["_core.CancelFlag"] = None,
    _plan_only: bool = False,
) -> Result:
    """Scores every sample of `data` with `metrics`; see docs/python.md.

    data: a list of dicts, a pandas DataFrame, a datasets.Dataset, a ragas
        EvaluationDataset or list of SingleTurnSample, a dict of columns, or a path to a
        JSONL/JSON/CSV file. Field names as ``ragmeter eval`` accepts them (ragas's and
        the legacy question/answer/contexts/ground_truth), renamed by `column_map`.
    metrics: names as ``ragmeter metrics`` prints them ("bleu", "ndcg@10"), a
        comma-separated string, a shorthand ("ragas", "text", "all"), or ragas metric
        objects (by their ``.name``). None: every metric the judge can score.
    judge: ragmeter.OfflineJudge() (the default), ragmeter.OpenAIJudge(url=..., model=...,
        key_env=...), "offline", "openai", or a TOML config path.
    embedder: None or "auto" (``--embedder auto``: the local model when installed, else
        bag-of-stems vectors), ragmeter.OfflineEmbedder(), ragmeter.LocalEmbedder(),
        ragmeter.OpenAIEmbedder(...), or an ``--embedder`` value. The judge keywords
        (judge_url, judge_model, judge_key_env, config, cache, concurrency, deadline, ...)
        are the CLI's judge flags and win over the judge object's settings, which win over
        the config file and the environment.
    offline_score_withdrawn: score the metrics withdrawn from the offline judge (they
        did not beat chance on held-out human labels, or were not measured; see
        docs/judges.md) instead of reporting them ``skipped`` with that reason.
    repeat: judge each (sample, judged metric) this many times (``--repeat``), at
        `repeat_temperature` with seeds 1..repeat: each score is the mean of its repeats,
        ``result.repeats(metric)`` gives every repeat's, and the summary's
        ``metrics[m]["repeats"]`` separates the judge's variance from the samples'
        (docs/output.md, "Repeats"). The offline judge is deterministic and judges once
        (the summary's ``repeat`` says so).
    media_root, allow_media_urls, max_image_bytes, ocr_language: images among the
        retrieved contexts (docs/images.md), as ``--media-root``, ``--allow-media-urls``,
        ``--max-image-bytes`` and ``--ocr-language``. A context may be a
        ``pathlib.Path`` (a file under media_root), ``bytes`` or a PIL image (sent as a
        data URI), a data URI or URL string, or ``{"type": "image", "path"|"url": ...}``.
    language: the language of every sample, an ISO 639-1 code ("zh", "ja", "de"), over
        a ``language`` column; None or "auto": each row's column, else detected from its
        text (``ragmeter eval --language``, docs/languages.md). Each result row's
        ``language`` says which, and the summary's ``languages`` counts them; an unknown
        code raises InvalidArgumentError listing the supported ones.
    deepeval_tool_params: what DeepEval's tool correctness compares besides the tool's
        name: "input_parameters", "output", or both (``--deepeval-tool-params``; default:
        the name only, as DeepEval).
    progress: True (tqdm when installed, else a line on stderr), False, or a callable
        ``progress(rows_done, total)``; an exception it raises stops the run.
    labels: your labels of these samples (a path, a list of dicts, a DataFrame; see
        ragmeter.agree): ``result.agreement`` is then ``ragmeter.agree(result, labels,
        scale=label_scale, id=label_id)``, how far each metric agrees with them.

    Raises InvalidArgumentError (a ValueError) for an unknown metric or a bad option,
    NotFoundError for a missing file. A bad row is not an exception: its metrics are
    ``failed`` with the reason. Ctrl-C raises ``ragmeter.Interrupted`` (a
    KeyboardInterrupt) whose ``.result`` holds the samples finished before it.
    """
    spec = _metric_spec(metrics)
    judge_fields = judge_options(judge, embedder, {
        "config_path": config, "url": judge_url, "model": judge_model, "key_env": judge_key_env,
        "embedder_url": embedder_url, "embedder_model": embedder_model,
        "embedder_model_path": embedder_model_path, "concurrency": concurrency,
        "cache_path": cache, "cache_mode": cache_mode,
        "max_cost_usd": max_cost, "timeout_seconds": timeout, "deadline_seconds": deadline,
        "context_tokens": judge_context_tokens, "plan": plan,
    })
    # The library's EvalSpec, field by field (include/ragmeter/eval_spec.h): it checks
    # every value, as it does the CLI's flags.
    spec_fields = {
        "metrics": spec if spec is not None else "all",
        "metrics_given": spec is not None,
        "critics": _critics(critic),
        "critic_votes": critic_votes,
        "column_map": _column_map(column_map),
        "threads": threads if threads is not None else 0,
        "limit": limit,
        "strict": strict,
        "seed": seed,
        "bootstrap_resamples": bootstrap_resamples,
        "rouge_stem": rouge_stem,
        "rouge_tokenizer": rouge_tokenizer,
        "bleu_smoothing": bleu_smoothing,
        "bleu_tokenize": bleu_tokenize,
        "context_match_threshold": context_match_threshold,
        "keep_evidence": keep_evidence,
        "offline_score_withdrawn": offline_score_withdrawn,
        "repeat": repeat,
        "repeat_temperature": repeat_temperature,
        "media_root": os.fspath(media_root) if media_root is not None else "",
        "allow_media_urls": allow_media_urls,
        "ocr_language": ocr_language or "",
        "language": language or "",
        "deepeval_tool_params": [str(p) for p in deepeval_tool_params or ()],
        "judge": judge_fields,
    }
    if max_image_bytes is not None:
        spec_fields["max_image_bytes"] = max_image_bytes
    source = to_source(data, format=format)
    if _plan_only:
        return _core.plan(source, spec=spec_fields)
    total = len(source) if not isinstance(data, (str, os.PathLike)) else None
    if limit and total is not None:
        total = min(total, limit)
    bar = Progress(progress, total)
    try:
        run, stop = _core.evaluate(source, spec=spec_fields, progress=bar, cancel=_cancel)
    finally:
        bar.close()
    result = Result(run)
    if stop is not None:
        if isinstance(stop, KeyboardInterrupt):
            raise Interrupted(
                f"evaluation interrupted after {len(result)} rows; the finished rows are in "
                "this exception's .result",
                result,
                stop,
            ) from stop
        raise stop
    if labels is not None:
        from ._agree import agree

        result.agreement = agree(result, labels, scale=label_scale, id=label_id, seed=seed)
    return result


async def aevaluate(data: Any, metrics: MetricsArg = None, judge: Any = None,
                    embedder: Any = None, **options: Any) -> Result:
    """evaluate() for asyncio: runs in a worker thread, so the event loop stays free.
    Cancelling the awaiting task stops the evaluation between samples (and raises
    CancelledError once it has stopped)."""
    cancel = _core.CancelFlag()
    options.setdefault("progress", False)
    loop = asyncio.get_running_loop()
    future = loop.run_in_executor(
        None, lambda: evaluate(data, metrics, judge, embedder, _cancel=cancel, **options)
    )
    try:
        return await asyncio.shield(future)
    except asyncio.CancelledError:
        cancel.set()
        try:
            await future
        except BaseException:
            pass
        raise


def plan(data: Any, metrics: MetricsArg = None, judge: Any = None, embedder: Any = None,
         **options: Any) -> Dict[str, Any]:
    """What ``evaluate(data, metrics, judge, embedder, **options)`` would ask of the judge,
    sending nothing (``ragmeter eval --dry-run``): a dict with ``rows``, ``rejected``,
    ``metrics`` (how many), ``judge`` ("llm", "offline", or "offline with an embeddings
    server"), ``calls`` ({kind: planned calls}), ``total_calls``, ``prompt_tokens``,
    ``completion_tokens`` (estimates of the judge's plan, compact or ragas; each repeat
    counts again) and ``cost_usd`` (None when the model's price is unknown; a local model
    costs 0). The options are checked as evaluate checks them. Calls already in the judge
    cache will be free, so the plan is an upper bound."""
    options.pop("progress", None)
    return evaluate(data, metrics, judge, embedder, progress=False, _plan_only=True, **options)
