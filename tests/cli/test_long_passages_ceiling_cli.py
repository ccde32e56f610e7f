"""bench/long_passages_ceiling.py: one sentence of a long-passage item against its gold passage alone.

docs/dev/judge-measurements.md ("One sentence against its gold passage alone") scores these
rows with `ragmeter eval --repeat 5`; here the rows themselves are checked against the item as
bench/data/long_passages.jsonl holds it, read independently, and a ragmeter run shows they
are valid input.
"""
import json
import subprocess
import sys

from cli_shared import REPO

SCRIPT = REPO / "bench" / "long_passages_ceiling.py"
DATA = REPO / "bench" / "data" / "long_passages.jsonl"


def item(item_id):
    with open(DATA, encoding="utf-8") as f:
        return next(it for it in map(json.loads, f) if it["id"] == item_id)


def test_the_right_sentence_and_its_edit_come_with_the_gold_passage_alone(run, tmp_path):
    out = tmp_path / "ceiling.jsonl"
    p = subprocess.run([sys.executable, SCRIPT, out, "robustqa-78=Total housing costs"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in rows] == ["robustqa-78:right", "robustqa-78:wrong"]
    it = item("robustqa-78")
    right, wrong = rows
    # The answers' second sentences, as written in the data (checked by hand): 32 and 40
    # percent in the right one, 36 and 50 in the wrong one.
    assert right["response"].startswith("Total housing costs") and right["response"] in it["right"]
    assert "32 percent" in right["response"] and "40 percent" in right["response"]
    assert wrong["response"] in it["wrong"] and wrong["response"] not in it["right"]
    assert "36 percent" in wrong["response"] and "50 percent" in wrong["response"]
    for r in rows:
        assert r["reference"] == r["response"] and r["user_input"] == it["user_input"]
        # The one context is the passage that states the figures: the gold one, whole.
        assert r["retrieved_contexts"] == [it["retrieved_contexts"][int(it["gold_rank"]) - 1]]
        assert "32 percent" in r["retrieved_contexts"][0]
    assert sum("32 percent" in c for c in it["retrieved_contexts"]) == 1
    # ragmeter reads the rows (the offline judge: no server needed).
    p = run("eval", out, "--metrics", "faithfulness", "-q", "--out", tmp_path / "scores.jsonl")
    assert p.returncode == 0, p.stderr
    assert len((tmp_path / "scores.jsonl").read_text().splitlines()) == 2


def test_a_prefix_no_sentence_starts_with_is_an_error_naming_it(tmp_path):
    p = subprocess.run([sys.executable, SCRIPT, tmp_path / "x.jsonl", "robustqa-78=Nothing like this"],
                       capture_output=True, text=True)
    assert p.returncode != 0
    assert "robustqa-78" in p.stderr and "Nothing like this" in p.stderr
    p = subprocess.run([sys.executable, SCRIPT, tmp_path / "x.jsonl", "no-such-item=The"],
                       capture_output=True, text=True)
    assert p.returncode != 0 and "no-such-item" in p.stderr
