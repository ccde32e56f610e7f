import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("RAGMETER_BUILD_DIR", REPO / "build"))
sys.path.insert(0, str(Path(__file__).parent))

from chromium import Chromium  # noqa: E402


@pytest.fixture(scope="session")
def ragmeter():
    binary = BUILD / "ragmeter"
    if not binary.exists():
        pytest.fail(f"{binary} is not built (scripts/build.sh)")

    def _run(*args, check=True):
        done = subprocess.run([str(binary), *map(str, args)], capture_output=True, text=True,
                              timeout=600)
        if check and done.returncode not in (0, 3):
            raise AssertionError(done.stderr)
        return done
    return _run


@pytest.fixture(scope="session")
def browser():
    chromium = Chromium()
    yield chromium
    chromium.close()


@pytest.fixture(scope="session")
def artifacts():
    """Where the tests write screenshots (the build directory, not the checkout)."""
    path = BUILD / "report-screenshots"
    path.mkdir(parents=True, exist_ok=True)
    return path
