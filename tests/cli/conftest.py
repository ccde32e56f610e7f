import os
import pathlib
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("RAGMETER_BUILD_DIR", REPO / "build"))


@pytest.fixture(scope="session")
def ragmeter_bin():
    binary = BUILD / "ragmeter"
    if not binary.exists():
        pytest.fail(f"{binary} is not built (scripts/build.sh)")
    return binary


@pytest.fixture
def run(ragmeter_bin):
    def _run(*args, stdin=None):
        return subprocess.run([str(ragmeter_bin), *map(str, args)], capture_output=True,
                              text=True, input=stdin, timeout=300)
    return _run


@pytest.fixture
def start_fake_llm_server():
    """Starts the FAKE OpenAI-compatible server (tests/fakes/fake_llm_server.cc, not a model)
    answering every chat request with `content`; returns its base URL (no /v1). Stopped at
    the end of the test."""
    procs = []

    def _start(content):
        binary = BUILD / "fakes" / "fake_llm_server"
        if not binary.exists():
            pytest.fail(f"{binary} is not built")
        proc = subprocess.Popen([str(binary), "--port", "0", "--content", content],
                                stdout=subprocess.PIPE, text=True)
        procs.append(proc)
        port = int(proc.stdout.readline().split()[-1])
        return f"http://127.0.0.1:{port}"

    yield _start
    for proc in procs:
        proc.terminate()
        proc.wait(timeout=10)
