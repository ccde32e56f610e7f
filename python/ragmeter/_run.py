"""run() and arun(): ``ragmeter run`` with a Python function as the target.

The C++ run loop does the work (concurrency, retries with backoff, the per-attempt time
limit, the answer record and resume, rows in input order, latency, errors by kind); this
module only turns the user's function into what the binding calls, and the result into
Python values. Keyword arguments are named as ``ragmeter run``'s flags.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import os
import threading
import warnings
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple, Type, Union

from . import _core
from ._data import to_source
from ._optional import import_pandas
from ._progress import Progress, ProgressArg
from .errors import InvalidArgumentError, Interrupted

__all__ = ["run", "arun", "RunResult"]

PathArg = Union[str, "os.PathLike[str]"]


class RunResult:
    """The rows of one run, in input order, and its summary.

    Each row is what ``ragmeter run --out`` writes: the input row's fields, then
    ``response``, ``retrieved_contexts`` (and ``retrieved_context_ids``), ``latency_ms``,
    token counts when the function gave them; or ``run_error`` ({kind, message, attempts})
    for a row without an answer. Pass it to ``ragmeter.evaluate`` as it is: a row with
    ``run_error`` is then a rejected row (every metric ``failed`` with the reason), as
    with ``ragmeter run --eval``. ``evaluation`` holds the scores when ``run`` was given
    ``eval=``.
    """

    def __init__(self, output: "_core.RunOutput", evaluation: Any = None):
        self._output = output
        self._rows: Optional[List[Dict[str, Any]]] = None
        self._summary: Optional[Dict[str, Any]] = None
        self.evaluation = evaluation

    @property
    def rows(self) -> List[Dict[str, Any]]:
        if self._rows is None:
            self._rows = self._output.rows()
        return self._rows

    @property
    def summary(self) -> Dict[str, Any]:
        """``ragmeter run --summary``'s JSON as a dict: rows, answered, from_record,
        failed, requests, retries, errors by kind, latency_ms (p50, p95, max, mean, n),
        tokens, wall_seconds, stopped_early, cancelled."""
        if self._summary is None:
            self._summary = json.loads(self._output.summary_json())
        return self._summary

    @property
    def errors(self) -> Dict[str, int]:
        """Rows without an answer, by kind ("exception", "timeout", "bad_reply", ...)."""
        return self.summary["errors"]

    def __len__(self) -> int:
        return len(self._output)

    def __iter__(self) -> Iterator[Dict[str, Any]]:
        return iter(self.rows)

    def __getitem__(self, i: int) -> Dict[str, Any]:
        return self.rows[i]

    def to_pandas(self):
        """A pandas DataFrame, a row per input row, the columns of ``rows``."""
        pd = import_pandas("RunResult.to_pandas()")

        return pd.DataFrame(self.rows)

    def _ragmeter_source(self) -> "_core.DataSource":
        """What ragmeter.evaluate reads (rows with run_error rejected); see _data.py."""
        return self._output.source()

    def __repr__(self) -> str:
        s = self.summary
        lat = s["latency_ms"]
        errors = ", ".join(f"{k} {n}" for k, n in s["errors"].items()) or "none"
        return (f"RunResult: {s['rows']} rows, {s['answered']} answered ({s['from_record']} from the "
                f"record), {s['failed']} failed; latency ms p50 {lat['p50']:.1f} p95 {lat['p95']:.1f} "
                f"max {lat['max']:.1f}; errors: {errors}")


def _call_shape(fn: Any) -> Tuple[Callable[..., Any], bool]:
    """The function to call and whether it is async. Adapters (ragmeter.adapters) and
    callables with an async ``__call__`` count as async."""
    if inspect.iscoroutinefunction(fn):
        return fn, True
    call = getattr(fn, "__call__", None)
    if call is not None and inspect.iscoroutinefunction(call):
        return fn, True
    if not callable(fn):
        raise InvalidArgumentError(f"target: {fn!r} is not callable")
    return fn, False


def _identity(fn: Any, name: Optional[str], pass_row: bool) -> str:
    """What keys the answer record with each row: a changed name asks again."""
    if name is None:
        name = getattr(fn, "ragmeter_name", None)
    if name is None:
        target = getattr(fn, "__wrapped__", fn)
        module = getattr(target, "__module__", None) or type(target).__module__
        qualname = getattr(target, "__qualname__", None) or type(target).__qualname__
        name = f"{module}.{qualname}"
    return f"python function {name}" + (" (row)" if pass_row else "")


def _argument(request: Dict[str, Any], pass_row: bool) -> Any:
    # A conversation's turn: the history (OpenAI chat messages ending with the user's).
    if "messages" in request:
        return request["messages"]
    return request["row"] if pass_row else request["question"]


class _LoopThread:
    """An event loop of our own on a daemon thread, for run() with an async function."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="ragmeter-run-loop", daemon=True)
        self.thread.start()

    def close(self) -> None:
        async def cancel_all() -> None:
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        try:
            asyncio.run_coroutine_threadsafe(cancel_all(), self.loop).result(timeout=10)
        except Exception:
            pass
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)
        if not self.thread.is_alive():
            self.loop.close()


