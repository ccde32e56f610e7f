"""Fixtures of the Ray tests (tests/ray): one real local Ray cluster for the session
(ray.init with 3 CPUs: 2 scorer worker processes and room for Ray Data's reads), the FAKE judge server
(tests/fakes/fake_llm_server.cc, not a model) and rows for judged runs.

Run by scripts/test_ray.sh in a fresh venv holding the wheel and seeing the Ray
environment of scripts/setup_ray.sh. Every test here is marked `ray`; without Ray
installed they are skipped.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import urllib.request

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("RAGMETER_BUILD_DIR", REPO / "build"))

ray = pytest.importorskip("ray", reason="Ray is not installed (bash scripts/setup_ray.sh)")

# One fixed reply that satisfies the claims schema (one claim per sentence label) and the
# verdict table's (up to four claims against up to six passages, each claim's evidence
# quoted from the rows' first chunk, "Paris has tower {i}.", as the table's schema requires
# since llm-v5), as tests/cli/test_judge_cache_cli.py's.
JUDGE_REPLY = json.dumps({
    **{f"S{n}": ["The tower is in Paris."] for n in range(1, 10)},
    **{f"Evidence {c}": "Paris has tower" for c in range(1, 5)},
    **{f"P{p}: claim {c}": "Entailment" for p in range(1, 7) for c in range(1, 5)},
    **{f"reason {c}": "" for c in range(1, 5)},
})
JUDGED_METRICS = "faithfulness,context_recall,factual_correctness"


def pytest_configure(config):
    config.addinivalue_line("markers", "ray: runs on a local Ray cluster (scripts/test_ray.sh)")


# Each test's time limit (pytest-timeout, from scripts/setup_ray.sh), setup and teardown
# included, so a hung cluster fails the test instead of holding CI; a test takes 10 to 60
# seconds on the 2-core machine.
TEST_TIMEOUT_SECONDS = 240


def pytest_collection_modifyitems(items):
    for item in items:
        item.add_marker(pytest.mark.ray)
        item.add_marker(pytest.mark.timeout(TEST_TIMEOUT_SECONDS))


@pytest.fixture(scope="session")
def ray_cluster():
    """A local cluster for 2 scorer processes (the tests ask for workers=2) and one CPU more
    for Ray Data's read tasks, which must not wait for the scorers' CPUs; small object
    store."""
    ray.init(num_cpus=3, include_dashboard=False, object_store_memory=256 * 1024 * 1024,
             logging_level="ERROR", log_to_driver=False)
    yield ray
    ray.shutdown()


def judged_rows(n):
    """Rows whose judge calls are all distinct: 2 chat calls each (claims, verdict table),
    none shared with another row (each row's texts carry its number)."""
    return [{"user_input": f"Where is tower {i}?",
             "response": f"The tower is in Paris. Tower {i} is tall.",
             "reference": f"Tower {i} stands in Paris. It opened in {1800 + i}.",
             "retrieved_contexts": [f"Paris has tower {i}.", f"Tower {i} opened in {1800 + i}."]}
            for i in range(n)]


class FakeJudge:
    """The FAKE server process: base URL, counters, script."""

    def __init__(self, delay_ms=0):
        binary = BUILD / "fakes" / "fake_llm_server"
        if not binary.exists():
            pytest.fail(f"{binary} is not built (cmake --build build --target fake_llm_server)")
        self.proc = subprocess.Popen(
            [str(binary), "--port", "0", "--content", JUDGE_REPLY, "--delay-ms", str(delay_ms)],
            stdout=subprocess.PIPE, text=True)
        port = int(self.proc.stdout.readline().split()[-1])
        self.base = f"http://127.0.0.1:{port}"

    @property
    def url(self):
        return self.base + "/v1"

    def stats(self):
        with urllib.request.urlopen(self.base + "/fake/stats", timeout=10) as reply:
            return json.load(reply)

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=10)


@pytest.fixture
def fake_judge():
    judges = []

    def start(delay_ms=0):
        judges.append(FakeJudge(delay_ms))
        return judges[-1]

    yield start
    for judge in judges:
        judge.stop()
