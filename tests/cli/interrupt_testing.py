"""Helpers of the interrupt tests (test_interrupts_cli.py, test_random_interrupts_cli.py): the
FAKE RAG target and the FAKE judge (tests/run/fake_rag_target.py, tests/fakes/fake_llm_server.cc;
neither is a model), data made here, a signal with the time the process took to act on it, and
the checks every output must pass after an interrupt."""

import json
import os
import random
import signal
import subprocess
import sys
import time

from cli_shared import BUILD, REPO

FAKE_TARGET = REPO / "tests" / "run" / "fake_rag_target.py"
FAKE_COMMAND = REPO / "tests" / "run" / "fake_rag_command.py"
MODEL_DIR = os.environ.get("RAGMETER_EMBEDDER_MODEL", os.path.join(os.environ.get(
    "RAGMETER_CACHE", os.path.join(os.path.expanduser("~"), ".cache", "ragmeter")),
    "models", "all-MiniLM-L6-v2"))
# A sanity bound on the time from a signal to the exit: the contract is about a second, the
# bound leaves room for a loaded shared machine. The measured figure is printed.
ACT_BOUND_SECONDS = 10.0

WORDS = ("river mountain harbour engine library garden silver winter market theatre castle "
         "bridge forest island museum valley canal tower village station orchard meadow glacier "
         "lantern copper marble violin compass anchor feather cobalt saffron quartz falcon "
         "timber velvet canyon ember prairie beacon walnut crystal thunder pepper maple cedar "
         "harvest chimney cathedral fountain pilgrim voyage archive ledger tundra lagoon").split()


