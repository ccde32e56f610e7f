"""Oracle test: ragmeter's DeepEval conversational metrics (conversation completeness,
knowledge retention, role adherence, turn relevancy, argument correctness, topic adherence)
against DeepEval
4.3.1's own code, run under $RAGMETER_CACHE/deepeval-venv (scripts/setup.sh makes it):
which turns it judges (get_unit_interactions), how it reads a verdict (verdict_from_json:
"Yes." is yes, "idk" and "maybe" are dropped) and each metric's _calculate_score.

The judge's verdicts come from the FAKE judge server (tests/fakes/fake_llm_server.cc, not a
model), which answers the metric's one call with a reply written here from seeded random
verdicts, with decoys DeepEval never sees (verdicts on items not asked, repeated items),
which ragmeter must drop. `ragmeter eval` scores the conversation; DeepEval's methods score
the same verdicts as its loop would have collected them. Every value must be equal to 1e-12;
where DeepEval scores an empty verdict list 1, ragmeter must skip and say so. The judging
itself, with a real model: tests/llm.

Run: RAGMETER_BUILD_DIR=$PWD/build ~/.cache/ragmeter/venv/bin/python -m pytest -q \
       tests/oracle/test_deepeval_conversation.py
"""

import json
import os
import random
import subprocess
from pathlib import Path

import pytest

BUILD_DIR = Path(os.environ.get("RAGMETER_BUILD_DIR", Path(__file__).resolve().parents[2] / "build"))
CACHE = Path(os.environ.get("RAGMETER_CACHE", Path.home() / ".cache" / "ragmeter"))
DEEPEVAL_PYTHON = CACHE / "deepeval-venv" / "bin" / "python"
CASES = 30
VERDICTS = ["yes", "no", "Yes.", "NO, it does not", " yes", "No", "idk", "maybe", "borderline"]

ORACLE = r'''
import json, sys, types
from deepeval.metrics.base_metric import YES_NO
from deepeval.metrics.utils.qag import verdict_from_json
from deepeval.metrics.utils.turns import get_unit_interactions
from deepeval.test_case import Turn
from deepeval.metrics import (ConversationCompletenessMetric, KnowledgeRetentionMetric,
    RoleAdherenceMetric, TurnRelevancyMetric, ArgumentCorrectnessMetric, TopicAdherenceMetric)
from deepeval.metrics.conversation_completeness.schema import ConversationCompletenessVerdict
from deepeval.metrics.knowledge_retention.schema import KnowledgeRetentionVerdict
from deepeval.metrics.turn_relevancy.schema import TurnRelevancyVerdict
from deepeval.metrics.argument_correctness.schema import ArgumentCorrectnessVerdict
from deepeval.metrics.role_adherence.schema import OutOfCharacterResponseVerdict

CLASSES = {"deepeval_conversation_completeness": (ConversationCompletenessMetric, ConversationCompletenessVerdict),
           "deepeval_knowledge_retention": (KnowledgeRetentionMetric, KnowledgeRetentionVerdict),
           "deepeval_turn_relevancy": (TurnRelevancyMetric, TurnRelevancyVerdict),
           "deepeval_argument_correctness": (ArgumentCorrectnessMetric, ArgumentCorrectnessVerdict)}
out = []
for case in json.load(sys.stdin):
    # The turns DeepEval sees: the user and assistant messages, each holding its number.
    turns = [Turn(role=role, content=str(number)) for number, role in case["turns"]]
    units = [unit[-1].content for unit in get_unit_interactions(turns)]
    metric = case["metric"]
    if metric == "deepeval_role_adherence":
        ooc = [OutOfCharacterResponseVerdict(index=0, reason="r") for _ in case["deepeval_verdicts"]]
        ns = types.SimpleNamespace(strict_mode=False, threshold=0.5,
                                   out_of_character_verdicts=types.SimpleNamespace(verdicts=ooc))
        score = RoleAdherenceMetric._calculate_score(ns, turns)
        empty = False
    elif metric == "deepeval_topic_adherence":
        # DeepEval's four classes: a yes is TP or TN, a no FP or FN (the case says which).
        counts = {c: [0, []] for c in ("TP", "TN", "FP", "FN")}
        for label in case["deepeval_verdicts"]:
            counts[label][0] += 1
        ns = types.SimpleNamespace(strict_mode=False, threshold=0.5)
        score = TopicAdherenceMetric._get_score(ns, counts["TP"], counts["TN"], counts["FP"], counts["FN"])
        empty = not case["deepeval_verdicts"]
    else:
        cls, verdict_cls = CLASSES[metric]
        verdicts = [verdict_from_json({"verdict": raw, "reason": "r"}, verdict_cls, YES_NO)
                    for raw in case["deepeval_verdicts"]]
        ns = types.SimpleNamespace(strict_mode=False, threshold=0.5, verdicts=verdicts)
        score = cls._calculate_score(ns)
        empty = not [v for v in verdicts if v is not None]
    out.append({"units": units, "score": score, "empty": empty})
print(json.dumps(out))
'''


