"""Shared fixtures of the local LLM server tests (tests/llm).

`server` (session scope) installs (scripts/setup_llm.sh, fast when done) and starts the real
llama.cpp OpenAI-compatible server on 127.0.0.1 with its own run directory, and stops it at
the end: one server for every test module of the session. It yields the lines
`scripts/llm_server.sh start` prints (RAGMETER_JUDGE_URL, RAGMETER_JUDGE_MODEL,
RAGMETER_EMBED_URL, RAGMETER_EMBED_MODEL) plus MODEL_PATH, RUN_DIR and LOG_FILE (the
server's log, one uvicorn access line per HTTP request).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from server_watch import ServerWatch

REPO = Path(__file__).resolve().parents[2]
SERVER_SCRIPT = REPO / "scripts" / "llm_server.sh"


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    if os.environ.get("RAGMETER_SKIP_LLM") == "1":
        pytest.skip("RAGMETER_SKIP_LLM=1: local LLM server tests are skipped")
    run_dir = tmp_path_factory.mktemp("llm-run")
    env = dict(os.environ, RAGMETER_LLM_RUN_DIR=str(run_dir))
    env.pop("RAGMETER_LLM_PORT", None)
    # The first run may compile llama.cpp (minutes); later runs start in seconds.
    proc = subprocess.run(["bash", str(SERVER_SCRIPT), "start"], env=env,
                          capture_output=True, text=True, timeout=3 * 3600)
    if proc.returncode != 0:
        pytest.fail(f"llm_server.sh start failed ({proc.returncode}):\n{proc.stderr[-4000:]}")
    info = dict(line.split("=", 1) for line in proc.stdout.splitlines() if "=" in line)
    model_path = subprocess.run(["bash", str(SERVER_SCRIPT), "model-path"], env=env,
                                capture_output=True, text=True, check=True).stdout.strip()
    info["MODEL_PATH"] = model_path
    info["RUN_DIR"] = str(run_dir)
    info["LOG_FILE"] = str(run_dir / "server.log")
    info["WATCH"] = ServerWatch(int((run_dir / "server.pid").read_text().strip()),
                                run_dir / "server.log")
    try:
        yield info
    finally:
        subprocess.run(["bash", str(SERVER_SCRIPT), "stop"], env=env,
                       capture_output=True, text=True, timeout=60)


@pytest.fixture(autouse=True)
def _server_alive(request):
    """One clear failure when the server dies, not a connection error per later test."""
    if "server" not in request.fixturenames:
        yield
        return
    watch = request.getfixturevalue("server")["WATCH"]
    reason = watch.check_before()
    if reason is not None:
        pytest.skip(reason)
    if watch.died_during is not None:
        pytest.fail(watch.died_message(), pytrace=False)
    yield
    if watch.check_after(request.node.nodeid):
        pytest.fail(watch.died_message(), pytrace=False)