def start(args, **kwargs):
    return subprocess.Popen([str(BUILD / "ragmeter"), *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kwargs)


def interrupt(proc, sig=signal.SIGINT, timeout=120):
    """Sends `sig`; returns (exit code, stderr, seconds from the signal to the exit)."""
    sent = time.monotonic()
    proc.send_signal(sig)
    _, stderr = proc.communicate(timeout=timeout)
    return proc.returncode, stderr, time.monotonic() - sent


def wait_for(condition, timeout=30, what="a condition"):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def complete_lines(path):
    """The lines of `path` that end with a newline (a line being written is left out)."""
    if not os.path.exists(path):
        return 0
    with open(path, "rb") as f:
        return f.read().count(b"\n")


def read_jsonl_strict(path):
    """Every line parses and the file ends with a newline (no half-written row)."""
    text = open(path, encoding="utf-8").read()
    assert text == "" or text.endswith("\n"), f"{path} ends in the middle of a line"
    return [json.loads(line) for line in text.splitlines()]


def sentence(rng, words):
    return " ".join(rng.choice(WORDS) for _ in range(words)).capitalize() + "."


def text_rows(n, seed=1, words=12):
    """Rows with every field the lexical, retrieval and offline-judged metrics need; ids 0..n-1."""
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        reference = sentence(rng, words)
        rows.append({"id": i, "user_input": f"What about the {rng.choice(WORDS)} {i}?",
                     "response": sentence(rng, words), "reference": reference,
                     "retrieved_contexts": [reference, sentence(rng, words), sentence(rng, words)],
                     "retrieved_context_ids": ["d%d" % rng.randrange(8) for _ in range(3)],
                     "reference_context_ids": ["d%d" % rng.randrange(8) for _ in range(2)]})
    return rows


def write_jsonl(path, rows):
    with open(path, "w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row) + "\n")
    return path


def check_eval_outputs(out, summary, metrics, rc, rows_before_signal=0):
    """The --out rows are the input's first n rows in order, each complete for every metric;
    the summary covers exactly them and says cancelled after exit 130. Returns n."""
    rows = read_jsonl_strict(out) if os.path.exists(out) else []
    assert [r["id"] for r in rows] == list(range(len(rows))), "not a prefix of the input in order"
    assert len(rows) >= rows_before_signal, (len(rows), rows_before_signal)
    for r in rows:
        assert set(r["status"]) == set(metrics) and set(r["scores"]) == set(metrics), r
        for m in metrics:
            assert r["status"][m] in ("ok", "skipped", "failed"), r
            assert (r["scores"][m] is not None) == (r["status"][m] == "ok"), r
            if r["status"][m] != "ok":
                assert r["reasons"][m], r
    if rc == 130:
        s = json.load(open(summary))
        assert s["cancelled"] is True
        assert s["rows"]["read"] == len(rows)
        for m in metrics:
            assert s["metrics"][m]["n"] == sum(r["status"][m] == "ok" for r in rows), m
    elif rc in (0, 1, 3):
        s = json.load(open(summary))
        assert not s.get("cancelled") and s["rows"]["read"] == len(rows)
    return len(rows)


class FakeTarget:
    """The FAKE RAG target over HTTP (tests/run/fake_rag_target.py), answering after `delay`."""

    def __init__(self, tmp_path, delay):
        self.log = tmp_path / f"target-{time.monotonic_ns()}.jsonl"
        self.delay = delay
        self.proc = subprocess.Popen([sys.executable, str(FAKE_TARGET), "--log", str(self.log),
                                      "--delay", str(delay)], stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True)
        self.url = f"http://127.0.0.1:{int(self.proc.stdout.readline().split()[-1])}/ask"

    def answered_before(self, wall_time, since=0.0):
        """Questions asked since `since` whose answer the target had sent before `wall_time`
        (both time.time())."""
        if not self.log.exists():
            return set()
        asked = [json.loads(line) for line in self.log.read_text().splitlines() if line.endswith("}")]
        return {r["question"] for r in asked if since <= r["time"] and r["time"] + self.delay < wall_time}

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=10)


def check_run_outputs(out, summary, questions, rc, answered_before_signal=()):
    """--out holds the rows read, in input order: an answer, or a run_error; every answer the
    target had sent before the signal is there; the summary agrees and says cancelled after 130.
    Returns the number of answered rows."""
    rows = read_jsonl_strict(out) if os.path.exists(out) else []
    assert [r["user_input"] for r in rows] == questions[:len(rows)]
    for r in rows:
        assert ("response" in r) != ("run_error" in r), r
        if "response" in r:
            assert r["response"] == f"answer to {r['user_input']}" and r["retrieved_contexts"], r
        else:
            assert r["run_error"]["kind"] == "interrupted", r
    answered = {r["user_input"] for r in rows if "response" in r}
    missing = set(answered_before_signal) - answered
    assert not missing, f"answers that had arrived are lost: {sorted(missing)[:5]}"
    if rc == 130:
        s = json.load(open(summary))
        assert s["cancelled"] is True and s["rows"] == len(rows) and s["answered"] == len(answered)
    return len(answered)


def questions_file(path, n):
    questions = [f"question {i}" for i in range(n)]
    write_jsonl(path, [{"id": f"q{i}", "user_input": q, "reference": f"answer to {q}"}
                       for i, q in enumerate(questions)])
    return questions


def long_rows(n, seed=7):
    """Rows whose response and reference are 60 words each: embedding them all takes tens of
    seconds, so a whole-batch embedding would make the signal wait that long."""
    rows = text_rows(n, seed=seed)
    rng = random.Random(seed)
    for row in rows:
        row["response"], row["reference"] = sentence(rng, 60), sentence(rng, 60)
    return rows


def gen_script(n, seed=3):
    """FAKE judge replies for `gen`, each a valid generation (one pair with a question of its
    own), a passing critic verdict and a closed-book "unknown" at once: every row is accepted,
    three calls each."""
    rng = random.Random(seed)
    steps = []
    for i in range(n):
        question = f"Which {rng.choice(WORDS)} {rng.choice(WORDS)} did the {rng.choice(WORDS)} pick in {1000 + i}?"
        steps.append({"content": json.dumps({
            "pairs": [{"passages": ["P1"], "question": question, "reference": "The Danube."}],
            "answerable": True, "grounded": True, "standalone": True, "why_not": "",
            "answer": "unknown"}), "delay_ms": 60})
    return {"steps": steps}


def gen_documents(path):
    path.mkdir()
    (path / "rivers.md").write_text("# Rivers\n\n" + " ".join(
        f"The Danube flows through city {i} on its way to the Black Sea." for i in range(40)) + "\n")
    return path
