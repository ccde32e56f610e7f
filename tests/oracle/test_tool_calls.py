"""Oracle test: ragmeter's tool-call metrics against ragas 0.4.3's and DeepEval 4.3.1's own code.

Random conversations with tool calls (seeded) stress what the two libraries decide by Python's
semantics: argument values that are equal under == but not under str() (1, 1.0, True, "1"),
nested objects with their keys in another order, strings that print like lists or objects,
floats whose repr switches notation, duplicated calls, empty lists on either side, order
swaps, dropped and renamed calls, outputs. Each case is written as a row in one of the three
input shapes ragmeter reads (ragas's user_input messages, OpenAI messages with JSON-string
arguments, DeepEval turns), scored by `ragmeter eval` with the six tool-call metrics, and compared
with the values ragas's and DeepEval's metric classes compute for the same calls
(tests/oracle/tool_call_oracle.py, run under $RAGMETER_CACHE/ragas-venv and
$RAGMETER_CACHE/deepeval-venv, which scripts/setup.sh makes). Every value must be equal to 1e-12
(DeepEval sums 1/n terms in the order of a Python set, which varies between runs).

Run: RAGMETER_BUILD_DIR=$PWD/build ~/.cache/ragmeter/venv/bin/python -m pytest -q \
       tests/oracle/test_tool_calls.py
"""

import copy
import json
import os
import random
import subprocess
from pathlib import Path

import pytest

BUILD_DIR = Path(os.environ.get("RAGMETER_BUILD_DIR", "/work/main/build"))
CACHE = Path(os.environ.get("RAGMETER_CACHE", Path.home() / ".cache" / "ragmeter"))
ORACLE = Path(__file__).with_name("tool_call_oracle.py")
SEED = 36
CASES = 400
# The deterministic conversation metrics (`--metrics conversation` also names the judged ones).
TOOL_METRICS = ("ragas_tool_call_accuracy,ragas_tool_call_accuracy_flexible,ragas_tool_call_f1,"
                "deepeval_tool_correctness,deepeval_tool_correctness_ordered,"
                "deepeval_tool_correctness_exact")

NAMES = ["search", "get_weather", "book_flight", "Search", "météo"]
KEYS = ["city", "date", "n", "options", "q"]
SCALARS = ["Paris", "1", "True", "None", "it's", 'say "hi"', "{'a': 1}", "[1, 2]", "",
           1, 0, -3, 10 ** 17, 1.0, 0.5, 1e16, 1e-05, 2.5e-07, -0.0, 123456789.123,
           True, False, None, "é\u00a0ü"]


def value(rng, depth=0):
    roll = rng.random()
    if depth < 2 and roll < 0.12:
        return [value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    if depth < 2 and roll < 0.24:
        keys = rng.sample(KEYS, rng.randint(0, 3))
        return {k: value(rng, depth + 1) for k in keys}
    return rng.choice(SCALARS)


def call(rng):
    args = {k: value(rng) for k in rng.sample(KEYS, rng.randint(0, 3))}
    output = rng.choice([None, None, "ok", {"temp": 20}, 20, 20.0])
    return {"name": rng.choice(NAMES), "args": args, "output": output}


def equivalent(rng, v):
    """A value Python's == or str() may or may not tell from v."""
    swaps = {1: [1.0, True, "1"], 1.0: [1, True], 0: [0.0, False, "0"], True: [1, "True"],
             None: ["None"], "1": [1], "True": [True], "None": [None]}
    if isinstance(v, dict):
        items = list(v.items())
        rng.shuffle(items)
        return {k: equivalent(rng, x) if rng.random() < 0.3 else x for k, x in items}
    if isinstance(v, list):
        return [equivalent(rng, x) if rng.random() < 0.3 else x for x in v]
    for key, options in swaps.items():
        if type(key) is type(v) and key == v:
            return rng.choice(options)
    return v


def mutate(rng, calls):
    calls = copy.deepcopy(calls)
    for _ in range(rng.randint(0, 3)):
        op = rng.choice(["dup", "swap", "drop", "rename", "arg", "equiv", "reorder", "output", "add"])
        if op == "add" or not calls:
            calls.insert(rng.randint(0, len(calls)), call(rng))
        elif op == "dup":
            i = rng.randrange(len(calls))
            calls.insert(i, copy.deepcopy(calls[i]))
        elif op == "swap" and len(calls) > 1:
            i, j = rng.sample(range(len(calls)), 2)
            calls[i], calls[j] = calls[j], calls[i]
        elif op == "drop":
            calls.pop(rng.randrange(len(calls)))
        elif op == "rename":
            rng.choice(calls)["name"] = rng.choice(NAMES)
        elif op == "arg":
            c = rng.choice(calls)
            c["args"][rng.choice(KEYS)] = value(rng)
        elif op == "equiv":
            c = rng.choice(calls)
            c["args"] = equivalent(rng, c["args"])
        elif op == "reorder":
            c = rng.choice(calls)
            items = list(c["args"].items())
            rng.shuffle(items)
            c["args"] = dict(items)
        elif op == "output":
            rng.choice(calls)["output"] = rng.choice([None, "ok", "fail", {"temp": 20.0}])
    return calls


def make_cases(rng):
    cases = []
    for i in range(CASES):
        kind = i % 10
        expected = [call(rng) for _ in range(rng.randint(0, 4))]
        if kind == 0:
            called = []
        elif kind == 1:
            called, expected = [call(rng) for _ in range(rng.randint(0, 2))], []
        elif kind == 2:
            called = copy.deepcopy(expected)
        else:
            called = mutate(rng, expected)
        cases.append({"called": called, "expected": expected})
    return cases


def split_turns(rng, calls):
    """The called tools spread over assistant messages: a list of lists, each non-empty."""
    groups, i = [], 0
    while i < len(calls):
        n = rng.randint(1, 3)
        groups.append(calls[i:i + n])
        i += n
    return groups


def ragas_row(rng, case):
    messages = [{"type": "human", "content": "plan my trip"}]
    for group in split_turns(rng, case["called"]):
        messages.append({"type": "ai", "content": "",
                         "tool_calls": [{"name": c["name"], "args": c["args"]} for c in group]})
        messages.extend({"type": "tool", "content": "done"} for _ in group)
    messages.append({"type": "ai", "content": "All set."})
    return {"user_input": messages,
            "reference_tool_calls": [{"name": c["name"], "args": c["args"]} for c in case["expected"]]}


def openai_row(rng, case):
    messages = [{"role": "system", "content": "You book trips."},
                {"role": "user", "content": "plan my trip"}]
    n = 0
    for group in split_turns(rng, case["called"]):
        ids = [f"call_{n + k}" for k in range(len(group))]
        n += len(group)
        messages.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": i, "type": "function",
             "function": {"name": c["name"], "arguments": json.dumps(c["args"])}}
            for i, c in zip(ids, group)]})
        messages.extend({"role": "tool", "tool_call_id": i, "content": "done"} for i in ids)
    messages.append({"role": "assistant", "content": "All set."})
    return {"messages": messages,
            "reference_tool_calls": [{"name": c["name"], "args": c["args"]} for c in case["expected"]]}


