"""The `ragmeter eval` contract: outputs, outcomes, errors with file and line, exit codes."""
import csv
import io
import json

from cli_shared import REPO, read_jsonl

EXAMPLE = REPO / "examples" / "halueval_rag.jsonl"


def test_example_scores_every_row_with_the_contract_fields(run, tmp_path):
    out, summary = tmp_path / "r.jsonl", tmp_path / "s.json"
    p = run("eval", EXAMPLE, "--metrics", "token_f1,rouge_l,bleu,ndcg@3,mrr",
            "--out", out, "--summary", summary)
    assert p.returncode == 0, p.stderr
    rows = read_jsonl(out)
    source = read_jsonl(EXAMPLE)
    assert len(rows) == len(source) == 30
    for row, original in zip(rows, source):
        # The row's own fields come first and unchanged, then its language and the result
        # blocks (the example is English: no "languages" of a mixed sample).
        assert list(row)[: len(original)] == list(original)
        assert row["id"] == original["id"]
        assert list(row)[len(original):] == ["language", "scores", "status", "reasons", "evidence"]
        assert row["language"] == "en"
        assert set(row["status"].values()) == {"ok"}
        assert 0.0 <= row["scores"]["token_f1"] <= 1.0
        # The gold passage is in the retrieval of every row: hit at some rank.
        assert row["scores"]["mrr"] > 0
    s = json.loads(summary.read_text())
    assert set(s) >= {"metrics", "usage", "judge", "rows"}
    assert s["rows"] == {"read": 30, "rejected": 0}
    assert s["languages"] == {"en": 30}
    m = s["metrics"]["token_f1"]
    assert set(m) >= {"mean", "std", "ci95", "n", "skipped", "failed"}
    assert m["n"] == 30 and m["ci95"][0] <= m["mean"] <= m["ci95"][1]
    mean = sum(r["scores"]["token_f1"] for r in rows) / 30
    assert abs(m["mean"] - mean) < 1e-12
    assert "corpus" in s["metrics"]["bleu"]
    assert "token_f1" in p.stdout and "judge:" in p.stdout


def test_hallucinated_answers_score_lower_token_f1(run, tmp_path):
    out = tmp_path / "r.jsonl"
    assert run("eval", EXAMPLE, "-m", "token_f1", "--out", out, "-q").returncode == 0
    rows = read_jsonl(out)
    right = [r["scores"]["token_f1"] for r in rows if not r["hallucinated"]]
    wrong = [r["scores"]["token_f1"] for r in rows if r["hallucinated"]]
    assert sum(right) / len(right) > sum(wrong) / len(wrong)


def test_malformed_rows_are_reported_with_file_and_line_and_the_run_goes_on(run, tmp_path):
    data = tmp_path / "bad.jsonl"
    data.write_text('{"response": "a", "reference": "a"}\n'
                    '{"response": "a", "reference": \n'
                    '{"response": ["x"], "reference": "a"}\n'
                    '{"response": "b", "reference": "b"}\n')
    out, summary = tmp_path / "r.jsonl", tmp_path / "s.json"
    p = run("eval", data, "-m", "exact_match", "--out", out, "--summary", summary, "-q")
    assert p.returncode == 3, p.stderr
    assert f"{data}:2" in p.stderr
    assert f"{data}:3" in p.stderr and "response" in p.stderr
    rows = read_jsonl(out)
    # One object per input row, in input order; rejected rows keep their place.
    assert [r["scores"]["exact_match"] for r in rows] == [1.0, None, None, 1.0]
    assert rows[1]["row_error"]["line"] == 2 and rows[1]["status"] == {"exact_match": "failed"}
    assert rows[2]["row_error"]["field"] == "response"
    assert str(data) + ":3" in rows[2]["reasons"]["exact_match"]
    assert json.loads(summary.read_text())["rows"] == {"read": 4, "rejected": 2}
    assert run("eval", data, "-m", "exact_match", "-q", "--allow-failures").returncode == 0
    strict = run("eval", data, "-m", "exact_match", "-q", "--strict")
    assert strict.returncode == 2 and f"{data}:2" in strict.stderr


