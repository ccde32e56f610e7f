import json
import os
import pathlib
import subprocess
import urllib.request

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]

# A FAKE judge reply that satisfies the claims schema (the same one claim for every sentence
# asked, up to "S9") and the verdict table's (two claims against up to three passages, each
# claim's evidence quoted from JUDGE_ROW's chunk, as the table's schema requires since
# llm-v5), so every ledger metric of JUDGE_ROW scores.
JUDGE_REPLY = json.dumps({**{f"S{n}": ["The tower is in Paris."] for n in range(1, 10)},
                          **{f"Evidence {c}": "Paris has a tower." for c in (1, 2)},
                          **{f"P{p}: claim {c}": "Entailment" for p in (1, 2, 3) for c in (1, 2)},
                          "reason 1": "", "reason 2": ""})
JUDGE_ROW = {"user_input": "Where is the tower?", "response": "The tower is in Paris.",
             "reference": "The tower is in Paris.", "retrieved_contexts": ["Paris has a tower."]}
BUILD = pathlib.Path(os.environ.get("RAGMETER_BUILD_DIR", REPO / "build"))


@pytest.fixture(scope="session")
def ragmeter_bin():
    binary = BUILD / "ragmeter"
    if not binary.exists():
        pytest.fail(f"{binary} is not built (scripts/build.sh)")
    return binary


@pytest.fixture
def run(ragmeter_bin):
    def _run(*args, stdin=None, env=None):
        return subprocess.run([str(ragmeter_bin), *map(str, args)], capture_output=True,
                              text=True, input=stdin, timeout=300,
                              env=None if env is None else {**os.environ, **env})
    return _run


@pytest.fixture
def start_fake_llm_server():
    """Starts the FAKE OpenAI-compatible server (tests/fakes/fake_llm_server.cc, not a model)
    answering every chat request with `content`; returns its base URL (no /v1). Stopped at
    the end of the test."""
    procs = []

    def _start(content, port=0):
        binary = BUILD / "fakes" / "fake_llm_server"
        if not binary.exists():
            pytest.fail(f"{binary} is not built")
        proc = subprocess.Popen([str(binary), "--port", str(port), "--content", content],
                                stdout=subprocess.PIPE, text=True)
        procs.append(proc)
        port = int(proc.stdout.readline().split()[-1])
        return f"http://127.0.0.1:{port}"

    yield _start
    for proc in procs:
        proc.terminate()
        proc.wait(timeout=10)


def fake_script(base, script):
    """Replaces the FAKE server's script (tests/fakes/fake_llm_server.cc) and resets its
    counters."""
    request = urllib.request.Request(base + "/fake/script", data=json.dumps(script).encode(),
                                     method="POST")
    with urllib.request.urlopen(request, timeout=10) as reply:
        reply.read()


def fake_stats(base):
    """The FAKE server's request counters: {"requests", "chat", "embeddings", ...}."""
    with urllib.request.urlopen(base + "/fake/stats", timeout=10) as reply:
        return json.load(reply)


@pytest.fixture
def fake_judge_server(start_fake_llm_server):
    """The FAKE judge server answering every chat request with JUDGE_REPLY; its base URL."""
    return start_fake_llm_server(JUDGE_REPLY)


def read_jsonl(path):
    """The rows of a JSON Lines file."""
    return [json.loads(line) for line in open(path, encoding="utf-8")]


def judge_flags(url):
    """CLI flags that point the LLM judge at the FAKE server at `url` (no /v1), uncached."""
    return ["--judge-url", url + "/v1", "--judge-model", "fake", "--cache-mode", "off"]