def _submitter(fn: Callable[..., Any], pass_row: bool, loop: asyncio.AbstractEventLoop):
    """submit(request, done) for the binding: schedules fn on `loop`; calls done(reply,
    None) or done(None, exception) when it ends (on the loop's thread)."""

    async def invoke(request: Dict[str, Any]) -> Any:
        return await fn(_argument(request, pass_row))

    def finished(future: "asyncio.Future[Any]", done: Callable[[Any, Any], None]) -> None:
        if future.cancelled():
            done(None, asyncio.CancelledError("the call was cancelled"))
        elif future.exception() is not None:
            done(None, future.exception())
        else:
            done(future.result(), None)

    def submit(request: Dict[str, Any], done: Callable[[Any, Any], None]) -> None:
        future = asyncio.run_coroutine_threadsafe(invoke(request), loop)
        future.add_done_callback(lambda f: finished(f, done))

    return submit


def _record_path(record: Union[None, bool, PathArg], out: Optional[PathArg]) -> str:
    if record is False:
        return ""
    if record is None or record is True:
        if out is None:
            if record is True:
                raise InvalidArgumentError("record=True needs out= (the record is OUT.record) or a path")
            return ""
        return os.fspath(out) + ".record"
    return os.fspath(record)


def _simulated_user_options(simulated_user: Any) -> Dict[str, Any]:
    """The JudgeOptions fields of the model that plays the user (empty: none)."""
    if simulated_user is None:
        return {}
    from ._judges import judge_options

    return judge_options(simulated_user, None, {})


