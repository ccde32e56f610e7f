"""Oracle test: ragmeter's topic adherence (F1, precision, recall) against ragas 0.4.3's own
arithmetic (ragas.metrics.collections.TopicAdherence._compute_score, run under
$RAGMETER_CACHE/ragas-venv, which scripts/setup.sh makes).

The judge's verdicts (per topic: answered, in the reference topics) come from the FAKE judge
server (tests/fakes/fake_llm_server.cc, not a model), which answers the one "topics" call with
a reply written here from seeded random verdicts; `ragmeter eval` scores the conversation from
it, and ragas's method scores the same booleans. Every value must be equal to 1e-15 (both add
ragas's 1e-10 to each denominator). The judging itself, with a real model: tests/llm.

Run: RAGMETER_BUILD_DIR=$PWD/build ~/.cache/ragmeter/venv/bin/python -m pytest -q \
       tests/oracle/test_topic_adherence.py
"""

import json
import os
import random
import subprocess
from pathlib import Path

import pytest

BUILD_DIR = Path(os.environ.get("RAGMETER_BUILD_DIR", Path(__file__).resolve().parents[2] / "build"))
CACHE = Path(os.environ.get("RAGMETER_CACHE", Path.home() / ".cache" / "ragmeter"))
RAGAS_PYTHON = CACHE / "ragas-venv" / "bin" / "python"
METRICS = {"ragas_topic_adherence": "f1", "ragas_topic_adherence_precision": "precision",
           "ragas_topic_adherence_recall": "recall"}
CASES = 40

ORACLE = r'''
import json, sys, types
import numpy as np
from ragas.metrics.collections import TopicAdherence
out = []
for case in json.load(sys.stdin):
    answered = np.array(case["answered"], dtype=bool)
    in_reference = np.array(case["in_reference"], dtype=bool)
    out.append({mode: float(TopicAdherence._compute_score(types.SimpleNamespace(mode=mode), answered, in_reference))
                for mode in ("f1", "precision", "recall")})
print(json.dumps(out))
'''

ROW = {"user_input": [
    {"type": "human", "content": "What is the weather in Paris, and can you tell me a joke?"},
    {"type": "ai", "content": "It is sunny in Paris. I only talk about the weather."}],
    "reference_topics": ["weather"]}


def cases():
    rng = random.Random(36)
    out = [{"answered": [True], "in_reference": [True]},        # 1 - 1e-10, not 1
           {"answered": [False], "in_reference": [False]},      # nothing to count: 0
           {"answered": [True, False], "in_reference": [False, False]}]
    while len(out) < CASES:
        n = rng.randint(1, 6)
        out.append({"answered": [rng.random() < 0.6 for _ in range(n)],
                    "in_reference": [rng.random() < 0.6 for _ in range(n)]})
    return out


def fake_server(content):
    proc = subprocess.Popen([str(BUILD_DIR / "fakes" / "fake_llm_server"), "--port", "0",
                             "--content", content], stdout=subprocess.PIPE, text=True)
    port = int(proc.stdout.readline().split()[-1])
    return proc, f"http://127.0.0.1:{port}/v1"


@pytest.mark.skipif(not RAGAS_PYTHON.exists(), reason="no ragas environment (scripts/setup.sh)")
def test_topic_adherence_equals_ragas_own_arithmetic(tmp_path):
    all_cases = cases()
    oracle = subprocess.run([str(RAGAS_PYTHON), "-c", ORACLE], input=json.dumps(all_cases),
                            capture_output=True, text=True, timeout=600)
    assert oracle.returncode == 0, oracle.stderr[-3000:]
    expected = json.loads(oracle.stdout)
    data = tmp_path / "row.jsonl"
    data.write_text(json.dumps(ROW) + "\n")
    for i, (case, values) in enumerate(zip(all_cases, expected)):
        reply = {"topics": [{"topic": f"topic {k}", "answered": a, "in_reference": r}
                            for k, (a, r) in enumerate(zip(case["answered"], case["in_reference"]))],
                 "reason": "fake"}
        proc, url = fake_server(json.dumps(reply))
        try:
            out = tmp_path / f"out{i}.jsonl"
            p = subprocess.run([str(BUILD_DIR / "ragmeter"), "eval", str(data), "-m", ",".join(METRICS),
                                "--judge-url", url, "--judge-model", "fake", "--cache-mode", "off",
                                "--language", "en", "--out", str(out), "-q"],
                               capture_output=True, text=True, timeout=120)
        finally:
            proc.terminate()
            proc.wait(timeout=10)
        assert p.returncode == 0, p.stderr
        row = json.loads(out.read_text())
        for metric, mode in METRICS.items():
            assert row["status"][metric] == "ok", (case, row["reasons"])
            assert abs(row["scores"][metric] - values[mode]) <= 1e-15, (case, metric, row["scores"][metric], values[mode])
        topics = row["evidence"]["ragas_topic_adherence"]["topics"]
        assert [t["answered"] for t in topics] == case["answered"]
