"""`ragmeter eval --repeat N`: each (sample, judged metric) judged N times with seeds 1..N,
the per-sample spread in the rows, the judge's share of the variance in the summary, flaky
samples at the gate's value, and --pass-k for the gates (docs/output.md, "Repeats").

The judge is the FAKE server of tests/fakes (a scripted stand-in, not a model), scripted to
answer by the request's seed: seed 2 contradicts what seeds 1 and 3 (and requests without a
seed) support. Its two kinds of rows: a "tower" row, whose claim the passage supports, so
its faithfulness is 1, 0, 1 over seeds 1, 2, 3; and a "bridge" row, whose claim the fake's
evidence quote never matches, so it is 0 in every repeat."""
import json
import statistics
import urllib.request

import numpy as np
import pytest

from cli_shared import fake_script, fake_stats, read_jsonl


def judge_reply(verdict):
    """A reply for the claims call (one claim for each sentence asked) and the verdict table
    (one claim against one passage, the evidence quoted from a tower row's passage)."""
    return json.dumps({**{f"S{n}": ["The tower is in Paris."] for n in range(1, 10)},
                       "Evidence 1": "Paris has a tower.",
                       **{f"P{p}: claim 1": verdict for p in (1, 2, 3)}, "reason 1": ""})


BY_SEED = {"default": {"content": judge_reply("Entailment"),
                       "by_seed": {"2": {"content": judge_reply("Contradiction")}}}}
TOWER = [1.0, 0.0, 1.0]  # faithfulness of a tower row in repeats 1, 2, 3
BRIDGE = [0.0, 0.0, 0.0]


def rows(towers=2, bridges=2):
    out = [{"user_input": f"Where is tower {i}?", "response": f"Tower {i} is in Paris.",
            "retrieved_contexts": [f"Paris has a tower. It is tower {i}."]} for i in range(towers)]
    out += [{"user_input": f"Where is bridge {i}?", "response": f"Bridge {i} is in Rome.",
             "retrieved_contexts": [f"Rome has a bridge. It is bridge {i}."]} for i in range(bridges)]
    return out


@pytest.fixture
def seeded_judge(start_fake_llm_server):
    url = start_fake_llm_server(judge_reply("Entailment"))
    fake_script(url, BY_SEED)
    return url


@pytest.fixture
def data(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows()))
    return path


def judged(run, url, data, *args, cache_mode="off", cache=None):
    flags = ["--judge-url", url + "/v1", "--judge-model", "fake", "--cache-mode", cache_mode]
    if cache is not None:
        flags += ["--cache", cache]
    return run("eval", data, "-m", "faithfulness", "-q", *flags, *args)


def test_each_repeat_is_judged_with_its_seed_and_the_rows_keep_every_repeat(run, seeded_judge,
                                                                             data, tmp_path):
    out = tmp_path / "out.jsonl"
    result = judged(run, seeded_judge, data, "--repeat", "3", "--out", out)
    assert result.returncode == 0, result.stderr
    got = read_jsonl(out)
    for row, want in zip(got, [TOWER, TOWER, BRIDGE, BRIDGE]):
        entry = row["repeats"]["faithfulness"]
        assert entry["scores"] == want
        assert row["scores"]["faithfulness"] == pytest.approx(statistics.mean(want))
        assert entry["std"] == pytest.approx(statistics.stdev(want))
        assert "flaky" not in entry  # no gate, no pass mark
        assert len(entry["evidence"]) == 3
        assert row["evidence"]["faithfulness"] == entry["evidence"][0]
    # Every request was sampled at the repeat temperature with the seed of its repeat, and
    # each repeat asked its own claims and verdicts: 2 calls per row per repeat.
    with urllib.request.urlopen(seeded_judge + "/fake/requests") as r:
        bodies = [request["body"] for request in json.load(r)]
    assert len(bodies) == 4 * 3 * 2 == fake_stats(seeded_judge)["chat"]
    assert sorted(b["seed"] for b in bodies) == sorted([1, 2, 3] * 8)
    assert {b["temperature"] for b in bodies} == {0.7}


