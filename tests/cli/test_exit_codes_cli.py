"""The exit-code contract (tools/ragmeter/exit_codes.h): every subcommand's error is reported by
main() as "ragmeter COMMAND: message", with 2 for the caller's input (an unknown metric, a path
in a folder that does not exist) and 4 for a world that failed (a judge that cannot be reached,
a write that fails on a full device: /dev/full is the kernel's device on which every write
fails with ENOSPC). Before, every error was 2, and a failed write to --out ended as 0."""
import json
import socket

import pytest

from cli_shared import read_jsonl

ROW = {"user_input": "Where is the tower?", "response": "The tower is in Paris.",
       "retrieved_contexts": ["The tower is in Paris."], "reference": "The tower is in Paris."}


@pytest.fixture
def data(tmp_path):
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps(ROW) + "\n")
    return path


def closed_port():
    """A port on 127.0.0.1 that nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_callers_input_is_2_and_names_the_command(run, data, tmp_path):
    p = run("eval", data, "-m", "no_such_metric", "-q")
    assert p.returncode == 2, p.stderr
    assert "ragmeter eval: unknown metric 'no_such_metric'" in p.stderr
    p = run("ir", tmp_path / "no_qrels", tmp_path / "no_run")
    assert p.returncode == 2, p.stderr
    assert p.stderr.startswith("ragmeter ir: ") and "No such file or directory" in p.stderr


def test_a_report_in_a_missing_folder_is_2_and_on_a_full_disk_is_4(run, data, tmp_path):
    results = tmp_path / "r.jsonl"
    assert run("eval", data, "-m", "exact_match", "--out", results, "-q").returncode == 0
    p = run("report", results, "-o", tmp_path / "no_such_dir" / "r.html")
    assert p.returncode == 2, p.stderr
    assert "ragmeter report: cannot write" in p.stderr and "No such file or directory" in p.stderr
    p = run("report", results, "-o", "/dev/full")
    assert p.returncode == 4, p.stderr
    assert "ragmeter report: cannot write /dev/full" in p.stderr


@pytest.mark.parametrize("flag", ["--out", "--summary"])
def test_a_failed_write_of_eval_output_is_4_never_0(run, data, flag):
    p = run("eval", data, "-m", "exact_match", flag, "/dev/full", "-q")
    assert p.returncode == 4, p.stderr
    assert "ragmeter eval: could not write" in p.stderr and "/dev/full" in p.stderr


def test_an_unreachable_judge_is_4(run, data, tmp_path):
    url = f"http://127.0.0.1:{closed_port()}/v1"
    p = run("eval", data, "-m", "faithfulness", "--dry-run", "--judge-probe",
            "--judge-url", url, "--judge-model", "m")
    assert p.returncode == 4, p.stderr
    assert "ragmeter eval: --judge-probe: the speed probe got no reply" in p.stderr
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("The tower is in Paris. It was built in 1889 for a fair. "
                                "It is 330 metres tall and made of iron.\n")
    out = tmp_path / "t.jsonl"
    p = run("gen", docs, "--out", out, "--size", "1", "-q", "--judge-url", url,
            "--judge-model", "m")
    assert p.returncode == 4, p.stderr
    assert "ragmeter gen: no row: the judge answered no generation call" in p.stderr
    assert "connection failed" in p.stderr
    assert read_jsonl(out) == []  # the (empty) test set is still written, as before
