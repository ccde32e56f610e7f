"""What rows taking turns costs in wall time (src/core/row_turns.h, docs/design.md "Same
replies, same scores: rows take turns"): `ragmeter eval --metrics faithfulness` of ROWS rows
at --concurrency C against the FAKE OpenAI-compatible server (tests/fakes/fake_llm_server.cc,
scripted replies, not a model) whose replies come after a delay drawn per request from a
seeded uniform range, as a remote API's do. Each row is one claims call and one verdict
table; a row's table waits for the rows before it that may share its cells (a common
question, passage or answer) to have composed theirs, so with --shared-passage a slow claims
reply early in the file holds the tables after it; without, the rows share nothing.

Two binaries, A (before) and B (after), run alternately REPEATS times on the same rows and
the same script; prints one JSON line per binary with its wall seconds (each run's, and the
median) and the ratio of the medians B / A, and checks that every row was scored.

    nice ~/.cache/ragmeter/venv/bin/python bench/row_turns_wall.py \
        --a /tmp/before/build/ragmeter --b build/ragmeter [--rows 64] [--concurrency 8] \
        [--min-ms 100] [--max-ms 1500] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def rows_and_script(n: int, low: int, high: int, seed: int, shared: bool):
    draw = random.Random(seed)
    rows, by_prompt = [], []
    for i in range(n):
        first, second = f"Fact {i} is true.", f"Fact {i} has a second part."
        rows.append({"user_input": f"Question {i}?", "response": f"{first} {second}",
                     "retrieved_contexts": ["The passage says that every fact holds." if shared
                                            else f"The passage says that fact {i} holds."]})
        claims = {"S1": [first], "S2": [second]}
        by_prompt.append({"contains": f"QUESTION:\nQuestion {i}?\n",
                          "content": json.dumps(claims), "delay_ms": draw.randint(low, high)})
        table = {"Evidence 1": "none", "Evidence 2": "none", "P1: claim 1": "Neutral",
                 "P1: claim 2": "Neutral", "reason 1": "not stated", "reason 2": "not stated"}
        by_prompt.append({"contains": f"1. {first}\n", "content": json.dumps(table),
                          "delay_ms": draw.randint(low, high)})
    return rows, {"steps": [], "default": {"content": "{}", "by_prompt": by_prompt}}


def start_fake(fake: Path, script: Path):
    proc = subprocess.Popen([str(fake), "--port", "0", "--script", str(script)],
                            stdout=subprocess.PIPE, text=True)
    port = int(proc.stdout.readline().split()[-1])
    return proc, f"http://127.0.0.1:{port}/v1"


def run_once(binary: Path, fake: Path, script: Path, rows: Path, out: Path, concurrency: int):
    proc, url = start_fake(fake, script)
    try:
        args = [str(binary), "eval", str(rows), "--metrics", "faithfulness", "--judge", "openai",
                "--judge-url", url, "--judge-model", "fake-model", "--judge-key-env", "",
                "--concurrency", str(concurrency), "--cache-mode", "off", "--out", str(out),
                "--quiet"]
        start = time.monotonic()
        done = subprocess.run(args, capture_output=True, text=True)
        wall = time.monotonic() - start
    finally:
        proc.kill()
        proc.wait()
    if done.returncode != 0:
        raise SystemExit(f"{binary} failed ({done.returncode}): {done.stderr[-2000:]}")
    results = [json.loads(line) for line in out.read_text().splitlines()]
    scored = sum(1 for r in results if r.get("status", {}).get("faithfulness") == "ok")
    if scored != len(results):
        raise SystemExit(f"{binary}: {len(results) - scored} rows not scored: {results[0]}")
    return wall


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--a", type=Path, required=True, help="the binary before")
    parser.add_argument("--b", type=Path, required=True, help="the binary after")
    parser.add_argument("--fake", type=Path, default=REPO / "build" / "fakes" / "fake_llm_server")
    parser.add_argument("--rows", type=int, default=64)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--min-ms", type=int, default=100)
    parser.add_argument("--max-ms", type=int, default=1500)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--shared-passage", action="store_true",
                        help="every row retrieves the same passage (every row may share "
                             "verdicts with every other, so each waits for the ones before it)")
    args = parser.parse_args()
    rows, script = rows_and_script(args.rows, args.min_ms, args.max_ms, args.seed,
                                   args.shared_passage)
    walls = {"A": [], "B": []}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        rows_file, script_file = tmp / "rows.jsonl", tmp / "script.json"
        rows_file.write_text("".join(json.dumps(r) + "\n" for r in rows))
        script_file.write_text(json.dumps(script))
        for _ in range(args.repeats):
            for label, binary in (("A", args.a), ("B", args.b)):
                walls[label].append(run_once(binary, args.fake, script_file, rows_file,
                                             tmp / f"out_{label}.jsonl", args.concurrency))
    median = {k: statistics.median(v) for k, v in walls.items()}
    for label, binary in (("A", args.a), ("B", args.b)):
        print(json.dumps({"binary": label, "path": str(binary), "rows": args.rows,
                          "shared_passage": args.shared_passage,
                          "concurrency": args.concurrency,
                          "delay_ms": [args.min_ms, args.max_ms],
                          "wall_s": [round(w, 2) for w in walls[label]],
                          "median_s": round(median[label], 2)}))
    print(json.dumps({"ratio_b_over_a": round(median["B"] / median["A"], 3)}))


if __name__ == "__main__":
    main()
