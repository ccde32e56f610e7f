"""evaluate(repeat=N) and assert_thresholds(pass_k=...): the CLI's --repeat and --pass-k from
Python, from the same C++ code (docs/output.md, "Repeats"). The judge is the FAKE server of
tests/fakes (a scripted stand-in, not a model), answering by the request's seed: seed 2
contradicts what the other seeds support, so a "tower" row scores 1, 0, 1 over repeats 1..3
and a "bridge" row (whose passage the fake's evidence never quotes) 0 in every repeat."""

import json
import subprocess
import urllib.request

import pytest

import ragmeter
from conftest import BUILD, EXAMPLE
from ragmeter.testing import ThresholdError, assert_thresholds


def judge_reply(verdict):
    return json.dumps({**{f"S{n}": ["The tower is in Paris."] for n in range(1, 10)},
                       "Evidence 1": "Paris has a tower.",
                       **{f"P{p}: claim 1": verdict for p in (1, 2, 3)}, "reason 1": ""})


SCRIPT = {"default": {"content": judge_reply("Entailment"),
                      "by_seed": {"2": {"content": judge_reply("Contradiction")}}}}
ROWS = ([{"user_input": f"Where is tower {i}?", "response": f"Tower {i} is in Paris.",
          "retrieved_contexts": [f"Paris has a tower. It is tower {i}."]} for i in range(2)]
        + [{"user_input": f"Where is bridge {i}?", "response": f"Bridge {i} is in Rome.",
            "retrieved_contexts": [f"Rome has a bridge. It is bridge {i}."]} for i in range(2)])
TOWER, BRIDGE = [1.0, 0.0, 1.0], [0.0, 0.0, 0.0]


@pytest.fixture(scope="module")
def fake_judge():
    binary = BUILD / "fakes" / "fake_llm_server"
    if not binary.exists():
        pytest.fail(f"{binary} is not built")
    proc = subprocess.Popen([str(binary), "--port", "0"], stdout=subprocess.PIPE, text=True)
    try:
        url = f"http://127.0.0.1:{int(proc.stdout.readline().split()[-1])}"
        request = urllib.request.Request(url + "/fake/script", data=json.dumps(SCRIPT).encode(),
                                         method="POST")
        urllib.request.urlopen(request, timeout=10).read()
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture(scope="module")
def repeated(fake_judge):
    return ragmeter.evaluate(ROWS, metrics="faithfulness", judge_url=fake_judge + "/v1",
                             judge_model="fake", cache_mode="off", repeat=3, progress=False)


def cli_eval(fake_judge, tmp_path, *args):
    data = tmp_path / "rows.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    return subprocess.run([str(BUILD / "ragmeter"), "eval", str(data), "-m", "faithfulness", "-q",
                           "--judge-url", fake_judge + "/v1", "--judge-model", "fake",
                           "--cache-mode", "off", "--repeat", "3", *args],
                          capture_output=True, text=True, timeout=300)


def test_repeat_keeps_every_repeats_score_and_the_summary_is_the_clis(repeated, fake_judge,
                                                                      tmp_path):
    assert repeated.repeats("faithfulness") == [TOWER, TOWER, BRIDGE, BRIDGE]
    assert repeated.scores("faithfulness") == pytest.approx([2 / 3, 2 / 3, 0, 0])
    frame = repeated.to_pandas()
    assert list(frame["faithfulness_repeats"]) == [TOWER, TOWER, BRIDGE, BRIDGE]
    summary = tmp_path / "summary.json"
    assert cli_eval(fake_judge, tmp_path, "--summary", summary).returncode == 0
    cli = json.loads(summary.read_text())
    assert repeated.summary["metrics"]["faithfulness"] == cli["metrics"]["faithfulness"]
    assert repeated.summary["repeat"] == cli["repeat"] == {"requested": 3, "judgements": 3,
                                                           "temperature": 0.7}


@pytest.mark.parametrize("value,pass_k", [(0.3, "mean"), (0.3, "all"), (0.3, "any"),
                                          (0.4, "mean"), (0.4, "any"), (0.6, "any")])
def test_assert_thresholds_pass_k_agrees_with_the_cli(repeated, fake_judge, tmp_path, value,
                                                      pass_k):
    code = cli_eval(fake_judge, tmp_path, "--fail-under", f"faithfulness={value}", "--pass-k",
                    pass_k).returncode
    assert code in (0, 1)
    if code == 0:
        assert_thresholds(repeated, faithfulness=value, pass_k=pass_k)
    else:
        with pytest.raises(ThresholdError, match="samples flaky at"):
            assert_thresholds(repeated, faithfulness=value, pass_k=pass_k)


def test_an_unknown_pass_k_is_a_value_error(repeated):
    with pytest.raises(ValueError, match="pass-k"):
        assert_thresholds(repeated, faithfulness=0.3, pass_k="some")


def test_the_offline_judge_is_deterministic_and_judges_once():
    result = ragmeter.evaluate(str(EXAMPLE), metrics="faithfulness", repeat=4, progress=False)
    assert result.summary["repeat"] == {
        "requested": 4, "judgements": 1, "temperature": 0.7,
        "note": "the offline judge is deterministic: each sample was judged once"}
    assert set(map(type, result.repeats("faithfulness"))) == {type(None)}
    assert "repeats" not in result.summary["metrics"]["faithfulness"]


def test_repeat_must_be_at_least_one():
    with pytest.raises(ValueError, match="repeat"):
        ragmeter.evaluate(ROWS, metrics="token_f1", repeat=0, progress=False)
