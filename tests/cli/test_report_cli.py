"""`ragmeter report` with a base run (--compare) and agreement JSON (--agree): what it
accepts, and the clear error for each input it cannot use (exit code 2, file named)."""

import json
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "halueval_rag.jsonl"


def data_block(html):
    """The report's first data block (the JSON the page draws)."""
    match = re.search(r'<script type="application/json" id="ragmeter-data">(.*?)</script>', html, re.S)
    return json.loads(match.group(1))


def results(run, tmp_path, name="results.jsonl", metrics="recall,token_f1"):
    out = tmp_path / name
    done = run("eval", EXAMPLE, "--metrics", metrics, "--out", out, "-q")
    assert done.returncode == 0, done.stderr
    return out


def test_compare_and_agree_reach_the_page_data(run, tmp_path):
    base = results(run, tmp_path, "base.jsonl")
    new = results(run, tmp_path, "new.jsonl")
    labels = tmp_path / "labels.csv"
    rows = [json.loads(l) for l in EXAMPLE.read_text().splitlines() if l.strip()]
    labels.write_text("id,label\n" + "".join(f"{r['id']},{0 if r['hallucinated'] else 1}\n" for r in rows))
    agreement = tmp_path / "agreement.json"
    done = run("agree", new, labels, "--metrics", "token_f1", "--out", agreement)
    assert done.returncode == 0, done.stderr
    html = tmp_path / "report.html"
    done = run("report", new, "--compare", base, "--id", "id", "--agree", agreement, "-o", html)
    assert done.returncode == 0, done.stderr
    data = data_block(html.read_text())
    # The same run twice: every pair is a tie and nothing changed.
    assert data["changes"]["matched"] == 30
    assert data["answer"]["changes"]["changed"] == []
    assert data["answer"]["changes"]["unchanged"] == ["recall", "token_f1"]
    assert data["answer"]["changes"]["summary"].startswith("No metric changed significantly (2 compared")
    assert all(m["differences"]["ties"] == m["n"] for m in data["changes"]["metrics"])
    assert data["agreement"] == json.loads(agreement.read_text())
    headline = {h["metric"]: h for h in data["answer"]["headline"]}
    assert headline["token_f1"]["agreement"]["statistic"] in ("cohen_kappa", "roc_auc")
    assert headline["recall"]["agreement"] is None


def test_inputs_it_cannot_use_are_usage_errors_naming_the_file(run, tmp_path):
    new = results(run, tmp_path)
    html = tmp_path / "report.html"
    not_json = tmp_path / "agreement.json"
    not_json.write_text("[1, 2]")
    done = run("report", new, "--agree", not_json, "-o", html)
    assert done.returncode == 2
    assert f"--agree {not_json} is not a JSON object" in done.stderr
    no_metrics = tmp_path / "summary-by-mistake.json"
    no_metrics.write_text('{"metrics": {"recall": {}}}')
    done = run("report", new, "--agree", no_metrics, "-o", html)
    assert done.returncode == 2
    assert "field 'metrics' is missing or not an array" in done.stderr
    done = run("report", new, "--compare", tmp_path / "missing.jsonl", "-o", html)
    assert done.returncode == 2 and "missing.jsonl" in done.stderr
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"id": "zz", "user_input": "q", "scores": {}, "status": {}}) + "\n")
    done = run("report", new, "--compare", other, "--id", "id", "-o", html)
    assert done.returncode == 2 and "no row of" in done.stderr
    assert not html.exists()
