"""`ragmeter run` against the FAKE HTTP target (tests/run/fake_rag_target.py): every fault
ends as an answer after a retry or as a marked row in place, the record serves reruns and
survives SIGKILL, secrets stay out of every file, and `eval` reads the output as it is.

Run:  RAGMETER_BUILD_DIR=build ~/.cache/ragmeter/venv/bin/python -m pytest -q tests/run
"""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import time

from run_testing import read_jsonl, write_questions


def run(ragmeter_bin, *args, timeout=120):
    return subprocess.run([str(ragmeter_bin), "run", *map(str, args)], capture_output=True,
                          text=True, timeout=timeout)


def test_faults_end_as_answers_after_retries_or_as_marked_rows_in_place(ragmeter_bin, fake_target, tmp_path):
    target = fake_target()
    questions = ["slow first", "500 once", "429 once", "always 500", "malformed", "no answer",
                 "contexts text", "huge", "plain"]
    q = write_questions(tmp_path / "q.jsonl", questions)
    out, summary = tmp_path / "a.jsonl", tmp_path / "s.json"
    proc = run(ragmeter_bin, q, "--target", target.url, "--out", out, "--summary", summary,
               "--concurrency", "4", "--max-attempts", "3", "--timeout", "10")
    assert proc.returncode == 3, proc.stderr
    rows = read_jsonl(out)
    assert [r["user_input"] for r in rows] == questions  # input order kept behind the slow row
    by_q = {r["user_input"]: r for r in rows}
    for answered in ("slow first", "500 once", "429 once", "plain"):
        r = by_q[answered]
        assert r["response"] == f"answer to {answered}"
        assert r["retrieved_contexts"] == [f"context one for {answered}", "context two"]
        assert r["retrieved_context_ids"] == ["c1", "c2"]
        assert r["prompt_tokens"] == 11 and r["completion_tokens"] == 7
        assert "run_error" not in r
    assert by_q["slow first"]["latency_ms"] >= 3000
    expected_errors = {"always 500": "http_500", "malformed": "bad_reply", "no answer": "no_answer",
                       "contexts text": "bad_contexts", "huge": "reply_too_large"}
    for question, kind in expected_errors.items():
        r = by_q[question]
        assert r["run_error"]["kind"] == kind
        assert "response" not in r
    # What was received is shown, truncated.
    assert "<html>Internal proxy page</html>" in by_q["malformed"]["run_error"]["message"]
    assert '"one context"' in by_q["contexts text"]["run_error"]["message"]
    assert "20000014 bytes" in by_q["huge"]["run_error"]["message"]
    assert len(by_q["huge"]["run_error"]["message"]) < 600
    assert "row 5 (line 5): bad_reply" in proc.stderr

    log = target.requests()
    attempts = {}
    for entry in log:
        attempts.setdefault(entry["question"], []).append(entry)
    assert len(attempts["always 500"]) == 3  # --max-attempts
    assert len(attempts["500 once"]) == 2
    assert len(attempts["malformed"]) == 1  # a bad reply is not retried
    # 429 with Retry-After: 1 waits at least that second before the next attempt.
    first, second = attempts["429 once"]
    assert second["time"] - first["time"] >= 0.95

    s = json.loads(summary.read_text())
    assert s["rows"] == 9 and s["answered"] == 4 and s["failed"] == 5
    assert s["errors"] == {"bad_contexts": 1, "bad_reply": 1, "http_500": 1, "no_answer": 1,
                           "reply_too_large": 1}
    assert s["requests"] == len(log)
    assert s["latency_ms"]["n"] == 4 and s["latency_ms"]["max"] >= 3000
    assert s["latency_ms"]["p50"] <= s["latency_ms"]["p95"] <= s["latency_ms"]["max"]

    # `ragmeter eval` reads the output as it is.
    ev = subprocess.run([str(ragmeter_bin), "eval", str(out), "--metrics", "token_f1",
                         "--out", str(tmp_path / "scores.jsonl")], capture_output=True, text=True)
    assert ev.returncode == 3, ev.stderr  # the rows without an answer are rejected rows
    scores = read_jsonl(tmp_path / "scores.jsonl")
    assert len(scores) == 9
    assert [x["status"]["token_f1"] for x in scores].count("ok") == 4
    assert [x["status"]["token_f1"] for x in scores].count("failed") == 5  # never skipped