def test_missing_fields_are_skipped_with_a_reason_not_nan(run, tmp_path):
    data = tmp_path / "d.jsonl"
    data.write_text('{"response": "a"}\n{"response": "a", "reference": "a"}\n')
    out, summary = tmp_path / "r.jsonl", tmp_path / "s.json"
    p = run("eval", data, "-m", "token_f1", "--out", out, "--summary", summary, "-q")
    assert p.returncode == 0
    first = read_jsonl(out)[0]
    assert first["scores"]["token_f1"] is None
    assert first["status"]["token_f1"] == "skipped"
    assert "reference" in first["reasons"]["token_f1"]
    m = json.loads(summary.read_text())["metrics"]["token_f1"]
    assert (m["n"], m["skipped"], m["complete"]) == (1, 1, False)


def test_fail_under_sets_exit_code_one(run):
    assert run("eval", EXAMPLE, "-m", "token_f1", "-q", "--fail-under", "token_f1=0.99").returncode == 1
    assert run("eval", EXAMPLE, "-m", "token_f1", "-q", "--fail-under", "token_f1=0.1").returncode == 0
    assert run("eval", EXAMPLE, "-m", "token_f1", "-q", "--fail-under", "bleu=0.1").returncode == 2


def test_bad_usage_exits_two_with_a_clear_message(run, tmp_path):
    p = run("eval", tmp_path / "missing.jsonl")
    assert p.returncode == 2 and "missing.jsonl" in p.stderr
    p = run("eval", EXAMPLE, "-m", "no_such_metric")
    assert p.returncode == 2 and "no_such_metric" in p.stderr
    assert run("eval").returncode == 2
    assert run("frobnicate").returncode == 2


def test_threads_do_not_change_results(run, tmp_path):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    metrics = "token_f1,rouge_l,chrf,levenshtein_similarity,ndcg@4"
    assert run("eval", EXAMPLE, "-m", metrics, "--out", a, "-j", "1", "-q").returncode == 0
    assert run("eval", EXAMPLE, "-m", metrics, "--out", b, "-j", "2", "-q").returncode == 0
    assert a.read_bytes() == b.read_bytes()


def test_csv_output_has_score_status_reason_columns(run, tmp_path):
    out = tmp_path / "r.csv"
    assert run("eval", EXAMPLE, "-m", "token_f1,exact_match", "--out", out, "-q").returncode == 0
    rows = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8"))))
    assert len(rows) == 30
    assert {"token_f1", "token_f1_status", "token_f1_reason", "exact_match"} <= set(rows[0])
    assert json.loads(rows[0]["retrieved_contexts"])  # lists written as JSON text


def test_csv_input_with_pandas_list_literals_and_column_map(run, tmp_path):
    data = tmp_path / "d.csv"
    data.write_text('query,answer,gold,contexts,gold_contexts\n'
                    '"Who?","Ada Lovelace","Ada Lovelace","[\'Ada wrote the first program\', \\"it\'s\\"]","[\'Ada wrote the first program\']"\n'.replace('\\"', '""'))
    out = tmp_path / "r.jsonl"
    p = run("eval", data, "-m", "exact_match,non_llm_context_recall", "--out", out, "-q",
            "--column-map", "query=user_input", "--column-map", "gold=reference",
            "--column-map", "gold_contexts=reference_contexts")
    assert p.returncode == 0, p.stderr
    row = read_jsonl(out)[0]
    assert row["scores"] == {"exact_match": 1.0, "non_llm_context_recall": 1.0}


def test_json_array_input_and_stdin(run, tmp_path):
    data = tmp_path / "d.json"
    data.write_text(json.dumps([{"answer": "x y", "ground_truth": "x y"}]))
    out = tmp_path / "r.jsonl"
    assert run("eval", data, "-m", "token_f1", "--out", out, "-q").returncode == 0
    assert read_jsonl(out)[0]["scores"]["token_f1"] == 1.0
    p = run("eval", "-", "--format", "jsonl", "-m", "token_f1", "--out", out, "-q",
            stdin='{"answer": "x", "ground_truth": "x"}\n')
    assert p.returncode == 0, p.stderr
    assert read_jsonl(out)[0]["scores"]["token_f1"] == 1.0


def test_docs_metrics_md_is_generated_from_the_table(run):
    p = run("metrics", "--markdown")
    assert p.returncode == 0
    assert p.stdout == (REPO / "docs" / "metrics.md").read_text(encoding="utf-8"), \
        "docs/metrics.md is stale: regenerate with `ragmeter metrics --markdown > docs/metrics.md`"