def conversation(rng):
    """OpenAI messages (a system message, tool calls and their tool messages among them) and
    the (number, role) of the user and assistant messages, which are all DeepEval sees."""
    messages, turns = [], []
    if rng.random() < 0.5:
        messages.append({"role": "system", "content": "Be helpful."})
    calls = 0
    for _ in range(rng.randint(1, 9)):
        role = rng.choice(["user", "assistant"])
        message = {"role": role, "content": f"{role} text {len(messages) + 1}"}
        if role == "assistant" and rng.random() < 0.4:
            calls += 1
            message["tool_calls"] = [{"id": f"c{calls}", "type": "function", "function": {
                "name": "lookup", "arguments": json.dumps({"q": calls})}}]
        messages.append(message)
        turns.append((len(messages), role))
        if "tool_calls" in message:
            messages.append({"role": "tool", "tool_call_id": f"c{calls}", "content": "result"})
    return messages, turns, calls


def case_for(metric, rng):
    """The conversation, the reply the fake judge sends and the verdicts DeepEval would have
    collected for the same judgements (its per-item calls' answers, in order)."""
    messages, turns, calls = conversation(rng)
    assistants = [str(n) for n, role in turns if role == "assistant"]
    users = [str(n) for n, role in turns if role == "user"]
    reply, deepeval = [], []
    if metric == "deepeval_conversation_completeness":
        for k in range(rng.randint(0, 5)):
            raw = rng.choice(VERDICTS)
            reply.append({"item": f"intention {k}", "verdict": raw})
            deepeval.append(raw)
    elif metric == "deepeval_topic_adherence":
        for k in range(rng.randint(0, 5)):
            good = rng.random() < 0.5
            reply.append({"item": f"question {k}", "verdict": rng.choice(["yes", "Yes."] if good else ["no", "No"])})
            deepeval.append(rng.choice(["TP", "TN"] if good else ["FP", "FN"]))
    elif metric == "deepeval_role_adherence":
        for item in assistants:
            if rng.random() < 0.4:
                reply.append({"item": item, "verdict": rng.choice(["no", "No, out of role", "NO"])})
                deepeval.append("ooc")
            elif rng.random() < 0.5:
                reply.append({"item": item, "verdict": rng.choice(["yes", "Yes.", "idk"])})
    else:
        if metric == "deepeval_argument_correctness":
            asked = [str(k) for k in range(1, calls + 1)]
        elif metric == "deepeval_knowledge_retention":
            asked = [a for a in assistants if rng.random() < 0.7]  # those after a stated fact
        else:
            asked = None  # turn relevancy: the units' ends, known only after the oracle ran
        return {"metric": metric, "messages": messages, "turns": turns, "asked": asked,
                "seed": rng.random(), "decoys": users}
    return {"metric": metric, "messages": messages, "turns": turns, "reply": reply,
            "deepeval_verdicts": deepeval}


