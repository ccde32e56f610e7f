"""ragmeter.ray: the same evaluation sharded over a Ray cluster (docs/python.md, "On Ray").

    import ray, ragmeter.ray
    ray.init()                                     # or ray.init(address="auto")
    result = ragmeter.ray.evaluate("traces.jsonl", metrics="faithfulness,token_f1",
                                   judge={"url": "http://judge:8080/v1", "model": "qwen"},
                                   rpm=600, max_cost=20.0)
    result.dataset        # a Ray Dataset: the input rows, in input order, with per metric
                          # <metric>, <metric>_status, <metric>_reason (and row_error)
    result.summary        # the --summary JSON, the numbers one process computes

Each worker is a Ray actor that scores batches (Arrow tables, never pickled row by row)
with the C++ library through ragmeter._core, the GIL released. The summary is built by
the library from the workers' per-row results read back in input order
(ragmeter._core.SummaryBuilder), so means, counts and the bootstrap interval are those of
``ragmeter.evaluate`` on the same rows with the same seed.

With an LLM judge, one coordinator actor holds the run's rate limit (requests and tokens
per minute) and cost budget: every worker's judge client asks it for a permit before each
HTTP request and reports each reply's tokens and cost to it. Judge replies and verdicts
go to cache actors that keep them in a SQLite judge cache file (the file ``ragmeter eval
--cache`` uses), each put committed before the call returns: a worker that dies loses no
finished call, and a rerun (or a retried batch) pays nothing twice. docs/design.md says
why; docs/scale.md what a large run costs.

Ray is imported here only; the rest of the package never needs it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import zlib
from collections.abc import Mapping
from typing import Any, Dict, List, Optional

from . import _core
from ._data import to_source
from ._evaluate import _column_map, _critics, _metric_spec
from .errors import InvalidArgumentError

__all__ = ["evaluate", "RayResult", "main"]

_STATUS = ("ok", "skipped", "failed")
_CORPUS = "__ragmeter_corpus__"  # internal columns: the summary reads them, users never see them
_HITS = "__ragmeter_cache_hits__"
_FAILED_CALLS = "__ragmeter_failed_calls__"

# The judge settings a worker's client takes, with the CLI's names where they differ.
_JUDGE_KEYS = {
    "url": "url", "judge_url": "url", "model": "model", "judge_model": "model",
    "key_env": "key_env", "judge_key_env": "key_env", "concurrency": "concurrency",
    "timeout": "timeout", "max_attempts": "max_attempts", "deadline": "deadline",
    "context_tokens": "context_tokens", "judge_context_tokens": "context_tokens",
    "plan": "plan",
}


def _import_ray():
    try:
        import ray  # noqa: F401
        import ray.data  # noqa: F401
    except ImportError as missing:  # pragma: no cover - depends on the environment
        raise ImportError(
            "ragmeter.ray needs Ray with Ray Data: pip install 'ray[data]' "
            "(bash scripts/setup_ray.sh makes the project's environment)"
        ) from missing
    return ray


def _judge_settings(judge: Any) -> Optional[Dict[str, Any]]:
    """None for the offline judge; else the worker client's settings from a mapping (the
    CLI's names: url/judge_url, model/judge_model, key_env, concurrency, timeout,
    max_attempts, deadline, context_tokens, plan) or an object with those attributes."""
    if judge is None or judge == "offline" or type(judge).__name__ == "OfflineJudge":
        return None
    if isinstance(judge, Mapping):
        given = dict(judge)
    else:
        given = {k: getattr(judge, k) for k in _JUDGE_KEYS if getattr(judge, k, None) is not None}
    settings: Dict[str, Any] = {}
    for key, value in given.items():
        if key not in _JUDGE_KEYS:
            raise InvalidArgumentError(
                f"judge: unknown setting '{key}' (known: {', '.join(sorted(set(_JUDGE_KEYS)))}); "
                "rpm, tpm, max_cost and cache are arguments of ragmeter.ray.evaluate")
        settings[_JUDGE_KEYS[key]] = value
    if not settings.get("url") or not settings.get("model"):
        raise InvalidArgumentError("judge: an LLM judge needs a url and a model")
    return settings


class _Coordinator:
    """The run's one rate limit and budget (a Ray actor; the limits are C++'s
    SharedLimiter). Workers call acquire() before each HTTP request, report() after each
    reply."""

    def __init__(self, rpm: float, tpm: float, max_cost: float):
        self._limiter = _core.SharedLimiter(rpm=rpm, tpm=tpm, max_cost=max_cost)
        self._judge_name = ""

    def set_judge_name(self, name: str) -> None:
        self._judge_name = name  # each worker's judge describes itself the same way

    def judge_name(self) -> str:
        return self._judge_name

    def acquire(self, tokens: float):
        return self._limiter.acquire(tokens)

    def report(self, prompt: int, completion: int, cached: int, cost: float) -> None:
        self._limiter.report(prompt, completion, cached, cost)

    def totals(self) -> Dict[str, Any]:
        return self._limiter.totals()


class _CacheShard:
    """Serves the judge cache file (SQLite, as --cache) to the workers (a Ray actor). A
    put returns once its transaction is committed."""

    def __init__(self, path: str, mode: str):
        self._store = _core.open_reply_store(path, mode)

    def get(self, key: str):
        return self._store.get(key)

    def put(self, key: str, kind: str, value: str) -> None:
        self._store.put(key, kind, value)


def _shard_of(key: str, shards: int) -> int:
    return zlib.crc32(key.encode()) % shards


class _Scorer:
    """One worker: scores each batch (an Arrow table) with the library and returns it with
    the result columns appended. Made once per worker process by Ray Data's actor pool."""

    def __init__(self, config: Dict[str, Any], coordinator: Any, cache_shards: List[Any]):
        self._config = config
        self._judge = None
        settings = config["judge"]
        if settings is not None:
            import ray

            def acquire(tokens):
                return ray.get(coordinator.acquire.remote(tokens))

            def report(prompt, completion, cached, cost):
                coordinator.report.remote(prompt, completion, cached, cost)  # no wait

            def cache_get(key):
                return ray.get(cache_shards[_shard_of(key, len(cache_shards))].get.remote(key))

            def cache_put(key, kind, value):
                ray.get(cache_shards[_shard_of(key, len(cache_shards))].put.remote(key, kind, value))

            with_cache = bool(cache_shards)
            self._judge = _core.ClusterJudge(
                **settings, cache_mode=config["cache_mode"] if with_cache else "off",
                acquire=acquire, report=report,
                cache_get=cache_get if with_cache else None,
                cache_put=cache_put if with_cache else None)
            coordinator.set_judge_name.remote(self._judge.description())

    def __call__(self, batch):
        import pyarrow as pa

        config = self._config
        before = self._judge.usage() if self._judge is not None else None
        run, stop = _core.evaluate(
            to_source(batch, name=config["source"]), judge=self._judge, progress=None,
            bootstrap_resamples=0, **config["options"])
        if stop is not None:
            raise stop
        columns = _core.shard_columns(run, evidence=config["keep_evidence"])
        out = batch
        for metric in run.metrics:
            out = out.append_column(metric, pa.array(columns["scores"][metric], pa.float64()))
            out = out.append_column(f"{metric}_status", pa.array(columns["status"][metric], pa.string()))
            out = out.append_column(f"{metric}_reason", pa.array(columns["reasons"][metric], pa.string()))
        out = out.append_column("row_error", pa.array(columns["row_error"], pa.string()))
        if config["keep_evidence"]:
            out = out.append_column("evidence", pa.array(columns["evidence"], pa.string()))
        for metric in run.metrics:  # every batch the same columns, even with no corpus stats
            stats = columns["corpus"].get(metric) or [None] * len(out)
            out = out.append_column(_CORPUS + metric, pa.array(stats, pa.list_(pa.float64())))
        hits = failed = 0
        if before is not None:
            after = self._judge.usage()
            hits = after["cache_hits"] - before["cache_hits"]
            failed = after["failed_calls"] - before["failed_calls"]
        # The batch's judge counts ride on its first row (a batch is never empty here).
        zeros = [0] * max(len(out) - 1, 0)
        out = out.append_column(_HITS, pa.array([hits] + zeros, pa.int64())[: len(out)])
        out = out.append_column(_FAILED_CALLS, pa.array([failed] + zeros, pa.int64())[: len(out)])
        return out


