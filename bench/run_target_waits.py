"""Where a `ragmeter run` at high concurrency spends its time on a shared machine: the
run-queue wait (time runnable but not running, /proc/PID/task/TID/schedstat) of each of
ragmeter's threads and of the FAKE target server's thread (tests/fakes/fake_llm_server.cc)
during one run, beside the request latencies the run measured.

When the throughput misses concurrency / delay, this tells the machine from the code: a
thread that waits for a CPU as long as it runs is starved by other work, whereas a loop
that is itself the limit shows CPU near its wall time with little waiting.

    nice -n 10 ~/.cache/ragmeter/venv/bin/python bench/run_target_waits.py [--build build]
        [--concurrency 256] [--delay-ms 200] [--seconds 3] [--record]

Linux only (schedstat). The record is off unless --record, as in the bench's "no" lines.
"""

from __future__ import annotations

import argparse
import glob
import json
import subprocess
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def threads(pid: int, names: dict) -> dict:
    """tid -> (cpu ns, run-queue wait ns, time slices) of every thread of `pid` now."""
    out = {}
    for path in glob.glob(f"/proc/{pid}/task/*/schedstat"):
        tid = path.split("/")[4]
        try:
            cpu, wait, slices = map(int, Path(path).read_text().split())
            names[tid] = Path(path).with_name("comm").read_text().strip()  # after exec: the program's
        except (OSError, ValueError):  # the thread ended between glob and read
            continue
        out[tid] = (cpu, wait, slices)
    return out


def total(sample: dict):
    return [sum(v[i] for v in sample.values()) for i in range(3)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default=str(REPO / "build"))
    parser.add_argument("--concurrency", type=int, default=256)
    parser.add_argument("--delay-ms", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=3.0, help="ideal length of the run")
    parser.add_argument("--record", action="store_true", help="keep the answer record (its writer thread)")
    args = parser.parse_args()
    build = Path(args.build)
    ideal = args.concurrency / (args.delay_ms / 1000)
    n = max(20, int(ideal * args.seconds))
    fake = subprocess.Popen([str(build / "fakes" / "fake_llm_server"), "--port", "0", "--delay-ms",
                             str(args.delay_ms), "--content", "an answer"], stdout=subprocess.PIPE, text=True)
    try:
        port = int(fake.stdout.readline().split()[-1])
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            with open(tmp / "q.jsonl", "w") as f:
                for i in range(n):
                    f.write(json.dumps({"id": i, "user_input": f"question number {i} about the corpus"}) + "\n")
            names: dict = {}
            fake_before = total(threads(fake.pid, names))
            run = subprocess.Popen([str(build / "ragmeter"), "run", str(tmp / "q.jsonl"), "--target",
                                    f"http://127.0.0.1:{port}/v1/chat/completions", "--answer",
                                    "choices.0.message.content", "--out", str(tmp / "a.jsonl"), "--summary",
                                    str(tmp / "s.json"), "--concurrency", str(args.concurrency), "--quiet",
                                    "--fresh"] + ([] if args.record else ["--no-record"]))
            last: dict = {}
            while run.poll() is None:  # the last sample before the process ends
                last.update(threads(run.pid, names))
                time.sleep(0.02)
            fake_after = total(threads(fake.pid, names))
            if run.returncode != 0:
                raise SystemExit(f"ragmeter run failed ({run.returncode})")
            s = json.loads((tmp / "s.json").read_text())
    finally:
        fake.terminate()
        fake.wait()
    lat = s["latency_ms"]
    wall = s["wall_seconds"]
    in_requests = n * lat["mean"] / 1000 / args.concurrency
    print(f"{n} questions, concurrency {args.concurrency}, delay {args.delay_ms} ms, record "
          f"{'on' if args.record else 'off'}: loop {wall:.3f} s, "
          f"ratio to ideal {n / ideal / wall:.3f}; latency ms mean {lat['mean']:.1f} p50 {lat['p50']:.1f} "
          f"p95 {lat['p95']:.1f} max {lat['max']:.1f}; questions x mean latency / concurrency = "
          f"{in_requests:.3f} s, so {wall - in_requests:.3f} s of the loop was outside any request")
    cpu, wait, slices = total(last)
    print(f"ragmeter, all threads: CPU {cpu / 1e9:.3f} s, run-queue wait {wait / 1e9:.3f} s, {slices} time slices")
    for tid, (cpu, wait, slices) in sorted(last.items(), key=lambda kv: -kv[1][0]):
        print(f"  thread {tid} ({names.get(tid)}): CPU {cpu / 1e9:.3f} s, run-queue wait {wait / 1e9:.3f} s, "
              f"{slices} time slices")
    cpu, wait, slices = (a - b for a, b in zip(fake_after, fake_before))
    print(f"fake server, during the run: CPU {cpu / 1e9:.3f} s, run-queue wait {wait / 1e9:.3f} s, "
          f"{slices} time slices")


if __name__ == "__main__":
    main()
