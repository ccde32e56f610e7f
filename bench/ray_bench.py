"""ragmeter.ray on this machine: throughput with 1 and 2 worker processes, for deterministic
metrics and for judged ones against the FAKE judge server with a fixed delay (where the
judge, not the CPU, is the limit), and the memory of a large run.

    ~/.cache/ragmeter/rayenv/bin/python bench/ray_bench.py throughput --rows 200000
    ~/.cache/ragmeter/rayenv/bin/python bench/ray_bench.py judged --rows 400 --delay-ms 200
    ~/.cache/ragmeter/rayenv/bin/python bench/ray_bench.py memory --rows 10000000 --out /tmp/results

It needs the package importable in the Ray environment (scripts/test_ray.sh's venv, or
PYTHONPATH pointing at an installed wheel) and, for `judged`, the fake at
$RAGMETER_BUILD_DIR/fakes/fake_llm_server. Figures are ratios within one run; each number
printed says what it measured. docs/performance.md and docs/scale.md quote them.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import resource
import subprocess
import threading
import time

import ray

import ragmeter
import ragmeter.ray

REPO = pathlib.Path(__file__).resolve().parents[1]
BUILD = pathlib.Path(os.environ.get("RAGMETER_BUILD_DIR", REPO / "build"))
WORDS = ("the cat sat on a mat while the dog ran far away from the old house near "
         "a river in paris where tower stands tall").split()
DETERMINISTIC = "token_f1,bleu,rouge_l"


def text_rows(n, start=0):
    rows = []
    for i in range(start, start + n):
        a = " ".join(WORDS[(i * 7 + w) % len(WORDS)] for w in range(8 + i % 9))
        b = " ".join(WORDS[(i * 3 + w * 5) % len(WORDS)] for w in range(9 + i % 7))
        rows.append({"user_input": f"question {i}", "response": a, "reference": b})
    return rows


def rss_of(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def worker_pids():
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    if b"_Scorer" in f.read():
                        pids.append(int(entry))
            except OSError:
                pass
    return pids


class PeakWorkerMemory:
    """Samples the scorer processes' resident memory every 0.2 s; keeps the largest sum."""

    def __init__(self):
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self._stop.is_set():
            self.peak = max(self.peak, sum(rss_of(p) for p in worker_pids()))
            time.sleep(0.2)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def timed(fn):
    start = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - start


def throughput(args):
    data = ray.data.from_items(text_rows(args.rows)).materialize()  # reading is not timed
    rows = text_rows(args.rows)
    _, single = timed(lambda: ragmeter.evaluate(rows, metrics=DETERMINISTIC, threads=1,
                                                progress=False, keep_evidence=False))
    print(f"one process, 1 thread (ragmeter.evaluate on a list): {args.rows / single:,.0f} rows/s")
    results = {}
    for workers in (1, 2):
        best = None
        for _ in range(args.repeat):
            result, seconds = timed(lambda: ragmeter.ray.evaluate(
                data, metrics=DETERMINISTIC, workers=workers, batch_size=args.batch_size))
            best = seconds if best is None else min(best, seconds)
        results[workers] = args.rows / best
        print(f"ray, {workers} worker(s), batch {args.batch_size}: {results[workers]:,.0f} rows/s "
              f"(best of {args.repeat}: {best:.2f} s for {args.rows:,} rows, summary included)")
    print(f"2 workers / 1 worker: {results[2] / results[1]:.2f}x")


def start_fake(delay_ms):
    binary = BUILD / "fakes" / "fake_llm_server"
    reply = json.dumps({**{f"S{n}": ["The tower is in Paris."] for n in range(1, 10)},
                        **{f"P{p}: claim {c}": "Entailment" for p in range(1, 7) for c in range(1, 5)},
                        **{f"reason {c}": "" for c in range(1, 5)}})
    proc = subprocess.Popen([str(binary), "--port", "0", "--content", reply,
                             "--delay-ms", str(delay_ms)], stdout=subprocess.PIPE, text=True)
    port = int(proc.stdout.readline().split()[-1])
    return proc, f"http://127.0.0.1:{port}"


