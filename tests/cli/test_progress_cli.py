"""The progress display: a bar with the total, rate and time left on a terminal (stderr a
pseudo-terminal here), redrawn every second even while no row finishes; nothing at all
when stderr is not a terminal."""
import json
import os
import pty
import re
import select
import subprocess
import time

from cli_shared import BUILD


def rows_file(path, n):
    path.write_text("".join(json.dumps({"response": f"a b {i}", "reference": f"a b c {i}"}) + "\n"
                            for i in range(n)), encoding="utf-8")
    return path


def run_on_a_terminal(args, cwd, seconds=None):
    """Runs ragmeter with stderr on a pseudo-terminal; returns (exit code, what it drew).
    With `seconds`, the process is read for that long and then stopped (SIGTERM)."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen([str(BUILD / "ragmeter"), *map(str, args)], stdout=subprocess.DEVNULL,
                            stderr=follower, cwd=cwd)
    os.close(follower)
    drawn = b""
    deadline = None if seconds is None else time.monotonic() + seconds
    while True:
        if deadline is not None and time.monotonic() > deadline and proc.poll() is None:
            proc.terminate()
            deadline = None
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal's other end closed: the process is gone
            break
        if not chunk:
            break
        drawn += chunk
    os.close(leader)
    return proc.wait(timeout=60), drawn.decode("utf-8", "replace")


def test_the_bar_shows_rows_of_the_total_rate_and_time_left(tmp_path):
    data = rows_file(tmp_path / "d.jsonl", 6000)
    code, drawn = run_on_a_terminal(["eval", data, "-m", "token_f1", "-q", "--out",
                                     tmp_path / "r.jsonl"], tmp_path)
    assert code == 0
    # -q hides the table and the display: nothing drawn.
    assert drawn == ""
    code, drawn = run_on_a_terminal(["eval", data, "-m", "token_f1", "--out", tmp_path / "r.jsonl"],
                                    tmp_path)
    assert code == 0, drawn
    lines = [l for l in re.split(r"\r\x1b\[K", drawn) if l.startswith("scoring")]
    assert lines, drawn
    # The total is counted before the first draw (a small file): every line has it.
    for line in lines:
        match = re.match(r"scoring \[[#.]{20}\] +(\d+)%  ([\d,]+)/6,000 rows  \d+ rows/s  "
                         r"\d+:\d\d elapsed  (\d+:\d\d|\?) left", line)
        assert match, line
        done = int(match.group(2).replace(",", ""))
        assert int(match.group(1)) == int(100 * done / 6000 + 0.5) or done == 0


def test_the_clock_moves_while_no_row_finishes(tmp_path):
    # Standard input that never ends: no row finishes, yet the line is redrawn each second.
    leader, follower = pty.openpty()
    reader, writer = os.pipe()
    proc = subprocess.Popen([str(BUILD / "ragmeter"), "eval", "-", "--format", "jsonl", "-m",
                             "token_f1"], stdin=reader, stdout=subprocess.DEVNULL, stderr=follower,
                            cwd=tmp_path)
    os.close(follower)
    os.close(reader)
    drawn = b""
    deadline = time.monotonic() + 10
    while b"0:03 elapsed" not in drawn and time.monotonic() < deadline:
        if select.select([leader], [], [], 0.2)[0]:
            drawn += os.read(leader, 65536)
    proc.terminate()
    os.close(writer)  # and end its input, should the read not be interrupted
    proc.wait(timeout=30)
    os.close(leader)
    clocks = re.findall(r"scoring: 0 rows  0 rows/s  (\d+:\d\d) elapsed", drawn.decode())
    assert clocks[:3] == ["0:01", "0:02", "0:03"], drawn


def test_nothing_is_drawn_when_stderr_is_not_a_terminal(run, tmp_path):
    data = rows_file(tmp_path / "d.jsonl", 100)
    p = run("eval", data, "-m", "token_f1")
    assert p.returncode == 0
    assert "scoring" not in p.stderr and "\x1b" not in p.stderr
