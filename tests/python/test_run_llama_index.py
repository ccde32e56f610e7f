"""ragmeter.run with ragmeter.adapters.llama_index over a real LlamaIndex pipeline
(llama-index-core from PyPI, tests/python/llama_index_pipeline.py) whose LLM and embeddings
are the local llama.cpp server. LlamaIndex lives in a venv of its own
(scripts/setup_llamaindex.sh, fast when installed); the script runs there with the installed
ragmeter package on its path. Two questions, asked through the sync and the async adapter:
each answer takes the local model a while."""

import json
import os
import pathlib
import subprocess

import pytest

import ragmeter
from conftest import REPO

pytestmark = pytest.mark.llm


@pytest.fixture(scope="module")
def llama_index_python():
    proc = subprocess.run(["bash", str(REPO / "scripts" / "setup_llamaindex.sh")], capture_output=True,
                          text=True, timeout=1800)
    if proc.returncode != 0:
        pytest.fail(f"setup_llamaindex.sh failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return proc.stdout.strip().splitlines()[-1]


def test_a_llama_index_query_engine_answers_with_its_source_nodes_as_contexts(server, llama_index_python, tmp_path):
    questions = tmp_path / "q.jsonl"
    questions.write_text("".join(json.dumps(q) + "\n" for q in [
        {"id": "tides", "user_input": "What causes the tides of the sea?"},
        {"id": "copper", "user_input": "Why is electrical wiring made of copper?"},
    ]))
    out = tmp_path / "answers.jsonl"
    package_dir = pathlib.Path(ragmeter.__file__).resolve().parents[1]  # the installed wheel's
    env = dict(os.environ, PYTHONPATH=str(package_dir),
               **{k: server[k] for k in ("RAGMETER_JUDGE_URL", "RAGMETER_JUDGE_MODEL",
                                         "RAGMETER_EMBED_URL", "RAGMETER_EMBED_MODEL")})
    proc = subprocess.run([llama_index_python, str(REPO / "tests" / "python" / "llama_index_pipeline.py"),
                           str(REPO / "tests" / "python" / "data" / "rag_docs"), str(questions), str(out)],
                          capture_output=True, text=True, timeout=3000, env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-4000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    rows, expected = report["rows"], report["expected"]
    assert report["summary"]["answered"] == 2 and report["summary"]["failed"] == 0
    for row, want in zip(rows, expected):
        assert row["response"].strip()  # the local model's answer
        # The contexts are the nodes LlamaIndex's own retriever returns, in its order.
        assert row["retrieved_contexts"] == want["contexts"]
        assert row["retrieved_context_ids"] == want["ids"]
        assert len(row["retrieved_contexts"]) == 2
    assert [json.loads(line) for line in out.read_text().splitlines()] == rows
    assert report["eval"]["metrics"]["k_precision"]["n"] == 2  # scored in the same call
    # The async adapter (engine.aquery on ragmeter's event loop) retrieves the same nodes.
    assert report["async_summary"]["answered"] == 2 and report["async_summary"]["failed"] == 0
    for row, want in zip(report["async_rows"], expected):
        assert row["response"].strip()
        assert row["retrieved_contexts"] == want["contexts"]
        assert row["retrieved_context_ids"] == want["ids"]