def run(
    questions: Any,
    target: Callable[..., Any],
    *,
    out: Optional[PathArg] = None,
    summary: Optional[PathArg] = None,
    concurrency: int = 8,
    timeout: Optional[float] = 60.0,
    max_attempts: int = 4,
    retry_on: Tuple[Type[BaseException], ...] = (ConnectionError, TimeoutError),
    rpm: float = 0.0,
    record: Union[None, bool, PathArg] = None,
    fresh: bool = False,
    question_field: Optional[str] = None,
    id_field: str = "id",
    limit: int = 0,
    give_up_after: int = 10,
    pass_row: bool = False,
    name: Optional[str] = None,
    eval: Any = None,
    eval_options: Optional[Dict[str, Any]] = None,
    progress: ProgressArg = True,
    format: str = "auto",
    simulated_user: Any = None,
    max_user_turns: int = 10,
    _loop: Optional[asyncio.AbstractEventLoop] = None,
) -> RunResult:
    """Asks `target` every question of `questions` and returns its answers; see docs/run.md.

    questions: what ragmeter.evaluate reads (a list of dicts, a DataFrame, a
        datasets.Dataset, a JSONL/JSON/CSV path, ...), each row with a ``user_input``
        (else ``question``; `question_field`).
    target: ``fn(question: str) -> {"response": str, "retrieved_contexts": [str, ...]}``,
        sync or ``async def``. With ``pass_row=True`` it gets the whole row (a dict)
        instead. It may also return just a str (the response, no contexts), contexts as
        ``{"text", "id"}`` dicts or ids in ``"retrieved_context_ids"``, and
        ``"prompt_tokens"``/``"completion_tokens"``. ragmeter.adapters wraps a LlamaIndex
        query engine or a LangChain runnable.
        A conversation row (``messages``, ``turns`` or a list ``user_input``) is asked turn
        by turn: `target` gets the history, a list of ``{"role", "content"}`` dicts
        (OpenAI chat messages) ending with the user's message, and may add
        ``"tool_calls"`` to its reply; the row comes back with the whole conversation in
        ``messages`` (docs/run.md, "Conversations").
    simulated_user: the chat model that plays the user of rows with a ``scenario`` (and
        ``expected_outcome``, ``user_description``: DeepEval's ConversationalGolden), as
        ``ragmeter run --judge-url/--judge-model`` does: ragmeter.OpenAIJudge(url, model),
        "openai" (the environment's OPENAI_BASE_URL) or a TOML judge config path. It
        writes the opening message, then after each reply checks the expected outcome and
        writes the next message, up to `max_user_turns` messages; the row comes back with
        ``simulation`` (user_turns, ended, reason). None: such rows end with run_error
        kind "simulated_user".
    An exception from `target` ends that row with ``run_error`` (kind "exception", its type
    and message); an exception of a `retry_on` type is retried first. A call longer than
    `timeout` seconds (None: no limit) ends as "timeout" and is retried; a sync function
    that hangs keeps its thread busy until it returns.
    record: the answer record (SQLite): None keeps it at OUT.record when `out` is given,
        False keeps none, a path keeps it there. A row whose (name, row) is recorded is
        served from it (``fresh=True`` asks again): a run stopped in the middle and
        started again asks only what has no answer. `name` (default: the function's
        module and qualified name) is the target's identity in the record.
    eval: metrics to score the rows with in the same call (ragmeter.evaluate's
        ``metrics``; `eval_options` are its other keyword arguments); the Result is
        ``result.evaluation``.
    Ctrl-C raises ragmeter.Interrupted whose ``.result`` is the RunResult of the rows read
    so far (the unanswered as "interrupted"); the answers received are in the record.
    """
    fn, is_async = _call_shape(target)
    source = to_source(questions, format=format)
    total = len(source) if not isinstance(questions, (str, os.PathLike)) else None
    if limit and total is not None:
        total = min(total, limit)
    loop_thread = None
    if is_async:
        if _loop is None:
            loop_thread = _LoopThread()
            loop = loop_thread.loop
        else:
            loop = _loop
        function: Callable[..., Any] = _submitter(fn, pass_row, loop)
    else:
        function = lambda request: fn(_argument(request, pass_row))  # noqa: E731
    bar = Progress(progress, total)
    try:
        output, stop = _core.run_function(
            source,
            function,
            is_async=is_async,
            retry_on=tuple(retry_on),
            identity=_identity(fn, name, pass_row),
            concurrency=concurrency,
            timeout=0.0 if timeout is None else float(timeout),
            max_attempts=max_attempts,
            rpm=rpm,
            record=_record_path(record, out),
            fresh=fresh,
            question_field=question_field or "",
            id_field=id_field,
            limit=limit,
            give_up_after=give_up_after,
            out="" if out is None else os.fspath(out),
            summary="" if summary is None else os.fspath(summary),
            max_user_turns=max_user_turns,
            simulated_user=_simulated_user_options(simulated_user),
            progress=bar,
        )
    finally:
        bar.close()
        if loop_thread is not None:
            loop_thread.close()
    result = RunResult(output)
    if stop is not None:
        if isinstance(stop, KeyboardInterrupt):
            raise Interrupted(
                f"run interrupted after {result.summary['answered']} answers; the rows are in this "
                "exception's .result and the answers in the record",
                result,
                stop,
            ) from stop
        raise stop
    if result.summary["stopped_early"]:
        warnings.warn(result.summary.get("stop_reason", "the run stopped early"), RuntimeWarning, stacklevel=2)
    if eval is not None:
        from ._evaluate import evaluate

        options = dict(eval_options or {})
        options.setdefault("progress", progress)
        result.evaluation = evaluate(result, eval, **options)
    return result


async def arun(questions: Any, target: Callable[..., Any], **options: Any) -> RunResult:
    """run() for asyncio: the run loop runs in a worker thread and an async `target` runs
    on the caller's event loop (so it may use clients bound to that loop)."""
    options.setdefault("progress", False)
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(None, lambda: run(questions, target, _loop=loop, **options))
