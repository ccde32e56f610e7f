"""Conversations given as Python objects (docs/agents.md): real LangChain messages (under
``messages`` and under ``user_input``), ragas's message models in a dict row, and a list of
ragas ``MultiTurnSample`` objects must score exactly as the same conversations written by hand
as plain dicts in the OpenAI and ragas shapes.

The objects come from LangChain and ragas themselves: a child interpreter (this environment's,
with ragmeter installed) imports them from $RAGMETER_CACHE/ragas-venv (scripts/setup.sh makes
it for the tool-call oracle), builds them, evaluates them with ragmeter, and prints the
scores; this process evaluates the plain dicts and compares."""

import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

import ragmeter

CACHE = Path(os.environ.get("RAGMETER_CACHE") or Path.home() / ".cache" / "ragmeter")
RAGAS_VENV = CACHE / "ragas-venv"
METRICS = ["ragas_tool_call_f1", "ragas_tool_call_accuracy", "deepeval_tool_correctness", "k_precision"]

PASSAGE = "The Eiffel Tower is a wrought-iron tower in Paris, France."
ANSWER = "The Eiffel Tower is in Paris."

# The conversation by hand, OpenAI's shape: two searches (one expected), an answer with its passage.
OPENAI_DICT = {"messages": [
    {"role": "system", "content": "Answer from the passages."},
    {"role": "user", "content": "Where is the Eiffel Tower?"},
    {"role": "assistant", "content": "", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "search", "arguments": '{"q": "Eiffel Tower"}'}},
        {"id": "c2", "type": "function", "function": {"name": "search", "arguments": '{"q": "Paris"}'}}]},
    {"role": "tool", "tool_call_id": "c1", "content": PASSAGE},
    {"role": "tool", "tool_call_id": "c2", "content": "Paris is the capital of France."},
    {"role": "assistant", "content": ANSWER, "retrieved_contexts": [PASSAGE]}],
    "reference_tool_calls": [{"name": "search", "args": {"q": "Eiffel Tower"}}]}

# The same in ragas's shape (ragas has no system message).
RAGAS_DICT = {"user_input": [
    {"type": "human", "content": "Where is the Eiffel Tower?"},
    {"type": "ai", "content": "", "tool_calls": [{"name": "search", "args": {"q": "Eiffel Tower"}},
                                                 {"name": "search", "args": {"q": "Paris"}}]},
    {"type": "tool", "content": PASSAGE},
    {"type": "tool", "content": "Paris is the capital of France."},
    {"type": "ai", "content": ANSWER, "retrieved_contexts": [PASSAGE]}],
    "reference_tool_calls": [{"name": "search", "args": {"q": "Eiffel Tower"}}]}

CHILD = r'''
import json, sys
import ragmeter
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
import ragas.messages as rm
from ragas import MultiTurnSample

PASSAGE, ANSWER, METRICS = json.loads(sys.argv[1])
search = [{"name": "search", "args": {"q": "Eiffel Tower"}, "id": "c1"},
          {"name": "search", "args": {"q": "Paris"}, "id": "c2"}]
answer = AIMessage(content=ANSWER)
answer_with_contexts = {"type": "ai", "content": ANSWER, "retrieved_contexts": [PASSAGE]}
langchain_messages = [
    SystemMessage(content="Answer from the passages."),
    HumanMessage(content=[{"type": "text", "text": "Where is the "}, {"type": "text", "text": "Eiffel Tower?"}]),
    AIMessage(content="", tool_calls=search),
    ToolMessage(content=PASSAGE, tool_call_id="c1"),
    ToolMessage(content="Paris is the capital of France.", tool_call_id="c2")]
# A message object cannot carry its turn's passages: the last one is a dict beside the objects.
openai_last = {"role": "assistant", "content": ANSWER, "retrieved_contexts": [PASSAGE]}
reference = [{"name": "search", "args": {"q": "Eiffel Tower"}}]
ragas_messages = [rm.HumanMessage(content="Where is the Eiffel Tower?"),
                  rm.AIMessage(content="", tool_calls=[rm.ToolCall(name="search", args={"q": "Eiffel Tower"}),
                                                       rm.ToolCall(name="search", args={"q": "Paris"})]),
                  rm.ToolMessage(content=PASSAGE), rm.ToolMessage(content="Paris is the capital of France.")]
rows = {
    "langchain_messages": [{"messages": langchain_messages + [openai_last], "reference_tool_calls": reference}],
    "langchain_user_input": [{"user_input": langchain_messages[1:] + [answer_with_contexts],
                              "reference_tool_calls": reference}],
    "ragas_objects_in_a_dict": [{"user_input": ragas_messages + [answer_with_contexts],
                                 "reference_tool_calls": [rm.ToolCall(name="search", args={"q": "Eiffel Tower"})]}],
    "multi_turn_samples": [MultiTurnSample(user_input=ragas_messages + [rm.AIMessage(content=ANSWER)],
                                           reference_tool_calls=[rm.ToolCall(name="search", args={"q": "Eiffel Tower"})])],
}
out = {}
for name, data in rows.items():
    result = ragmeter.evaluate(data, metrics=METRICS, language="en", progress=False)
    out[name] = {"scores": {m: result.scores(m)[0] for m in METRICS},
                 "evidence": result.evidence(0)}
print(json.dumps(out))
'''


def purelib(venv):
    python = venv / "bin" / "python"
    return subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()


@pytest.mark.skipif(not (RAGAS_VENV / "bin" / "python").exists(),
                    reason="no ragas environment (scripts/setup.sh makes it)")
def test_langchain_and_ragas_objects_score_as_the_same_dicts():
    env = dict(os.environ, PYTHONPATH=purelib(RAGAS_VENV))
    child = subprocess.run([sys.executable, "-c", CHILD, json.dumps([PASSAGE, ANSWER, METRICS])],
                           capture_output=True, text=True, env=env, timeout=600)
    assert child.returncode == 0, child.stderr[-3000:]
    objects = json.loads(child.stdout.strip().splitlines()[-1])
    expected = {}
    for name, row in (("openai", OPENAI_DICT), ("ragas", RAGAS_DICT)):
        result = ragmeter.evaluate([row], metrics=METRICS, language="en", progress=False)
        expected[name] = {m: result.scores(m)[0] for m in METRICS}
    # By hand: called [search(Eiffel Tower), search(Paris)], expected [search(Eiffel Tower)]:
    # ragas's F1 2/3 (precision 1/2, recall 1); its accuracy 0 (the names differ in length);
    # DeepEval's (names only) 1. k_precision: every answer token is in the passage, 1.
    assert expected["openai"] == expected["ragas"] == {
        "ragas_tool_call_f1": 0.6667, "ragas_tool_call_accuracy": 0.0,
        "deepeval_tool_correctness": 1.0, "k_precision": 1.0}
    assert objects["langchain_messages"]["scores"] == expected["openai"]
    assert objects["langchain_user_input"]["scores"] == expected["ragas"]
    assert objects["ragas_objects_in_a_dict"]["scores"] == expected["ragas"]
    # A MultiTurnSample's messages carry no passages: k_precision is skipped, the rest equal.
    samples = objects["multi_turn_samples"]["scores"]
    assert samples["k_precision"] is None
    assert {m: samples[m] for m in METRICS[:3]} == {m: expected["ragas"][m] for m in METRICS[:3]}