class RayResult:
    """What ragmeter.ray.evaluate returns: ``dataset`` (a Ray Dataset of the results, in
    input order) and the summary. ``result[metric]`` is the mean, as for
    ragmeter.evaluate."""

    def __init__(self, dataset: Any, summary_json: str, summary_table: str):
        self.dataset = dataset
        self._summary_json = summary_json
        self._table = summary_table
        self.summary: Dict[str, Any] = json.loads(summary_json)

    @property
    def metrics(self) -> List[str]:
        return list(self.summary["metrics"])

    @property
    def usage(self) -> Dict[str, Any]:
        return self.summary["usage"]

    def __getitem__(self, metric: str) -> Optional[float]:
        return self.summary["metrics"][metric]["mean"]

    def summary_json(self) -> str:
        """The text ``ragmeter eval --summary FILE`` writes for the same run."""
        return self._summary_json

    def to_pandas(self):
        """The results as a pandas DataFrame, in input order (all rows on the driver)."""
        import ray.data

        ray.data.DataContext.get_current().execution_options.preserve_order = True
        self.dataset.context.execution_options.preserve_order = True
        return self.dataset.to_pandas()

    def __repr__(self) -> str:
        return self._table.rstrip("\n")


def _read(ray, data: Any, fmt: str):
    """A Ray Dataset from a Dataset, a path Ray Data reads (JSONL, Parquet) or rows."""
    if hasattr(data, "map_batches") and hasattr(data, "iter_batches"):
        return data
    if isinstance(data, (str, os.PathLike)):
        path = os.fspath(data)
        kind = fmt
        if kind == "auto":
            lower = path.lower().rstrip("/")
            kind = "parquet" if lower.endswith(".parquet") or os.path.isdir(path) else "jsonl"
        if kind == "parquet":
            return ray.data.read_parquet(path)
        if kind in ("jsonl", "json"):
            return ray.data.read_json(path, lines=True) if kind == "jsonl" else ray.data.read_json(path)
        raise InvalidArgumentError(f"format: '{fmt}' is not one Ray Data reads here (jsonl, json, parquet)")
    if isinstance(data, list):
        return ray.data.from_items(data)
    if hasattr(data, "iloc"):
        return ray.data.from_pandas(data)
    if hasattr(data, "to_pydict"):
        return ray.data.from_arrow(data)
    raise InvalidArgumentError(
        f"cannot read a {type(data).__name__}: pass a ray.data.Dataset, a JSONL or Parquet "
        "path, a list of dicts, a pandas DataFrame or a pyarrow Table")


