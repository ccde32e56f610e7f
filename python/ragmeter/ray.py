"""ragmeter.ray: the same evaluation sharded over a Ray cluster (docs/python.md, "On Ray").

    import ray, ragmeter.ray
    ray.init()                                     # or ray.init(address="auto")
    result = ragmeter.ray.evaluate("traces.jsonl", metrics="faithfulness,token_f1",
                                   judge=ragmeter.OpenAIJudge("http://judge:8080/v1", "qwen"),
                                   rpm=600, max_cost=20.0)
    result.dataset        # a Ray Dataset: the input rows, in input order, with per metric
                          # <metric>, <metric>_status, <metric>_reason (and row_error)
    result.summary        # the --summary JSON, the numbers one process computes

Each worker is a Ray actor that scores batches (Arrow tables, never pickled row by row)
with the C++ library through ragmeter._core, the GIL released. Its judge is made once,
by the library's factory from the same settings ragmeter.evaluate takes (judge, embedder
and the judge keywords), so a worker scores as one process does. The summary is built by
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
from ._judges import judge_options
from .errors import InvalidArgumentError, NotFoundError

__all__ = ["evaluate", "RayResult", "main"]

_STATUS = ("ok", "skipped", "failed")
_CORPUS = "__ragmeter_corpus__"  # internal columns: the summary reads them, users never see them
_HITS = "__ragmeter_cache_hits__"
_FAILED_CALLS = "__ragmeter_failed_calls__"
_KEY_REDACTED = "__ragmeter_key_redacted_replies__"
_BY_CALL = "__ragmeter_by_call__"  # a batch's per-kind judge counts (JSON text), on its first row

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


class _Coordinator:
    """The run's one rate limit and budget (a Ray actor; the limits are C++'s
    SharedLimiter). Workers call acquire() before each HTTP request, report() after each
    reply."""

    def __init__(self, rpm: float, tpm: float, max_cost: float):
        self._limiter = _core.SharedLimiter(rpm=rpm, tpm=tpm, max_cost=max_cost)

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

    def put_all(self, entries) -> None:
        """[(key, kind, value), ...] in one transaction: all or none."""
        self._store.put_all(entries)


def _shard_of(key: str, shards: int) -> int:
    return zlib.crc32(key.encode()) % shards


class _Scorer:
    """One worker: scores each batch (an Arrow table) with the library and returns it with
    the result columns appended. Made once per worker process by Ray Data's actor pool."""

    def __init__(self, config: Dict[str, Any], coordinator: Any, cache_shards: List[Any]):
        self._config = config
        hooks: Dict[str, Any] = {}
        if coordinator is not None:
            import ray

            def acquire(tokens):
                return ray.get(coordinator.acquire.remote(tokens))

            def report(prompt, completion, cached, cost):
                coordinator.report.remote(prompt, completion, cached, cost)  # no wait

            hooks.update(acquire=acquire, report=report)
        if cache_shards:
            import ray

            def cache_get(key):
                return ray.get(cache_shards[_shard_of(key, len(cache_shards))].get.remote(key))

            def cache_put(key, kind, value):
                ray.get(cache_shards[_shard_of(key, len(cache_shards))].put.remote(key, kind, value))

            def cache_put_all(entries):
                # All or none within a shard; with several shards a worker killed between
                # their puts can leave a part (docs/design.md, "A call's results are stored
                # together").
                by_shard: Dict[int, list] = {}
                for entry in entries:
                    by_shard.setdefault(_shard_of(entry[0], len(cache_shards)), []).append(entry)
                ray.get([cache_shards[shard].put_all.remote(part) for shard, part in by_shard.items()])

            hooks.update(cache_get=cache_get, cache_put=cache_put, cache_put_all=cache_put_all)
        # Made once per worker by the library's factory, as ragmeter.evaluate makes its
        # judge (the local sentence model, when it is used, is loaded once here).
        self._judge = _core.ClusterJudge(config["judge"], **hooks)

    def __call__(self, batch):
        import pyarrow as pa

        config = self._config
        metrics = config["metrics"]
        before = self._judge.usage()
        before_by_call = json.loads(self._judge.usage_by_call())
        if len(batch) == 0:  # an empty block (after a filter): no rows to score, same columns
            columns = {kind: {m: [] for m in metrics} for kind in ("scores", "status", "reasons")}
            columns.update(corpus={}, row_error=[], evidence=[], language=[])
        else:
            run, stop = _core.evaluate(
                to_source(batch, name=config["source"]), made_judge=self._judge, progress=None,
                spec=dict(config["spec"], bootstrap_resamples=0))
            if stop is not None:
                raise stop
            if run.metrics != metrics:
                raise RuntimeError(f"a worker scored {run.metrics}, the driver expects {metrics}")
            columns = _core.shard_columns(run, evidence=config["keep_evidence"])
        out = batch
        for metric in metrics:
            out = out.append_column(metric, pa.array(columns["scores"][metric], pa.float64()))
            out = out.append_column(f"{metric}_status", pa.array(columns["status"][metric], pa.string()))
            out = out.append_column(f"{metric}_reason", pa.array(columns["reasons"][metric], pa.string()))
        out = out.append_column("row_error", pa.array(columns["row_error"], pa.string()))
        # The language each row was scored in, as --out writes it (the driver counts them for
        # the summary's "languages"); it replaces a `language` column the rows brought.
        language = pa.array(columns["language"], pa.string())
        if "language" in out.column_names:
            out = out.set_column(out.column_names.index("language"), "language", language)
        else:
            out = out.append_column("language", language)
        if config["keep_evidence"]:
            out = out.append_column("evidence", pa.array(columns["evidence"], pa.string()))
        for metric in metrics:  # every batch the same columns, even with no corpus stats
            stats = columns["corpus"].get(metric) or [None] * len(out)
            out = out.append_column(_CORPUS + metric, pa.array(stats, pa.list_(pa.float64())))
        after = self._judge.usage()
        hits = after["cache_hits"] - before["cache_hits"]
        failed = after["failed_calls"] - before["failed_calls"]
        redacted = after["key_redacted_replies"] - before["key_redacted_replies"]
        # The batch's judge counts ride on its first row (none for an empty batch, which
        # made no call).
        zeros = [0] * max(len(out) - 1, 0)
        out = out.append_column(_HITS, pa.array([hits] + zeros, pa.int64())[: len(out)])
        out = out.append_column(_FAILED_CALLS, pa.array([failed] + zeros, pa.int64())[: len(out)])
        out = out.append_column(_KEY_REDACTED, pa.array([redacted] + zeros, pa.int64())[: len(out)])
        by_call = _by_call_delta(before_by_call, json.loads(self._judge.usage_by_call()))
        out = out.append_column(
            _BY_CALL, pa.array([by_call] + [None] * len(zeros), pa.string())[: len(out)])
        return out


