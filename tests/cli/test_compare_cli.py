"""`ragmeter compare` on two runs of the bundled example with known changes.

The expected values are computed here from the data, not read from ragmeter: the example's
reference_context_ids name the gold passage, so id-based `recall` is 1 exactly when the
gold id is among the first K retrieved. Going from K=2 to K=4 therefore changes recall by
+1 on the rows whose gold passage is ranked 3 or 4 and by 0 elsewhere: wins = those rows,
no losses, mean difference = their share, and the exact sign-flip p-value = 2 / 2^wins
(every non-zero difference is +1, so only the all-plus and all-minus assignments reach it).
"""

import json
import math
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "halueval_rag.jsonl"
METRICS = "recall,precision,token_f1,ragchecker_hallucination"


def rows():
    return [json.loads(line) for line in EXAMPLE.read_text().splitlines() if line.strip()]


def write(path, items):
    path.write_text("".join(json.dumps(r) + "\n" for r in items))
    return path


def top_k(k):
    out = []
    for r in rows():
        r = dict(r)
        r["retrieved_contexts"] = r["retrieved_contexts"][:k]
        r["retrieved_context_ids"] = r["retrieved_context_ids"][:k]
        out.append(r)
    return out


def evaluate(run, dataset, results):
    done = run("eval", dataset, "--metrics", METRICS, "--out", results, "-q")
    assert done.returncode == 0, done.stderr
    return results


def test_k_from_2_to_4_improves_recall_as_counted_from_the_data(run, tmp_path):
    base = evaluate(run, write(tmp_path / "k2.jsonl", top_k(2)), tmp_path / "base.jsonl")
    new = evaluate(run, write(tmp_path / "k4.jsonl", top_k(4)), tmp_path / "new.jsonl")
    gold_late = sum(1 for r in rows()
                    if not set(r["retrieved_context_ids"][:2]) & set(r["reference_context_ids"]))
    assert 0 < gold_late <= 20  # the exact test applies
    done = run("compare", base, new, "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["matched"] == 30 and report["only_in_base"] == [] and report["only_in_new"] == []
    recall = next(m for m in report["metrics"] if m["metric"] == "recall")
    assert (recall["wins"], recall["ties"], recall["losses"]) == (gold_late, 30 - gold_late, 0)
    assert recall["mean_diff"] == gold_late / 30
    assert recall["p_exact"] is True
    assert math.isclose(recall["p_value"], 2 / 2**gold_late, rel_tol=1e-12)
    assert recall["ci95"][0] > 0
    hallucination = next(m for m in report["metrics"] if m["metric"] == "ragchecker_hallucination")
    assert hallucination["higher_is_better"] is False  # from the metric table
    token_f1 = next(m for m in report["metrics"] if m["metric"] == "token_f1")
    assert token_f1["mean_diff"] == 0 and token_f1["p_value"] == 1  # the answers did not change
    # Holm over the four metrics: the adjusted p is never below the raw one.
    assert all(m["p_holm"] >= m["p_value"] for m in report["metrics"])
    table = run("compare", base, new)
    assert "recall" in table.stdout and "better" in table.stdout


def test_fail_on_regression_exits_1_only_when_worse_by_more_than_delta(run, tmp_path):
    base = evaluate(run, EXAMPLE, tmp_path / "base.jsonl")
    broken = [dict(r, response="I do not know.") for r in rows()]
    new = evaluate(run, write(tmp_path / "broken.jsonl", broken), tmp_path / "new.jsonl")
    base_f1 = [json.loads(l)["scores"]["token_f1"] for l in base.read_text().splitlines()]
    drop = sum(base_f1) / len(base_f1)  # every new token_f1 is 0 ("I do not know." shares no token)
    assert drop > 0.5
    worse = run("compare", base, new, "--fail-on-regression", "token_f1=0.1")
    assert worse.returncode == 1, worse.stdout + worse.stderr
    assert "regression: token_f1" in worse.stderr
    # Worse, but not by more than 0.95 (the whole drop is below it): exit 0.
    within = run("compare", base, new, "--fail-on-regression", "token_f1=0.95")
    assert within.returncode == 0, within.stderr
    # recall did not change: no regression whatever the delta.
    assert run("compare", base, new, "--fail-on-regression", "recall=0").returncode == 0


def test_rows_in_one_run_only_are_listed_not_dropped(run, tmp_path):
    all_rows = rows()
    base = evaluate(run, EXAMPLE, tmp_path / "base.jsonl")
    new = evaluate(run, write(tmp_path / "fewer.jsonl", all_rows[2:]), tmp_path / "new.jsonl")
    report = json.loads(run("compare", base, new, "--json", "--id", "id").stdout)
    assert report["matched"] == 28
    assert report["only_in_base"] == [all_rows[0]["id"], all_rows[1]["id"]]
    # The default key (question + reference hash) matches the same rows.
    default = json.loads(run("compare", base, new, "--json").stdout)
    assert default["matched"] == 28 and len(default["only_in_base"]) == 2
    assert default["only_in_base"][0].startswith(all_rows[0]["user_input"])
    table = run("compare", base, new, "--id", "id").stdout
    assert f"only in base: {all_rows[0]['id']}" in table


def test_bad_gates_are_usage_errors(run, tmp_path):
    base = evaluate(run, EXAMPLE, tmp_path / "base.jsonl")
    for gate in ("token_f1=2", "token_f1=-0.1", "token_f1=x", "nope=0.1", "token_f1"):
        done = run("compare", base, base, "--fail-on-regression", gate)
        assert done.returncode == 2, (gate, done.stderr)
    missing = run("compare", base, tmp_path / "absent.jsonl")
    assert missing.returncode == 2 and "absent.jsonl" in missing.stderr


def test_paired_differences_are_binned_as_counted_from_the_data(run, tmp_path):
    """The histogram of paired differences (the report's chart): recall goes up by exactly 1
    on the rows whose gold passage K=2 missed, so those land in the last 'better' bin (0.9, 1]
    and every other row is a tie. The verdict is the table's."""
    base = evaluate(run, write(tmp_path / "k2.jsonl", top_k(2)), tmp_path / "base.jsonl")
    new = evaluate(run, write(tmp_path / "k4.jsonl", top_k(4)), tmp_path / "new.jsonl")
    gold_late = sum(1 for r in rows()
                    if not set(r["retrieved_context_ids"][:2]) & set(r["reference_context_ids"]))
    report = json.loads(run("compare", base, new, "--json").stdout)
    recall = next(m for m in report["metrics"] if m["metric"] == "recall")
    assert recall["differences"] == {"width": 1.0, "worse": [0] * 10, "ties": 30 - gold_late,
                                     "better": [0] * 9 + [gold_late]}
    assert recall["verdict"] == "better"
    # Every metric: bins hold each pair once, sides as the win and loss counts.
    for m in report["metrics"]:
        d = m["differences"]
        assert (sum(d["better"]), d["ties"], sum(d["worse"])) == (m["wins"], m["ties"], m["losses"])
