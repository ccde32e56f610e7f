"""API keys never reach outputs: a key planted in the environment is looked for in --out,
--traces, --summary, stderr and the cache file after every error path of the judge, at a
FAKE server (tests/fakes/fake_llm_server.cc, not a model) that echoes it back."""
import json

import pytest

from cli_shared import JUDGE_REPLY as REPLY, JUDGE_ROW as ROW, fake_script

KEY = "sk-planted-4f1c9e2b7a6d5e3f0a9b8c7d"


@pytest.fixture
def fake_server(start_fake_llm_server):
    return start_fake_llm_server(REPLY)


def judged_run(run, tmp_path, url, *extra, env):
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps(ROW) + "\n")
    config = tmp_path / "judge.toml"
    config.write_text(f'judge_url = "{url}/v1"\njudge_model = "fake"\nmax_attempts = 2\n'
                      'timeout = 1\nconcurrency = 1\n')
    outputs = {name: tmp_path / name for name in ("out.jsonl", "traces.jsonl", "summary.json",
                                                   "cache.sqlite")}
    p = run("eval", data, "--config", config, "--metrics", "faithfulness,exact_match",
            "--out", outputs["out.jsonl"], "--traces", outputs["traces.jsonl"],
            "--summary", outputs["summary.json"], "--cache", outputs["cache.sqlite"], "-q",
            *extra, env=env)
    texts = {"stderr": p.stderr, "stdout": p.stdout}
    for name, path in outputs.items():
        if path.exists():
            texts[name] = path.read_bytes().decode("utf-8", "replace")
    return p, texts


def test_a_key_given_as_judge_key_env_is_refused_and_never_echoed(run, tmp_path, fake_server):
    p, texts = judged_run(run, tmp_path, fake_server, "--judge-key-env", KEY, env={})
    assert p.returncode == 2
    assert "name of an environment variable" in p.stderr
    for name, text in texts.items():
        assert KEY not in text, name


@pytest.mark.parametrize("action", [
    {"kind": "echo_auth"},                                              # 401 quoting the header
    {"kind": "raw", "status": 500, "json": {"error": {"message": f"bad key {KEY}"}}},
    {"kind": "raw", "status": 200, "body": f"not JSON, key {KEY}"},     # a 200 that is not JSON
    {"content": f'{{"response_claims": ["{KEY}" '},                      # a reply cut short
    {"content": json.dumps({"response_claims": [f"the key is {KEY}"],  # a good reply quoting it
                            "reference_claims": [], "P1: claim 1": "Neutral",
                            "reason 1": KEY})},
    {"kind": "hang"},                                                   # timeouts
], ids=["401", "500", "200-not-json", "bad-json-reply", "echoing-reply", "timeout"])
def test_a_planted_key_never_reaches_out_traces_summary_stderr_or_cache(run, tmp_path,
                                                                        fake_server, action):
    fake_script(fake_server, {"default": action})
    p, texts = judged_run(run, tmp_path, fake_server, "--judge-key-env", "PLANTED_KEY",
                          env={"PLANTED_KEY": KEY})
    # A refused key stops the judge: 4, the work could not be done; else 0 or 3 (scores failed).
    assert p.returncode in ((4,) if action.get("kind") == "echo_auth" else (0, 3)), p.stderr
    assert "traces.jsonl" in texts and "out.jsonl" in texts
    for name, text in texts.items():
        assert KEY not in text, name


@pytest.mark.parametrize("key,rewritten", [("Paris", True), (KEY, False)],
                         ids=["short-key-that-is-a-word-of-the-replies", "long-key-not-in-them"])
def test_replies_read_with_the_key_taken_out_are_counted_and_reported(run, tmp_path,
                                                                      fake_server, key, rewritten):
    # A short key is taken out of a reply wherever it stands as a word, so the judge reads
    # "The tower is in [redacted]." for the fake's claim: the run must say so, even with -q.
    p, texts = judged_run(run, tmp_path, fake_server, "--judge-key-env", "PLANTED_KEY",
                          env={"PLANTED_KEY": key})
    assert p.returncode == 0, p.stderr
    usage = json.loads(texts["summary.json"])["usage"]
    warned = "replies held the API key's value" in p.stderr
    if rewritten:
        assert usage["key_redacted_replies"] >= 1
        assert warned
        assert f"{usage['key_redacted_replies']} judge replies" in p.stderr
    else:
        assert usage["key_redacted_replies"] == 0
        assert not warned
