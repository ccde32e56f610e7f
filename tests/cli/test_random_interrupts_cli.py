"""Every subcommand interrupted at seeded random moments (issue 34): eval with each kind of
metric (lexical, retrieval, offline-judged, local-embedder, LLM-judged), run (with --eval), gen,
report and compare. After each signal (SIGINT or SIGTERM, drawn too) every output must be valid
(each JSONL line parses, no half line, each summary parses and says "cancelled" after exit 130,
an HTML file is whole or left as it was, no temporary file is left) and must hold every row known
finished before the signal: the rows in eval's --out at that moment, the answers the FAKE target
had sent (tests/run/fake_rag_target.py), the rows gen had finished by the FAKE judge's count
(tests/fakes/fake_llm_server.cc). Neither fake is a model; the embedder is the real local model.
Each attempt prints its figures: the delay, the exit code, rows kept and the time to act."""
import json
import os
import random
import signal
import time

import pytest

from cli_shared import JUDGE_REPLY, fake_script, fake_stats
from interrupt_testing import (ACT_BOUND_SECONDS, MODEL_DIR, FakeTarget, check_eval_outputs,
                               check_run_outputs, complete_lines, gen_documents, gen_script,
                               long_rows, questions_file, read_jsonl_strict, start, text_rows,
                               write_jsonl)

SEED = 34
ATTEMPTS = 3
SIGNALS = (signal.SIGINT, signal.SIGTERM)

EVAL_CASES = {
    # name: (metrics, extra flags, latest signal in seconds)
    "eval-lexical": ("token_f1,rouge_l,bleu,chrf", [], 2.0),
    "eval-retrieval": ("precision@3,recall@3,ndcg@3,mrr", [], 2.0),
    "eval-offline-judge": ("faithfulness,context_recall,answer_relevancy", ["--judge", "offline"], 2.0),
    "eval-embedding": ("semantic_similarity,answer_correctness", ["--embedder", "local"], 6.0),
}


@pytest.fixture(scope="module")
def text_data(tmp_path_factory):
    """60,000 rows (about a second of lexical scoring on an idle machine, more for the rest)."""
    return write_jsonl(tmp_path_factory.mktemp("data") / "d.jsonl", text_rows(60_000))


def signal_after(proc, delay, sig, before=lambda: None):
    """Sleeps `delay` (unless the process ends first), notes `before()` just ahead of the
    signal, sends it; returns (exit code, stderr, seconds to act, what before() saw, wall time)."""
    deadline = time.monotonic() + delay
    while time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.01)
    seen, wall = before(), time.time()
    sent = time.monotonic()
    if proc.poll() is None:
        proc.send_signal(sig)
    _, stderr = proc.communicate(timeout=120)
    return proc.returncode, stderr, time.monotonic() - sent, seen, wall


def assert_acted(rc, stderr, seconds, sig, finished_before):
    # 130 after the signal; 0, 1 or 3 when the run ended before it; -sig only when the signal
    # came before the command installed its handlers, so before anything had finished.
    assert rc in (130, 0, 1, 3, -sig), stderr
    if rc == -sig:
        assert finished_before == 0, f"killed by the signal with {finished_before} rows finished"
    if rc == 130:
        assert seconds < ACT_BOUND_SECONDS, seconds


def no_temporaries(folder):
    left = [p for p in os.listdir(folder) if ".tmp-" in p]
    assert not left, left


def attempts(case):
    rng = random.Random(f"{SEED}:{case}")
    return [(i, rng.random(), rng.choice(SIGNALS)) for i in range(ATTEMPTS)]


