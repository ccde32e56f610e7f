"""Streaming: peak memory and rows/s of `ragmeter eval` on a generated 1,000,000-row JSONL.

Generates the file (once, cached in the build dir), scores it with bleu, rouge_l and
token_f1 on 1 and 2 threads, and reports peak RSS (from the kernel's accounting of the
child, ru_maxrss) and rows per second. Also scores the first 100,000 rows, to show that
peak memory does not grow with the file size.

Run: RAGMETER_BUILD_DIR=build python3 bench/streaming_memory.py [--rows N]
"""
import argparse
import json
import os
import pathlib
import random
import resource
import subprocess
import time

REPO = pathlib.Path(__file__).resolve().parent.parent
BUILD = pathlib.Path(os.environ.get("RAGMETER_BUILD_DIR", REPO / "build"))


def generate(path, rows):
    source = [json.loads(l) for l in open(REPO / "tests/data/halueval_qa_one_turn.jsonl", encoding="utf-8")]
    rng = random.Random(3)
    with open(path, "w", encoding="utf-8") as f:
        for i in range(rows):
            r = source[i % len(source)]
            response = r["right_answer"] if rng.random() < 0.5 else r["hallucinated_answer"]
            f.write(json.dumps({"id": i, "user_input": r["question"], "response": response,
                                "reference": r["right_answer"]}) + "\n")


def run(path, threads, limit=0):
    cmd = [str(BUILD / "ragmeter"), "eval", str(path), "-m", "bleu,rouge_l,token_f1", "-q",
           "--threads", str(threads)]
    if limit:
        cmd += ["--limit", str(limit)]
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.execv(cmd[0], cmd)
    _, status, usage = os.wait4(pid, 0)
    elapsed = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"ragmeter failed: {cmd}")
    return elapsed, usage.ru_maxrss / 1024.0  # ru_maxrss is in KiB on Linux


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_000)
    args = parser.parse_args()
    path = BUILD / f"stream_{args.rows}.jsonl"
    if not path.exists():
        generate(path, args.rows)
    size_mb = path.stat().st_size / 1e6
    print(f"file: {path} ({args.rows} rows, {size_mb:.0f} MB); metrics bleu,rouge_l,token_f1")
    small = min(100_000, args.rows)
    elapsed, rss = run(path, 1, limit=small)
    print(f"first {small} rows, 1 thread: {small / elapsed:,.0f} rows/s, peak RSS {rss:.1f} MB")
    for threads in (1, 2):
        elapsed, rss = run(path, threads)
        print(f"all rows, {threads} thread(s): {args.rows / elapsed:,.0f} rows/s, {elapsed:.1f} s, "
              f"peak RSS {rss:.1f} MB")


if __name__ == "__main__":
    main()
