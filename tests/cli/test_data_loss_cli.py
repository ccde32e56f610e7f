"""Nothing lost (issue 16): every row accounted for, interrupted runs keep what finished, and
a rerun pays nothing for what was judged before. Judge calls are counted at the FAKE server
(tests/fakes/fake_llm_server.cc, not a model)."""
import json
import signal
import subprocess
import time

import pytest

from cli_shared import BUILD, fake_script, fake_stats, read_jsonl


def row(i):
    return {"id": i, "user_input": f"Where is tower {i}?",
            "response": "The tower is in Paris. It is tall.",
            "reference": "The tower stands in Paris.",
            "retrieved_contexts": [f"Paris has tower {i}."]}


def write_rows(path, n):
    path.write_text("".join(json.dumps(row(i)) + "\n" for i in range(n)))


def test_a_stray_quote_in_a_json_array_loses_only_its_row(run, tmp_path):
    data = tmp_path / "d.json"
    data.write_text('[\n'
                    '  {"id": 1, "response": "a", "reference": "a"},\n'
                    '  {"id": 2, "response": "b, "reference": "b"},\n'
                    '  {"id": 3, "response": "c", "reference": "c"},\n'
                    '  {"id": 4, "response": "d", "reference": "x"}\n'
                    ']\n')
    out, summary = tmp_path / "r.jsonl", tmp_path / "s.json"
    p = run("eval", data, "-m", "exact_match", "--out", out, "--summary", summary, "-q")
    assert p.returncode == 3
    rows = read_jsonl(out)
    assert len(rows) == 4
    assert [r.get("id") for r in rows] == [1, None, 3, 4]
    assert [r["status"]["exact_match"] for r in rows] == ["ok", "failed", "ok", "ok"]
    assert rows[1]["row_error"]["line"] == 3
    assert "line 3" in rows[1]["row_error"]["message"]  # where the damage starts
    assert json.loads(summary.read_text())["rows"] == {"read": 4, "rejected": 1}


def test_a_stray_quote_in_a_one_line_json_array_says_what_is_lost(run, tmp_path):
    data = tmp_path / "d.json"
    data.write_text('[{"response": "a", "reference": "a"}, {"response": "b, "reference": "b"}, '
                    '{"response": "c", "reference": "c"}]\n')
    out = tmp_path / "r.jsonl"
    p = run("eval", data, "-m", "exact_match", "--out", out, "-q")
    assert p.returncode == 3
    rows = read_jsonl(out)
    assert [r["status"]["exact_match"] for r in rows] == ["ok", "failed"]
    # The damaged row is named where it starts, and what is lost with it.
    assert rows[1]["row_error"]["line"] == 1
    assert f"{data}:1:39:" in rows[1]["reasons"]["exact_match"]  # its opening brace
    assert "every row from line 1 to the end of the file is lost" in rows[1]["row_error"]["message"]


def start_eval(args):
    return subprocess.Popen([str(BUILD / "ragmeter"), *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def wait_for(condition, timeout=60):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_a_killed_run_reruns_without_paying_for_finished_calls(tmp_path, fake_judge_server, run):
    data, cache = tmp_path / "d.jsonl", tmp_path / "judge.sqlite"
    write_rows(data, 6)
    judge = ["--judge-url", fake_judge_server + "/v1", "--judge-model", "fake", "--concurrency", "1",
             "-j", "1", "-m", "faithfulness,context_recall", "-q"]
    # What the whole run costs, measured with a cache of its own.
    assert run("eval", data, *judge, "--cache", tmp_path / "full.sqlite").returncode == 0
    total = fake_stats(fake_judge_server)["chat"]
    # Five calls answered, the sixth hangs: the run is killed while it waits.
    finished = 5
    fake_script(fake_judge_server, {"steps": [{}] * finished + [{"kind": "hang"}]})
    proc = start_eval(["eval", data, *judge, "--cache", cache])
    wait_for(lambda: fake_stats(fake_judge_server)["requests"] == finished + 1)
    time.sleep(0.5)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    fake_script(fake_judge_server, {})
    p = run("eval", data, *judge, "--cache", cache)
    assert p.returncode == 0, p.stderr
    assert fake_stats(fake_judge_server)["chat"] == total - finished


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("strict", [False, True], ids=["lenient", "strict"])
def test_an_interrupted_run_keeps_finished_rows_and_writes_an_interrupted_summary(
        tmp_path, fake_judge_server, sig, strict):
    data = tmp_path / "d.jsonl"
    write_rows(data, 6)
    out, summary = tmp_path / "r.jsonl", tmp_path / "s.json"
    # Each row makes two calls (claims, verdicts); two rows finish, the third row's first
    # call hangs.
    fake_script(fake_judge_server, {"steps": [{}] * 4 + [{"kind": "hang"}]})
    proc = start_eval(["eval", data, "--judge-url", fake_judge_server + "/v1", "--judge-model", "fake",
                       "--cache-mode", "off", "--concurrency", "1", "-j", "1",
                       "-m", "faithfulness,exact_match", "--out", out, "--summary", summary,
                       "-q", *(["--strict"] if strict else [])])
    wait_for(lambda: fake_stats(fake_judge_server)["requests"] == 5)
    # Written as they finish: both rows are in --out before the interrupt.
    wait_for(lambda: out.exists() and len(out.read_text().splitlines()) == 2, timeout=20)
    proc.send_signal(sig)
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130, stderr
    assert "interrupted" in stderr
    rows = read_jsonl(out)
    assert [r["id"] for r in rows] == [0, 1]
    assert all(r["status"] == {"faithfulness": "ok", "exact_match": "ok"} for r in rows)
    s = json.loads(summary.read_text())
    assert s["cancelled"] is True
    assert s["metrics"]["faithfulness"]["n"] == 2 and s["metrics"]["exact_match"]["n"] == 2


def test_strict_keeps_the_rows_before_the_bad_one(run, tmp_path):
    data = tmp_path / "d.jsonl"
    data.write_text('{"id": 1, "response": "a", "reference": "a"}\n'
                    '{"id": 2, "response": "b", "reference": "b"}\n'
                    '{"id": 3, "response": \n'
                    '{"id": 4, "response": "d", "reference": "d"}\n')
    out = tmp_path / "r.jsonl"
    p = run("eval", data, "-m", "exact_match", "--out", out, "-q", "--strict")
    assert p.returncode == 2 and f"{data}:3" in p.stderr
    assert [r["id"] for r in read_jsonl(out)] == [1, 2]
