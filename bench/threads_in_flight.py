"""Threads and memory per judge request in flight (docs/performance.md, "Threads per request
in flight"): `ragmeter eval --metrics M` of ROWS rows at each --concurrency C against the
FAKE OpenAI-compatible server (tests/fakes/fake_llm_server.cc, scripted replies after a fixed
delay, not a model). Per binary and C: the wall seconds against the ideal (the requests one
after another in waves of C: rows x requests a row x delay / C), the most threads the
process had at once (read from /proc every 20 ms) and its peak resident memory (wait4).

Metrics: faithfulness (each row a claims call, then a verdict table: bench/row_turns_wall.py's
rows and script) or harmfulness (each row one critic call). A row waits on its requests on a
thread of its own (evaluate's row loop, sized to the concurrency); what this measures is how
many more threads each request adds.

    ~/.cache/ragmeter/venv/bin/python bench/threads_in_flight.py --a OLD/ragmeter \
        --b build/ragmeter [--metric faithfulness|harmfulness] [--rows 512] \
        [--concurrency 4,16,64,256,1024] [--delay-ms 250]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import row_turns_wall  # the faithfulness rows and script, and the fake server's start

REPO = Path(__file__).resolve().parents[1]


def critic_rows_and_script(n: int, delay_ms: int):
    rows = [{"user_input": f"Question {i}?", "response": f"Answer {i}."} for i in range(n)]
    reply = json.dumps({"reason": "It is harmless.", "verdict": 0})
    return rows, {"steps": [], "default": {"content": reply, "delay_ms": delay_ms}}


def peak_threads(pid: int, stop: threading.Event, out: list):
    peak = 0
    while not stop.is_set():
        try:
            with open(f"/proc/{pid}/status") as f:
                for line in f:
                    if line.startswith("Threads:"):
                        peak = max(peak, int(line.split()[1]))
        except OSError:
            break
        time.sleep(0.02)
    out.append(peak)


def run_once(binary, fake, script, rows, out, metric, concurrency):
    server, url = row_turns_wall.start_fake(fake, script)
    try:
        args = [str(binary), "eval", str(rows), "--metrics", metric, "--judge", "openai",
                "--judge-url", url, "--judge-model", "fake-model", "--judge-key-env", "",
                "--concurrency", str(concurrency), "--cache-mode", "off", "--out", str(out),
                "--bootstrap-resamples", "0", "--threads", "2", "--quiet"]
        start = time.monotonic()
        proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        stop, peak = threading.Event(), []
        watcher = threading.Thread(target=peak_threads, args=(proc.pid, stop, peak))
        watcher.start()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.monotonic() - start
        stop.set()
        watcher.join()
        proc.returncode = os.waitstatus_to_exitcode(status)
        stderr = proc.stderr.read().decode()
    finally:
        server.kill()
        server.wait()
    if proc.returncode != 0:
        raise SystemExit(f"{binary} failed ({proc.returncode}): {stderr[-2000:]}")
    results = [json.loads(line) for line in out.read_text().splitlines()]
    scored = sum(1 for r in results if r.get("status", {}).get(metric) == "ok")
    if scored != len(results):
        raise SystemExit(f"{binary}: {len(results) - scored} rows not scored: {results[0]}")
    return wall, peak[0], usage.ru_maxrss // 1024


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--a", type=Path, required=True, help="the binary before")
    parser.add_argument("--b", type=Path, required=True, help="the binary after")
    parser.add_argument("--fake", type=Path, default=REPO / "build" / "fakes" / "fake_llm_server")
    parser.add_argument("--metric", choices=["faithfulness", "harmfulness"], default="faithfulness")
    parser.add_argument("--rows", type=int, default=512)
    parser.add_argument("--concurrency", default="4,16,64,256,1024")
    parser.add_argument("--delay-ms", type=int, default=250)
    args = parser.parse_args()
    if args.metric == "faithfulness":
        rows, script = row_turns_wall.rows_and_script(args.rows, args.delay_ms, args.delay_ms, 7, False)
        requests_a_row = 2
    else:
        rows, script = critic_rows_and_script(args.rows, args.delay_ms)
        requests_a_row = 1
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        rows_file, script_file = tmp / "rows.jsonl", tmp / "script.json"
        rows_file.write_text("".join(json.dumps(r) + "\n" for r in rows))
        script_file.write_text(json.dumps(script))
        for concurrency in (int(c) for c in args.concurrency.split(",")):
            waves = -(-args.rows // concurrency) * requests_a_row
            for label, binary in (("A", args.a), ("B", args.b)):
                wall, threads, rss_mb = run_once(binary, args.fake, script_file, rows_file,
                                                 tmp / f"out_{label}.jsonl", args.metric,
                                                 concurrency)
                print(json.dumps({"binary": label, "metric": args.metric, "rows": args.rows,
                                  "concurrency": concurrency, "wall_s": round(wall, 2),
                                  "ideal_s": round(waves * args.delay_ms / 1000, 2),
                                  "peak_threads": threads, "peak_rss_mb": rss_mb}), flush=True)


if __name__ == "__main__":
    main()
