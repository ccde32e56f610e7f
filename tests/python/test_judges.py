"""Judges and embedders as objects: settings only, made into judges by the C++ library with
the CLI's precedence; their errors map to exceptions; keys never pass through Python.
Requests go to the FAKE server of tests/fakes (a scripted stand-in, not a model) or to an
unreachable port; the real local model is in test_llm_judge.py."""

import json
import subprocess

import pytest

import ragmeter
from conftest import BUILD, REPO

ROWS = [{"user_input": "Who wrote Hamlet?", "response": "Shakespeare wrote Hamlet.",
         "retrieved_contexts": ["Hamlet is a tragedy by William Shakespeare."],
         "reference": "William Shakespeare"}]


def test_an_llm_judge_needs_a_model():
    with pytest.raises(ragmeter.InvalidArgumentError, match="model"):
        ragmeter.evaluate(ROWS, metrics="faithfulness", judge=ragmeter.OpenAIJudge(url="http://127.0.0.1:9/v1"),
                          progress=False)


def test_openai_embeddings_alone_need_a_url():
    # An embeddings server alone serves the metrics that only embed; without its URL there is none.
    with pytest.raises(ragmeter.InvalidArgumentError, match="needs a URL"):
        ragmeter.evaluate(ROWS, metrics="semantic_similarity", embedder=ragmeter.OpenAIEmbedder(model="e"),
                          progress=False)


def test_a_toml_config_path_is_read_by_the_library(tmp_path):
    with pytest.raises(ragmeter.InvalidArgumentError, match=r"syntax_error\.toml.*3"):
        ragmeter.evaluate(ROWS, metrics="faithfulness", judge=REPO / "tests/data/config/syntax_error.toml",
                          progress=False)
    with pytest.raises(ragmeter.NotFoundError):
        ragmeter.evaluate(ROWS, metrics="faithfulness", config=tmp_path / "missing.toml", progress=False)


def test_unreachable_server_fails_per_sample_with_the_reason_and_no_key_anywhere(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGMETER_TEST_KEY", "sk-secret-value-123")
    judge = ragmeter.OpenAIJudge(url="http://127.0.0.1:9/v1", model="m", key_env="RAGMETER_TEST_KEY",
                                 cache=tmp_path / "c.sqlite", timeout=2)
    assert "sk-secret" not in repr(judge)
    result = ragmeter.evaluate(ROWS, metrics="faithfulness,token_f1", judge=judge, progress=False)
    frame = result.to_pandas()
    assert frame["faithfulness_status"][0] == "failed" and frame["faithfulness_reason"][0]
    assert frame["token_f1_status"][0] == "ok"
    assert result.usage["failed_calls"] >= 1
    out = tmp_path / "r.jsonl"
    result.to_jsonl(out)
    for text in (out.read_text(), result.summary_json(), repr(result), frame.to_csv()):
        assert "sk-secret" not in text


def test_a_fake_servers_reply_is_scored_and_counted(tmp_path):
    binary = BUILD / "fakes" / "fake_llm_server"
    if not binary.exists():
        pytest.fail(f"{binary} is not built")
    # The FAKE server answers every chat request with this content: a claims reply.
    proc = subprocess.Popen([str(binary), "--port", "0", "--content", '{"response_claims": ["Shakespeare wrote Hamlet."], "reference_claims": []}'],
                            stdout=subprocess.PIPE, text=True)
    try:
        port = int(proc.stdout.readline().split()[-1])
        result = ragmeter.evaluate(ROWS, metrics="faithfulness", judge_url=f"http://127.0.0.1:{port}/v1",
                                   judge_model="fake", cache=tmp_path / "c.sqlite", progress=False)
        assert result.summary["judge"]["name"].startswith("llm fake")
        assert result.usage["requests"] >= 1
        assert result.to_pandas()["faithfulness_status"][0] in ("ok", "failed")
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_reprs_name_settings_and_never_a_key(monkeypatch):
    monkeypatch.setenv("MY_PROVIDER_KEY", "sk-never-shown-456")
    judge = ragmeter.OpenAIJudge(url="http://127.0.0.1:9/v1", model="m", key_env="MY_PROVIDER_KEY")
    assert repr(judge) == "OpenAIJudge(url='http://127.0.0.1:9/v1', model='m', key_env='MY_PROVIDER_KEY')"
    assert "sk-never" not in repr(judge) and "sk-never" not in str(vars(judge))
    assert repr(ragmeter.OfflineJudge()) == "OfflineJudge()"
    assert repr(ragmeter.LocalEmbedder("/m")) == "LocalEmbedder(model_path='/m')"
    assert repr(ragmeter.LocalEmbedder(multilingual=True)) == "LocalEmbedder(model_path=None, multilingual=True)"


def test_a_local_embedder_without_its_model_is_an_error_and_auto_falls_back(tmp_path, monkeypatch):
    with pytest.raises(ragmeter.RagmeterError, match=str(tmp_path)):
        ragmeter.evaluate(ROWS, metrics="semantic_similarity", progress=False,
                          embedder=ragmeter.LocalEmbedder(tmp_path))
    with pytest.raises(ragmeter.RagmeterError, match="e5-small-q4.bin"):
        ragmeter.evaluate(ROWS, metrics="semantic_similarity", progress=False,
                          embedder=ragmeter.LocalEmbedder(tmp_path, multilingual=True))
    # --embedder auto with neither model there: bag-of-stems vectors, as the CLI.
    monkeypatch.setenv("RAGMETER_MULTILINGUAL_EMBEDDER_MODEL", str(tmp_path))
    result = ragmeter.evaluate(ROWS, metrics="semantic_similarity", progress=False,
                               embedder="auto", embedder_model_path=tmp_path)
    assert "no model" in result.summary["judge"]["name"]
    assert result.to_pandas()["semantic_similarity_status"][0] == "ok"


def test_the_offline_judges_default_list_leaves_out_llm_only_metrics_as_the_cli(cli, tmp_path):
    data, out = tmp_path / "rows.jsonl", tmp_path / "cli.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in ROWS), encoding="utf-8")
    p = cli("eval", data, "--out", out, "--quiet", "--allow-failures")
    assert p.returncode == 0, p.stderr
    result = ragmeter.evaluate(ROWS, progress=False)
    assert result.metrics == list(json.loads(out.read_text())["scores"])
    assert "faithfulness" in result.metrics and "harmfulness" not in result.metrics
    named = ragmeter.evaluate(ROWS, metrics="harmfulness", progress=False)
    assert named.to_pandas()["harmfulness_status"][0] == "skipped"
