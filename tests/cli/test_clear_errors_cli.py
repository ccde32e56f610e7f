"""Clear errors instead of silent success (issue 16): unusable input and unwritable outputs each
end in one clear message, never in a quiet exit 0 (a judge that refuses or misbehaves:
test_judge_faults_cli.py). Judge calls are counted at the FAKE server
(tests/fakes/fake_llm_server.cc, not a model)."""
import csv
import json

from cli_shared import JUDGE_ROW as ROW, fake_stats, read_jsonl, judge_flags


def test_empty_input_is_unusable_and_exits_2(run, tmp_path):
    cases = {"empty.jsonl": "", "empty.csv": "", "header_only.csv": "response,reference\n",
             "blank_lines.jsonl": "\n\n", "empty_array.json": "[]"}
    for name, text in cases.items():
        path = tmp_path / name
        path.write_text(text)
        p = run("eval", path, "-m", "exact_match", "-q")
        assert p.returncode == 2, (name, p.stderr)
        assert "has no rows" in p.stderr and name in p.stderr


def test_rows_inside_a_data_object_are_read_with_rows_path(run, tmp_path):
    data = tmp_path / "hf.json"
    rows = [{"response": "a", "reference": "a"}, {"response": "b", "reference": "c"}]
    data.write_text(json.dumps({"version": 1, "meta": {"n": [1, 2]}, "data": rows}))
    p = run("eval", data, "-m", "exact_match", "-q")
    assert p.returncode == 2 and "--rows-path" in p.stderr
    out, summary = tmp_path / "r.jsonl", tmp_path / "s.json"
    p = run("eval", data, "--rows-path", "data", "-m", "exact_match", "--out", out,
            "--summary", summary, "-q")
    assert p.returncode == 0, p.stderr
    assert [r["scores"]["exact_match"] for r in read_jsonl(out)] == [1.0, 0.0]
    assert json.loads(summary.read_text())["rows"] == {"read": 2, "rejected": 0}
    p = run("eval", data, "--rows-path", "meta.rows", "-m", "exact_match", "-q")
    assert p.returncode == 2 and "meta.rows" in p.stderr


def test_nested_fields_are_read_by_dotted_column_map(run, tmp_path):
    data = tmp_path / "nested.jsonl"
    data.write_text(json.dumps({"output": {"text": "Paris"}, "gold": {"answers": "Paris"}}) + "\n" +
                    json.dumps({"output": {"text": "Rome"}, "gold": {"answers": "Paris"}}) + "\n")
    out = tmp_path / "r.jsonl"
    p = run("eval", data, "-m", "exact_match", "--out", out, "-q",
            "--column-map", "output.text=response", "--column-map", "gold.answers=reference")
    assert p.returncode == 0, p.stderr
    assert [r["scores"]["exact_match"] for r in read_jsonl(out)] == [1.0, 0.0]


def test_a_column_map_naming_a_column_no_row_has_is_an_error(run, tmp_path):
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps({"answer": "a", "ground_truth": "a"}) + "\n")
    p = run("eval", data, "-m", "exact_match", "-q", "--column-map", "anwser=response")
    assert p.returncode == 2
    assert "anwser" in p.stderr and "no row" in p.stderr


def test_a_number_where_text_belongs_is_rejected_as_a_boolean_is(run, tmp_path):
    data = tmp_path / "d.jsonl"
    data.write_text('{"response": 42, "reference": "42"}\n'
                    '{"response": true, "reference": "true"}\n'
                    '{"response": "42", "reference": "42"}\n')
    out = tmp_path / "r.jsonl"
    p = run("eval", data, "-m", "exact_match", "--out", out, "-q")
    assert p.returncode == 3
    rows = read_jsonl(out)
    assert [r["status"]["exact_match"] for r in rows] == ["failed", "failed", "ok"]
    for row in rows[:2]:
        assert row["row_error"]["field"] == "response"
    assert "got a number" in rows[0]["row_error"]["message"]
    assert "got a boolean" in rows[1]["row_error"]["message"]