def deepeval_row(rng, case):
    turns = [{"role": "user", "content": "plan my trip"}]
    for group in split_turns(rng, case["called"]):
        turns.append({"role": "assistant", "content": "working on it", "tools_called": [
            {"name": c["name"], "input_parameters": c["args"], "output": c["output"]} for c in group]})
    turns.append({"role": "assistant", "content": "All set."})
    return {"turns": turns, "expected_tools": [
        {"name": c["name"], "input_parameters": c["args"], "output": c["output"]}
        for c in case["expected"]]}


def oracle(library, cases):
    python = CACHE / f"{library}-venv" / "bin" / "python"
    assert python.exists(), f"{python} is missing: run scripts/setup.sh"
    p = subprocess.run([str(python), str(ORACLE)], input=json.dumps({"library": library, "cases": cases}),
                       capture_output=True, text=True, timeout=900,
                       env={**os.environ, "DEEPEVAL_TELEMETRY_OPT_OUT": "1"})
    assert p.returncode == 0, p.stderr[-3000:]
    return [json.loads(line) for line in p.stdout.splitlines()]


def ragmeter_scores(tmp_path, rows, params):
    data = tmp_path / "cases.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / f"out{params.replace(',', '_')}.jsonl"
    args = [str(BUILD_DIR / "ragmeter"), "eval", str(data), "--metrics", TOOL_METRICS,
            "--out", str(out), "-q"]
    if params:
        args += ["--deepeval-tool-params", params]
    p = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    results = [json.loads(line) for line in out.read_text().splitlines()]
    for r in results:
        assert set(r["status"].values()) == {"ok"}, r
    return [r["scores"] for r in results]


@pytest.fixture(scope="module")
def cases():
    return make_cases(random.Random(SEED))


@pytest.fixture(scope="module")
def rows(cases):
    # DeepEval's turns carry outputs; the ragas and OpenAI shapes do not (outputs are then None
    # on both sides), so rows in those shapes are compared with outputs cleared.
    rng = random.Random(SEED + 1)
    writers = [ragas_row, openai_row, deepeval_row]
    out = []
    for i, case in enumerate(cases):
        writer = writers[i % 3]
        if writer is not deepeval_row:
            for c in case["called"] + case["expected"]:
                c["output"] = None
        out.append(writer(rng, case))
    return out


@pytest.fixture(scope="module")
def ragas_want(cases, rows):  # after rows: the outputs the rows do not carry are cleared
    return oracle("ragas", cases)


@pytest.fixture(scope="module")
def deepeval_want(cases, rows):
    return oracle("deepeval", cases)


def test_ragas_values_equal_ragas_own(tmp_path, cases, rows, ragas_want):
    want = ragas_want
    got = ragmeter_scores(tmp_path, rows, "")
    mismatches = [(i, m, got[i][m], want[i][m], cases[i]) for i in range(len(cases))
                  for m in want[i] if abs(got[i][m] - want[i][m]) > 1e-12]
    assert not mismatches, mismatches[:5]
    # The cases reach every corner: both values of each metric and values in between.
    for metric in want[0]:
        values = {w[metric] for w in want}
        assert {0.0, 1.0} <= values and len(values) > 3, (metric, values)


@pytest.mark.parametrize("params", ["", "input_parameters", "output", "input_parameters,output"])
def test_deepeval_values_equal_deepevals_own(tmp_path, cases, rows, deepeval_want, params):
    want = deepeval_want
    got = ragmeter_scores(tmp_path, rows, params)
    mismatches = []
    for i in range(len(cases)):
        for matching in ("deepeval_tool_correctness", "deepeval_tool_correctness_ordered",
                         "deepeval_tool_correctness_exact"):
            expected = want[i][f"{matching}|{params}"]
            if abs(got[i][matching] - expected) > 1e-12:
                mismatches.append((i, matching, got[i][matching], expected, cases[i]))
    assert not mismatches, mismatches[:5]
    values = {w[f"deepeval_tool_correctness|{params}"] for w in want}
    assert {0.0, 1.0} <= values and len(values) > 2, values
