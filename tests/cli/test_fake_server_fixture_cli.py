"""A test fixture that cannot start is a failure, never a skip: the unit tests that need the
FAKE LLM server (tests/fakes/fake_llm_server.cc) fail when it is missing or does not start,
so a broken fixture cannot show as green. They used to GTEST_SKIP (44 tests)."""
import os
import re
import subprocess

from cli_shared import BUILD

# Every suite that starts the fake server, one test of each (all would take minutes).
SUITES = ["TestsetTest.*", "StoredTogetherTest.*", "LlmClientFaultTest.*", "LlmQuestionsTest.*",
          "OfflineWithdrawnTest.AnLlmJudgeScoresAnswerRelevancy",
          "LlmSlowJudgeTest.SlotsTheServerAnnouncesSetTheStartingLimit"]


def run_unit_tests(server):
    return subprocess.run([str(BUILD / "ragmeter_tests"), "--gtest_filter=" + ":".join(SUITES),
                           "--gtest_brief=1"], capture_output=True, text=True, timeout=600,
                          env={**os.environ, "RAGMETER_FAKE_LLM_SERVER": server})


def every_test_failed(done):
    ran = re.search(r"\[==========\] (\d+) tests? from", done.stdout)
    return ran is not None and int(ran.group(1)) > 0 and "[  PASSED  ] 0 tests." in done.stdout


def test_a_missing_fake_server_fails_the_tests_that_need_it(tmp_path):
    done = run_unit_tests(str(tmp_path / "no-such-server"))
    assert done.returncode == 1, done.stdout
    assert "Skipped" not in done.stdout and "SKIPPED" not in done.stdout
    assert "the fake LLM server is not built at" in done.stdout
    assert every_test_failed(done), done.stdout


def test_a_fake_server_that_does_not_start_fails_them_too():
    done = run_unit_tests("/bin/false")  # exists, but never says it is listening
    assert done.returncode == 1, done.stdout
    assert "Skipped" not in done.stdout and "SKIPPED" not in done.stdout
    assert "did not start" in done.stdout
    assert every_test_failed(done), done.stdout
