import os
import pathlib
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("RAGMETER_BUILD_DIR", REPO / "build"))


@pytest.fixture(scope="session")
def ragmeter_bin():
    binary = BUILD / "ragmeter"
    if not binary.exists():
        pytest.fail(f"{binary} is not built (scripts/build.sh)")
    return binary


@pytest.fixture
def run(ragmeter_bin):
    def _run(*args, stdin=None):
        return subprocess.run([str(ragmeter_bin), *map(str, args)], capture_output=True,
                              text=True, input=stdin, timeout=300)
    return _run
