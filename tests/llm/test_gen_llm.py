"""`ragmeter gen` end to end against the real local llama.cpp server.

Documents: two pages of the Python documentation that scripts/setup.sh installs
(python3-doc's HTML: colorsys and keyword). The small local model writes the questions and
judges them. Every row must be valid and every reference context a real chunk of those
documents (compared with --chunks-out, which lists every chunk the run made); a rerun with
the same seed and cache must write the same set without a new chat request, and reuse the
saved index.

Run:  RAGMETER_BUILD_DIR=build ~/.cache/ragmeter/venv/bin/python -m pytest -q tests/llm -k gen
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BUILD_DIR = Path(os.environ.get("RAGMETER_BUILD_DIR", REPO / "build"))
PYTHON_DOCS = Path("/usr/share/doc/python3-doc/html/library")
PAGES = ("colorsys.html", "keyword.html")
TYPES = {"simple", "reasoning", "multi_context", "conditional"}

pytestmark = pytest.mark.llm


def chat_requests(log_file: str) -> int:
    text = Path(log_file).read_text(encoding="utf-8", errors="replace")
    return text.count("\"POST /v1/chat/completions HTTP")


def gen(server, docs, tmp_path, name):
    out = tmp_path / f"{name}.jsonl"
    cmd = [str(BUILD_DIR / "ragmeter"), "gen", str(docs), "--out", str(tmp_path / "testset.jsonl"),
           "--size", "3", "--seed", "7", "--chunk-size", "700", "--chunk-overlap", "70",
           "--judge-url", server["RAGMETER_JUDGE_URL"], "--judge-model", server["RAGMETER_JUDGE_MODEL"],
           "--cache", str(tmp_path / "judge.sqlite"), "--concurrency", "2", "--timeout", "600",
           "--summary", str(tmp_path / f"{name}-summary.json"),
           "--chunks-out", str(tmp_path / f"{name}-chunks.jsonl")]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=3600)
    shutil.copy(tmp_path / "testset.jsonl", out)
    print(proc.stdout)
    print(proc.stderr[-3000:])
    return proc, out


def test_gen_writes_valid_rows_from_real_chunks_and_reruns_from_the_cache(server, tmp_path):
    for page in PAGES:
        if not (PYTHON_DOCS / page).exists():
            pytest.fail(f"{PYTHON_DOCS / page} is missing: scripts/setup.sh installs python3-doc")
    docs = tmp_path / "docs"
    docs.mkdir()
    for page in PAGES:
        shutil.copy(PYTHON_DOCS / page, docs / page)

    proc, out = gen(server, docs, tmp_path, "first")
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 3
    chunks = {c["chunk_id"]: c for c in map(json.loads, (tmp_path / "first-chunks.jsonl").read_text().splitlines())}
    assert len(chunks) >= 4
    for row in rows:
        assert isinstance(row["user_input"], str) and len(row["user_input"]) >= 12
        assert isinstance(row["reference"], str) and row["reference"].strip()
        assert row["question_type"] in TYPES
        assert row["reference_contexts"] and len(row["sources"]) == len(row["reference_contexts"])
        for context, source in zip(row["reference_contexts"], row["sources"]):
            assert source["chunk_id"] in chunks, source
            chunk = chunks[source["chunk_id"]]
            assert context == chunk["text"]
            assert source["path"] in PAGES and chunk["path"] == source["path"]
        if row["question_type"] == "multi_context":
            assert len(row["reference_contexts"]) >= 2
    summary = json.loads((tmp_path / "first-summary.json").read_text())
    assert summary["rows"] == 3 and summary["documents"]["loaded"] == 2
    assert summary["index"]["reused"] is False
    assert summary["usage"]["requests"] == chat_requests(server["LOG_FILE"]) - summary_baseline(server)
    assert summary["judge_calls_per_row"] > 0

    before = chat_requests(server["LOG_FILE"])
    proc, again = gen(server, docs, tmp_path, "second")
    assert proc.returncode == 0, proc.stderr
    assert again.read_text() == out.read_text()  # same seed, cached judge: the same set
    assert chat_requests(server["LOG_FILE"]) == before
    assert json.loads((tmp_path / "second-summary.json").read_text())["index"]["reused"] is True

    # The set is a dataset `ragmeter eval` reads: every row accepted.
    proc = subprocess.run([str(BUILD_DIR / "ragmeter"), "eval", str(out), "--metrics", "exact_match",
                           "--summary", str(tmp_path / "eval.json"), "--allow-failures", "-q"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert json.loads((tmp_path / "eval.json").read_text())["rows"]["rejected"] == 0


_BASELINE: dict = {}


def summary_baseline(server) -> int:
    """Chat requests in the server log before this module's first gen run."""
    return _BASELINE.get(server["LOG_FILE"], 0)


@pytest.fixture(autouse=True)
def _record_baseline(server):
    _BASELINE[server["LOG_FILE"]] = chat_requests(server["LOG_FILE"])
    yield
