"""Fixtures of the `ragmeter run` tests: the binary and the FAKE RAG target (a scripted
http.server, tests/run/fake_rag_target.py; not a model)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("RAGMETER_BUILD_DIR", REPO / "build"))
HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="session")
def ragmeter_bin():
    binary = BUILD / "ragmeter"
    if not binary.exists():
        pytest.fail(f"{binary} is not built (scripts/build.sh)")
    return binary


class FakeTarget:
    def __init__(self, proc, port, log):
        self.proc, self.url, self.log = proc, f"http://127.0.0.1:{port}/ask", log

    def requests(self):
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines()]


@pytest.fixture
def fake_target(tmp_path):
    """Starts the FAKE RAG target; `fake_target(delay=0.0)` returns a FakeTarget."""
    procs = []

    def _start(delay=0.0):
        log = tmp_path / f"fake-target-{len(procs)}.jsonl"
        proc = subprocess.Popen([sys.executable, str(HERE / "fake_rag_target.py"), "--log", str(log),
                                 "--delay", str(delay)], stdout=subprocess.PIPE, text=True)
        procs.append(proc)
        port = int(proc.stdout.readline().split()[-1])
        return FakeTarget(proc, port, log)

    yield _start
    for proc in procs:
        proc.terminate()
        proc.wait(timeout=10)
