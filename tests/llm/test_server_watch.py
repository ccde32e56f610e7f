"""ServerWatch on a real process killed with SIGILL, as a server built for another CPU dies.

Needs no LLM server: the watched process is a `sleep` this test starts and kills.
"""

from __future__ import annotations

import signal
import subprocess

from server_watch import ServerWatch


def test_a_server_killed_by_sigill_is_one_failure_then_skips(tmp_path):
    log = tmp_path / "server.log"
    log.write_text("".join(f"line {i}\n" for i in range(100)) + "init: embeddings required\n")
    proc = subprocess.Popen(["sleep", "60"])
    watch = ServerWatch(proc.pid, log)
    assert watch.check_before() is None
    assert watch.check_after("test_first") is False  # alive: nothing to report

    proc.send_signal(signal.SIGILL)
    proc.wait()
    assert watch.check_after("test_second") is True   # the test during which it died
    message = watch.died_message()
    assert "died during test_second" in message
    assert "init: embeddings required" in message     # the log's tail is carried
    assert "line 0\n" not in message                  # ... and only its tail
    assert watch.check_after("test_third") is False   # reported once
    reason = watch.check_before()
    assert reason is not None and "test_second" in reason


def test_a_server_dead_before_the_first_test_fails_that_test(tmp_path):
    proc = subprocess.Popen(["true"])
    proc.wait()
    watch = ServerWatch(proc.pid, tmp_path / "missing.log")
    assert watch.check_before() is None  # the caller fails this test
    assert watch.died_during is not None
    assert "no log" in watch.died_message()