def test_timeout_is_retried_then_marked(ragmeter_bin, fake_target, tmp_path):
    target = fake_target()
    q = write_questions(tmp_path / "q.jsonl", ["slow", "plain"])
    proc = run(ragmeter_bin, q, "--target", target.url, "--out", tmp_path / "a.jsonl",
               "--timeout", "0.5", "--max-attempts", "2")
    assert proc.returncode == 3
    rows = read_jsonl(tmp_path / "a.jsonl")
    assert rows[0]["run_error"]["kind"] == "timeout" and rows[0]["run_error"]["attempts"] == 2
    assert rows[1]["response"] == "answer to plain"


def test_templates_fill_fields_and_a_missing_field_marks_the_row(ragmeter_bin, fake_target, tmp_path):
    target = fake_target()
    q = tmp_path / "q.jsonl"
    q.write_text(json.dumps({"id": "a", "user_input": "one", "reference": "r1", "tags": ["x", "y"]}) + "\n" +
                 json.dumps({"id": "b", "user_input": "two"}) + "\n")
    body = '{"question": "{{question}}", "meta": {"row": "{{id}}", "tags": "{{tags}}", "note": "ref={{reference}}"}}'
    proc = run(ragmeter_bin, q, "--target", target.url, "--out", tmp_path / "a.jsonl", "--body", body)
    assert proc.returncode == 3
    rows = read_jsonl(tmp_path / "a.jsonl")
    assert rows[0]["response"] == "answer to one"
    sent = target.requests()
    assert len(sent) == 1  # the second row never reached the target
    assert sent[0]["body"] == {"question": "one", "meta": {"row": "a", "tags": ["x", "y"], "note": "ref=r1"}}
    err = rows[1]["run_error"]
    assert err["kind"] == "template"
    assert "'{{tags}}'" in err["message"] or "'{{reference}}'" in err["message"]
    assert "row 2 (id b)" in err["message"] and "user_input" in err["message"]


def test_get_with_query_parameters(ragmeter_bin, fake_target, tmp_path):
    target = fake_target()
    q = write_questions(tmp_path / "q.jsonl", ["what & why?"])
    proc = run(ragmeter_bin, q, "--target", target.url, "--out", tmp_path / "a.jsonl", "--method", "GET",
               "--query", "question={{question}}", "--query", "k=5")
    assert proc.returncode == 0, proc.stderr
    assert read_jsonl(tmp_path / "a.jsonl")[0]["response"] == "answer to what & why?"
    assert target.requests()[0]["path"] == "/ask?question=what%20%26%20why%3F&k=5"


def test_secret_header_reaches_the_target_and_no_file(ragmeter_bin, fake_target, tmp_path):
    import os
    target = fake_target()
    secret = "sk-test-SECRET-4242"
    q = write_questions(tmp_path / "q.jsonl", ["plain", "always 500"])
    env = dict(os.environ, MY_RAG_TOKEN=f"Bearer {secret}")
    out, summary = tmp_path / "a.jsonl", tmp_path / "s.json"
    proc = subprocess.run([str(ragmeter_bin), "run", str(q), "--target", target.url, "--out", str(out),
                           "--summary", str(summary), "--header-env", "Authorization=MY_RAG_TOKEN",
                           "--max-attempts", "1"], capture_output=True, text=True, env=env)
    assert proc.returncode == 3
    assert all(r["headers"]["Authorization"] == f"Bearer {secret}" for r in target.requests())
    for path in tmp_path.iterdir():
        if path.name.startswith("fake-target"):
            continue
        assert secret.encode() not in path.read_bytes(), path
    assert secret not in proc.stdout + proc.stderr
    missing = run(ragmeter_bin, q, "--target", target.url, "--out", out, "--header-env", "X-Key=NOT_SET_VAR_X")
    assert missing.returncode == 2 and "NOT_SET_VAR_X" in missing.stderr