def evaluate(
    data: Any,
    metrics: Any = None,
    judge: Any = None,
    *,
    workers: Optional[int] = None,
    batch_size: int = 1024,
    threads_per_worker: int = 1,
    rpm: float = 0.0,
    tpm: float = 0.0,
    max_cost: float = 0.0,
    cache: Optional[str] = None,
    cache_mode: str = "rw",
    cache_shards: int = 1,
    column_map: Any = None,
    critic: Any = None,
    critic_votes: int = 1,
    strict: bool = False,
    format: str = "auto",
    seed: int = 42,
    bootstrap_resamples: int = 1000,
    rouge_stem: bool = False,
    rouge_tokenizer: str = "default",
    bleu_smoothing: str = "exp",
    bleu_tokenize: str = "13a",
    context_match_threshold: float = 0.5,
    keep_evidence: bool = False,
    out: Optional[str] = None,
) -> RayResult:
    """Scores `data` on the Ray cluster ray.init() connected to (a local one is started
    when none is); see the module's docstring and docs/python.md.

    data: a ray.data.Dataset, a path Ray Data reads (JSONL, Parquet; a folder of Parquet
        files), a list of dicts, a pandas DataFrame or a pyarrow Table.
    metrics, column_map, critic, critic_votes, strict, seed, bootstrap_resamples and the
        scoring options: as ragmeter.evaluate (and ``ragmeter eval``'s flags).
    judge: None or "offline" (no network), or an LLM judge's settings as a dict: url,
        model, key_env (the NAME of the variable holding the key, set on every node),
        concurrency (per worker), timeout, max_attempts, deadline, context_tokens, plan.
    workers: worker processes (actors), each scoring `batch_size` rows at a time on
        `threads_per_worker` threads (an LLM judge's worker uses at least `concurrency`
        threads, one per call in flight). None: the cluster's CPUs less one (Ray Data's
        reads need a CPU the scorers do not hold).
    rpm, tpm, max_cost: the judge's requests and tokens per minute and its budget in USD,
        for the whole cluster (0: none).
    cache: the judge cache file (SQLite, on the node of the cache actors, the driver's by
        default placement); None: ragmeter's default path. cache_mode: rw, ro, off,
        replay. cache_shards: cache actors sharing the file (more for many workers).
    keep_evidence: add an ``evidence`` column (JSON text per row).
    out: a folder: the results are streamed there as Parquet files (part-00000.parquet,
        ... in input order) while the summary is built, and ``dataset`` reads them back;
        the cluster then never holds every result at once (what a run of many millions of
        rows needs). None: the results stay in the cluster's object store (materialized).

    Sets Ray Data's ``preserve_order`` for this driver (the results are read in input
    order). The summary is exact (the same numbers as one process); the usage counts every
    request the cluster sent, a retried batch's included. Raises InvalidArgumentError for
    a bad argument; a bad row is a per-row ``failed`` outcome, as in ragmeter.evaluate.
    """
    ray = _import_ray()
    spec = _metric_spec(metrics)
    settings = _judge_settings(judge)
    if batch_size < 1 or threads_per_worker < 1 or cache_shards < 1:
        raise InvalidArgumentError("batch_size, threads_per_worker and cache_shards must be at least 1")
    if min(rpm, tpm, max_cost) < 0:
        raise InvalidArgumentError("rpm, tpm and max_cost must not be negative")
    if settings is None and (rpm or tpm or max_cost):
        raise InvalidArgumentError("rpm, tpm and max_cost need an LLM judge")
    if not ray.is_initialized():
        ray.init()
    if workers is None:
        # One CPU is left for Ray Data's read tasks, which would otherwise wait for the
        # scorers' CPUs, which wait for the reads.
        workers = max(1, int(ray.cluster_resources().get("CPU", 1)) - 1)
    threads = threads_per_worker
    if settings is not None:
        threads = max(threads, int(settings.get("concurrency", 16)))
    options = dict(
        metrics=spec if spec is not None else "all", metrics_given=spec is not None,
        critics=_critics(critic), critic_votes=critic_votes, column_map=_column_map(column_map),
        threads=threads, strict=strict, seed=seed, rouge_stem=rouge_stem,
        rouge_tokenizer=rouge_tokenizer, bleu_smoothing=bleu_smoothing,
        bleu_tokenize=bleu_tokenize, context_match_threshold=context_match_threshold,
        keep_evidence=keep_evidence)
    # Checks the metrics and options on the driver, before any worker starts.
    builder = _core.SummaryBuilder(
        metrics=options["metrics"], metrics_given=options["metrics_given"],
        critics=options["critics"], critic_votes=critic_votes, threads=os.cpu_count() or 1,
        seed=seed, bootstrap_resamples=bootstrap_resamples, rouge_stem=rouge_stem,
        rouge_tokenizer=rouge_tokenizer, bleu_smoothing=bleu_smoothing,
        bleu_tokenize=bleu_tokenize, context_match_threshold=context_match_threshold,
        llm_judge=settings is not None)

    source_name = os.fspath(data) if isinstance(data, (str, os.PathLike)) else "<ray dataset>"
    dataset = _read(ray, data, format)
    coordinator, shards = None, []
    if settings is not None:
        coordinator = ray.remote(num_cpus=0)(_Coordinator).remote(rpm, tpm, max_cost)
        if cache_mode != "off":
            path = os.path.expanduser(cache) if cache else ""
            shard_cls = ray.remote(num_cpus=0)(_CacheShard)
            shards = [shard_cls.remote(path, cache_mode) for _ in range(cache_shards)]
    config = {"judge": settings, "cache_mode": cache_mode, "options": options,
              "keep_evidence": keep_evidence, "source": source_name}

    # Results in input order: the run needs it, and so does every later read of the
    # returned dataset (a materialized dataset is read in completion order otherwise), so
    # it stays set for this driver.
    ray.data.DataContext.get_current().execution_options.preserve_order = True
    # A dataset keeps a copy of the context it was made with: set it there too.
    dataset.context.execution_options.preserve_order = True
    scored = dataset.map_batches(
        _Scorer, fn_constructor_kwargs={"config": config, "coordinator": coordinator,
                                        "cache_shards": shards},
        batch_size=batch_size, batch_format="pyarrow", concurrency=workers,
        num_cpus=1, max_restarts=-1, max_task_retries=-1)
    if out is None:
        scored = scored.materialize()
    else:
        os.makedirs(out, exist_ok=True)
    hits = failed_calls = 0
    internal = [_HITS, _FAILED_CALLS]
    for part, batch in enumerate(scored.iter_batches(batch_format="pyarrow", batch_size=None)):
        names = set(batch.column_names)
        errors = batch.column("row_error").to_pylist()
        columns = {kind: {} for kind in ("status", "scores", "reasons", "corpus")}
        for metric in builder.metrics:
            columns["status"][metric] = batch.column(f"{metric}_status").to_pylist()
            columns["scores"][metric] = batch.column(metric).to_pylist()
            columns["reasons"][metric] = batch.column(f"{metric}_reason").to_pylist()
            if _CORPUS + metric in names:
                stats = batch.column(_CORPUS + metric)
                if stats.null_count < len(stats):  # BLEU, chrF: corpus statistics
                    columns["corpus"][metric] = stats.to_pylist()
                if _CORPUS + metric not in internal:
                    internal.append(_CORPUS + metric)
        builder.add([e is not None for e in errors], **columns)
        hits += sum(batch.column(_HITS).to_pylist())
        failed_calls += sum(batch.column(_FAILED_CALLS).to_pylist())
        if out is not None:
            import pyarrow.parquet as pq

            public = batch.drop_columns([c for c in batch.column_names if c.startswith("__ragmeter")])
            pq.write_table(public, os.path.join(out, f"part-{part:05d}.parquet"))
    if out is None:  # the internal columns are dropped when the dataset is read
        present = set(scored.columns())
        results = scored.drop_columns([c for c in internal if c in present])

    usage: Dict[str, Any] = {"cache_hits": hits, "failed_calls": failed_calls}
    if coordinator is not None:
        usage.update(ray.get(coordinator.totals.remote()))
        description = ray.get(coordinator.judge_name.remote())
    else:
        description = _offline_description()
    summary_json, table = builder.finish(
        judge=description, dataset=source_name if source_name != "<ray dataset>" else "",
        usage=usage)
    if out is not None:
        results = ray.data.read_parquet(out)  # the part files, named in input order
    return RayResult(results, summary_json, table)


