"""Watches the local LLM server of the tests/llm session.

A server that dies (a build the CPU cannot run dies with SIGILL at its first chat request) would
otherwise show as one "connection refused" per remaining test. `ServerWatch` turns that into one
failure, at the test during which the server died, carrying the tail of the server's log; each
later test is skipped with a reason that names that failure.
"""

from __future__ import annotations

import os
from pathlib import Path

LOG_TAIL_LINES = 30


def process_alive(pid: int) -> bool:
    """True while `pid` is a live process (a zombie counts as dead)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def log_tail(log_file: Path, lines: int = LOG_TAIL_LINES) -> str:
    try:
        text = log_file.read_text(errors="replace")
    except OSError as e:
        return f"(no log: {e})"
    return "\n".join(text.splitlines()[-lines:])


class ServerWatch:
    """Remembers the server's pid and the first test during which it was found dead."""

    def __init__(self, pid: int, log_file: Path):
        self.pid = pid
        self.log_file = log_file
        self.died_during: str | None = None

    def check_before(self) -> str | None:
        """None when a test may run; else the reason to skip it (the server died earlier)."""
        if self.died_during is not None:
            return (f"the local LLM server (pid {self.pid}) died during {self.died_during}; "
                    "see that test's failure for its log")
        if not process_alive(self.pid):
            self.died_during = "the session, before this test"
            return None  # the caller fails this test with died_message()
        return None

    def check_after(self, test_id: str) -> bool:
        """True when the server died during `test_id` (reported once)."""
        if self.died_during is None and not process_alive(self.pid):
            self.died_during = test_id
            return True
        return False

    def died_message(self) -> str:
        return (f"the local LLM server (pid {self.pid}) died during {self.died_during}. "
                f"A build the CPU cannot run dies this way (SIGILL): scripts/setup_llm.sh's smoke "
                f"test should have caught it. Last lines of {self.log_file}:\n"
                f"{log_tail(self.log_file)}")