def test_rerun_is_served_from_the_record_unless_fresh(ragmeter_bin, fake_target, tmp_path):
    target = fake_target()
    q = write_questions(tmp_path / "q.jsonl", [f"question {i}" for i in range(5)] + ["always 500"])
    out = tmp_path / "a.jsonl"
    args = ["--target", target.url, "--out", out, "--max-attempts", "1"]
    assert run(ragmeter_bin, q, *args).returncode == 3
    assert len(target.requests()) == 6
    first = read_jsonl(out)
    second = run(ragmeter_bin, q, *args)
    assert second.returncode == 3
    assert len(target.requests()) == 7  # only the failed row was asked again
    assert "5 answers came from the record" in second.stdout
    assert read_jsonl(out) == [{**r, "run_error": {**r["run_error"]}} if "run_error" in r else r for r in first]
    assert run(ragmeter_bin, q, *args, "--fresh").returncode == 3
    assert len(target.requests()) == 13


def test_a_target_that_fails_everything_stops_early_with_one_message(ragmeter_bin, tmp_path):
    q = write_questions(tmp_path / "q.jsonl", [f"question {i}" for i in range(200)])
    out = tmp_path / "a.jsonl"
    start = time.monotonic()
    proc = run(ragmeter_bin, q, "--target", "http://127.0.0.1:9/ask", "--out", out, "--concurrency", "2",
               "--max-attempts", "2")
    assert time.monotonic() - start < 30
    assert proc.returncode == 2
    assert "failed every one of the first 10 questions" in proc.stderr
    assert "connection" in proc.stderr
    rows = read_jsonl(out)
    assert len(rows) == 200  # every row keeps its place
    kinds = [r["run_error"]["kind"] for r in rows]
    assert kinds.count("connection") <= 12 and kinds.count("not_asked") >= 188


def test_sigkill_mid_run_then_restart_asks_only_unanswered_questions(ragmeter_bin, fake_target, tmp_path):
    target = fake_target(delay=0.1)
    n = 40
    q = write_questions(tmp_path / "q.jsonl", [f"question {i}" for i in range(n)])
    out, record = tmp_path / "a.jsonl", tmp_path / "a.jsonl.record"
    args = [str(ragmeter_bin), "run", str(q), "--target", target.url, "--out", str(out), "--concurrency", "2"]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def recorded():
        if not record.exists():
            return 0
        with sqlite3.connect(record) as db:
            try:
                return db.execute("SELECT count(*) FROM answers").fetchone()[0]
            except sqlite3.OperationalError:
                return 0

    deadline = time.monotonic() + 60
    while recorded() < 10 and time.monotonic() < deadline:
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    answered_before = recorded()
    asked_before = len(target.requests())
    assert 10 <= answered_before < n
    # Asked without being recorded: at most the attempts in flight at the kill (2) and the
    # answers the record's writer had not committed yet (it commits at most every 10 ms, and
    # at concurrency 2 at most 2 answers arrive within that; src/run/answer_record.h).
    assert asked_before - answered_before <= 2 + 2

    proc = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    asked_after = target.requests()[asked_before:]
    assert len(asked_after) == n - answered_before
    assert len({r["question"] for r in asked_after}) == len(asked_after)
    rows = read_jsonl(out)
    assert [r["user_input"] for r in rows] == [f"question {i}" for i in range(n)]
    assert all(r["response"] == f"answer to {r['user_input']}" for r in rows)


