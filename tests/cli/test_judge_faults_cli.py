"""A judge that refuses or misbehaves (issue 16): a 401 stops the judge at once, a 200 that
is not JSON is retried and says what came back, a hung server holds a call no longer than its
deadline. Faults are injected by the FAKE server (tests/fakes/fake_llm_server.cc, not a
model)."""
import json
import time

import pytest

from cli_shared import JUDGE_ROW as ROW, fake_script, fake_stats, read_jsonl, judge_flags


def test_a_refused_key_stops_the_judge_at_the_first_401(run, tmp_path, fake_judge_server):
    fake_script(fake_judge_server, {"default": {"kind": "echo_auth"}})
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(ROW) + "\n" for _ in range(30)))
    out = tmp_path / "r.jsonl"
    p = run("eval", data, "-m", "faithfulness,exact_match", "--out", out, "-q",
            *judge_flags(fake_judge_server), env={"OPENAI_API_KEY": "sk-wrong"})
    assert p.returncode == 4, p.stderr  # the work could not be done; every row is written
    assert fake_stats(fake_judge_server)["requests"] == 1
    assert p.stderr.count("authentication failed") == 1
    rows = read_jsonl(out)
    assert len(rows) == 30
    assert all(r["status"] == {"faithfulness": "failed", "exact_match": "ok"} for r in rows)
    assert all("401" in r["reasons"]["faithfulness"] for r in rows)


@pytest.mark.parametrize("body", ["", "<html>Bad gateway</html>"], ids=["empty", "html"])
def test_a_200_that_is_not_json_is_retried_and_says_what_came_back(run, tmp_path, fake_judge_server,
                                                                   body):
    fake_script(fake_judge_server, {"default": {"kind": "raw", "status": 200, "body": body}})
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps(ROW) + "\n")
    config = tmp_path / "judge.toml"
    config.write_text(f'judge_url = "{fake_judge_server}/v1"\njudge_model = "fake"\n'
                      'max_attempts = 3\ncache_mode = "off"\n')
    out = tmp_path / "r.jsonl"
    p = run("eval", data, "-m", "faithfulness", "--out", out, "-q", "--config", config)
    assert p.returncode == 3
    assert fake_stats(fake_judge_server)["chat"] == 3
    reason = read_jsonl(out)[0]["reasons"]["faithfulness"]
    assert "HTTP 200" in reason
    assert ("empty" in reason) if body == "" else ("<html>Bad gateway</html>" in reason)
    # Once the server recovers, the same call succeeds on a retry.
    fake_script(fake_judge_server, {"steps": [{"kind": "raw", "status": 200, "body": body}]})
    p = run("eval", data, "-m", "faithfulness", "--out", out, "-q", "--config", config)
    assert p.returncode == 0, p.stderr


def test_a_hung_server_holds_a_call_no_longer_than_its_deadline(run, tmp_path, fake_judge_server):
    fake_script(fake_judge_server, {"default": {"kind": "hang"}})
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps(ROW) + "\n")
    out = tmp_path / "r.jsonl"
    start = time.monotonic()
    p = run("eval", data, "-m", "faithfulness", "--out", out, "-q", *judge_flags(fake_judge_server),
            "--timeout", "1", "--deadline", "2.5")
    elapsed = time.monotonic() - start
    assert p.returncode == 3, p.stderr
    # 6 attempts of 1 s each would take 6 s and more; the deadline ends the call at 2.5 s.
    assert elapsed < 5.5
    assert "deadline of 2.5 s" in read_jsonl(out)[0]["reasons"]["faithfulness"]
