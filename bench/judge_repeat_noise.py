"""The repeat noise of a judge: `ragmeter eval --repeat K` on HaluEval samples.

Writes, in --outdir, --items items from --start of HaluEval QA (tests/data/halueval_qa_one_turn.jsonl)
as 2 x --items samples (each item's right and hallucinated answer, the question, the knowledge
passage as the one retrieved context), runs `ragmeter eval --repeat K` with a gate at --pass-mark
(so the summary counts the flaky samples) and prints the command and the summary's repeat figures.
Every figure comes from the binary; this script only writes the input and lays the JSON out.

Run:  eval "$(scripts/llm_server.sh env)"
      RAGMETER_BUILD_DIR=build python3 bench/judge_repeat_noise.py --outdir /tmp/repeat-noise \
          --judge-args "--judge openai --judge-url $RAGMETER_JUDGE_URL --judge-model $RAGMETER_JUDGE_MODEL"
Needs only Python 3's standard library. Results are in docs/judges.md.
"""
import argparse
import json
import os
import pathlib
import shlex
import subprocess
import sys
import time

REPO = pathlib.Path(__file__).resolve().parent.parent
BUILD = pathlib.Path(os.environ.get("RAGMETER_BUILD_DIR", REPO / "build"))
HALUEVAL = REPO / "tests/data/halueval_qa_one_turn.jsonl"


def write_samples(path, items, first):
    with open(path, "w", encoding="utf-8") as f:
        for i, item in enumerate(items):
            for kind in ("right", "hallucinated"):
                f.write(json.dumps({"id": f"{first + i}:{kind}", "user_input": item["question"],
                                    "response": item[f"{kind}_answer"],
                                    "retrieved_contexts": [item["knowledge"]]},
                                   ensure_ascii=False) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--outdir", type=pathlib.Path, required=True)
    parser.add_argument("--start", type=int, default=0, help="first HaluEval item (0-based)")
    parser.add_argument("--items", type=int, default=10, help="HaluEval items (2 samples each)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--metrics", default="faithfulness")
    parser.add_argument("--pass-mark", type=float, default=0.5)
    parser.add_argument("--judge-args", default="", help="flags naming the judge")
    args = parser.parse_args()
    args.outdir.mkdir(parents=True, exist_ok=True)
    items = [json.loads(line) for line in open(HALUEVAL, encoding="utf-8")][args.start: args.start + args.items]
    data = args.outdir / "halueval.jsonl"
    write_samples(data, items, args.start)
    results, summary = args.outdir / "results.jsonl", args.outdir / "summary.json"
    gates = [f"--fail-under={m}={args.pass_mark}" for m in args.metrics.split(",")]
    cmd = [BUILD / "ragmeter", "eval", data, "--metrics", args.metrics, "--repeat",
           str(args.repeat), *gates, "--out", results, "--summary", summary,
           "--traces", args.outdir / "traces.jsonl", *shlex.split(args.judge_args)]
    print("$ " + " ".join(shlex.quote(str(c)) for c in cmd), flush=True)
    start = time.monotonic()
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True)
    wall = time.monotonic() - start
    if proc.returncode not in (0, 1, 3):
        sys.exit(f"failed ({proc.returncode}):\n{proc.stderr}")
    print(proc.stdout)
    print(proc.stderr[-3000:])
    doc = json.load(open(summary, encoding="utf-8"))
    print(f"wall {wall:.0f} s; usage {json.dumps(doc.get('usage', {}).get('by_call', {}))}")
    print(json.dumps(doc.get("repeat"), indent=1))
    for name, metric in doc.get("metrics", {}).items():
        print(name, json.dumps({k: metric.get(k) for k in ("n", "mean", "ci95", "repeats")},
                               indent=1))


if __name__ == "__main__":
    main()
