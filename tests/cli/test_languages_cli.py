"""Languages at the command line (issue 33): each result row and the summary say the language,
--language overrides detection, an unknown code exits 2 naming the supported ones, and a row of
invalid UTF-8 in a Chinese file is rejected by line, byte column and field while the others are
scored."""
import json

from cli_shared import read_jsonl

CHINESE_ROWS = [
    # "What is China's capital?" / the passage's clause, copied / the reference.
    {"user_input": "中国的首都是哪里？", "response": "首都是北京。", "reference": "首都是北京",
     "retrieved_contexts": ["中国的首都是北京。"]},
    {"user_input": "中国的首都是哪里？", "response": "首都是上海。", "reference": "首都是北京",
     "retrieved_contexts": ["中国的首都是北京。"]},
]
ENGLISH_ROW = {"user_input": "What is the capital of France?",
               "response": "The capital of France is Paris.",
               "reference": "Paris is the capital of France.",
               "retrieved_contexts": ["Paris is the capital and largest city of France."]}


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                    encoding="utf-8")


def test_rows_and_summary_say_each_samples_language(run, tmp_path):
    data, out, summary = tmp_path / "d.jsonl", tmp_path / "r.jsonl", tmp_path / "s.json"
    write_jsonl(data, CHINESE_ROWS + [ENGLISH_ROW])
    p = run("eval", data, "-m", "token_f1,answer_token_recall,k_precision", "--out", out,
            "--summary", summary)
    assert p.returncode == 0, p.stderr
    rows = read_jsonl(out)
    assert [r["language"] for r in rows] == ["zh", "zh", "en"]
    # The copied answer scores 1 on every token metric, the wrong one 2/3 (two of three words).
    assert rows[0]["scores"] == {"token_f1": 1.0, "answer_token_recall": 1.0, "k_precision": 1.0}
    assert abs(rows[1]["scores"]["token_f1"] - 2 / 3) < 1e-12
    assert json.loads(summary.read_text())["languages"] == {"zh": 2, "en": 1}
    assert "languages: zh 2, en 1" in p.stdout


def test_language_flag_overrides_detection_and_a_column(run, tmp_path):
    data, summary = tmp_path / "d.jsonl", tmp_path / "s.json"
    write_jsonl(data, CHINESE_ROWS + [dict(ENGLISH_ROW, language="en")])
    p = run("eval", data, "-m", "token_f1", "--language", "ja", "--summary", summary, "-q")
    assert p.returncode == 0, p.stderr
    assert json.loads(summary.read_text())["languages"] == {"ja": 3}


def test_unknown_language_exits_2_listing_the_supported_codes(run, tmp_path):
    data = tmp_path / "d.jsonl"
    write_jsonl(data, [ENGLISH_ROW])
    p = run("eval", data, "-m", "token_f1", "--language", "xx", "-q")
    assert p.returncode == 2
    assert "unknown language 'xx' for --language" in p.stderr
    for code in ("en", "zh", "ja", "ko", "de", "th"):
        assert f" {code}," in p.stderr or f" {code}\n" in p.stderr, code


def test_unknown_language_in_a_column_rejects_that_row_only(run, tmp_path):
    data, out = tmp_path / "d.jsonl", tmp_path / "r.jsonl"
    write_jsonl(data, [dict(ENGLISH_ROW, language="klingon"), ENGLISH_ROW])
    p = run("eval", data, "-m", "token_f1", "--out", out, "-q")
    assert p.returncode == 3
    rows = read_jsonl(out)
    assert rows[0]["row_error"]["field"] == "language"
    assert "unknown language 'klingon'" in rows[0]["row_error"]["message"]
    assert rows[1]["status"]["token_f1"] == "ok"


def test_invalid_utf8_rejects_the_row_by_line_and_byte_column(run, tmp_path):
    data, out = tmp_path / "d.jsonl", tmp_path / "r.jsonl"
    good = json.dumps(CHINESE_ROWS[0], ensure_ascii=False).encode("utf-8")
    # Line 2: the first byte of "北" (E5 8C 97) is cut off, so 8C begins a sequence.
    broken = json.dumps(CHINESE_ROWS[0], ensure_ascii=False).encode("utf-8")
    at = broken.index("首都是北京。".encode("utf-8")) + len("首都是".encode("utf-8"))
    broken = broken[:at] + broken[at + 1:]
    data.write_bytes(good + b"\n" + broken + b"\n" + good + b"\n")
    p = run("eval", data, "-m", "token_f1", "--out", out)
    assert p.returncode == 3
    rows = read_jsonl(out)
    assert [r["status"]["token_f1"] for r in rows] == ["ok", "failed", "ok"]
    error = rows[1]["row_error"]
    assert (error["line"], error["field"]) == (2, "response")
    assert error["message"] == "invalid UTF-8 (byte 0x8C)"
    # The terminal names the file, the line and the byte column (1-based) of the bad byte.
    assert f"{data}:2:{at + 1}: field 'response': invalid UTF-8 (byte 0x8C)" in p.stderr
