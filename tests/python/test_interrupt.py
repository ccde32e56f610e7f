"""Stopping a run: Ctrl-C (SIGINT while the C++ code scores with the GIL released), an
exception from a progress callback, and asyncio task cancellation. What finished is kept:
a prefix of the input, with the same scores as a full run, and a summary of it."""

import asyncio
import os
import signal
import threading

import pytest

import ragmeter

METRICS = "chrf,rouge_l,k_precision"


@pytest.fixture(scope="module")
def many_rows(example_rows_module):
    return example_rows_module * 2000  # 60,000 rows: seconds of scoring on one thread


@pytest.fixture(scope="module")
def example_rows_module():
    from conftest import EXAMPLE, read_jsonl

    return read_jsonl(EXAMPLE)


def assert_prefix_of_full_run(partial, rows):
    n = len(partial)
    assert 0 < n < len(rows)
    assert partial.cancelled and partial.summary["cancelled"] is True
    assert partial.summary["rows"]["read"] == n
    full = ragmeter.evaluate(rows[:n], metrics=METRICS, threads=1, progress=False)
    for metric in METRICS.split(","):
        assert partial.scores(metric) == full.scores(metric)
        assert partial.summary["metrics"][metric] == full.summary["metrics"][metric]


def test_sigint_while_cpp_scores_raises_interrupted_with_the_finished_rows(many_rows, ctrl_c_raises):
    timers = []

    def progress(done, total):
        if not timers:  # the run has started: Ctrl-C a little later, from another thread
            timers.append(threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT)))
            timers[0].start()

    with pytest.raises(ragmeter.Interrupted) as info:
        ragmeter.evaluate(many_rows, metrics=METRICS, threads=1, progress=progress)
    timers[0].join()
    assert isinstance(info.value, KeyboardInterrupt)
    assert isinstance(info.value.cause, KeyboardInterrupt)
    assert_prefix_of_full_run(info.value.result, many_rows)


def test_keyboard_interrupt_from_a_progress_callback_stops_the_run(many_rows):
    def progress(done, total):
        if done > 0:
            raise KeyboardInterrupt

    with pytest.raises(ragmeter.Interrupted) as info:
        ragmeter.evaluate(many_rows, metrics=METRICS, threads=2, progress=progress)
    assert_prefix_of_full_run(info.value.result, many_rows)


def test_another_exception_from_a_progress_callback_propagates(many_rows):
    def progress(done, total):
        raise RuntimeError("callback failed")

    with pytest.raises(RuntimeError, match="callback failed"):
        ragmeter.evaluate(many_rows[:5000], metrics=METRICS, progress=progress)


def test_aevaluate_gives_evaluates_result(example_rows_module):
    result = asyncio.run(ragmeter.aevaluate(example_rows_module, metrics=METRICS))
    expected = ragmeter.evaluate(example_rows_module, metrics=METRICS, progress=False)
    # The same summary but for the run's date (the two runs can fall in different seconds).
    got, want = dict(result.summary), dict(expected.summary)
    got_run, want_run = dict(got.pop("run")), dict(want.pop("run"))
    got_run.pop("date"), want_run.pop("date")
    assert got == want and got_run == want_run


def test_cancelling_the_aevaluate_task_stops_the_run(many_rows):
    progress_calls = []

    async def main():
        started = asyncio.Event()
        loop = asyncio.get_running_loop()

        def progress(done, total):
            progress_calls.append(done)
            loop.call_soon_threadsafe(started.set)

        task = asyncio.create_task(ragmeter.aevaluate(many_rows, metrics=METRICS, threads=1,
                                                      progress=progress))
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    # The task returned only after the C++ run had stopped, well before the end.
    calls = len(progress_calls)
    assert progress_calls[-1] < len(many_rows)
    threading.Event().wait(0.3)
    assert len(progress_calls) == calls