def test_help_and_version(run):
    p = run("--help")
    assert p.returncode == 0 and "eval" in p.stdout and "ir" in p.stdout
    p = run("eval", "--help")
    assert p.returncode == 0 and "--fail-under" in p.stdout and "Exit codes" in p.stdout
    assert run("--version").stdout.startswith("ragmeter ")


def test_offline_judge_is_the_default_and_says_how_to_use_an_llm(run, tmp_path):
    summary = tmp_path / "s.json"
    p = run("eval", EXAMPLE, "--metrics", "ragas,factual_correctness", "--summary", summary)
    assert p.returncode == 0, p.stderr
    assert "judge: offline" in p.stdout and "--judge-url" in p.stdout
    s = json.loads(summary.read_text())
    assert s["judge"]["name"].startswith("offline")
    assert s["usage"]["requests"] == 0
    for name in ("faithfulness", "answer_relevancy", "context_precision", "context_recall",
                 "factual_correctness"):
        assert s["metrics"][name]["n"] + s["metrics"][name]["skipped"] == 30


def test_metrics_withdrawn_from_the_offline_judge_are_skipped_unless_forced(run, tmp_path):
    out = tmp_path / "r.jsonl"
    p = run("eval", EXAMPLE, "--metrics", "answer_relevancy,faithfulness", "-q", "--out", out)
    assert p.returncode == 0, p.stderr
    rows = [json.loads(l) for l in out.read_text().splitlines()]
    assert {r["status"]["answer_relevancy"] for r in rows} == {"skipped"}
    reason = rows[0]["reasons"]["answer_relevancy"]
    assert reason.startswith("withdrawn from the offline judge: ")
    assert "--offline-score-withdrawn" in reason and "docs/judges.md" in reason
    assert {r["status"]["faithfulness"] for r in rows} == {"ok"}
    # Forced, the offline judge scores it.
    p = run("eval", EXAMPLE, "--metrics", "answer_relevancy", "-q", "--out", out,
            "--offline-score-withdrawn")
    assert p.returncode == 0, p.stderr
    assert {json.loads(l)["status"]["answer_relevancy"] for l in out.read_text().splitlines()} == {"ok"}
    # The default list leaves it out, as it does the critics, unless forced.
    summary = tmp_path / "s.json"
    assert run("eval", EXAMPLE, "-q", "--summary", summary).returncode == 0
    names = json.loads(summary.read_text())["metrics"]
    assert "answer_relevancy" not in names and "ragchecker_hallucination" not in names
    assert "faithfulness" in names
    assert run("eval", EXAMPLE, "-q", "--summary", summary, "--offline-score-withdrawn").returncode == 0
    assert "answer_relevancy" in json.loads(summary.read_text())["metrics"]


def test_dry_run_counts_the_calls_of_the_compact_plan_and_sends_nothing(run, tmp_path):
    # Two multi-sentence texts (so one claims call) and two chunks: faithfulness needs the
    # ledger: 1 claims call + 1 verdict table (the claims against both chunks, the
    # reference and the response at once).
    row = {"user_input": "Where is the tower?",
           "response": "The tower is in Paris. It was built in 1889.",
           "reference": "The Eiffel Tower stands in Paris. It opened in 1889.",
           "retrieved_contexts": ["Paris is the capital of France.", "The tower opened in 1889."]}
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps(row) + "\n")
    # Port 9 (discard) on loopback: nothing listens, so any request would fail the run.
    p = run("eval", data, "--metrics", "faithfulness", "--dry-run",
            "--judge-url", "http://127.0.0.1:9/v1", "--judge-model", "local-model")
    assert p.returncode == 0, p.stderr
    assert "planned calls: 2 (claims 1, verdicts 1)" in p.stdout
    assert "unknown price" in p.stdout
    # answer_relevancy adds one questions call; a short answer needs no claims call.
    row["response"] = row["reference"] = "Paris"
    data.write_text(json.dumps(row) + "\n")
    p = run("eval", data, "--metrics", "faithfulness,answer_relevancy", "--dry-run",
            "--judge-url", "http://127.0.0.1:9/v1", "--judge-model", "local-model")
    assert "planned calls: 2 (questions 1, verdicts 1)" in p.stdout, p.stdout