def test_a_duplicate_key_or_column_is_warned_by_name(run, tmp_path):
    data = tmp_path / "d.jsonl"
    data.write_text('{"response": "a", "reference": "a", "response": "b"}\n')
    p = run("eval", data, "-m", "exact_match", "-q")
    assert p.returncode == 0, p.stderr
    assert "duplicate key 'response'" in p.stderr and f"{data}:1" in p.stderr
    table = tmp_path / "d.csv"
    table.write_text("response,reference,response\na,a,b\nc,c,d\n")
    p = run("eval", table, "-m", "exact_match", "-q")
    assert p.returncode == 0, p.stderr
    assert p.stderr.count("duplicate column 'response'") == 1


def test_an_embeddings_server_alone_is_enough_for_semantic_similarity(run, tmp_path, fake_judge_server):
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps(ROW) + "\n")
    out = tmp_path / "r.jsonl"
    p = run("eval", data, "-m", "semantic_similarity,exact_match", "--out", out, "-q",
            "--embedder-url", fake_judge_server + "/v1", "--embedder-model", "fake-embedder",
            "--cache-mode", "off")
    assert p.returncode == 0, p.stderr
    row = read_jsonl(out)[0]
    assert row["status"] == {"semantic_similarity": "ok", "exact_match": "ok"}
    assert fake_stats(fake_judge_server)["embeddings"] == 1 and fake_stats(fake_judge_server)["chat"] == 0
    # The dry run plans that one request (it said "no judge calls" before).
    p = run("eval", data, "-m", "semantic_similarity,exact_match", "--dry-run",
            "--embedder-url", fake_judge_server + "/v1", "--embedder-model", "fake-embedder")
    assert p.returncode == 0, p.stderr
    assert "planned calls: 1 (embeddings 1)" in p.stdout, p.stdout
    assert fake_stats(fake_judge_server)["requests"] == 1  # nothing more was sent


def test_an_unwritable_output_is_found_before_any_request(run, tmp_path, fake_judge_server):
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps(ROW) + "\n")
    for flag in ("--summary", "--traces", "--out"):
        target = tmp_path / "no_such_dir" / "x.json"
        p = run("eval", data, "-m", "faithfulness", "-q", flag, target, *judge_flags(fake_judge_server))
        assert fake_stats(fake_judge_server)["requests"] == 0, flag  # nothing paid for
        assert p.returncode == 2, (flag, p.stderr)
        assert flag in p.stderr and "No such file or directory" in p.stderr


def test_the_csv_header_does_not_come_from_a_rejected_first_row(run, tmp_path):
    data = tmp_path / "d.jsonl"
    data.write_text('{"response": "a", "reference": \n'
                    '{"id": 1, "response": "a", "reference": "a"}\n'
                    '{"id": 2, "response": "b", "reference": "c"}\n')
    out = tmp_path / "r.csv"
    p = run("eval", data, "-m", "exact_match", "--out", out, "-q")
    assert p.returncode == 3
    rows = list(csv.DictReader(open(out, newline="", encoding="utf-8")))
    assert list(rows[0])[:3] == ["id", "response", "reference"]
    assert [r["exact_match_status"] for r in rows] == ["failed", "ok", "ok"]
    assert [r["id"] for r in rows] == ["", "1", "2"]
    assert all(r["extra_fields"] == "" for r in rows)


def test_out_with_an_upper_case_csv_extension_writes_csv(run, tmp_path):
    data = tmp_path / "d.jsonl"
    data.write_text('{"response": "a", "reference": "a"}\n')
    out = tmp_path / "o.CSV"
    assert run("eval", data, "-m", "exact_match", "--out", out, "-q").returncode == 0
    assert out.read_text().splitlines()[0].startswith("response,reference,language,exact_match")


def test_stdin_without_format_names_the_flag(run):
    p = run("eval", "-", "-m", "exact_match", stdin='{"response": "a", "reference": "a"}\n')
    assert p.returncode == 2 and "--format" in p.stderr


def test_an_unknown_metric_suggests_the_nearest_name(run, tmp_path):
    data = tmp_path / "d.jsonl"
    data.write_text('{"response": "a", "reference": "a"}\n')
    p = run("eval", data, "-m", "faithfullness")
    assert p.returncode == 2 and "did you mean 'faithfulness'" in p.stderr
    p = run("eval", data, "-m", "rougel")
    assert p.returncode == 2 and "did you mean 'rouge_l'" in p.stderr
