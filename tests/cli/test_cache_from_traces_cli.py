"""bench/cache_from_traces.py: a run's `--traces` replayed as a judge cache scores the same.

The replies come from the FAKE OpenAI-compatible server (tests/fakes/fake_llm_server.cc, not
a model), whose request count shows that the replay sends nothing. docs/performance.md uses
the script to score recorded replies again under changed checks.
"""
import json
import subprocess
import sys

from cli_shared import REPO
from test_judge_cache_cli import REPLY, chat_requests


def test_a_traced_run_replayed_from_its_traces_gives_the_same_scores(run, tmp_path, start_fake_llm_server):
    server = start_fake_llm_server(REPLY)
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps({
        "user_input": "Where is the tower?", "response": "The tower is in Paris. It is tall.",
        "reference": "The tower stands in Paris. It is old.",
        "retrieved_contexts": ["Paris has a tower.", "The tower opened in 1889."]}) + "\n")
    metrics = ["--metrics", "faithfulness,context_recall,context_precision,factual_correctness", "-q",
               "--judge-model", "fake"]
    p = run("eval", data, "--judge-url", server + "/v1", *metrics, "--cache-mode", "off",
            "--traces", tmp_path / "traces.jsonl", "--out", tmp_path / "first.jsonl")
    assert p.returncode == 0, p.stderr
    sent = chat_requests(server)
    assert sent == 2  # claims, verdict table

    cache = tmp_path / "replay.sqlite"
    built = subprocess.run([sys.executable, REPO / "bench/cache_from_traces.py", tmp_path / "traces.jsonl", cache],
                           capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    assert "2 replies written" in built.stderr

    p = run("eval", data, "--judge-url", server + "/v1", *metrics, "--cache", cache, "--cache-mode", "replay",
            "--out", tmp_path / "again.jsonl", "--summary", tmp_path / "again.json")
    assert p.returncode == 0, p.stderr
    assert chat_requests(server) == sent  # nothing sent: every call answered by the cache
    first = json.loads((tmp_path / "first.jsonl").read_text())
    again = json.loads((tmp_path / "again.jsonl").read_text())
    assert again["scores"] == first["scores"]
    assert set(again["status"].values()) == {"ok"}
    usage = json.loads((tmp_path / "again.json").read_text())["usage"]
    assert (usage["requests"], usage["cache_hits"]) == (0, 2)
