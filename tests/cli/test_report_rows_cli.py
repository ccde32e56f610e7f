"""`ragmeter report` and `-` as an output (issue 34, "What the user sees"): rejected rows
are counted in the report, eval's CSV output reads back as its JSONL, and `-` is standard
output, never a file named "-". The report's data is read from its JSON block."""
import json
import re
import subprocess
from pathlib import Path

from cli_shared import BUILD

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "halueval_rag.jsonl"


def report_data(html):
    block = re.search(r'<script type="application/json" id="ragmeter-data">(.*?)</script>', html, re.S)
    return json.loads(block.group(1))


def eight_rows_five_rejected(path):
    rows = []
    for i in range(8):
        row = {"id": f"r{i}", "user_input": f"q{i}", "response": "the cat sat",
               "reference": "the cat sat on the mat"}
        if i in (0, 2, 3, 5, 7):
            row["response"] = {"not": "text"}  # a field of the wrong type: the row is rejected
        rows.append(row)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_the_report_counts_rejected_rows_as_rejected_and_failed(run, tmp_path):
    data = eight_rows_five_rejected(tmp_path / "d.jsonl")
    out = tmp_path / "r.jsonl"
    assert run("eval", data, "-m", "token_f1", "--out", out, "-q").returncode == 3
    page = run("report", out, "-o", "-")
    assert page.returncode == 0, page.stderr
    data = report_data(page.stdout)
    assert data["identity"]["rows"] == 8 and data["identity"]["rejected"] == 5
    token_f1 = data["metrics"][0]
    # 3 scored; the 5 rejected rows are failed for every metric, as their status says.
    assert (token_f1["n"], token_f1["skipped"], token_f1["failed"], token_f1["rejected"]) == (3, 0, 5, 5)
    assert data["table"]["status"]["token_f1"] == "foffofof"  # rows 0, 2, 3, 5, 7 rejected


def test_report_reads_evals_csv_output_as_its_jsonl(run, tmp_path):
    rows = [json.loads(l) for l in EXAMPLE.read_text().splitlines()][:12]
    rows[4]["reference"] = 3  # rejected: keeps its place in both outputs
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    pages = {}
    for suffix in ("jsonl", "csv"):
        out = tmp_path / f"r.{suffix}"
        assert run("eval", data, "-m", "token_f1,bleu,recall,faithfulness", "--out", out,
                   "-q").returncode == 3
        page = run("report", out, "-o", "-")
        assert page.returncode == 0, page.stderr
        pages[suffix] = report_data(page.stdout)
    jsonl, csv = pages["jsonl"], pages["csv"]
    assert csv["metrics"] == jsonl["metrics"]  # means, intervals, counts, reasons
    assert csv["table"] == jsonl["table"]      # ids, questions, every score, status, reason
    assert csv["identity"]["rejected"] == jsonl["identity"]["rejected"] == 1


def test_a_csv_that_is_not_a_results_file_is_refused(run, tmp_path):
    plain = tmp_path / "plain.csv"
    plain.write_text("user_input,response\nq,a\n", encoding="utf-8")
    p = run("report", plain, "-o", tmp_path / "x.html")
    assert p.returncode == 2 and "not a results CSV" in p.stderr


def test_dash_is_standard_output_never_a_file(tmp_path):
    binary = str(BUILD / "ragmeter")
    scored = subprocess.run([binary, "eval", str(EXAMPLE), "-m", "token_f1", "--out", "-"],
                            capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert scored.returncode == 0, scored.stderr
    lines = [json.loads(l) for l in scored.stdout.splitlines()]
    assert len(lines) == 30 and all("token_f1" in l["scores"] for l in lines)
    assert "token_f1" in scored.stderr and "judge: offline" in scored.stderr  # the table
    results = tmp_path / "r.jsonl"
    results.write_text(scored.stdout, encoding="utf-8")
    page = subprocess.run([binary, "report", str(results), "-o", "-"], capture_output=True,
                          text=True, cwd=tmp_path, timeout=300)
    assert page.returncode == 0 and page.stdout.startswith("<!DOCTYPE html>")
    two = subprocess.run([binary, "eval", str(EXAMPLE), "-m", "token_f1", "--out", "-",
                          "--summary", "-"], capture_output=True, text=True, cwd=tmp_path)
    assert two.returncode == 2 and "only one of" in two.stderr
    assert not (tmp_path / "-").exists()
