#!/usr/bin/env python3
"""Side-by-side cost of DeepEval 4.3.1's conversational metrics and ragmeter's conversation
tasks (docs/agents.md): the same conversations, the same judge server, counted by the same
proxy (bench/counting_proxy.py): chat requests, prompt and completion tokens, wall time, and
each tool's scores. A benchmark, not a test: it prints figures.

Needs a running OpenAI-compatible server (scripts/llm_server.sh start) and the DeepEval venv
($RAGMETER_CACHE/deepeval-venv, made by scripts/setup.sh).

Usage:
  python3 bench/deepeval_conversation_cost.py --upstream http://127.0.0.1:PORT --model NAME \
      [--build build] [--metrics a,b] [--tools deepeval,ragmeter] [--out DIR]

The conversations are bench/data/conversations_cost.jsonl (written for this benchmark,
DeepEval's turn shape). DeepEval runs each metric with LocalModel against the proxy, one
metric and conversation at a time, async_mode off; ragmeter runs `eval` with --cache-mode off.
"""

import argparse
import json
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CACHE = Path(os.environ.get("RAGMETER_CACHE", Path.home() / ".cache" / "ragmeter"))
DEEPEVAL_PYTHON = CACHE / "deepeval-venv" / "bin" / "python"
DATA = HERE / "data" / "conversations_cost.jsonl"
METRICS = ["deepeval_conversation_completeness", "deepeval_knowledge_retention",
           "deepeval_role_adherence", "deepeval_turn_relevancy", "deepeval_argument_correctness"]

# Run by the DeepEval venv's python: argv = proxy base URL (…/v1), model, metrics, data.
DEEPEVAL_RUNNER = r'''
import json, sys, time
from deepeval.models import LocalModel
from deepeval.test_case import ConversationalTestCase, LLMTestCase, Turn, ToolCall
from deepeval.metrics import (ConversationCompletenessMetric, KnowledgeRetentionMetric,
    RoleAdherenceMetric, TurnRelevancyMetric, ArgumentCorrectnessMetric)
base_url, model_name, metrics, data = sys.argv[1], sys.argv[2], sys.argv[3].split(","), sys.argv[4]
model = LocalModel(model=model_name, base_url=base_url, api_key="none", temperature=0)
CLASSES = {"deepeval_conversation_completeness": ConversationCompletenessMetric,
           "deepeval_knowledge_retention": KnowledgeRetentionMetric,
           "deepeval_role_adherence": RoleAdherenceMetric,
           "deepeval_turn_relevancy": TurnRelevancyMetric,
           "deepeval_argument_correctness": ArgumentCorrectnessMetric}
for line in open(data):
    row = json.loads(line)
    turns = [Turn(role=t["role"], content=t["content"],
                  tools_called=[ToolCall(name=c["name"], input_parameters=c.get("input_parameters"))
                                for c in t.get("tools_called", [])] or None)
             for t in row["turns"]]
    for name in metrics:
        metric = CLASSES[name](model=model, async_mode=False)
        if name == "deepeval_argument_correctness":
            calls = [c for t in turns for c in (t.tools_called or [])]
            case = LLMTestCase(input=" ".join(t.content for t in turns if t.role == "user"),
                               actual_output=[t.content for t in turns if t.role == "assistant"][-1],
                               tools_called=calls)
        else:
            case = ConversationalTestCase(turns=turns, chatbot_role=row.get("chatbot_role"))
        start = time.time()
        try:
            metric.measure(case, _show_indicator=False)
            result = {"score": metric.score, "error": None}
        except Exception as e:  # a reply DeepEval could not parse, a failed call
            result = {"score": None, "error": f"{type(e).__name__}: {e}"[:300]}
        result.update(id=row["id"], metric=name, seconds=round(time.time() - start, 1))
        print(json.dumps(result), flush=True)
'''


def http_json(url, method="GET"):
    req = urllib.request.Request(url, method=method, data=b"" if method == "POST" else None)
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read() or b"null")


def start_proxy(upstream, outdir):
    port_file = outdir / "proxy.port"
    port_file.unlink(missing_ok=True)
    log = open(outdir / "proxy.log", "w")
    p = subprocess.Popen([sys.executable, str(HERE / "counting_proxy.py"), "--upstream", upstream,
                          "--port", "0", "--port-file", str(port_file)], stderr=log)
    for _ in range(100):
        if port_file.exists() and port_file.read_text().strip():
            return p, f"http://127.0.0.1:{port_file.read_text().strip()}"
        time.sleep(0.1)
    raise SystemExit("the counting proxy did not start (see proxy.log)")


def stop_proxy(proxy, proxy_proc):
    try:
        http_json(f"{proxy}/__proxy/shutdown", "POST")
    except Exception:
        pass
    proxy_proc.wait(timeout=30)


def requests_ok(counters):
    """The proxy's count of 2xx replies."""
    return sum(n for code, n in counters.get("by_status", {}).items() if code.startswith("2"))


def phase(proxy, name):
    http_json(f"{proxy}/__proxy/phase?name={name}", "POST")


