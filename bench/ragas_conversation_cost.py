#!/usr/bin/env python3
"""Side-by-side cost of ragas 0.4.3's agent goal accuracy (with a reference) and topic
adherence (f1) and ragmeter's, on the same conversations, the same judge server, counted by the
same proxy (bench/counting_proxy.py): chat requests, prompt and completion tokens, wall time,
and each tool's scores. A benchmark, not a test: it prints figures.

Needs a running OpenAI-compatible server (scripts/llm_server.sh start) and the ragas venv
($RAGMETER_CACHE/ragas-venv, bench/ragas_env.sh, made by scripts/setup.sh).

Usage:
  python3 bench/ragas_conversation_cost.py --upstream http://127.0.0.1:PORT --model NAME \
      [--build build] [--tools ragas,ragmeter] [--out DIR]

The conversations are bench/data/conversations_cost.jsonl (DeepEval's turn shape, turned into
ragas's messages here; each row's `reference` and `reference_topics`). ragas runs its
`ragas.metrics.collections` metrics with `llm_factory` over an AsyncOpenAI client pointed at the
proxy, one metric and conversation at a time; ragmeter runs `eval` with --cache-mode off.
"""

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from deepeval_conversation_cost import CACHE, DATA, measure, print_metric_report, run_ragmeter  # noqa: E402

RAGAS_PYTHON = CACHE / "ragas-venv" / "bin" / "python"
METRICS = {"ragas_agent_goal_accuracy": "goal", "ragas_topic_adherence": "topics"}

# Run by the ragas venv's python: argv = proxy base URL (.../v1), model, metrics, data.
RAGAS_RUNNER = r'''
import asyncio, json, sys, time
from openai import AsyncOpenAI
from ragas.llms import llm_factory
from ragas.messages import AIMessage, HumanMessage, ToolCall, ToolMessage
from ragas.metrics.collections import AgentGoalAccuracyWithReference, TopicAdherence
base_url, model_name, metrics, data = sys.argv[1], sys.argv[2], sys.argv[3].split(","), sys.argv[4]
llm = llm_factory(model_name, client=AsyncOpenAI(base_url=base_url, api_key="none"), temperature=0)

def messages(turns):
    out = []
    for t in turns:
        if t["role"] == "user":
            out.append(HumanMessage(content=t["content"]))
            continue
        calls = [ToolCall(name=c["name"], args=c.get("input_parameters") or {}) for c in t.get("tools_called", [])]
        out.append(AIMessage(content=t["content"], tool_calls=calls or None))
        for c in calls:
            out.append(ToolMessage(content="ok"))
    return out

async def main():
    for line in open(data):
        row = json.loads(line)
        conversation = messages(row["turns"])
        for name in metrics:
            start = time.time()
            try:
                if name == "ragas_agent_goal_accuracy":
                    r = await AgentGoalAccuracyWithReference(llm=llm).ascore(user_input=conversation, reference=row["reference"])
                else:
                    r = await TopicAdherence(llm=llm, mode="f1").ascore(user_input=conversation, reference_topics=row["reference_topics"])
                result = {"score": r.value, "error": None}
            except Exception as e:
                result = {"score": None, "error": f"{type(e).__name__}: {e}"[:300]}
            result.update(id=row["id"], metric=name, seconds=round(time.time() - start, 1))
            print(json.dumps(result), flush=True)

asyncio.run(main())
'''


def run_ragas(proxy, model, metrics, outdir):
    start = time.time()
    p = subprocess.run([str(RAGAS_PYTHON), "-c", RAGAS_RUNNER, f"{proxy}/v1", model, ",".join(metrics), str(DATA)],
                       capture_output=True, text=True, env={**os.environ, "RAGAS_DO_NOT_TRACK": "true"})
    (outdir / "ragas.stderr").write_text(p.stderr)
    return [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")], time.time() - start


def ragas_shaped(outdir):
    """The conversations in ragas's shape for ragmeter (a tool message after each call, as
    the ragas side gets them)."""
    data = outdir / "conversations_ragas.jsonl"
    with open(DATA) as src, open(data, "w") as dst:
        for line in src:
            row = json.loads(line)
            messages = []
            for t in row["turns"]:
                if t["role"] == "user":
                    messages.append({"type": "human", "content": t["content"]})
                    continue
                calls = [{"name": c["name"], "args": c.get("input_parameters") or {}} for c in t.get("tools_called", [])]
                messages.append({"type": "ai", "content": t["content"], **({"tool_calls": calls} if calls else {})})
                messages += [{"type": "tool", "content": "ok"} for _ in calls]
            dst.write(json.dumps({"id": row["id"], "user_input": messages, "reference": row["reference"],
                                  "reference_topics": row["reference_topics"]}) + "\n")
    return data


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--upstream", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--build", default=str(HERE.parent / "build"))
    ap.add_argument("--metrics", default=",".join(METRICS))
    ap.add_argument("--tools", default="ragas,ragmeter")
    ap.add_argument("--out", default="/tmp/ragas-conversation-cost")
    args = ap.parse_args()
    outdir = Path(args.out)
    outdir.mkdir(parents=True, exist_ok=True)
    metrics = args.metrics.split(",")
    runners = {"ragas": lambda proxy: run_ragas(proxy, args.model, metrics, outdir),
               "ragmeter": lambda proxy: run_ragmeter(proxy, args.model, metrics, Path(args.build), outdir,
                                                      ragas_shaped(outdir))}
    report = measure(args.upstream, outdir, {t: runners[t] for t in args.tools.split(",")}, {"metrics": metrics})
    print_metric_report(report)


if __name__ == "__main__":
    main()
