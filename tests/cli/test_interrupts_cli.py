"""Interrupts (issue 34): `run` writes answers as they arrive and, on SIGINT or SIGTERM, stops
asking, abandons what is in flight, writes every answer that arrived and a summary marked
cancelled, and exits 130; `eval` with the local embedder acts on a signal within about a second
and keeps the rows it finished (a batch is never the unit of loss); `gen` keeps the rows it
accepted. The targets and judges are FAKES (tests/run/fake_rag_target.py,
tests/run/fake_rag_command.py, tests/fakes/fake_llm_server.cc), not models; the embedder is the
real local model. Each test prints the time from the signal to the exit."""
import json
import os
import signal
import sys
import time

import pytest

from cli_shared import fake_script, fake_stats
from interrupt_testing import (ACT_BOUND_SECONDS, FAKE_COMMAND, MODEL_DIR, FakeTarget,
                               check_eval_outputs, check_run_outputs, complete_lines, gen_documents,
                               gen_script, interrupt, long_rows, questions_file, read_jsonl_strict,
                               start, text_rows, wait_for, write_jsonl)


def test_run_writes_each_answer_to_out_as_it_arrives(tmp_path):
    target = FakeTarget(tmp_path, delay=0.25)
    try:
        questions = questions_file(tmp_path / "q.jsonl", 16)
        out = tmp_path / "a.jsonl"
        proc = start(["run", tmp_path / "q.jsonl", "--target", target.url, "--out", out,
                      "--concurrency", "1", "--no-record", "-q"])
        # Four seconds of answers in all; the first ones are on disk long before the end.
        wait_for(lambda: complete_lines(out) >= 3, timeout=3, what="3 answers in --out")
        assert proc.poll() is None
        assert [r["user_input"] for r in read_jsonl_strict(out)] == questions[:complete_lines(out)]
        assert proc.wait(timeout=60) == 0
    finally:
        target.stop()


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_an_interrupted_run_keeps_every_answer_and_writes_interrupted_summaries(tmp_path, sig):
    target = FakeTarget(tmp_path, delay=0.3)
    try:
        questions = questions_file(tmp_path / "q.jsonl", 200)
        out, summary = tmp_path / "a.jsonl", tmp_path / "s.json"
        scores, score_summary = tmp_path / "e.jsonl", tmp_path / "es.json"
        proc = start(["run", tmp_path / "q.jsonl", "--target", target.url, "--out", out,
                      "--summary", summary, "--concurrency", "4", "--no-record",
                      "--eval", "token_f1,exact_match", "--eval-out", scores,
                      "--eval-summary", score_summary, "-q"])
        wait_for(lambda: complete_lines(out) >= 6, timeout=30, what="6 answers")
        time.sleep(0.15)  # answers in flight
        sent_at = time.time()
        rc, stderr, seconds = interrupt(proc, sig)
        print(f"\nrun {sig.name}: exit {rc} {seconds:.2f} s after the signal")
        assert rc == 130, stderr
        assert seconds < ACT_BOUND_SECONDS
        assert "interrupted" in stderr
        answered = check_run_outputs(out, summary, questions, rc, target.answered_before(sent_at - 0.2))
        rows = read_jsonl_strict(out)
        assert answered >= 6 and len(rows) < len(questions)
        assert all(r["run_error"]["kind"] == "interrupted" for r in rows if "run_error" in r)
        # The record is off: the answers exist only in --out, which has each one asked.
        assert len(rows) == len({json.loads(line)["question"]
                                 for line in target.log.read_text().splitlines()})
        # The scores: a prefix of the answered rows, each complete; the summary covers them.
        scored = read_jsonl_strict(scores)
        assert [r["user_input"] for r in scored] == [r["user_input"] for r in rows[:len(scored)]]
        assert all("response" in r for r in scored)
        assert all(r["status"] == {"token_f1": "ok", "exact_match": "ok"} for r in scored)
        s = json.loads(score_summary.read_text())
        assert s["cancelled"] is True and s["rows"] == {"read": len(scored), "rejected": 0}
    finally:
        target.stop()


def test_an_interrupted_run_does_not_wait_for_a_hanging_command(tmp_path):
    state = tmp_path / "state"
    state.mkdir()
    write_jsonl(tmp_path / "q.jsonl", [{"user_input": q} for q in
                                       ["first question", "second question", "please hang here",
                                        "fourth question"]])
    out, summary = tmp_path / "a.jsonl", tmp_path / "s.json"
    proc = start(["run", tmp_path / "q.jsonl", "--target-cmd", f"{sys.executable} {FAKE_COMMAND} {state}",
                  "--out", out, "--summary", summary, "--concurrency", "1", "--timeout", "60",
                  "--no-record", "-q"])
    wait_for(lambda: (state / "requests.jsonl").exists() and "hang" in (state / "requests.jsonl").read_text(),
             timeout=30, what="the hanging question to be asked")
    rc, stderr, seconds = interrupt(proc, signal.SIGTERM)
    print(f"\nrun --target-cmd, a process hanging for 120 s: exit {rc} {seconds:.2f} s after the signal")
    assert rc == 130, stderr
    assert seconds < ACT_BOUND_SECONDS  # not the 60 s timeout, not the 120 s hang
    rows = read_jsonl_strict(out)
    assert [r.get("response") for r in rows[:2]] == ["answer to first question", "answer to second question"]
    assert rows[2]["run_error"]["kind"] == "interrupted" and len(rows) == 3
    assert json.loads(summary.read_text())["cancelled"] is True


