"""ragmeter.evaluate from a pandas DataFrame against `ragmeter eval` on the same rows as JSONL.

100,000 rows (question, response, reference, retrieved_contexts from HaluEval text) scored
with deterministic metrics, in one script, each side run --repeat times alternating, the best
time of each counting:

  cli            `ragmeter eval rows.jsonl -m METRICS --threads T -q --out results.jsonl
                 --summary summary.json` (reads and parses the file, writes per-row results)
  evaluate       `ragmeter.evaluate(frame, metrics=METRICS, threads=T, progress=False)`
                 (converts the DataFrame's cells, scores, keeps per-row results in memory)
  + to_pandas    the same, then `result.to_pandas()` (a DataFrame of the results)

Both sides' summaries are checked equal (means to the last bit) before any time is printed.
Target (issue 13): evaluate within 1.5x of the CLI.

Run with a Python that has the ragmeter wheel and pandas installed, e.g. after
`bash scripts/test_python.sh`:
    python -m venv /tmp/rm && /tmp/rm/bin/pip install build-python/dist/ragmeter-*.whl pandas
    RAGMETER_BUILD_DIR=build /tmp/rm/bin/python bench/python_vs_cli.py [--rows N] [--threads T]
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import random
import subprocess
import tempfile
import time

import pandas as pd

import ragmeter

REPO = pathlib.Path(__file__).resolve().parent.parent
BUILD = pathlib.Path(os.environ.get("RAGMETER_BUILD_DIR", REPO / "build"))


def make_rows(n: int, seed: int = 5) -> list:
    source = [json.loads(line) for line in open(REPO / "tests/data/halueval_qa_one_turn.jsonl", encoding="utf-8")]
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        r = source[i % len(source)]
        other = source[rng.randrange(len(source))]
        rows.append({
            "id": i,
            "user_input": r["question"],
            "response": r["right_answer"] if rng.random() < 0.5 else r["hallucinated_answer"],
            "reference": r["right_answer"],
            "retrieved_contexts": [r["knowledge"][:400], other["knowledge"][:400]],
        })
    return rows


def time_cli(path: pathlib.Path, metrics: str, threads: int, out_dir: pathlib.Path) -> float:
    cmd = [str(BUILD / "ragmeter"), "eval", str(path), "-m", metrics, "--threads", str(threads), "-q",
           "--out", str(out_dir / "results.jsonl"), "--summary", str(out_dir / "summary.json")]
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def time_python(frame: pd.DataFrame, metrics: str, threads: int, to_pandas: bool):
    start = time.perf_counter()
    result = ragmeter.evaluate(frame, metrics=metrics, threads=threads, progress=False)
    if to_pandas:
        result.to_pandas()
    return time.perf_counter() - start, result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--metrics", default="bleu,rouge_l,token_f1,k_precision")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    rows = make_rows(args.rows)
    frame = pd.DataFrame(rows)
    with tempfile.TemporaryDirectory() as tmp:
        tmp_dir = pathlib.Path(tmp)
        path = tmp_dir / "rows.jsonl"
        with open(path, "w", encoding="utf-8") as f:
            for row in rows:
                f.write(json.dumps(row) + "\n")
        best = {"cli": float("inf"), "evaluate": float("inf"), "evaluate + to_pandas": float("inf")}
        for _ in range(args.repeat):
            best["cli"] = min(best["cli"], time_cli(path, args.metrics, args.threads, tmp_dir))
            seconds, result = time_python(frame, args.metrics, args.threads, to_pandas=False)
            best["evaluate"] = min(best["evaluate"], seconds)
            seconds, _ = time_python(frame, args.metrics, args.threads, to_pandas=True)
            best["evaluate + to_pandas"] = min(best["evaluate + to_pandas"], seconds)
        cli_summary = json.loads((tmp_dir / "summary.json").read_text())
        if cli_summary["metrics"] != result.summary["metrics"]:
            raise SystemExit("the CLI's and Python's summaries differ")

    print(f"{args.rows:,} rows, metrics {args.metrics}, --threads {args.threads}, "
          f"best of {args.repeat} alternating runs; summaries equal")
    print(f"{'side':<22} {'seconds':>8} {'rows/s':>10} {'vs cli':>7}")
    for side, seconds in best.items():
        print(f"{side:<22} {seconds:8.3f} {args.rows / seconds:10,.0f} {seconds / best['cli']:6.2f}x")


if __name__ == "__main__":
    main()
