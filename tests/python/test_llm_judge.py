"""ragmeter.evaluate with an LLM judge, end to end against the REAL local llama.cpp server
(tests/llm/conftest.py starts it; RAGMETER_SKIP_LLM=1 leaves this out). One tiny sample and
one judged metric: the local model is slow.

The requests the summary counts are the ones the server logged. The run's judge cache is then
replayed by the `ragmeter` program (--cache-mode replay: a miss would be an error), which
must give the same results, byte for byte, without a request. The key's variable holds a
marker that must appear in no output."""

import json
from pathlib import Path

import pytest

import ragmeter

pytestmark = pytest.mark.llm

ROW = {"user_input": "Who wrote Hamlet?", "response": "William Shakespeare wrote Hamlet.",
       "retrieved_contexts": ["Hamlet is a tragedy written by William Shakespeare."],
       "reference": "William Shakespeare"}
SECRET = "sk-ragmeter-test-marker-7f3a"


def chat_requests(log_file):
    text = Path(log_file).read_text(encoding="utf-8", errors="replace")
    return text.count("\"POST /v1/chat/completions HTTP")


def test_openai_judge_against_the_local_server_and_the_cli_replays_it(server, cli, tmp_path,
                                                                     monkeypatch):
    monkeypatch.setenv("RAGMETER_TEST_JUDGE_KEY", SECRET)
    cache = tmp_path / "judge.sqlite"
    judge = ragmeter.OpenAIJudge(url=server["RAGMETER_JUDGE_URL"], model=server["RAGMETER_JUDGE_MODEL"],
                                 key_env="RAGMETER_TEST_JUDGE_KEY", cache=cache, concurrency=2)
    assert SECRET not in repr(judge)
    before = chat_requests(server["LOG_FILE"])
    result = ragmeter.evaluate([ROW], metrics="faithfulness,token_f1", judge=judge, progress=False)
    sent = chat_requests(server["LOG_FILE"]) - before
    assert result.summary["judge"]["name"].startswith(f"llm {server['RAGMETER_JUDGE_MODEL']} at ")
    assert result.summary["run"]["model"] == server["RAGMETER_JUDGE_MODEL"]
    assert result.usage["requests"] == sent >= 1
    assert result.usage["prompt_tokens"] > 0
    frame = result.to_pandas()
    assert frame["token_f1_status"][0] == "ok"
    status = frame["faithfulness_status"][0]
    assert status in ("ok", "failed")
    if status == "ok":
        claims = result.evidence(0)["faithfulness"]["claims"]
        assert claims and all("verdict" in c for c in claims)
        assert 0.0 <= result["faithfulness"] <= 1.0
    else:
        assert frame["faithfulness_reason"][0]

    data = tmp_path / "one.jsonl"
    data.write_text(json.dumps(ROW) + "\n", encoding="utf-8")
    py_out, cli_out = tmp_path / "py.jsonl", tmp_path / "cli.jsonl"
    result.to_jsonl(py_out)
    before = chat_requests(server["LOG_FILE"])
    p = cli("eval", data, "--metrics", "faithfulness,token_f1", "--judge-url", server["RAGMETER_JUDGE_URL"],
            "--judge-model", server["RAGMETER_JUDGE_MODEL"], "--judge-key-env", "RAGMETER_TEST_JUDGE_KEY",
            "--cache", cache, "--cache-mode", "replay", "--out", cli_out, "--allow-failures", "-q")
    assert p.returncode == 0, p.stderr
    assert chat_requests(server["LOG_FILE"]) == before  # served from the cache
    assert cli_out.read_bytes() == py_out.read_bytes()
    for text in (py_out.read_text(), result.summary_json(), repr(result), frame.to_csv(),
                 p.stdout, p.stderr):
        assert SECRET not in text
    assert SECRET.encode() not in cache.read_bytes()
