#!/usr/bin/env python3
"""Side-by-side cost of a simulated user: DeepEval 4.3.1's ConversationSimulator and
`ragmeter run` with a scenario row (docs/run.md, "Conversations"), the same scenarios, the
same scripted chat bot as the system under test, the same model playing the user, counted
by the same proxy (bench/counting_proxy.py). A benchmark, not a test: it prints figures.

Needs a running OpenAI-compatible server (scripts/llm_server.sh start) and the DeepEval venv
($RAGMETER_CACHE/deepeval-venv, made by scripts/setup.sh).

Usage:
  python3 bench/simulated_user_cost.py --upstream http://127.0.0.1:PORT --model NAME \
      [--build build] [--max-user-turns 4] [--tools deepeval,ragmeter] [--out DIR]

The scenarios are bench/data/scenarios_cost.jsonl (written for this benchmark). The bot
(BOT below, FAKE: not a model) asks for the details on the first user message, for a name on
the second, and confirms from the third on, so a user that checks the expected outcome can
stop after three turns. DeepEval runs with async_mode off, one scenario at a time; ragmeter
with --concurrency 1 and --cache-mode off. The two conversations differ (the model writes
them), so the figures to compare are per user turn.
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
from deepeval_conversation_cost import DEEPEVAL_PYTHON, measure, requests_ok  # noqa: E402

DATA = HERE / "data" / "scenarios_cost.jsonl"

BOT = r'''
def bot(user_turns):
    if user_turns <= 1:
        return "Happy to help. Could you give me the details (date, time, number of people or order number)?"
    if user_turns == 2:
        return "Thank you. Under which name should I put it?"
    return "Done: it is confirmed under that name. Is there anything else?"
'''

DEEPEVAL_RUNNER = BOT + r'''
import json, sys, time
from deepeval.models import LocalModel
from deepeval.dataset import ConversationalGolden
from deepeval.simulator import ConversationSimulator
from deepeval.test_case import Turn
base_url, model_name, data, max_turns = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
model = LocalModel(model=model_name, base_url=base_url, api_key="none", temperature=0)
def callback(input, turns):
    return Turn(role="assistant", content=bot(sum(1 for t in turns if t.role == "user")))
for line in open(data):
    row = json.loads(line)
    golden = ConversationalGolden(scenario=row["scenario"], expected_outcome=row["expected_outcome"],
                                  user_description=row["user_description"])
    simulator = ConversationSimulator(model_callback=callback, simulator_model=model, async_mode=False)
    start = time.time()
    try:
        case = simulator.simulate(conversational_goldens=[golden], max_user_simulations=max_turns)[0]
        users = [t.content for t in case.turns if t.role == "user"]
        result = {"user_turns": len(users), "error": None, "users": users}
    except Exception as e:
        result = {"user_turns": None, "error": f"{type(e).__name__}: {e}"[:300]}
    result.update(id=row["id"], seconds=round(time.time() - start, 1))
    print(json.dumps(result), flush=True)
'''

RAGMETER_TARGET = BOT + r'''
import json, sys
for line in sys.stdin:
    request = json.loads(line)
    users = sum(1 for m in request["messages"] if m["role"] == "user")
    print(json.dumps({"answer": bot(users)}), flush=True)
'''


def run_deepeval(proxy, model, max_turns, outdir):
    start = time.time()
    p = subprocess.run([str(DEEPEVAL_PYTHON), "-c", DEEPEVAL_RUNNER, f"{proxy}/v1", model, str(DATA), str(max_turns)],
                       capture_output=True, text=True,
                       env={**os.environ, "DEEPEVAL_TELEMETRY_OPT_OUT": "YES", "ERROR_REPORTING": "NO"})
    (outdir / "deepeval.stderr").write_text(p.stderr)
    return [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")], time.time() - start


def run_ragmeter(proxy, model, max_turns, build, outdir):
    target = outdir / "bot.py"
    target.write_text(RAGMETER_TARGET)
    out = outdir / "ragmeter.jsonl"
    start = time.time()
    p = subprocess.run([str(build / "ragmeter"), "run", str(DATA), "--target-cmd", f"{sys.executable} {target}",
                        "--out", str(out), "--no-record", "--concurrency", "1", "--max-user-turns", str(max_turns),
                        "--judge-url", f"{proxy}/v1", "--judge-model", model, "--cache-mode", "off",
                        "--allow-failures", "-q"], capture_output=True, text=True)
    (outdir / "ragmeter.stderr").write_text(p.stderr)
    rows = []
    for line in out.read_text().splitlines() if out.exists() else []:
        r = json.loads(line)
        users = [m["content"] for m in r.get("messages", []) if m["role"] == "user"]
        rows.append({"id": r["id"], "user_turns": len(users) if "simulation" in r else None,
                     "ended": r.get("simulation", {}).get("ended"), "error": r.get("run_error"), "users": users})
    return rows, time.time() - start


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--upstream", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--build", default=str(HERE.parent / "build"))
    ap.add_argument("--max-user-turns", type=int, default=4)
    ap.add_argument("--tools", default="deepeval,ragmeter")
    ap.add_argument("--out", default="/tmp/simulated-user-cost")
    args = ap.parse_args()
    outdir = Path(args.out)
    outdir.mkdir(parents=True, exist_ok=True)
    runners = {"deepeval": lambda proxy: run_deepeval(proxy, args.model, args.max_user_turns, outdir),
               "ragmeter": lambda proxy: run_ragmeter(proxy, args.model, args.max_user_turns, Path(args.build),
                                                      outdir)}
    report = measure(args.upstream, outdir, {t: runners[t] for t in args.tools.split(",")},
                     {"max_user_turns": args.max_user_turns})
    print(f"{'tool':10} {'requests':>8} {'user turns':>10} {'req/turn':>8} {'prompt':>8} {'completion':>10} {'wall s':>7}")
    for tool, t in report["tools"].items():
        c = t["counters"]
        ok = requests_ok(c)
        turns = sum(r["user_turns"] or 0 for r in t["rows"])
        print(f"{tool:10} {ok:>8} {turns:>10} {ok / max(turns, 1):>8.2f} {c.get('prompt_tokens', 0):>8} "
              f"{c.get('completion_tokens', 0):>10} {t['wall_s']:>7}")
    for tool, t in report["tools"].items():
        for r in t["rows"]:
            print(tool, r["id"], r["user_turns"], r.get("ended") or "", r["error"] or "")


if __name__ == "__main__":
    main()
