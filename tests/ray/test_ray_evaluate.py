"""ragmeter.ray on a real local Ray cluster (2 worker processes): the same results as one
process row for row and in the summary; a worker killed in a judged run against the FAKE
judge costs no finished call twice; the cluster-wide rate limit holds.

The single-process baselines are the package's own ragmeter.evaluate, with the same
judge settings (no Ray, no shared hooks).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time

import pandas as pd
import pytest

import ragmeter
import ragmeter.ray
from ragmeter import _core

from conftest import JUDGED_METRICS, judged_rows

DETERMINISTIC = "token_f1,exact_match,bleu,chrf,rouge_l,levenshtein_similarity"


def text_rows(n):
    """Varied rows: overlaps of every degree, a row without reference every 9th (skipped),
    an empty response every 13th."""
    words = "the cat sat on a mat while dog ran far away".split()
    rows = []
    for i in range(n):
        response = " ".join(words[(i * 3 + w) % len(words)] for w in range(2 + i % 7))
        reference = " ".join(words[(i + w * 5) % len(words)] for w in range(3 + i % 4))
        rows.append({"id": i, "user_input": f"q{i}",
                     "response": "" if i % 13 == 7 else response,
                     "reference": None if i % 9 == 4 else reference})
    return rows


def plain(column):
    """A text column as a list, missing values (None, NaN, pd.NA by pandas' dtype) as None."""
    return [value if isinstance(value, str) else None for value in column.tolist()]


def but_date(summary_text):
    """The summary JSON text with the run's date blanked (two runs may fall in different
    seconds); everything else byte for byte."""
    return re.sub(r'"date": "[^"]*"', '"date": ""', summary_text)


def assert_same_rows(ray_result, single, metrics):
    got = ray_result.to_pandas()
    want = single.to_pandas()
    assert len(got) == len(want)
    for metric in metrics:
        pd.testing.assert_series_equal(got[metric].astype("float64"), want[metric].astype("float64"),
                                       check_names=False, check_index=False, check_exact=True)
        assert plain(got[f"{metric}_status"]) == plain(want[f"{metric}_status"])
        assert plain(got[f"{metric}_reason"]) == plain(want[f"{metric}_reason"])


def test_deterministic_metrics_equal_one_process_row_for_row_and_in_the_summary(ray_cluster):
    rows = text_rows(600)
    single = ragmeter.evaluate(rows, metrics=DETERMINISTIC, seed=11, progress=False)
    result = ragmeter.ray.evaluate(rows, metrics=DETERMINISTIC, seed=11, workers=2, batch_size=64)
    assert result.to_pandas()["id"].tolist() == list(range(600))  # input order
    metrics = DETERMINISTIC.split(",")
    assert_same_rows(result, single, metrics)
    # The summary's numbers, bootstrap interval included, exactly.
    assert result.summary["metrics"] == single.summary["metrics"]
    assert result.summary["rows"] == single.summary["rows"]
    assert single.summary["metrics"]["token_f1"]["skipped"] > 0  # the edge rows are there
    assert single.summary["metrics"]["bleu"]["corpus"] is not None


def test_a_jsonl_path_and_the_command_line_give_one_process_summary(ray_cluster, tmp_path):
    rows = [{k: v for k, v in r.items() if v is not None} for r in text_rows(300)]
    rows = [r for r in rows if "reference" in r]  # one schema for Ray Data's JSON reader
    data = tmp_path / "rows.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    single = ragmeter.evaluate(str(data), metrics="token_f1,bleu,rouge_l", progress=False)
    result = ragmeter.ray.evaluate(str(data), metrics="token_f1,bleu,rouge_l", workers=2,
                                   batch_size=50)
    # The same bytes as --summary (run identity with the file's hash included) but the date.
    assert '"dataset_sha256": "' in single.summary_json()
    assert but_date(result.summary_json()) == but_date(single.summary_json())
    assert_same_rows(result, single, ["token_f1", "bleu", "rouge_l"])

    # python -m ragmeter.ray, connected to the test's cluster.
    summary, out = tmp_path / "summary.json", tmp_path / "out.jsonl"
    address = ray_cluster.get_runtime_context().gcs_address
    p = subprocess.run([sys.executable, "-m", "ragmeter.ray", str(data), "--address", address,
                        "--workers", "2", "--metrics", "token_f1,bleu,rouge_l", "--summary", str(summary),
                        "--out", str(out), "-q"], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    assert but_date(summary.read_text()) == but_date(single.summary_json())
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [line["id"] for line in lines] == [r["id"] for r in rows]
    assert [line["scores"]["token_f1"] for line in lines] == single.scores("token_f1")


def fake_llm_judge(url, cache_mode=None):
    return ragmeter.OpenAIJudge(url, "fake", concurrency=4, cache_mode=cache_mode)


def single_process_judged(rows, url):
    """Every row in one ragmeter.evaluate call with the same LLM judge, no cache: the
    single-process run."""
    return ragmeter.evaluate(rows, metrics=JUDGED_METRICS, judge=fake_llm_judge(url, "off"),
                             progress=False)


def test_judged_metrics_equal_one_process(ray_cluster, fake_judge, tmp_path):
    rows = judged_rows(40)
    fake = fake_judge()
    single = single_process_judged(rows, fake.url)
    assert fake.stats()["chat"] == 80  # 2 calls a row, none shared
    result = ragmeter.ray.evaluate(rows, metrics=JUDGED_METRICS, workers=2, batch_size=8,
                                   judge=fake_llm_judge(fake.url),
                                   cache=str(tmp_path / "judge.sqlite"))
    assert_same_rows(result, single, JUDGED_METRICS.split(","))
    assert result.summary["metrics"] == single.summary["metrics"]
    assert result.usage["requests"] == 80 and fake.stats()["chat"] == 160
    # The per-kind split is the workers' counts summed: the same as one process's.
    assert result.usage["by_call"] == single.summary["usage"]["by_call"]
    assert sum(k["calls"] for k in result.usage["by_call"].values()) == 80
    # A rerun pays nothing: every call is in the shared cache.
    again = ragmeter.ray.evaluate(rows, metrics=JUDGED_METRICS, workers=2, batch_size=8,
                                  judge=fake_llm_judge(fake.url),
                                  cache=str(tmp_path / "judge.sqlite"))
    assert fake.stats()["chat"] == 160
    assert again.usage["requests"] == 0
    # Every call of the rerun, of every kind, was answered by the cache or the store.
    assert again.usage["by_call"].keys() == single.summary["usage"]["by_call"].keys()
    assert all(t["calls"] > 0 and t["calls"] == t["cache_hits"] + t.get("store_hits", 0)
               for t in again.usage["by_call"].values())
    assert again.summary["metrics"] == single.summary["metrics"]


def scorer_pids():
    """Ray's worker processes running the scorers (their titles name the class)."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                title = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if title.startswith("ray::") and "_Scorer" in title:
            pids.append(int(entry))
    return pids


def test_a_worker_killed_mid_run_pays_no_finished_call_twice(ray_cluster, fake_judge, tmp_path):
    rows = judged_rows(60)
    expected = 2 * len(rows)  # distinct calls
    fake = fake_judge(delay_ms=150)
    killed = {}

    def kill_one_worker():
        deadline = time.time() + 120
        while time.time() < deadline:
            stats = fake.stats()
            pids = scorer_pids()
            if stats["chat"] >= expected // 3 and pids:
                # Calls the fake is serving at this moment may be asked again by the
                # retried batch; calls that finished must not.
                killed["in_flight"] = stats["in_flight"]
                killed["chat_before"] = stats["chat"]
                os.kill(pids[0], signal.SIGKILL)
                killed["pid"] = pids[0]
                return
            time.sleep(0.02)

    killer = threading.Thread(target=kill_one_worker)
    killer.start()
    result = ragmeter.ray.evaluate(rows, metrics=JUDGED_METRICS, workers=2, batch_size=10,
                                   judge=fake_llm_judge(fake.url),
                                   cache=str(tmp_path / "judge.sqlite"))
    killer.join()
    assert "pid" in killed, "no worker was killed"
    sent = fake.stats()["chat"]
    # Every call made at least once. The retried batch repeats only the calls the killed
    # worker had not finished (sent, not yet stored): at most its 4 calls in flight. Without
    # the shared cache it would repeat every call its batch had finished (up to 20).
    assert expected <= sent <= expected + 4, (sent, killed)
    # The run completed with every row scored, equal to one process's results.
    reference = single_process_judged(rows, fake_judge().url)
    assert_same_rows(result, reference, JUDGED_METRICS.split(","))
    assert result.summary["metrics"] == reference.summary["metrics"]


def test_the_rate_limit_holds_across_workers(ray_cluster, fake_judge):
    rows = judged_rows(25)
    rpm = 240.0  # 4 per second for the whole cluster; the fake answers at once
    fake = fake_judge()
    seen = []  # (time, chat requests so far), polled at the fake
    done = threading.Event()

    def poll():
        while not done.is_set():
            seen.append((time.monotonic(), fake.stats()["chat"]))
            time.sleep(0.02)

    poller = threading.Thread(target=poll)
    poller.start()
    try:
        result = ragmeter.ray.evaluate(rows, metrics=JUDGED_METRICS, workers=2, batch_size=5,
                                       judge=ragmeter.OpenAIJudge(fake.url, "fake", concurrency=8),
                                       rpm=rpm, cache_mode="off")
    finally:
        done.set()
        poller.join()
    total = seen[-1][1]
    assert total == 50 == result.usage["requests"]
    first = next(t for t, n in seen if n >= 1)
    last = next(t for t, n in seen if n >= total)
    # The bucket holds one second's worth (4) at the start; the rest go at 4 per second.
    rate = (total - 4) / (last - first)
    assert rate <= 4.0 * 1.1, rate
    assert rate >= 4.0 * 0.8, rate  # at the limit, not far below it
    # No one-minute window can then hold more than rpm + 4; over any 5 s window as well.
    for t0, n0 in seen:
        window = [n for t, n in seen if t0 <= t <= t0 + 5.0]
        assert window[-1] - n0 <= 4.0 * 5.0 + 4 + 1, (t0, window[-1] - n0)


def test_a_cache_shard_stores_what_one_call_told_in_one_transaction(tmp_path):
    """The cache actor's put_all (what a worker's judge stores per call: a table's verdict
    cells, a claims call's sentences) lands whole in the judge cache file, readable by a
    second opening of it; a read-only shard stores nothing."""
    path = str(tmp_path / "judge.sqlite")
    shard = ragmeter.ray._CacheShard(path, "rw")
    entries = [(f"cell-{i}", "verdict", f'{{"verdict": "Entailment", "n": {i}}}'.encode())
               for i in range(20)]
    shard.put_all(entries)
    reader = ragmeter.ray._CacheShard(path, "ro")
    assert [reader.get(key) for key, _, _ in entries] == [value for _, _, value in entries]
    reader.put_all([("other", "claims", b"x")])
    assert reader.get("other") is None and shard.get("other") is None