def with_item_verdicts(case, asked):
    """For the per-item metrics: one verdict per asked item (DeepEval's per-item calls), plus
    decoys ragmeter must drop: a verdict on a user message and a repeat of an item."""
    rng = random.Random(case["seed"])
    reply, deepeval = [], []
    for item in asked:
        raw = rng.choice(VERDICTS)
        reply.append({"item": item, "verdict": raw})
        deepeval.append(raw)
    if case["decoys"] and rng.random() < 0.5:
        reply.append({"item": rng.choice(case["decoys"]), "verdict": "no"})
    if asked and rng.random() < 0.5:
        reply.append({"item": asked[0], "verdict": "no" if rng.random() < 0.5 else "yes"})
    rng.shuffle(reply)
    # DeepEval's verdicts come in item order; the first verdict per item is the one counted.
    first = {}
    for v in reply:
        first.setdefault(v["item"], v["verdict"])
    case["reply"] = reply
    case["deepeval_verdicts"] = [first[item] for item in asked]


def run_oracle(cases):
    p = subprocess.run([str(DEEPEVAL_PYTHON), "-c", ORACLE], input=json.dumps(cases),
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout)


def ragmeter_score(tmp_path, case, name):
    reply = json.dumps({"verdicts": [{**v, "reason": "fake"} for v in case["reply"]], "reason": "fake"})
    proc = subprocess.Popen([str(BUILD_DIR / "fakes" / "fake_llm_server"), "--port", "0",
                             "--content", reply], stdout=subprocess.PIPE, text=True)
    try:
        port = int(proc.stdout.readline().split()[-1])
        data, out = tmp_path / f"{name}.in.jsonl", tmp_path / f"{name}.out.jsonl"
        data.write_text(json.dumps({"messages": case["messages"], "chatbot_role": "a helper",
                                    "reference_topics": ["weather"]}) + "\n")
        p = subprocess.run([str(BUILD_DIR / "ragmeter"), "eval", str(data), "-m", case["metric"],
                            "--judge-url", f"http://127.0.0.1:{port}/v1", "--judge-model", "fake",
                            "--cache-mode", "off", "--language", "en", "--out", str(out), "-q"],
                           capture_output=True, text=True, timeout=120)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    assert p.returncode == 0, p.stderr
    return json.loads(out.read_text())


@pytest.mark.skipif(not DEEPEVAL_PYTHON.exists(), reason="no DeepEval environment (scripts/setup.sh)")
@pytest.mark.parametrize("metric", ["deepeval_conversation_completeness", "deepeval_knowledge_retention",
                                    "deepeval_role_adherence", "deepeval_turn_relevancy",
                                    "deepeval_argument_correctness", "deepeval_topic_adherence"])
def test_scores_equal_deepevals_own_arithmetic(tmp_path, metric):
    rng = random.Random(f"36-{metric}")
    cases = [case_for(metric, rng) for _ in range(CASES)]
    if metric == "deepeval_turn_relevancy":  # the turns DeepEval judges, from DeepEval itself
        for case, units in zip(cases, run_oracle([{**c, "deepeval_verdicts": []} for c in cases])):
            case["asked"] = units["units"]
    for case in cases:
        if "reply" not in case:
            with_item_verdicts(case, case["asked"])
    expected = run_oracle(cases)
    scored = skipped = 0
    for i, (case, want) in enumerate(zip(cases, expected)):
        row = ragmeter_score(tmp_path, case, f"case{i}")
        status, reason = row["status"][metric], row["reasons"].get(metric, "")
        if want["empty"] or (metric == "deepeval_role_adherence" and not any(r == "assistant" for _, r in case["turns"])):
            # DeepEval: 1 from nothing judged (0 for topic adherence); ragmeter says so instead.
            nothing = 0 if metric == "deepeval_topic_adherence" else 1
            assert want["score"] == nothing
            assert status == "skipped" and f"DeepEval scores {nothing}" in reason, (case, row)
            skipped += 1
            continue
        assert status == "ok", (case, reason)
        assert abs(row["scores"][metric] - want["score"]) <= 1e-12, (case, row["scores"][metric], want)
        if metric == "deepeval_turn_relevancy":
            assert row["evidence"][metric]["asked"] == want["units"]
        scored += 1
    assert scored >= CASES // 2, (scored, skipped)