def test_the_summary_separates_the_judges_variance_from_the_samples(run, seeded_judge, data,
                                                                    tmp_path):
    out, summary = tmp_path / "out.jsonl", tmp_path / "summary.json"
    result = judged(run, seeded_judge, data, "--repeat", "3", "--out", out, "--summary", summary)
    assert result.returncode == 0, result.stderr
    groups = [np.array(r["repeats"]["faithfulness"]["scores"]) for r in read_jsonl(out)]
    # One-way random-effects ANOVA, computed here with numpy.
    n, k = len(groups), 3
    grand = np.concatenate(groups).mean()
    ms_between = k * sum((g.mean() - grand) ** 2 for g in groups) / (n - 1)
    ms_within = sum(((g - g.mean()) ** 2).sum() for g in groups) / (n * (k - 1))
    between = max(0.0, (ms_between - ms_within) / k)
    got = json.loads(summary.read_text())
    repeats = got["metrics"]["faithfulness"]["repeats"]
    assert repeats["k"] == 3
    assert repeats["judge_variance"] == pytest.approx(ms_within)
    assert repeats["sample_variance"] == pytest.approx(between)
    assert repeats["judge_share"] == pytest.approx(ms_within / (ms_within + between))
    assert repeats["mean_sample_std"] == pytest.approx(np.mean([g.std(ddof=1) for g in groups]))
    assert repeats["single_run_judge_std"] == pytest.approx(np.sqrt(ms_within / n))
    assert repeats["pass_all"]["mean"] == pytest.approx(np.mean([g.min() for g in groups]))
    assert repeats["pass_any"]["mean"] == pytest.approx(np.mean([g.max() for g in groups]))
    assert got["metrics"]["faithfulness"]["mean"] == pytest.approx(np.mean([g.mean() for g in groups]))
    assert got["repeat"] == {"requested": 3, "judgements": 3, "temperature": 0.7}


def test_the_table_says_the_judges_share(run, seeded_judge, data):
    result = run("eval", data, "-m", "faithfulness", "--judge-url", seeded_judge + "/v1",
                 "--judge-model", "fake", "--cache-mode", "off", "--repeat", "3")
    assert result.returncode == 0, result.stderr
    assert "repeats: each judged metric 3 times per sample (temperature 0.7, seeds 1..3)" in result.stdout
    # 9/14 of the variance is the judge's (tests/unit/repeats_test.cc works it out by hand).
    assert "faithfulness: judge 64% of the variance" in result.stdout


def test_samples_whose_repeats_straddle_the_gate_are_flaky(run, seeded_judge, data, tmp_path):
    out, summary = tmp_path / "out.jsonl", tmp_path / "summary.json"
    result = judged(run, seeded_judge, data, "--repeat", "3", "--out", out, "--summary", summary,
                    "--fail-under", "faithfulness=0.5")
    assert result.returncode == 1  # the mean 1/3 is below 0.5
    assert [r["repeats"]["faithfulness"]["flaky"] for r in read_jsonl(out)] == [True, True, False, False]
    repeats = json.loads(summary.read_text())["metrics"]["faithfulness"]["repeats"]
    assert repeats["pass_mark"] == 0.5 and repeats["flaky"] == 2
    assert "2 samples flaky at 0.5" in result.stderr


@pytest.mark.parametrize("value,pass_k,code", [
    # Readings of the four samples: pass^k (worst repeat) 0, mean 1/3, pass@k (best) 1/2.
    ("0.3", "mean", 0), ("0.3", "all", 1), ("0.3", "any", 0),
    ("0.4", "mean", 1), ("0.4", "any", 0), ("0.6", "any", 1), ("0", "all", 0),
])
def test_pass_k_reads_each_sample_by_its_repeats(run, seeded_judge, data, value, pass_k, code):
    result = judged(run, seeded_judge, data, "--repeat", "3", "--fail-under",
                    f"faithfulness={value}", "--pass-k", pass_k)
    assert result.returncode == code, result.stderr
    if code == 1 and pass_k != "mean":
        word = "worst" if pass_k == "all" else "best"
        assert f"each sample's {word} of 3 repeats" in result.stderr