@pytest.mark.parametrize("case", list(EVAL_CASES))
def test_eval_interrupted_at_random_moments_keeps_valid_complete_rows(case, tmp_path, text_data):
    metrics, flags, latest = EVAL_CASES[case]
    data = text_data
    if case == "eval-embedding":
        if not os.path.exists(os.path.join(MODEL_DIR, "model.safetensors")):
            pytest.fail(f"no model at {MODEL_DIR}: run scripts/setup_embedder.sh")
        flags = flags + ["--embedder-model-path", MODEL_DIR]
        data = write_jsonl(tmp_path / "d.jsonl", long_rows(1000))
    for i, fraction, sig in attempts(case):
        out, summary = tmp_path / f"r{i}.jsonl", tmp_path / f"s{i}.json"
        proc = start(["eval", data, "-m", metrics, *flags, "--out", out, "--summary", summary, "-q"])
        rc, stderr, seconds, before, _ = signal_after(proc, 0.05 + fraction * latest, sig,
                                                      lambda: complete_lines(out))
        assert_acted(rc, stderr, seconds, sig, before)
        kept = check_eval_outputs(out, summary, metrics.split(","), rc, before)
        print(f"\n{case} #{i}: {sig.name} at {0.05 + fraction * latest:.2f} s: exit {rc}, "
              f"{seconds:.2f} s to act, {kept} rows kept ({before} in --out at the signal)")


def test_eval_with_an_llm_judge_interrupted_at_random_moments(tmp_path, fake_judge_server):
    fake_script(fake_judge_server, {"default": {"content": JUDGE_REPLY, "delay_ms": 40}})
    # Rows of their own (claims and verdicts are stored by text: equal rows would cost one call
    # each in all), two calls each, 40 ms a call, 4 at a time: about 40 s for the whole file.
    data = write_jsonl(tmp_path / "d.jsonl", [
        {"id": i, "user_input": f"Where is tower {i}?", "response": f"The tower {i} is in Paris.",
         "reference": f"The tower {i} is in Paris.",
         "retrieved_contexts": [f"Paris has a tower. It is number {i}."]} for i in range(2000)])
    metrics = ["faithfulness", "context_recall", "token_f1"]
    for i, fraction, sig in attempts("eval-llm-judge"):
        out, summary = tmp_path / f"r{i}.jsonl", tmp_path / f"s{i}.json"
        proc = start(["eval", data, "-m", ",".join(metrics), "--judge-url", fake_judge_server + "/v1",
                      "--judge-model", "fake", "--cache-mode", "off", "--concurrency", "4",
                      "--out", out, "--summary", summary, "-q"])
        rc, stderr, seconds, before, _ = signal_after(proc, 0.05 + fraction * 2.5, sig,
                                                      lambda: complete_lines(out))
        assert_acted(rc, stderr, seconds, sig, before)
        kept = check_eval_outputs(out, summary, metrics, rc, before)
        print(f"\neval-llm-judge #{i}: {sig.name}: exit {rc}, {seconds:.2f} s to act, {kept} rows "
              f"kept ({before} in --out at the signal)")


def test_run_interrupted_at_random_moments_keeps_every_answer(tmp_path):
    target = FakeTarget(tmp_path, delay=0.1)
    try:
        questions = questions_file(tmp_path / "q.jsonl", 300)
        for i, fraction, sig in attempts("run"):
            out, summary = tmp_path / f"a{i}.jsonl", tmp_path / f"s{i}.json"
            scores, score_summary = tmp_path / f"e{i}.jsonl", tmp_path / f"es{i}.json"
            started = time.time()
            proc = start(["run", tmp_path / "q.jsonl", "--target", target.url, "--out", out,
                          "--summary", summary, "--concurrency", "8", "--no-record",
                          "--eval", "token_f1", "--eval-out", scores, "--eval-summary", score_summary,
                          "-q"])
            rc, stderr, seconds, _, wall = signal_after(proc, 0.05 + fraction * 3.0, sig)
            sent = target.answered_before(wall - 0.2, since=started)
            assert_acted(rc, stderr, seconds, sig, len(sent))
            answered = check_run_outputs(out, summary, questions, rc, sent)
            scored = check_scores_of_run(scores, score_summary, out, rc)
            print(f"\nrun #{i}: {sig.name}: exit {rc}, {seconds:.2f} s to act, {answered} answers "
                  f"kept ({len(sent)} sent before the signal), "
                  f"{scored} scored")
    finally:
        target.stop()


