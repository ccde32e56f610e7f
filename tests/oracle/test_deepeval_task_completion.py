"""Oracle test: ragmeter's deepeval_task_completion against DeepEval 4.3.1's own
TaskCompletionMetric (strict_mode False), run under $RAGMETER_CACHE/deepeval-venv (scripts/
setup.sh makes it): how it reads the judge's verdict (pydantic's lax float through
GPTModel.generate's schema: "0.8" is 0.8, " .25 " is 0.25, "high" and a missing verdict
are errors) and its _calculate_score.

Both sides ask the FAKE judge server (tests/fakes/fake_llm_server.cc, not a model), which
answers every request with one reply written here from a seeded verdict; DeepEval's two
calls (task and outcome, then the verdict) read the same reply, whose extra keys its schemas
ignore. `ragmeter eval` scores a conversation; DeepEval's measure() an LLMTestCase of the same
input, output and tool call. Where DeepEval scores, ragmeter must score the same to 1e-12;
where DeepEval raises, ragmeter must fail. Two documented differences (docs/agents.md): a
verdict outside [0, 1] (DeepEval scores 1.3 as 1.3) and a boolean (pydantic reads true as 1)
fail in ragmeter, naming the value. The judging itself, with a real model: tests/llm.

Run: RAGMETER_BUILD_DIR=$PWD/build ~/.cache/ragmeter/venv/bin/python -m pytest -q \
       tests/oracle/test_deepeval_task_completion.py
"""

import json
import os
import random
import subprocess
import urllib.request
from pathlib import Path

import pytest

BUILD_DIR = Path(os.environ.get("RAGMETER_BUILD_DIR", Path(__file__).resolve().parents[2] / "build"))
CACHE = Path(os.environ.get("RAGMETER_CACHE", Path.home() / ".cache" / "ragmeter"))
DEEPEVAL_PYTHON = CACHE / "deepeval-venv" / "bin" / "python"
CASES = 60
# Strings DeepEval reads as numbers, asked every run besides the seeded cases.
STRINGS = ["0.8", " .25 ", "1e-1", "+0.5", "0.2_5", "0.5\n", "1.", "7.5e-01", "-0"]

ORACLE = r'''
import json, sys, urllib.request
from deepeval.metrics import TaskCompletionMetric
from deepeval.models import GPTModel
from deepeval.test_case import LLMTestCase, ToolCall

base = sys.argv[1]
model = GPTModel(model="gpt-4o-mini", api_key="fake", base_url=base + "/v1")
case = LLMTestCase(input="I want one seat on a train from Paris to Lyon on 3 May.",
                   actual_output="Done: 2 seats on the TGV 6601.",
                   tools_called=[ToolCall(name="book", input_parameters={"train": "TGV 6601", "seats": 2})])
out = []
for content in json.load(sys.stdin):
    script = json.dumps({"steps": [], "default": {"content": content}}).encode()
    urllib.request.urlopen(urllib.request.Request(base + "/fake/script", data=script, method="POST")).read()
    metric = TaskCompletionMetric(model=model, async_mode=False, strict_mode=False)
    try:
        out.append({"score": metric.measure(case, _show_indicator=False)})
    except Exception as e:  # DeepEval's own error: pydantic refused the reply
        out.append({"error": type(e).__name__})
print(json.dumps(out))
'''

ROW = {"messages": [
    {"role": "user", "content": "I want one seat on a train from Paris to Lyon on 3 May."},
    {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {
        "name": "book", "arguments": "{\"train\": \"TGV 6601\", \"seats\": 2}"}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "booked"},
    {"role": "assistant", "content": "Done: 2 seats on the TGV 6601."}]}


def verdict_for(rng):
    """A seeded verdict as a judge might send it; None: no verdict key at all."""
    x = round(rng.random(), rng.randint(1, 4))
    kind = rng.randrange(11)
    if kind <= 2:
        return x  # a number in [0, 1]
    if kind == 3:
        return rng.choice([0, 1])
    if kind in (4, 9):  # a string DeepEval reads as a number
        return rng.choice([f"{x}", f" {x} ", f"{x:.2e}", f"+{x}", f"{x}\n", ".5", "1."])
    if kind == 5:  # a string that is no number
        return rng.choice(["high", "0,8", "80%", "", "about 0.5", "0x1"])
    if kind == 6:  # a number outside [0, 1]
        return rng.choice([1.3, -0.2, 2, "1.5", 85])
    if kind == 7:
        return rng.choice([True, False])
    if kind == 8:
        return None
    return rng.choice([[0.5], {"score": 0.5}, None])