def test_eval_with_the_local_embedder_acts_within_a_second_and_keeps_finished_rows(tmp_path):
    if not os.path.exists(os.path.join(MODEL_DIR, "model.safetensors")):
        pytest.fail(f"no model at {MODEL_DIR}: run scripts/setup_embedder.sh")
    data = write_jsonl(tmp_path / "d.jsonl", long_rows(1000))
    out, summary = tmp_path / "r.jsonl", tmp_path / "s.json"
    metrics = ["semantic_similarity", "answer_correctness"]
    proc = start(["eval", data, "-m", ",".join(metrics), "--embedder", "local",
                  "--embedder-model-path", MODEL_DIR, "--out", out, "--summary", summary, "-q"])
    # Rows reach --out piece by piece, not after the whole batch has been embedded.
    wait_for(lambda: complete_lines(out) >= 8, timeout=30, what="8 scored rows")
    before = complete_lines(out)
    rc, stderr, seconds = interrupt(proc, signal.SIGINT)
    kept = check_eval_outputs(out, summary, metrics, rc, before)
    print(f"\neval {','.join(metrics)} (local embedder), 1,000 rows: exit {rc} {seconds:.2f} s after "
          f"the signal; {kept} rows kept ({before} were in --out at the signal)")
    assert rc == 130, stderr
    assert seconds < ACT_BOUND_SECONDS
    assert 0 < kept < 1000


def test_an_interrupted_gen_writes_the_rows_it_accepted(tmp_path, start_fake_llm_server):
    url = start_fake_llm_server("{}")
    fake_script(url, gen_script(400))
    out, summary = tmp_path / "t.jsonl", tmp_path / "s.json"
    proc = start(["gen", gen_documents(tmp_path / "docs"), "--out", out, "--summary", summary,
                  "--size", "100", "--types", "simple=1", "--neighbours", "0", "--embedder", "offline",
                  "--judge-url", url + "/v1", "--judge-model", "fake", "--cache-mode", "off",
                  "--concurrency", "1", "-q"])
    wait_for(lambda: fake_stats(url)["chat"] >= 13, timeout=30, what="four rows' calls")
    asked = fake_stats(url)["chat"]
    rc, stderr, seconds = interrupt(proc, signal.SIGINT)
    rows = read_jsonl_strict(out)
    print(f"\ngen: exit {rc} {seconds:.2f} s after the signal; {len(rows)} rows kept "
          f"({(asked - 1) // 3} known accepted at the signal)")
    assert rc == 130, stderr
    assert seconds < ACT_BOUND_SECONDS
    assert len(rows) >= (asked - 1) // 3 >= 4  # three calls a row, the last asked maybe in flight
    assert all(r["user_input"] and r["reference"] == "The Danube." and r["reference_contexts"] for r in rows)
    s = json.loads(summary.read_text())
    assert s["cancelled"] is True and s["rows"] == len(rows)


def test_a_report_interrupted_while_it_is_written_leaves_the_old_file_and_no_temporary(tmp_path):
    data = write_jsonl(tmp_path / "d.jsonl", text_rows(40_000))
    results = tmp_path / "r.jsonl"
    proc = start(["eval", data, "-m", "token_f1,rouge_l", "--out", results, "-q"])
    assert proc.wait(timeout=300) == 0
    folder = tmp_path / "out"
    folder.mkdir()
    html = folder / "report.html"
    html.write_text("old report\n")
    proc = start(["report", results, "-o", html])

    def writing():  # the file was opened (truncated), or its temporary exists
        return html.stat().st_size != len("old report\n") or any(".tmp-" in p for p in os.listdir(folder))

    deadline = time.monotonic() + 120
    while not writing() and proc.poll() is None:
        assert time.monotonic() < deadline
        time.sleep(0.001)
    rc, stderr, seconds = interrupt(proc, signal.SIGINT)
    text = html.read_text()
    print(f"\nreport interrupted while written: exit {rc} {seconds:.2f} s after the signal; the file "
          f"{'kept as it was' if text == 'old report' + chr(10) else 'whole'}")
    assert rc == 130, stderr
    assert text == "old report\n" or text.rstrip().endswith("</html>"), text[-200:]
    assert os.listdir(folder) == ["report.html"]