def _by_call_delta(before, after):
    """The per-kind counts a batch added (JSON text), or None for a judge that keeps none."""
    if after is None:
        return None
    delta = {}
    for kind, tally in after.items():
        was = (before or {}).get(kind, {})
        delta[kind] = {field: n - was.get(field, 0) for field, n in tally.items()}
    return json.dumps(delta)


def _add_by_call(total, batch_by_call):
    """Sums a batch's per-kind counts (JSON text or None) into `total` (a dict or None)."""
    if batch_by_call is None:
        return total
    total = {} if total is None else total
    for kind, tally in json.loads(batch_by_call).items():
        into = total.setdefault(kind, {})
        for field, n in tally.items():
            into[field] = into.get(field, 0) + n
    return total


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
    embedder: Any = None,
    *,
    workers: Optional[int] = None,
    batch_size: int = 1024,
    threads_per_worker: int = 1,
    rpm: Optional[float] = None,
    tpm: Optional[float] = None,
    max_cost: Optional[float] = None,
    cache: Optional[str] = None,
    cache_mode: Optional[str] = None,
    cache_shards: int = 1,
    config: Optional[str] = None,
    judge_url: Optional[str] = None,
    judge_model: Optional[str] = None,
    judge_key_env: Optional[str] = None,
    concurrency: Optional[int] = None,
    timeout: Optional[float] = None,
    deadline: Optional[float] = None,
    judge_context_tokens: Optional[int] = None,
    plan: Optional[str] = None,
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
    offline_score_withdrawn: bool = False,
    keep_evidence: bool = False,
    out: Optional[str] = None,
) -> RayResult:
    """Scores `data` on the Ray cluster ray.init() connected to (a local one is started
    when none is); see the module's docstring and docs/python.md.

    data: a ray.data.Dataset, a path Ray Data reads (JSONL, Parquet; a folder of Parquet
        files), a list of dicts, a pandas DataFrame or a pyarrow Table.
    metrics, judge, embedder, column_map, critic, critic_votes, strict, seed,
        bootstrap_resamples, the scoring options and the judge keywords (config,
        judge_url, judge_model, judge_key_env, concurrency, timeout, deadline,
        judge_context_tokens, plan): as ragmeter.evaluate (``ragmeter eval``'s flags).
        Every worker makes its judge from them with the library's factory; the key's
        variable (key_env, a NAME) must be set on every node, and a config file must be
        readable there at the same path.
    concurrency: judge requests in flight per worker (each worker scores at least that
        many rows at once).
    workers: worker processes (actors), each scoring `batch_size` rows at a time on
        `threads_per_worker` threads. None: the cluster's CPUs less one (Ray Data's reads
        need a CPU the scorers do not hold).
    rpm, tpm, max_cost: the judge's requests and tokens per minute and its budget in USD,
        for the whole cluster (0: none; None: the config file's, else none). Held by one
        coordinator actor that every worker's client asks before each request.
    cache: the judge cache file (SQLite, opened by the cache actors, on the driver's node
        by default placement); None: the config's, else ragmeter's default path.
        cache_mode: rw, ro, off, replay. cache_shards: cache actors sharing the file.
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
    if batch_size < 1 or threads_per_worker < 1 or cache_shards < 1:
        raise InvalidArgumentError("batch_size, threads_per_worker and cache_shards must be at least 1")
    if min(rpm or 0, tpm or 0, max_cost or 0) < 0:
        raise InvalidArgumentError("rpm, tpm and max_cost must not be negative")
    judge_fields = judge_options(judge, embedder, {
        "config_path": config, "url": judge_url, "model": judge_model, "key_env": judge_key_env,
        "concurrency": concurrency, "cache_path": cache, "cache_mode": cache_mode,
        "max_cost_usd": max_cost, "timeout_seconds": timeout, "deadline_seconds": deadline,
        "context_tokens": judge_context_tokens, "plan": plan,
    })
    # What the settings resolve to (config file, environment, the arguments), without
    # opening the cache: the limits, the budget and the cache are the cluster's.
    settings = _core.judge_settings(judge_fields)
    calls = settings["makes_calls"]
    rpm = settings["requests_per_minute"] if rpm is None else rpm
    tpm = settings["tokens_per_minute"] if tpm is None else tpm
    max_cost = settings["max_cost_usd"] if max_cost is None else max_cost
    if not calls and (rpm or tpm or max_cost):
        raise InvalidArgumentError("rpm, tpm and max_cost need a judge that sends requests")
    mode = settings["cache_mode"] if calls else "off"
    # The driver's judge: the summary's judge block and the metric list ("all" without an
    # LLM judge leaves out what only an LLM scores), as a worker's; it sends nothing.
    driver_judge = _core.ClusterJudge(dict(judge_fields, cache_mode="off"))
    # The library's EvalSpec, field by field (include/ragmeter/eval_spec.h), as a worker
    # scores with it; the driver's summary builder checks it before any worker starts.
    spec_fields = {
        "metrics": spec if spec is not None else "all", "metrics_given": spec is not None,
        "critics": _critics(critic), "critic_votes": critic_votes, "column_map": _column_map(column_map),
        "threads": threads_per_worker, "strict": strict, "seed": seed, "rouge_stem": rouge_stem,
        "rouge_tokenizer": rouge_tokenizer, "bleu_smoothing": bleu_smoothing,
        "bleu_tokenize": bleu_tokenize, "context_match_threshold": context_match_threshold,
        "keep_evidence": keep_evidence, "offline_score_withdrawn": offline_score_withdrawn}
    builder = _core.SummaryBuilder(
        driver_judge, spec=dict(spec_fields, threads=0, bootstrap_resamples=bootstrap_resamples))
    if not ray.is_initialized():
        ray.init()
    if workers is None:
        # One CPU is left for Ray Data's read tasks, which would otherwise wait for the
        # scorers' CPUs, which wait for the reads.
        workers = max(1, int(ray.cluster_resources().get("CPU", 1)) - 1)

    source_name = os.fspath(data) if isinstance(data, (str, os.PathLike)) else "<ray dataset>"
    dataset = _read(ray, data, format)
    coordinator, shards = None, []
    if calls:
        coordinator = ray.remote(num_cpus=0)(_Coordinator).remote(rpm, tpm, max_cost)
        if mode != "off":
            path = os.path.expanduser(settings["cache_path"])
            shard_cls = ray.remote(num_cpus=0)(_CacheShard)
            shards = [shard_cls.remote(path, mode) for _ in range(cache_shards)]
    # A worker's judge: the same fields, the cache through the cache actors (its mode),
    # the limits and the budget through the coordinator (judge_factory.h: hooks).
    worker_fields = dict(judge_fields, cache_mode=mode)
    config = {"judge": worker_fields, "spec": spec_fields, "metrics": builder.metrics,
              "keep_evidence": keep_evidence, "source": source_name}

    # Results in input order: the run needs it, and so does every later read of the
    # returned dataset (a materialized dataset is read in completion order otherwise), so
    # it stays set for this driver.
    ray.data.DataContext.get_current().execution_options.preserve_order = True
    # A dataset keeps a copy of the context it was made with: set it there too.
    dataset.context.execution_options.preserve_order = True
    # A fixed pool of `workers` scorer actors. A dead actor is restarted and its batch
    # retried: Ray Data's own default for actor pools (max_restarts and max_task_retries
    # -1); passing them again would go through ray_remote_args, which Ray 2.64 removes.
    scored = dataset.map_batches(
        _Scorer, fn_constructor_kwargs={"config": config, "coordinator": coordinator,
                                        "cache_shards": shards},
        batch_size=batch_size, batch_format="pyarrow",
        compute=ray.data.ActorPoolStrategy(size=workers), num_cpus=1)
    if out is None:
        scored = scored.materialize()
    else:
        os.makedirs(out, exist_ok=True)
    hits = failed_calls = key_redacted = 0
    by_call = None
    internal = [_HITS, _FAILED_CALLS, _KEY_REDACTED, _BY_CALL]
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
        languages = batch.column("language").to_pylist() if "language" in names else None
        builder.add([e is not None for e in errors], **columns, languages=languages)
        hits += sum(batch.column(_HITS).to_pylist())
        failed_calls += sum(batch.column(_FAILED_CALLS).to_pylist())
        key_redacted += sum(batch.column(_KEY_REDACTED).to_pylist())
        for batch_by_call in batch.column(_BY_CALL).to_pylist():
            by_call = _add_by_call(by_call, batch_by_call)
        if out is not None:
            import pyarrow.parquet as pq

            public = batch.drop_columns([c for c in batch.column_names if c.startswith("__ragmeter")])
            pq.write_table(public, os.path.join(out, f"part-{part:05d}.parquet"))
    if out is None:  # the internal columns are dropped when the dataset is read
        present = set(scored.columns())
        results = scored.drop_columns([c for c in internal if c in present])

    usage: Dict[str, Any] = {"cache_hits": hits, "failed_calls": failed_calls,
                             "key_redacted_replies": key_redacted}
    if coordinator is not None:
        usage.update(ray.get(coordinator.totals.remote()))
    if by_call is not None:
        usage["by_call"] = json.dumps(by_call)
    dataset_path = source_name if os.path.isfile(source_name) else ""
    summary_json, table = builder.finish(dataset=dataset_path, usage=usage)
    driver_judge.close()
    if out is not None:
        results = ray.data.read_parquet(out)  # the part files, named in input order
    return RayResult(results, summary_json, table)


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
    p.add_argument("--config", default=None, help="a TOML judge config (as ragmeter eval --config)")
    p.add_argument("--judge", default=None, choices=["offline", "openai"])
    p.add_argument("--judge-url")
    p.add_argument("--judge-model")
    p.add_argument("--judge-key-env", default=None,
                   help="the NAME of the variable holding the key, set on every node")
    p.add_argument("--embedder", default=None, choices=["auto", "offline", "local", "local-multilingual", "openai"])
    p.add_argument("--concurrency", type=int, default=None, help="judge requests in flight per worker")
    p.add_argument("--timeout", type=float, default=None)
    p.add_argument("--deadline", type=float, default=None)
    p.add_argument("--judge-context-tokens", type=int, default=None)
    p.add_argument("--plan", default=None, choices=["compact", "ragas"])
    p.add_argument("--rpm", type=float, default=None, help="judge requests per minute, whole cluster")
    p.add_argument("--tpm", type=float, default=None, help="judge tokens per minute, whole cluster")
    p.add_argument("--max-cost", type=float, default=None, help="judge budget in USD, whole cluster")
    p.add_argument("--cache", default=None, help="the judge cache file (SQLite)")
    p.add_argument("--cache-mode", default=None, choices=["rw", "ro", "off", "replay"])
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
    try:
        if not ray.is_initialized():
            ray.init(address=args.address, logging_level="ERROR" if args.quiet else "INFO")
        result = evaluate(
            args.dataset, metrics=args.metrics, judge=args.judge, embedder=args.embedder,
            config=args.config, judge_url=args.judge_url, judge_model=args.judge_model,
            judge_key_env=args.judge_key_env, concurrency=args.concurrency, timeout=args.timeout,
            deadline=args.deadline, judge_context_tokens=args.judge_context_tokens, plan=args.plan,
            workers=args.workers, batch_size=args.batch_size, threads_per_worker=args.threads, rpm=args.rpm,
            tpm=args.tpm, max_cost=args.max_cost, cache=args.cache, cache_mode=args.cache_mode,
            cache_shards=args.cache_shards, column_map=args.column_map, format=args.format,
            seed=args.seed, bootstrap_resamples=args.bootstrap_resamples,
            keep_evidence=args.evidence,
            out=args.out if args.out and not args.out.endswith(".jsonl") else None)
    except (InvalidArgumentError, NotFoundError, FileNotFoundError) as error:
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