def content_for(verdict):
    fields = {"task": "Book one seat on a Paris-Lyon train on 3 May",
              "outcome": "Booked 2 seats on the TGV 6601", "reason": "The seat count is wrong."}
    if verdict is not None:
        fields["verdict"] = verdict
    return json.dumps(fields)


def fake_server():
    proc = subprocess.Popen([str(BUILD_DIR / "fakes" / "fake_llm_server"), "--port", "0"],
                            stdout=subprocess.PIPE, text=True)
    return proc, f"http://127.0.0.1:{int(proc.stdout.readline().split()[-1])}"


def set_content(base, content):
    script = json.dumps({"steps": [], "default": {"content": content}}).encode()
    urllib.request.urlopen(urllib.request.Request(base + "/fake/script", data=script, method="POST"),
                           timeout=10).read()


def run_deepeval(contents):
    proc, base = fake_server()
    try:
        env = {**os.environ, "DEEPEVAL_TELEMETRY_OPT_OUT": "1"}
        p = subprocess.run([str(DEEPEVAL_PYTHON), "-c", ORACLE, base], input=json.dumps(contents),
                           capture_output=True, text=True, timeout=900, env=env)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout.strip().splitlines()[-1])


def run_ragmeter(tmp_path, contents):
    data = tmp_path / "row.jsonl"
    data.write_text(json.dumps(ROW) + "\n")
    proc, base = fake_server()
    rows = []
    try:
        for i, content in enumerate(contents):
            set_content(base, content)
            out = tmp_path / f"out{i}.jsonl"
            p = subprocess.run([str(BUILD_DIR / "ragmeter"), "eval", str(data), "-m", "deepeval_task_completion",
                                "--judge-url", base + "/v1", "--judge-model", "fake", "--cache-mode", "off",
                                "--language", "en", "--allow-failures", "--out", str(out), "-q"],
                               capture_output=True, text=True, timeout=120)
            assert p.returncode == 0, p.stderr
            rows.append(json.loads(out.read_text()))
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    return rows


@pytest.mark.skipif(not DEEPEVAL_PYTHON.exists(), reason="no DeepEval environment (scripts/setup.sh)")
def test_scores_and_failures_follow_deepevals_reading_of_the_verdict(tmp_path):
    rng = random.Random("36-task-completion")
    verdicts = [verdict_for(rng) for _ in range(CASES)] + STRINGS
    contents = [content_for(v) for v in verdicts]
    expected = run_deepeval(contents)
    got = run_ragmeter(tmp_path, contents)
    metric = "deepeval_task_completion"
    counts = {"equal": 0, "strings": 0, "both_refuse": 0, "outside": 0, "boolean": 0}
    for verdict, want, row in zip(verdicts, expected, got):
        status, reason = row["status"][metric], row["reasons"].get(metric, "")
        if "error" in want:  # DeepEval raised: ragmeter fails, saying why
            assert status == "failed", (verdict, row)
            counts["both_refuse"] += 1
        elif isinstance(verdict, bool):
            assert want["score"] == float(verdict)
            assert status == "failed" and "expected number or string" in reason, (verdict, row)
            counts["boolean"] += 1
        elif not 0 <= want["score"] <= 1:
            assert status == "failed" and "is outside [0, 1]" in reason, (verdict, row)
            assert json.dumps(verdict) in reason
            counts["outside"] += 1
        else:
            assert status == "ok", (verdict, reason)
            assert abs(row["scores"][metric] - want["score"]) <= 1e-12, (verdict, row, want)
            counts["equal"] += 1
            counts["strings"] += isinstance(verdict, str)
    # The seed covers each branch.
    print(counts)
    assert counts["equal"] >= CASES // 3 and all(counts.values()), counts
