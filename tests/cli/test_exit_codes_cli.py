"""The exit-code contract (tools/ragmeter/exit_codes.h): every subcommand's error is reported by
main() as "ragmeter COMMAND: message", with 2 for the caller's input (an unknown metric, a path
in a folder that does not exist) and 4 for a world that failed (a judge that cannot be reached,
a write that fails on a full device: /dev/full is the kernel's device on which every write
fails with ENOSPC; a judge that stopped: never reached, its key refused, its budget spent).
Before, every error was 2, and a failed write to --out ended as 0."""
import json
import socket

import pytest

from cli_shared import JUDGE_ROW, fake_script, fake_stats, judge_flags, read_jsonl

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


def test_an_eval_whose_judge_is_never_reached_is_4_with_every_row_written(run, data, tmp_path):
    url = f"http://127.0.0.1:{closed_port()}/v1"
    out, summary = tmp_path / "r.jsonl", tmp_path / "s.json"
    # The gate on the metric that needs no judge is met: exit 4 says the judged part is missing.
    p = run("eval", data, "-m", "faithfulness,exact_match", "--out", out, "--summary", summary,
            "-q", "--judge-url", url, "--judge-model", "m",
            "--fail-under", "exact_match=0.5")
    assert p.returncode == 4, p.stderr
    assert "ragmeter: the judge stopped before the run ended (connection failed" in p.stderr
    assert "(exit code 4)" in p.stderr
    [row] = read_jsonl(out)
    assert row["status"] == {"faithfulness": "failed", "exact_match": "ok"}
    assert json.loads(summary.read_text())["metrics"]["exact_match"]["mean"] == 1.0


def test_a_spent_budget_is_4_and_stops_the_requests(run, tmp_path, fake_judge_server):
    fake_script(fake_judge_server, {"default": {}})
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(JUDGE_ROW) + "\n" for _ in range(5)))
    config = tmp_path / "judge.toml"
    # A dollar a token: the first request spends the budget.
    config.write_text(f'judge_url = "{fake_judge_server}/v1"\njudge_model = "fake"\n'
                      'cache_mode = "off"\nmax_cost = 1.0\n'
                      '[prices."fake"]\nprompt = 1000000\ncompletion = 1000000\n')
    out = tmp_path / "r.jsonl"
    p = run("eval", data, "-m", "faithfulness,exact_match", "--out", out, "-q", "--config", config,
            "--concurrency", "1", "--threads", "1")
    assert p.returncode == 4, p.stderr
    assert "budget" in p.stderr and "(exit code 4)" in p.stderr
    assert fake_stats(fake_judge_server)["chat"] == 1
    rows = read_jsonl(out)
    assert len(rows) == 5 and all(r["status"]["exact_match"] == "ok" for r in rows)
    assert sum(r["status"]["faithfulness"] == "failed" for r in rows) >= 4
