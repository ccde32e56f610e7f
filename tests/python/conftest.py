"""Shared fixtures of the Python package tests (tests/python).

These tests run in a fresh virtual environment into which scripts/test_python.sh installed
the wheel it just built: `import ragmeter` is the installed package, never the source
tree (test_package.py checks). The command-line program for comparisons is
$RAGMETER_BUILD_DIR/ragmeter. Tests marked `llm` use the real local llama.cpp server
(tests/llm/conftest.py starts it) and are left out with RAGMETER_SKIP_LLM=1.
"""

from __future__ import annotations

import faulthandler
import importlib.util
import json
import os
import pathlib
import signal
import subprocess
import sys
import tempfile

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("RAGMETER_BUILD_DIR", REPO / "build"))
EXAMPLE = REPO / "examples" / "halueval_rag.jsonl"


# Every test runs under a hang guard: past its limit, faulthandler's own thread (which
# needs no GIL, so it fires even when a thread holding the GIL is stuck) writes every
# thread's stack to HANG_LOG and ends the process with exit code 1, so a deadlock fails
# CI instead of stopping it. The stacks go to a file because pytest holds fd 2 while a
# test runs; scripts/test_python.sh prints the file when pytest fails.
HANG_LOG = pathlib.Path(os.environ.get("RAGMETER_HANG_LOG") or
                        pathlib.Path(tempfile.gettempdir()) / f"ragmeter-hang-{os.getpid()}.log")
HANG_SECONDS = 300  # a test without an llm or hang_limit mark
HANG_SECONDS_LLM = 3600  # a test that waits for the real local model


def pytest_configure(config):
    config.addinivalue_line("markers", "llm: needs the real local LLM server (slow)")
    config.addinivalue_line("markers", "hang_limit(seconds): this test's hang guard limit")


def pytest_report_header(config):
    return f"hang guard: {HANG_SECONDS} s a test ({HANG_SECONDS_LLM} s with the llm mark); stacks to {HANG_LOG}"


@pytest.fixture(autouse=True)
def hang_guard(request):
    mark = request.node.get_closest_marker("hang_limit")
    if mark is not None:
        seconds = mark.args[0]
    else:
        seconds = HANG_SECONDS_LLM if request.node.get_closest_marker("llm") else HANG_SECONDS
    with open(HANG_LOG, "w", encoding="utf-8") as log:
        log.write(f"hang guard: {request.node.nodeid} did not end within {seconds} s; every thread's stack:\n")
        log.flush()
        faulthandler.dump_traceback_later(seconds, exit=True, file=log)
        try:
            yield
        finally:
            faulthandler.cancel_dump_traceback_later()
    HANG_LOG.unlink(missing_ok=True)


@pytest.fixture
def ctrl_c_raises():
    """Python's own Ctrl-C handler for the test: a shell that starts a command in the
    background without job control (`nohup scripts/test.sh &`) has SIGINT ignored, and an
    interpreter started so never raises KeyboardInterrupt, so a test that sends SIGINT to
    itself would fail for the way it was started, not for ragmeter."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


@pytest.fixture(scope="session")
def ragmeter_bin():
    binary = BUILD / "ragmeter"
    if not binary.exists():
        pytest.fail(f"{binary} is not built (scripts/build.sh)")
    return binary


@pytest.fixture
def cli(ragmeter_bin):
    """Runs `ragmeter ARGS...`; returns the CompletedProcess."""

    def _run(*args):
        return subprocess.run([str(ragmeter_bin), *map(str, args)], capture_output=True,
                              text=True, timeout=600)

    return _run


@pytest.fixture
def example_rows():
    return read_jsonl(EXAMPLE)


def _llm_conftest():
    """tests/llm/conftest.py: one implementation of how the real local server is started,
    stopped and watched (it imports server_watch from its own folder)."""
    llm_tests = REPO / "tests" / "llm"
    if str(llm_tests) not in sys.path:
        sys.path.insert(0, str(llm_tests))
    spec = importlib.util.spec_from_file_location("llm_conftest", llm_tests / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_llm = _llm_conftest()
server = _llm.server
_server_alive = _llm._server_alive  # a server that dies is one failure, not one per test