def judged_rows(n, tag):
    return [{"user_input": f"Where is tower {tag}-{i}?",
             "response": f"The tower is in Paris. Tower {tag}-{i} is tall.",
             "reference": f"Tower {tag}-{i} stands in Paris.",
             "retrieved_contexts": [f"Paris has tower {tag}-{i}.", f"Tower {tag}-{i} is old."]}
            for i in range(n)]


def judged(args):
    proc, base = start_fake(args.delay_ms)
    try:
        rates = {}
        for workers in (1, 2):
            rows = judged_rows(args.rows, f"w{workers}-{time.time_ns()}")  # nothing cached
            result, seconds = timed(lambda: ragmeter.ray.evaluate(
                rows, metrics="faithfulness,context_recall", workers=workers,
                batch_size=args.batch_size,
                judge=ragmeter.OpenAIJudge(base + "/v1", "fake", concurrency=args.concurrency),
                cache_mode="off"))
            calls = result.usage["requests"]
            rates[workers] = calls / seconds
            bound = workers * args.concurrency / (args.delay_ms / 1000)
            print(f"ray, {workers} worker(s), {args.concurrency} calls in flight each, fake delay "
                  f"{args.delay_ms} ms: {args.rows / seconds:,.1f} rows/s, {rates[workers]:,.1f} "
                  f"calls/s ({calls} calls in {seconds:.1f} s; concurrency/delay bound "
                  f"{bound:,.0f} calls/s)")
        print(f"2 workers / 1 worker: {rates[2] / rates[1]:.2f}x")
    finally:
        proc.terminate()


def memory(args):
    """A large deterministic run, generated in the cluster (range -> rows), so the driver
    never holds the input; prints the driver's and the workers' peak memory."""
    words = WORDS

    def make(batch):
        ids = batch["id"]
        n = len(words)
        return {
            "user_input": [f"question {i}" for i in ids],
            "response": [" ".join(words[(i * 7 + w) % n] for w in range(8 + i % 9)) for i in ids],
            "reference": [" ".join(words[(i * 3 + w * 5) % n] for w in range(9 + i % 7)) for i in ids],
        }

    data = ray.data.range(args.rows).map_batches(make, batch_size=args.batch_size)
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    with PeakWorkerMemory() as workers:
        result, seconds = timed(lambda: ragmeter.ray.evaluate(
            data, metrics=args.metrics, workers=args.workers, batch_size=args.batch_size,
            bootstrap_resamples=args.resamples, out=args.out))
    driver_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    n = result.summary["rows"]["read"]
    print(f"results {'streamed to Parquet in ' + args.out if args.out else 'kept in the object store'}")
    print(f"rows {n:,}, metrics {args.metrics}, {args.workers} workers: {seconds:.0f} s "
          f"({n / seconds:,.0f} rows/s, generation included)")
    print(f"driver peak RSS {driver_peak / 2**20:,.0f} MiB (before the run {rss_before / 2**20:,.0f} MiB); "
          f"workers' peak RSS (sum) {workers.peak / 2**20:,.0f} MiB")
    print(json.dumps(result.summary["metrics"], indent=1)[:600])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("what", choices=["throughput", "judged", "memory"])
    parser.add_argument("--rows", type=int, default=200000)
    parser.add_argument("--batch-size", type=int, default=4096)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--delay-ms", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--metrics", default="token_f1")
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--object-store-mb", type=int, default=1024)
    parser.add_argument("--out", default=None,
                        help="memory: stream the results to Parquet files in this folder")
    args = parser.parse_args()
    # A CPU more than the scorers take, for Ray Data's read and generation tasks.
    ray.init(num_cpus=args.workers + 1, include_dashboard=False, logging_level="ERROR", log_to_driver=False,
             object_store_memory=args.object_store_mb * 2**20)
    {"throughput": throughput, "judged": judged, "memory": memory}[args.what](args)


if __name__ == "__main__":
    main()