def _offline_description() -> str:
    """The offline judge's name as a single process's summary gives it."""
    run, _ = _core.evaluate(_core.rows_from_records([], "<none>"), metrics="token_f1",
                            metrics_given=True, bootstrap_resamples=0)
    return json.loads(run.summary_json())["judge"]["name"]


# ---- python -m ragmeter.ray ---------------------------------------------------------

def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m ragmeter.ray",
        description="Score a dataset on a Ray cluster: ragmeter eval, sharded (docs/python.md).")
    p.add_argument("dataset", help="a JSONL file or a Parquet file or folder (any path Ray Data reads)")
    p.add_argument("--address", default=None,
                   help="the Ray cluster (ray.init's address: 'auto', ray://HOST:10001); "
                        "default: a local cluster")
    p.add_argument("--metrics", default=None)
    p.add_argument("--judge-url")
    p.add_argument("--judge-model")
    p.add_argument("--judge-key-env", default="OPENAI_API_KEY")
    p.add_argument("--concurrency", type=int, default=16, help="judge requests in flight per worker")
    p.add_argument("--timeout", type=float, default=120.0)
    p.add_argument("--plan", default="compact", choices=["compact", "ragas"])
    p.add_argument("--rpm", type=float, default=0.0, help="judge requests per minute, whole cluster")
    p.add_argument("--tpm", type=float, default=0.0, help="judge tokens per minute, whole cluster")
    p.add_argument("--max-cost", type=float, default=0.0, help="judge budget in USD, whole cluster")
    p.add_argument("--cache", default=None, help="the judge cache file (SQLite)")
    p.add_argument("--cache-mode", default="rw", choices=["rw", "ro", "off", "replay"])
    p.add_argument("--cache-shards", type=int, default=1)
    p.add_argument("--workers", type=int, default=None)
    p.add_argument("--batch-size", type=int, default=1024)
    p.add_argument("--threads", type=int, default=1, help="scoring threads per worker")
    p.add_argument("--column-map", action="append", default=None, metavar="COLUMN=FIELD")
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--bootstrap-resamples", type=int, default=1000)
    p.add_argument("--format", default="auto", choices=["auto", "jsonl", "json", "parquet"])
    p.add_argument("--out", default=None,
                   help="results: a .jsonl file (written in input order by the driver) or a "
                        "folder of Parquet files, streamed in input order (any other path)")
    p.add_argument("--summary", default=None, help="the summary JSON (as ragmeter eval --summary)")
    p.add_argument("--evidence", action="store_true", help="keep each row's evidence")
    p.add_argument("--allow-failures", action="store_true")
    p.add_argument("-q", "--quiet", action="store_true")
    return p


