"""`--embedder`: which embedder the offline judge's similarity uses, and the summary naming it.

semantic_similarity's value is checked against the local model's similarity computed by the
probe of the same library (tests/oracle/probes/sentence_embedder_probe.cc) for the first
row, and against the bag-of-stems vectors' ordering only by being different; the embedder's
own correctness is tested in tests/oracle/test_sentence_embedder.py and
tests/unit/sentence_embedder_test.cc.
"""
import json
import os
import pathlib
import subprocess

import pytest

from cli_shared import BUILD, REPO

MODEL_DIR = pathlib.Path(os.environ.get("RAGMETER_EMBEDDER_MODEL", pathlib.Path(os.environ.get(
    "RAGMETER_CACHE", pathlib.Path.home() / ".cache" / "ragmeter")) / "models" / "all-MiniLM-L6-v2"))


def write_rows(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


ROWS = [
    {"user_input": "Is it sunny?", "response": "The weather is lovely today.",
     "reference": "It's so sunny outside!"},
    {"user_input": "Where did he go?", "response": "He drove to the stadium.",
     "reference": "It's so sunny outside!"},
    {"user_input": "Is it sunny?", "response": "The weather is lovely today.",
     "reference": "It's so sunny outside!"},  # a repeated row
]


def test_local_embedder_scores_semantic_similarity_and_the_summary_names_it(run, tmp_path):
    if not (MODEL_DIR / "model.safetensors").exists():
        pytest.fail(f"no model at {MODEL_DIR}: run scripts/setup_embedder.sh")
    data = write_rows(tmp_path / "d.jsonl", ROWS)
    out, summary = tmp_path / "o.jsonl", tmp_path / "s.json"
    p = run("eval", data, "--metrics", "semantic_similarity", "--embedder", "local",
            "--embedder-model-path", MODEL_DIR, "--out", out, "--summary", summary)
    assert p.returncode == 0, p.stderr
    s = json.loads(summary.read_text())
    assert "similarity: local all-MiniLM-L6-v2" in s["judge"]["name"]
    scores = [json.loads(line)["scores"]["semantic_similarity"] for line in out.read_text().splitlines()]
    # sentence-transformers' documentation: 0.6660 and 0.1411 for these pairs (4 decimals).
    assert scores[0] == pytest.approx(0.6660, abs=7e-5)
    assert scores[1] == pytest.approx(0.1411, abs=7e-5)
    assert scores[2] == scores[0]


def test_offline_embedder_is_the_bag_of_stems_and_says_so(run, tmp_path):
    data = write_rows(tmp_path / "d.jsonl", ROWS)
    summary, out = tmp_path / "s.json", tmp_path / "o.jsonl"
    p = run("eval", data, "--metrics", "semantic_similarity", "--embedder", "offline",
            "--out", out, "--summary", summary)
    assert p.returncode == 0, p.stderr
    assert json.loads(summary.read_text())["judge"]["name"].startswith("offline (lexical entailment, no model")
    # No content word in common: the bag-of-stems cosine is 0.
    assert json.loads(out.read_text().splitlines()[0])["scores"]["semantic_similarity"] == 0


def test_local_embedder_without_the_model_names_the_settings(run, tmp_path):
    data = write_rows(tmp_path / "d.jsonl", ROWS)
    p = run("eval", data, "--metrics", "semantic_similarity", "--embedder", "local",
            "--embedder-model-path", tmp_path / "no-model")
    assert p.returncode == 2
    for want in ("no-model", "model.safetensors", "--embedder-model-path", "embedder_model_path",
                 "RAGMETER_EMBEDDER_MODEL", "scripts/setup_embedder.sh"):
        assert want in p.stderr, (want, p.stderr)


def test_auto_without_the_models_falls_back_to_the_offline_vectors(run, tmp_path):
    data = write_rows(tmp_path / "d.jsonl", ROWS)
    summary = tmp_path / "s.json"
    env_run = subprocess.run([str(BUILD / "ragmeter"), "eval", str(data), "--metrics", "semantic_similarity",
                              "--summary", str(summary)], capture_output=True, text=True, timeout=300,
                             env={**os.environ, "RAGMETER_EMBEDDER_MODEL": str(tmp_path / "none"),
                                  "RAGMETER_MULTILINGUAL_EMBEDDER_MODEL": str(tmp_path / "none")})
    assert env_run.returncode == 0, env_run.stderr
    assert "no model" in json.loads(summary.read_text())["judge"]["name"]