def test_the_cache_keys_each_repeat_apart(run, seeded_judge, data, tmp_path):
    cache = tmp_path / "judge.sqlite"
    per_repeat = 4 * 2  # a claims and a verdicts call per row
    assert judged(run, seeded_judge, data, "--repeat", "2", cache_mode="rw", cache=cache).returncode == 0
    assert fake_stats(seeded_judge)["chat"] == 2 * per_repeat
    fake_script(seeded_judge, BY_SEED)  # resets the counters
    assert judged(run, seeded_judge, data, "--repeat", "2", cache_mode="rw", cache=cache).returncode == 0
    assert fake_stats(seeded_judge)["chat"] == 0  # every repeat's calls are cached
    fake_script(seeded_judge, BY_SEED)
    assert judged(run, seeded_judge, data, "--repeat", "3", cache_mode="rw", cache=cache).returncode == 0
    assert fake_stats(seeded_judge)["chat"] == per_repeat  # only repeat 3 is new
    fake_script(seeded_judge, BY_SEED)
    summary = tmp_path / "plain.json"
    assert judged(run, seeded_judge, data, "--summary", summary, cache_mode="rw",
                  cache=cache).returncode == 0
    assert fake_stats(seeded_judge)["chat"] == per_repeat  # an unrepeated run shares none
    assert "repeat" not in json.loads(summary.read_text())


def test_a_failed_repeat_fails_the_sample_and_keeps_the_others(run, start_fake_llm_server,
                                                               tmp_path):
    url = start_fake_llm_server(judge_reply("Entailment"))
    fake_script(url, {"default": {"content": judge_reply("Entailment"), "by_seed": {
        "2": {"kind": "raw", "status": 400, "json": {"error": {"message": "bad seed"}}}}}})
    data, out = tmp_path / "rows.jsonl", tmp_path / "out.jsonl"
    data.write_text(json.dumps(rows(1, 0)[0]) + "\n")
    result = judged(run, url, data, "--repeat", "3", "--out", out)
    assert result.returncode == 3  # a failed (sample, metric)
    [row] = read_jsonl(out)
    assert row["status"]["faithfulness"] == "failed"
    assert row["reasons"]["faithfulness"].startswith("repeat 2 of 3: ")
    assert "bad seed" in row["reasons"]["faithfulness"]
    assert row["repeats"]["faithfulness"]["scores"] == [1.0, None, 1.0]


def test_the_offline_judge_is_deterministic_and_judges_once(run, tmp_path):
    example = "examples/halueval_rag.jsonl"
    once, repeated = tmp_path / "once.jsonl", tmp_path / "repeated.jsonl"
    summary = tmp_path / "summary.json"
    plain = run("eval", example, "-m", "faithfulness,token_f1", "-q", "--out", once)
    result = run("eval", example, "-m", "faithfulness,token_f1", "--out", repeated, "--summary",
                 summary, "--repeat", "5")
    assert plain.returncode == 0 and result.returncode == 0, result.stderr
    assert "the offline judge is deterministic: --repeat 5 would give the same scores" in result.stderr
    assert "the offline judge is deterministic: each sample was judged once, not 5 times" in result.stdout
    assert repeated.read_bytes() == once.read_bytes()
    assert json.loads(summary.read_text())["repeat"] == {
        "requested": 5, "judgements": 1, "temperature": 0.7,
        "note": "the offline judge is deterministic: each sample was judged once"}


def test_a_dry_run_counts_every_repeats_calls(run, data):
    def planned(*args):
        result = run("eval", data, "-m", "faithfulness", "--judge-url", "http://127.0.0.1:9/v1",
                     "--judge-model", "fake", "--dry-run", *args)
        assert result.returncode == 0, result.stderr
        line = next(l for l in result.stdout.splitlines() if l.startswith("planned calls:"))
        return int(line.split()[2])

    assert planned("--repeat", "3") == 3 * planned()


@pytest.mark.parametrize("flags", [["--repeat", "0"], ["--pass-k", "some"],
                                   ["--repeat-temperature", "3"]])
def test_bad_repeat_flags_are_usage_errors(run, data, flags):
    assert run("eval", data, "-m", "faithfulness", *flags).returncode == 2
