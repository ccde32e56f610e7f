"""Benchmark of `ragmeter run`'s orchestration: throughput against a target that answers
after a fixed delay, compared with the ideal concurrency / delay, and the peak memory of a
100,000-question run.

The target is the FAKE OpenAI-compatible server (tests/fakes/fake_llm_server.cc, one epoll
thread, --delay-ms), asked through the HTTP target with the answer selector
choices.0.message.content; it reports the most requests it held at once, so each line also
shows that the concurrency asked for was really in flight.

    nice -n 10 ~/.cache/ragmeter/venv/bin/python bench/run_target_bench.py [--build build]

With --repeat N each line is the fastest of N runs, the runs with and without the record
alternating. Prints the 100k line first (peak RSS from getrusage of the children, which is the largest
child so far), then one line per (delay, concurrency, record or not): questions, seconds of
the run loop (from --summary), throughput, ideal throughput and their ratio, the most
requests the fake held at once, ragmeter's CPU time per question, the mean latency of a
request (the run's latency_ms: from handing it to the target to its answer) and the share of
the loop's seconds outside any request (1 - questions x mean latency / concurrency / loop
seconds): the ratio's shortfall splits into request latency above the delay (the transport,
the fake, the machine) and this share (the loop itself, the first and last round).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def start_fake(build: Path, delay_ms: int):
    proc = subprocess.Popen([str(build / "fakes" / "fake_llm_server"), "--port", "0",
                             "--delay-ms", str(delay_ms), "--content", "an answer"],
                            stdout=subprocess.PIPE, text=True)
    port = int(proc.stdout.readline().split()[-1])
    return proc, f"http://127.0.0.1:{port}"


def stats(base: str) -> dict:
    with urllib.request.urlopen(base + "/fake/stats") as reply:
        return json.load(reply)


def reset(base: str):
    request = urllib.request.Request(base + "/fake/script", data=b'{"steps": []}', method="POST")
    urllib.request.urlopen(request).read()


def write_questions(path: Path, n: int):
    with open(path, "w") as f:
        for i in range(n):
            f.write(json.dumps({"id": i, "user_input": f"question number {i} about the corpus",
                                "reference": "a reference answer"}) + "\n")


def run_once(build: Path, base: str, questions: Path, out_dir: Path, concurrency: int, record: bool):
    summary = out_dir / "summary.json"
    args = [str(build / "ragmeter"), "run", str(questions), "--target", base + "/v1/chat/completions",
            "--answer", "choices.0.message.content", "--out", str(out_dir / "answers.jsonl"),
            "--summary", str(summary), "--concurrency", str(concurrency), "--quiet", "--fresh"]
    if not record:
        args.append("--no-record")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    proc = subprocess.run(args, capture_output=True, text=True)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    if proc.returncode != 0:
        raise SystemExit(f"ragmeter run failed ({proc.returncode}): {proc.stderr[-2000:]}")
    s = json.loads(summary.read_text())
    assert s["answered"] == s["rows"], s
    # ru_maxrss of children is the largest child so far: the memory run goes first.
    return s, wall, cpu, after.ru_maxrss


def memory_run(build: Path, tmp: Path, big: int):
    fake, base = start_fake(build, 10)
    try:
        questions = tmp / "big.jsonl"
        write_questions(questions, big)
        s, wall, cpu, rss_kb = run_once(build, base, questions, tmp, 256, True)
        size = (tmp / "answers.jsonl").stat().st_size
        print(f"{big} questions, concurrency 256, delay 10 ms, with the record: loop "
              f"{s['wall_seconds']:.2f} s ({big / s['wall_seconds']:.0f} questions/s, ideal 25600), "
              f"CPU {cpu:.2f} s ({cpu / big * 1e6:.0f} us per question), "
              f"peak RSS {rss_kb / 1024:.1f} MiB, output {size / 1e6:.1f} MB, "
              f"record {os.path.getsize(tmp / 'answers.jsonl.record') / 1e6:.1f} MB", flush=True)
    finally:
        fake.terminate()
        fake.wait()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default=str(REPO / "build"))
    parser.add_argument("--seconds", type=float, default=4.0, help="ideal length of each run")
    parser.add_argument("--big", type=int, default=100_000, help="questions of the memory run")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 16, 64, 256])
    parser.add_argument("--delays", type=int, nargs="+", default=[200, 50], help="target delays, ms")
    parser.add_argument("--repeat", type=int, default=1,
                        help="runs of each line, alternating record and not; the fastest is shown")
    parser.add_argument("--skip-big", action="store_true", help="leave out the 100k memory run")
    args = parser.parse_args()
    build = Path(args.build)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        if not args.skip_big:
            memory_run(build, tmp, args.big)
        print("delay_ms concurrency record questions loop_s throughput ideal ratio max_in_flight cpu_us_per_q "
              "latency_mean_ms outside_latency")
        for delay_ms in args.delays:
            fake, base = start_fake(build, delay_ms)
            try:
                for concurrency in args.concurrency:
                    ideal = concurrency / (delay_ms / 1000.0)
                    n = max(20, int(ideal * args.seconds))
                    questions = tmp / f"q{n}.jsonl"
                    if not questions.exists():
                        write_questions(questions, n)
                    best = {}
                    for _ in range(args.repeat):  # alternating, so both see the same load
                        for record in (False, True):
                            reset(base)
                            s, _, cpu, _ = run_once(build, base, questions, tmp, concurrency, record)
                            st = stats(base)
                            if record not in best or s["wall_seconds"] < best[record][0]["wall_seconds"]:
                                best[record] = (s, cpu, st)
                    for record in (False, True):
                        s, cpu, st = best[record]
                        throughput = n / s["wall_seconds"]
                        # Little's law: with `concurrency` always in flight the run lasts
                        # n * mean latency / concurrency; the rest of the loop's seconds is
                        # time outside any request (the loop's own gaps, the first and last round).
                        mean_ms = s["latency_ms"]["mean"]
                        outside = 1 - n * mean_ms / 1000 / concurrency / s["wall_seconds"]
                        print(f"{delay_ms:8d} {concurrency:11d} {'yes' if record else 'no':>6} {n:9d} "
                              f"{s['wall_seconds']:6.2f} {throughput:10.1f} {ideal:6.0f} "
                              f"{throughput / ideal:5.3f} {st['max_in_flight']:13d} {cpu / n * 1e6:12.0f} "
                              f"{mean_ms:15.1f} {outside:15.3f}", flush=True)
            finally:
                fake.terminate()
                fake.wait()


if __name__ == "__main__":
    main()
