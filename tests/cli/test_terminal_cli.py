"""`ragmeter eval`'s terminal table and its CI gates (--fail-under, --fail-over).

Expected values come from the run's own per-sample results file (what was skipped, the
failure reasons), not from the table code: the table must fold exactly the metrics whose
every row was skipped, mark lower-is-better metrics, and name each failing metric's most
common reason.
"""
import collections
import json
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "halueval_rag.jsonl"


def plain_ragas_rows(tmp_path):
    """The example as a plain ragas dataset: no ids, no reference contexts."""
    keep = ("user_input", "response", "retrieved_contexts", "reference")
    rows = [json.loads(l) for l in EXAMPLE.read_text().splitlines() if l.strip()]
    path = tmp_path / "plain.jsonl"
    path.write_text("".join(json.dumps({k: r[k] for k in keep}) + "\n" for r in rows))
    return path


def table_rows(stdout):
    names = []
    for line in stdout.splitlines()[1:]:
        if not line or line.startswith((" ", "skipped on", "note:", "rows:", "languages:", "dir:", "*", "judge", "For an",
                                        "ragas_score")) or " failed on " in line:
            continue
        names.append(line.split()[0])
    return names


def test_metrics_skipped_on_every_row_are_folded_into_lines_naming_the_reason(run, tmp_path):
    data = plain_ragas_rows(tmp_path)
    out = tmp_path / "results.jsonl"
    p = run("eval", data, "--out", out)
    assert p.returncode == 0, p.stderr
    results = [json.loads(l) for l in out.read_text().splitlines()]
    metrics = list(results[0]["status"])
    all_skipped = [m for m in metrics if all(r["status"][m] == "skipped" for r in results)]
    assert all_skipped  # e.g. the id-based metrics: the plain dataset has no ids
    shown = table_rows(p.stdout)
    assert shown == [m for m in metrics if m not in all_skipped]
    folded = [l for l in p.stdout.splitlines() if l.startswith("skipped on every row (")]
    for metric in all_skipped:
        reason = collections.Counter(r["reasons"][metric] for r in results).most_common(1)[0][0]
        line = next(l for l in folded if l.endswith(metric) or (metric + ",") in l)
        assert line.startswith(f"skipped on every row ({reason}): ")


def test_lower_is_better_metrics_are_marked(run):
    # Both are withdrawn from the offline judge (docs/judges.md): forced, to be scored.
    p = run("eval", EXAMPLE, "-m", "token_f1,ragchecker_hallucination,noise_sensitivity_relevant",
            "--offline-score-withdrawn")
    lines = {l.split()[0]: l.split() for l in p.stdout.splitlines()[1:4]}
    assert lines["token_f1"][1] == "up"
    assert lines["ragchecker_hallucination"][1] == "down"
    assert lines["noise_sensitivity_relevant"][1] == "down"
    assert "down = lower is better" in p.stdout


def test_failures_name_their_most_common_reason(run, start_fake_llm_server, tmp_path):
    base = start_fake_llm_server("this is not JSON")  # a FAKE server replying garbage
    data = tmp_path / "one.jsonl"
    data.write_text(json.dumps({"user_input": "Where is the tower?", "response": "In Paris.",
                                "retrieved_contexts": ["The tower is in Paris."]}) + "\n")
    out = tmp_path / "results.jsonl"
    p = run("eval", data, "-m", "faithfulness", "--judge-url", base + "/v1", "--judge-model", "fake",
            "--cache-mode", "off", "--out", out)
    assert p.returncode == 3, p.stderr
    result = json.loads(out.read_text())
    assert result["status"]["faithfulness"] == "failed"
    assert f"faithfulness failed on 1 rows; most common reason: {result['reasons']['faithfulness']}" \
        in p.stdout


def test_fail_over_gates_lower_is_better_metrics_and_ranges_are_checked(run, tmp_path):
    out = tmp_path / "r.jsonl"
    # Withdrawn from the offline judge (docs/judges.md): forced, to be scored.
    assert run("eval", EXAMPLE, "-m", "ragchecker_hallucination", "-q", "--out", out,
               "--offline-score-withdrawn").returncode == 0
    scores = [json.loads(l)["scores"]["ragchecker_hallucination"] for l in out.read_text().splitlines()]
    mean = sum(scores) / len(scores)
    assert 0 < mean < 1
    gate = lambda flag, value: run("eval", EXAMPLE, "-m", "ragchecker_hallucination,token_f1", "-q",
                                   "--offline-score-withdrawn", flag, value).returncode
    assert gate("--fail-over", f"ragchecker_hallucination={mean - 0.01}") == 1
    assert gate("--fail-over", f"ragchecker_hallucination={mean + 0.01}") == 0
    assert gate("--fail-over", "ragchecker_hallucination=1.5") == 2   # outside [0, 1]
    assert gate("--fail-under", "token_f1=-0.1") == 2                 # outside [0, 1]
    assert gate("--fail-under", "ragchecker_hallucination=0.5") == 2  # wrong direction
    assert gate("--fail-over", "token_f1=0.5") == 2                   # wrong direction
    # rubric_score runs from 1 to 5.
    rubric = run("eval", EXAMPLE, "-m", "rubric_score", "-q", "--fail-under", "rubric_score=4.5")
    assert rubric.returncode == 1  # in range; nothing scored by the offline judge, so missed
    assert run("eval", EXAMPLE, "-m", "rubric_score", "-q", "--fail-under", "rubric_score=6").returncode == 2