def test_eval_scores_in_the_same_process_as_eval_scores_the_written_answers(ragmeter_bin, fake_target, tmp_path):
    target = fake_target()
    questions = ["what is one", "500 once", "malformed", "no answer", "plain two"]
    q = tmp_path / "q.jsonl"
    with open(q, "w") as f:
        for i, question in enumerate(questions):
            f.write(json.dumps({"id": i, "user_input": question, "reference": f"answer to {question} maybe",
                                "reference_contexts": [f"context one for {question}"]}) + "\n")
    out = tmp_path / "a.jsonl"
    metrics = "token_f1,rouge_l,faithfulness,context_recall"
    proc = run(ragmeter_bin, q, "--target", target.url, "--out", out, "--eval", metrics,
               "--eval-out", tmp_path / "scores.jsonl", "--eval-summary", tmp_path / "es.json",
               "--fail-under", "token_f1=0.99")
    assert proc.returncode == 1, proc.stderr  # the threshold is checked as `eval` checks it
    inline = read_jsonl(tmp_path / "scores.jsonl")
    # The same metrics by `ragmeter eval` over the answers file, afterwards.
    ev = subprocess.run([str(ragmeter_bin), "eval", str(out), "--metrics", metrics, "--out",
                         str(tmp_path / "later.jsonl")], capture_output=True, text=True)
    assert ev.returncode == 3, ev.stderr  # rows rejected: the run_error rows
    later = read_jsonl(tmp_path / "later.jsonl")
    answers = read_jsonl(out)
    assert len(inline) == len(later) == len(answers) == 5
    assert sum("run_error" in a for a in answers) == 2
    for now, after, answer in zip(inline, later, answers):
        # The same outcome, in the same process or afterwards from the file.
        assert now["scores"] == after["scores"] and now["status"] == after["status"]
        if "run_error" in answer:
            # A row without an answer: every metric failed (not skipped for want of a
            # response), naming the run's error, both ways alike.
            assert set(now["status"].values()) == {"failed"}
            assert answer["run_error"]["kind"] in now["reasons"]["token_f1"]
            assert now["reasons"] == after["reasons"]
    summary = json.loads((tmp_path / "es.json").read_text())
    assert summary["rows"] == {"read": 5, "rejected": 2}
    assert summary["metrics"]["token_f1"]["n"] == 3


def _report_blocks(path):
    """The report's two embedded JSON blocks (docs/report.md): its data and its rows."""
    html = path.read_text()
    blocks = {}
    for name in ("ragmeter-data", "ragmeter-rows"):
        start = html.index(f'id="{name}">') + len(f'id="{name}">')
        blocks[name] = html[start:html.index("</script>", start)]
    return json.loads(blocks["ragmeter-data"]), blocks["ragmeter-rows"]


def test_report_of_a_scored_run_is_the_report_of_its_scores(ragmeter_bin, fake_target, tmp_path):
    target = fake_target()
    q = write_questions(tmp_path / "q.jsonl", ["what is one", "malformed", "plain two"])
    proc = run(ragmeter_bin, q, "--target", target.url, "--out", tmp_path / "a.jsonl", "--eval", "token_f1,rouge_l",
               "--eval-out", tmp_path / "s.jsonl", "--eval-summary", tmp_path / "es.json",
               "--report", tmp_path / "run.html")
    assert proc.returncode == 3, proc.stderr  # the malformed reply's row failed
    # `ragmeter report` over the same scores and summary: the same data and rows.
    later = subprocess.run([str(ragmeter_bin), "report", str(tmp_path / "s.jsonl"), "--summary",
                            str(tmp_path / "es.json"), "--out", str(tmp_path / "later.html")],
                           capture_output=True, text=True)
    assert later.returncode == 0, later.stderr
    data, rows = _report_blocks(tmp_path / "run.html")
    later_data, later_rows = _report_blocks(tmp_path / "later.html")
    assert rows == later_rows
    assert data["table"] == later_data["table"] and data["metrics"] == later_data["metrics"]
    assert data["kind"] == "run" and len(rows.strip().splitlines()) == 3


def test_report_without_eval_is_a_usage_error(ragmeter_bin, fake_target, tmp_path):
    q = write_questions(tmp_path / "q.jsonl", ["what is one"])
    proc = run(ragmeter_bin, q, "--target", fake_target().url, "--out", tmp_path / "a.jsonl",
               "--report", tmp_path / "r.html")
    assert proc.returncode == 2 and "--report needs --eval" in proc.stderr
    assert not (tmp_path / "r.html").exists()