def stats(proxy, name):
    return http_json(f"{proxy}/__proxy/stats")["phases"].get(name, {})


def run_deepeval(proxy, model, metrics, outdir):
    start = time.time()
    p = subprocess.run([str(DEEPEVAL_PYTHON), "-c", DEEPEVAL_RUNNER, f"{proxy}/v1", model,
                        ",".join(metrics), str(DATA)], capture_output=True, text=True,
                       env={**os.environ, "DEEPEVAL_TELEMETRY_OPT_OUT": "YES",
                            "ERROR_REPORTING": "NO"})
    (outdir / "deepeval.stderr").write_text(p.stderr)
    rows = [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]
    return rows, time.time() - start


def trace_tokens(traces, outdir):
    """ragmeter streams its replies and llama-cpp-python's server sends no usage in a stream,
    so the proxy counts no tokens for it: they are counted from its --traces with the model's
    own tokenizer (bench/trace_tokens.py), exactly."""
    models = sorted((CACHE / "llm-models").glob("*.gguf"))
    python = CACHE / "llm-venv" / "bin" / "python"
    if not models or not python.exists() or not traces.exists():
        return None
    p = subprocess.run([str(python), str(HERE / "trace_tokens.py"), "--model", str(models[0]), str(traces)],
                       capture_output=True, text=True)
    lines = [l for l in p.stdout.splitlines() if l.startswith("{")]
    return json.loads(lines[-1]) if lines else None


def run_ragmeter(proxy, model, metrics, build, outdir, data=DATA):
    """`ragmeter eval` of `data` through the proxy, one row per (conversation, metric)."""
    out, traces = outdir / "ragmeter.jsonl", outdir / "ragmeter.traces.jsonl"
    start = time.time()
    p = subprocess.run([str(build / "ragmeter"), "eval", str(data), "--metrics", ",".join(metrics),
                        "--judge-url", f"{proxy}/v1", "--judge-model", model, "--cache-mode", "off",
                        "--traces", str(traces), "--out", str(out), "--allow-failures", "-q"],
                       capture_output=True, text=True)
    (outdir / "ragmeter.stderr").write_text(p.stderr)
    rows = []
    for line in out.read_text().splitlines() if out.exists() else []:
        r = json.loads(line)
        for m in metrics:
            rows.append({"id": r["id"], "metric": m, "score": r["scores"].get(m),
                         "error": None if r["status"][m] == "ok" else f'{r["status"][m]}: {r["reasons"].get(m)}'})
    return rows, time.time() - start


def measure(upstream, outdir, runners, report):
    """Runs each tool (`runners`: name -> fn(proxy) -> (rows, wall seconds)) through one
    counting proxy, in order, and fills report["tools"]; ragmeter's tokens come from its traces."""
    proxy_proc, proxy = start_proxy(upstream, outdir)
    report.setdefault("tools", {})
    try:
        for tool, runner in runners.items():
            phase(proxy, tool)
            rows, wall = runner(proxy)
            phase(proxy, "idle")
            counters = stats(proxy, tool)
            if tool == "ragmeter":
                exact = trace_tokens(outdir / "ragmeter.traces.jsonl", outdir)
                if exact:
                    counters["prompt_tokens"] = exact["prompt_tokens"]
                    counters["completion_tokens"] = exact["completion_tokens"]
                    counters["tokens_from"] = "traces (bench/trace_tokens.py)"
            report["tools"][tool] = {"counters": counters, "wall_s": round(wall, 1), "rows": rows}
            (outdir / "report.json").write_text(json.dumps(report, indent=1))
    finally:
        stop_proxy(proxy, proxy_proc)
    return report


def print_metric_report(report):
    print(f"{'tool':10} {'requests':>8} {'prompt':>8} {'completion':>10} {'wall s':>7}  (requests: 2xx replies)")
    for tool, t in report["tools"].items():
        c = t["counters"]
        print(f"{tool:10} {requests_ok(c):>8} {c.get('prompt_tokens', 0):>8} "
              f"{c.get('completion_tokens', 0):>10} {t['wall_s']:>7}")
    for tool, t in report["tools"].items():
        for r in t["rows"]:
            print(tool, r["id"], r["metric"], r["score"], r["error"] or "")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--upstream", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--build", default=str(ROOT / "build"))
    ap.add_argument("--metrics", default=",".join(METRICS))
    ap.add_argument("--tools", default="deepeval,ragmeter")
    ap.add_argument("--out", default="/tmp/deepeval-conversation-cost")
    args = ap.parse_args()
    outdir = Path(args.out)
    outdir.mkdir(parents=True, exist_ok=True)
    metrics = args.metrics.split(",")
    runners = {"deepeval": lambda proxy: run_deepeval(proxy, args.model, metrics, outdir),
               "ragmeter": lambda proxy: run_ragmeter(proxy, args.model, metrics, Path(args.build), outdir)}
    report = measure(args.upstream, outdir, {t: runners[t] for t in args.tools.split(",")}, {"metrics": metrics})
    print_metric_report(report)


if __name__ == "__main__":
    main()
