"""A slow judge pays once per call: `ragmeter eval` at --concurrency 16 against the real
local llama.cpp server, which serves one request at a time, through bench/counting_proxy.py.

One HaluEval row (examples/halueval_rag.jsonl) with three contexts is scored with ragas's
four metrics. Sixteen requests in flight against a one-slot server used to wait past the
per-attempt timeout and be sent again while the server computed the abandoned copies
(issue 19). Here the proxy must have forwarded exactly the requests the summary reports,
none of them abandoned mid-reply, and the summary must report no timed-out attempt, no
abandoned server time, and the concurrency it settled on. The bigger run (3 rows x 5
contexts, before and after) is bench/slow_judge_bench.sh; figures in docs/performance.md.

Run:  RAGMETER_BUILD_DIR=build ~/.cache/ragmeter/venv/bin/python -m pytest -q tests/llm -k slow
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BUILD_DIR = Path(os.environ.get("RAGMETER_BUILD_DIR", REPO / "build"))

pytestmark = pytest.mark.llm


@pytest.fixture()
def proxy(server, tmp_path):
    """bench/counting_proxy.py in front of the server; yields its base URL."""
    port_file = tmp_path / "proxy.port"
    upstream = server["RAGMETER_JUDGE_URL"].removesuffix("/v1")
    proc = subprocess.Popen([sys.executable, str(REPO / "bench" / "counting_proxy.py"),
                             "--upstream", upstream, "--port-file", str(port_file)],
                            stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            if port_file.exists() and port_file.read_text().strip():
                break
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port_file.read_text().strip()}"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def proxy_stats(base: str) -> dict:
    with urllib.request.urlopen(base + "/__proxy/stats", timeout=10) as reply:
        return json.load(reply)["phases"]["default"]


def test_sixteen_in_flight_against_one_slot_abandon_nothing(server, proxy, tmp_path):
    row = json.loads(open(REPO / "examples/halueval_rag.jsonl", encoding="utf-8").readline())
    row["retrieved_contexts"] = row["retrieved_contexts"][:3]
    row.pop("retrieved_context_ids", None)
    data = tmp_path / "one.jsonl"
    data.write_text(json.dumps(row) + "\n", encoding="utf-8")
    summary_path = tmp_path / "summary.json"
    proc = subprocess.run(
        [str(BUILD_DIR / "ragmeter"), "eval", str(data), "--metrics", "ragas",
         "--judge-url", proxy + "/v1", "--judge-model", server["RAGMETER_JUDGE_MODEL"],
         "--concurrency", "16", "--cache-mode", "off", "--summary", str(summary_path),
         "--allow-failures"],
        capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, proc.stderr
    time.sleep(1)  # the proxy books a reply after writing it
    summary = json.loads(summary_path.read_text(encoding="utf-8"))
    stats = proxy_stats(proxy)
    judge = summary["judge"]
    assert summary["usage"]["requests"] >= 2
    # Chat requests the server got (the client's GET /props, a 404 here, is not a call).
    chat = stats["by_path"].get("/v1/chat/completions", 0)
    assert chat == summary["usage"]["requests"], (stats, summary["usage"])
    assert stats["abandoned"] == 0, stats
    assert judge["timed_out_attempts"] == 0 and judge["abandoned_server_seconds"] == 0, judge
    assert judge["concurrency"]["ceiling"] == 16
    assert 1 <= judge["concurrency"]["settled"] <= 16
    assert "judge concurrency: settled at" in proc.stdout