def check_scores_of_run(scores, score_summary, out, rc):
    if not os.path.exists(scores):
        return 0
    answers = {r["user_input"]: r for r in read_jsonl_strict(out)}
    scored = read_jsonl_strict(scores)
    for r in scored:
        assert answers[r["user_input"]].get("response") == r["response"], r
        assert r["status"] == {"token_f1": "ok"}
    if rc == 130 and os.path.exists(score_summary):
        s = json.loads(open(score_summary).read())
        assert s["cancelled"] is True and s["rows"]["read"] == len(scored)
    return len(scored)


def test_gen_interrupted_at_random_moments_keeps_the_rows_it_accepted(tmp_path, start_fake_llm_server):
    url = start_fake_llm_server("{}")
    docs = gen_documents(tmp_path / "docs")
    for i, fraction, sig in attempts("gen"):
        fake_script(url, gen_script(600, seed=i))
        out, summary = tmp_path / f"t{i}.jsonl", tmp_path / f"s{i}.json"
        proc = start(["gen", docs, "--out", out, "--summary", summary, "--size", "150",
                      "--types", "simple=1", "--neighbours", "0", "--embedder", "offline",
                      "--judge-url", url + "/v1", "--judge-model", "fake", "--cache-mode", "off",
                      "--concurrency", "1", "-q"])
        rc, stderr, seconds, asked, _ = signal_after(proc, 0.05 + fraction * 2.5, sig,
                                                     lambda: fake_stats(url)["chat"])
        assert_acted(rc, stderr, seconds, sig, max(0, (asked - 1) // 3))
        rows = read_jsonl_strict(out) if out.exists() else []
        assert all(r["user_input"] and r["reference"] and r["reference_contexts"] for r in rows)
        if rc == 130:
            assert len(rows) >= (asked - 1) // 3  # three calls a row; the last may be in flight
            s = json.loads(summary.read_text())
            assert s["cancelled"] is True and s["rows"] == len(rows)
        no_temporaries(tmp_path)
        print(f"\ngen #{i}: {sig.name}: exit {rc}, {seconds:.2f} s to act, {len(rows)} rows kept "
              f"({max(0, (asked - 1) // 3)} finished at the signal)")


@pytest.fixture(scope="module")
def results_files(tmp_path_factory):
    """Two eval --out files of 40,000 rows: a report or a comparison of them takes about a
    second, so a signal can come while the file is written."""
    folder = tmp_path_factory.mktemp("results")
    paths = []
    for seed in (1, 2):
        data = write_jsonl(folder / f"d{seed}.jsonl", text_rows(40_000, seed=seed))
        out = folder / f"r{seed}.jsonl"
        proc = start(["eval", data, "-m", "token_f1,rouge_l", "--out", out, "-q"])
        proc.communicate(timeout=300)
        assert proc.returncode == 0
        paths.append(out)
    return paths


@pytest.mark.parametrize("command", ["report", "compare"])
def test_report_and_compare_interrupted_leave_the_old_file_or_a_whole_one(command, tmp_path,
                                                                           results_files):
    base, new = results_files
    for i, fraction, sig in attempts(command):
        html = tmp_path / f"{command}{i}.html"
        html.write_text("old report\n")
        args = (["report", base, "-o", html] if command == "report"
                else ["compare", base, new, "--id", "id", "--html", html])
        proc = start(args)
        rc, stderr, seconds, _, _ = signal_after(proc, fraction * 1.5, sig)
        assert_acted(rc, stderr, seconds, sig, 0)
        text = html.read_text()
        assert text == "old report\n" or text.rstrip().endswith("</html>"), text[-200:]
        if rc == 0:
            assert text != "old report\n"
        no_temporaries(tmp_path)
        print(f"\n{command} #{i}: {sig.name} at {fraction * 1.5:.2f} s: exit {rc}, {seconds:.2f} s "
              f"to act, the file {'kept as it was' if text == 'old report' + chr(10) else 'whole'}")