def _write_jsonl(dataset: Any, path: str, metrics: List[str]) -> None:
    """One JSON object per row in input order: the row's fields, then scores, status,
    reasons (and evidence), as ragmeter eval --out lays them out."""
    result_columns = {"row_error", "evidence"}
    for m in metrics:
        result_columns.update((m, f"{m}_status", f"{m}_reason"))
    with open(path, "w", encoding="utf-8") as out:
        for batch in dataset.iter_batches(batch_format="pyarrow", batch_size=None):
            for row in batch.to_pylist():
                line = {k: v for k, v in row.items() if k not in result_columns and v is not None}
                line["scores"] = {m: row[m] for m in metrics}
                line["status"] = {m: row[f"{m}_status"] for m in metrics}
                reasons = {m: row[f"{m}_reason"] for m in metrics if row[f"{m}_reason"] is not None}
                if reasons:
                    line["reasons"] = reasons
                if row.get("evidence"):
                    line["evidence"] = json.loads(row["evidence"])
                if row.get("row_error"):
                    line["row_error"] = row["row_error"]
                out.write(json.dumps(line, ensure_ascii=False) + "\n")


def main(argv: Optional[List[str]] = None) -> int:
    """The command line; exit codes as ragmeter eval's: 0 ok, 2 bad usage or input, 3 some
    row rejected or some score failed (0 with --allow-failures)."""
    args = _parser().parse_args(argv)
    ray = _import_ray()
    judge = None
    if args.judge_url or args.judge_model:
        judge = {"url": args.judge_url, "model": args.judge_model,
                 "key_env": args.judge_key_env, "concurrency": args.concurrency,
                 "timeout": args.timeout, "plan": args.plan}
    try:
        if not ray.is_initialized():
            ray.init(address=args.address, logging_level="ERROR" if args.quiet else "INFO")
        result = evaluate(
            args.dataset, metrics=args.metrics, judge=judge, workers=args.workers,
            batch_size=args.batch_size, threads_per_worker=args.threads, rpm=args.rpm,
            tpm=args.tpm, max_cost=args.max_cost, cache=args.cache, cache_mode=args.cache_mode,
            cache_shards=args.cache_shards, column_map=args.column_map, format=args.format,
            seed=args.seed, bootstrap_resamples=args.bootstrap_resamples,
            keep_evidence=args.evidence,
            out=args.out if args.out and not args.out.endswith(".jsonl") else None)
    except (InvalidArgumentError, FileNotFoundError) as error:
        print(f"ragmeter.ray: {error}", file=sys.stderr)
        return 2
    if args.summary:
        with open(args.summary, "w", encoding="utf-8") as out:
            out.write(result.summary_json())
    if args.out:
        if args.out.endswith(".jsonl"):
            _write_jsonl(result.dataset, args.out, result.metrics)
    if not args.quiet:
        print(repr(result))
    failed = result.summary["rows"]["rejected"] > 0 or any(
        m["failed"] > 0 for m in result.summary["metrics"].values())
    return 3 if failed and not args.allow_failures else 0


if __name__ == "__main__":
    sys.exit(main())
