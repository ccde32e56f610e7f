"""ragmeter.evaluate against the `ragmeter eval` program on the same rows: the same
numbers to the last bit, the same statuses and reasons, the same files."""

import datetime
import json
import os
import pathlib
import re
import sys

import pytest

import ragmeter
from conftest import EXAMPLE, read_jsonl

DETERMINISTIC = "token_f1,rouge_l,bleu,chrf,ndcg@3,mrr,exact_match,k_precision"
# Metrics the embedder changes (the offline judge's claims, its similarity).
EMBEDDING_METRICS = "semantic_similarity,answer_relevancy,answer_correctness,faithfulness"
# sentence_embedder.h's default_embedder_model_path().
LOCAL_MODEL_INSTALLED = (pathlib.Path(
    os.environ.get("RAGMETER_EMBEDDER_MODEL")
    or pathlib.Path(os.environ.get("RAGMETER_CACHE") or pathlib.Path.home() / ".cache" / "ragmeter")
    / "models" / "all-MiniLM-L6-v2") / "model.safetensors").is_file()


def cli_run(cli, tmp_path, data_path, metrics, *extra):
    out, summary = tmp_path / "cli.jsonl", tmp_path / "cli_summary.json"
    p = cli("eval", data_path, "--metrics", metrics, "--out", out, "--summary", summary,
            "--quiet", "--allow-failures", *extra)
    assert p.returncode == 0, p.stderr
    return out, summary


# The summary's run date, to the second (the only part of a summary that two runs of the
# same data cannot share).
RUN_DATE = re.compile(r'"date": "(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)"')


def utc_second():
    return datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0, tzinfo=None)


def without_date(summary_text, earliest, latest):
    """The summary text with its run date blanked, after checking the date lies in
    [earliest, latest]."""
    found = RUN_DATE.findall(summary_text)
    assert len(found) == 1, summary_text
    assert earliest <= datetime.datetime.strptime(found[0], "%Y-%m-%dT%H:%M:%SZ") <= latest
    return RUN_DATE.sub('"date": ""', summary_text)


def test_list_of_dicts_equals_the_cli_to_the_last_bit(cli, tmp_path, example_rows):
    out, summary = cli_run(cli, tmp_path, EXAMPLE, DETERMINISTIC)
    result = ragmeter.evaluate(example_rows, metrics=DETERMINISTIC, threads=2, progress=False)
    py_out = tmp_path / "py.jsonl"
    result.to_jsonl(py_out)
    assert py_out.read_bytes() == out.read_bytes()
    cli_summary = json.loads(summary.read_text())
    assert cli_summary["judge"] == result.summary["judge"]
    assert cli_summary["metrics"] == result.summary["metrics"]
    assert cli_summary["usage"] == result.summary["usage"]
    assert cli_summary["rows"] == result.summary["rows"] == {"read": 30, "rejected": 0}
    # The dataset is the only difference: a path for the CLI, none for rows in memory.
    cli_run_block, py_run_block = dict(cli_summary["run"]), dict(result.summary["run"])
    assert cli_run_block.pop("dataset") == str(EXAMPLE) and py_run_block.pop("dataset") is None
    assert len(cli_run_block.pop("dataset_sha256")) == 64
    assert py_run_block.pop("dataset_sha256") is None
    cli_run_block.pop("date"), py_run_block.pop("date")
    assert cli_run_block == py_run_block
    assert "dataset" not in result.summary
    # Means and per-sample scores as floats, compared exactly.
    for metric in DETERMINISTIC.split(","):
        assert result[metric] == cli_summary["metrics"][metric]["mean"]
        assert result.scores(metric) == [row["scores"][metric] for row in read_jsonl(out)]


def test_a_path_gives_the_cli_summary_byte_for_byte(cli, tmp_path):
    earliest = utc_second()
    _, summary = cli_run(cli, tmp_path, EXAMPLE, DETERMINISTIC)
    result = ragmeter.evaluate(str(EXAMPLE), metrics=DETERMINISTIC, progress=False)
    latest = utc_second()
    assert without_date(result.summary_json(), earliest, latest) == \
        without_date(summary.read_text(), earliest, latest)


def test_the_default_judge_and_embedder_are_the_clis(cli, tmp_path, example_rows):
    # With neither judge nor embedder given, both make the offline judge with `--embedder
    # auto`: the local model when installed (scripts/setup.sh installs it), else
    # bag-of-stems vectors. Similarity-based metrics show which one was used.
    out, summary = cli_run(cli, tmp_path, EXAMPLE, EMBEDDING_METRICS)
    result = ragmeter.evaluate(example_rows, metrics=EMBEDDING_METRICS, progress=False)
    py_out = tmp_path / "py.jsonl"
    result.to_jsonl(py_out)
    assert py_out.read_bytes() == out.read_bytes()
    cli_summary = json.loads(summary.read_text())
    assert result.summary["judge"] == cli_summary["judge"]
    assert result.summary["metrics"] == cli_summary["metrics"]
    if LOCAL_MODEL_INSTALLED:
        assert "similarity: local all-MiniLM-L6-v2" in result.summary["judge"]["name"]
    offline = ragmeter.evaluate(example_rows, metrics=EMBEDDING_METRICS, progress=False,
                                embedder=ragmeter.OfflineEmbedder())
    assert "no model" in offline.summary["judge"]["name"]
    if LOCAL_MODEL_INSTALLED:  # another embedder: other similarities
        assert offline.scores("semantic_similarity") != result.scores("semantic_similarity")


def test_metrics_as_a_list_and_threads_do_not_change_the_numbers(example_rows):
    one = ragmeter.evaluate(example_rows, metrics=["bleu", "rouge_l"], threads=1, progress=False)
    four = ragmeter.evaluate(example_rows, metrics="bleu,rouge_l", threads=4, progress=False)
    # Everything but the run's date (the two runs may fall in different seconds).
    summaries = [dict(r.summary, run={k: v for k, v in r.summary["run"].items() if k != "date"})
                 for r in (one, four)]
    assert summaries[0] == summaries[1]
    assert one.metrics == ["bleu", "rouge_l"]


def test_repr_is_the_cli_summary_table(cli, example_rows):
    p = cli("eval", EXAMPLE, "--metrics", "token_f1,bleu")
    assert p.returncode == 0, p.stderr
    result = ragmeter.evaluate(example_rows, metrics="token_f1,bleu", progress=False)
    assert repr(result) in p.stdout
    assert "token_f1" in repr(result)


def test_evidence_and_usage(example_rows):
    result = ragmeter.evaluate(example_rows[:3], metrics="rouge_l,faithfulness", progress=False)
    evidence = result.evidence(0)
    assert set(evidence) == {"rouge_l", "faithfulness"}
    assert set(evidence["rouge_l"]) == {"precision", "recall"}
    assert evidence["faithfulness"]["total"] == len(evidence["faithfulness"]["claims"]) >= 1
    assert result.usage["requests"] == 0  # the offline judge makes no calls
    assert result.evidence(-1) == result.evidence(2)
    with pytest.raises(IndexError):
        result.evidence(3)


def test_a_bad_row_is_a_per_row_status_not_an_exception(cli, tmp_path, example_rows):
    rows = [dict(r) for r in example_rows[:4]]
    rows[1]["retrieved_contexts"] = 42  # a list field holding a number
    rows[2] = "not a dict"
    rows[3]["response"] = b"bytes"  # a Python type JSON does not have
    result = ragmeter.evaluate(rows, metrics="token_f1,mrr", progress=False)
    assert len(result) == 4
    frame = result.to_pandas()
    assert list(frame["token_f1_status"]) == ["ok", "failed", "failed", "failed"]
    assert "field 'retrieved_contexts'" in frame["token_f1_reason"][1]
    assert "<memory>:3: a row must be a JSON object" in frame["token_f1_reason"][2]
    assert "field 'response'" in frame["mrr_reason"][3] and "bytes" in frame["mrr_reason"][3]
    assert frame["row_error"][1].startswith("<memory>:2:")
    assert result.summary["rows"] == {"read": 4, "rejected": 3}
    # The same first bad row through the CLI gets the same reason.
    data = tmp_path / "bad.jsonl"
    data.write_text(json.dumps(rows[0]) + "\n" + json.dumps(rows[1]) + "\n")
    out, _ = cli_run(cli, tmp_path, data, "token_f1,mrr")
    cli_reason = read_jsonl(out)[1]["reasons"]["token_f1"]
    assert cli_reason.replace(str(data), "<memory>") == frame["token_f1_reason"][1]


def test_to_pandas_without_pandas_names_the_optional_dependency(example_rows, monkeypatch):
    result = ragmeter.evaluate(example_rows[:1], metrics="token_f1", progress=False)
    monkeypatch.setitem(sys.modules, "pandas", None)  # what Python does when it is not installed
    with pytest.raises(ImportError, match=r"Result.to_pandas\(\) needs pandas.*ragmeter\[pandas\]"):
        result.to_pandas()


def test_strict_stops_at_the_first_bad_row(example_rows):
    rows = [example_rows[0], {"retrieved_contexts": 1}]
    with pytest.raises(ragmeter.InvalidArgumentError, match="field 'retrieved_contexts'"):
        ragmeter.evaluate(rows, metrics="token_f1", strict=True, progress=False)


def test_unknown_metric_names_it_and_suggests_the_nearest(example_rows):
    with pytest.raises(ragmeter.InvalidArgumentError) as info:
        ragmeter.evaluate(example_rows, metrics=["faithfullness", "bleu"], progress=False)
    assert isinstance(info.value, ValueError)
    assert "unknown metric 'faithfullness'" in str(info.value)
    assert "did you mean 'faithfulness'?" in str(info.value)


def test_exception_mapping(tmp_path, example_rows):
    with pytest.raises(ragmeter.NotFoundError) as missing:
        ragmeter.evaluate(tmp_path / "missing.jsonl", metrics="bleu", progress=False)
    assert isinstance(missing.value, FileNotFoundError) and isinstance(missing.value, LookupError)
    assert "missing.jsonl" in str(missing.value)
    (tmp_path / "data.txt").write_text("x")
    with pytest.raises(ragmeter.InvalidArgumentError):  # an extension no reader knows
        ragmeter.evaluate(tmp_path / "data.txt", metrics="bleu", progress=False)
    with pytest.raises(ValueError, match="bleu_smoothing"):
        ragmeter.evaluate(example_rows, metrics="bleu", bleu_smoothing="nope", progress=False)
    with pytest.raises(ValueError, match="critic_votes must be odd"):
        ragmeter.evaluate(example_rows, metrics="bleu", critic_votes=2, progress=False)
    with pytest.raises(ragmeter.InvalidArgumentError, match="cutoff"):
        ragmeter.metrics.metric_names("ndcg@0")


def test_options_named_as_the_cli_flags_give_the_cli_numbers(cli, tmp_path, example_rows):
    out, summary = cli_run(cli, tmp_path, EXAMPLE, "bleu,rouge_l", "--bleu-smoothing", "floor",
                           "--rouge-stem", "--seed", "7", "--bootstrap-resamples", "200",
                           "--limit", "20")
    result = ragmeter.evaluate(example_rows, metrics="bleu,rouge_l", bleu_smoothing="floor",
                               rouge_stem=True, seed=7, bootstrap_resamples=200, limit=20,
                               progress=False)
    assert result.summary["metrics"] == json.loads(summary.read_text())["metrics"]
    py_out = tmp_path / "py.jsonl"
    result.to_jsonl(py_out)
    assert py_out.read_bytes() == out.read_bytes()


def test_progress_callback_sees_every_row(example_rows):
    seen = []
    ragmeter.evaluate(example_rows, metrics="bleu", progress=lambda done, total: seen.append((done, total)))
    assert seen and seen[-1] == (30, 30)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_progress_bar_is_tqdm_when_installed_else_plain_text(example_rows, capsys, monkeypatch):
    ragmeter.evaluate(example_rows, metrics="bleu", progress=True)
    err = capsys.readouterr().err
    assert "ragmeter" in err and "30/30" in err and "rows/s" in err  # tqdm's bar
    monkeypatch.setitem(sys.modules, "tqdm", None)  # as if tqdm were not installed
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    ragmeter.evaluate(example_rows, metrics="bleu", progress=True)
    assert capsys.readouterr().err.endswith("ragmeter: 30/30 rows\n")


def test_language_keyword_sets_every_rows_language_and_the_summary_counts_them():
    rows = [{"response": "首都是北京。", "reference": "首都是北京"},
            {"response": "The capital of France is Paris.", "reference": "Paris is the capital."}]
    result = ragmeter.evaluate(rows, metrics="token_f1", progress=False)
    assert result.summary["languages"] == {"en": 1, "zh": 1}
    assert result.scores("token_f1")[0] == 1.0  # ICU words: 首都 / 是 / 北京
    forced = ragmeter.evaluate(rows, metrics="token_f1", progress=False, language="ja")
    assert forced.summary["languages"] == {"ja": 2}
    with pytest.raises(ragmeter.InvalidArgumentError, match="unknown language 'xx'"):
        ragmeter.evaluate(rows, metrics="token_f1", progress=False, language="xx")


def test_the_library_checks_the_keywords_as_it_checks_the_clis_flags(tmp_path):
    # DeepEval's tool correctness compares the name only by default, as DeepEval; with
    # input_parameters a call to the right tool with the wrong city matches 0 (sim of
    # {city: Rome} and {city: Paris} is 0: one shared key, unequal values).
    row = {"turns": [{"role": "user", "content": "Weather in Paris?"},
                     {"role": "assistant", "content": "Rainy.",
                      "tools_called": [{"name": "get_weather", "input_parameters": {"city": "Rome"}}]}],
           "expected_tools": [{"name": "get_weather", "input_parameters": {"city": "Paris"}}]}
    assert ragmeter.evaluate([row], "deepeval_tool_correctness", progress=False).scores(
        "deepeval_tool_correctness") == [1.0]
    assert ragmeter.evaluate([row], "deepeval_tool_correctness", progress=False,
                             deepeval_tool_params=["input_parameters"]).scores("deepeval_tool_correctness") == [0.0]
    with pytest.raises(ragmeter.InvalidArgumentError, match="deepeval_tool_params: 'name' is not one of"):
        ragmeter.evaluate([row], "deepeval_tool_correctness", progress=False, deepeval_tool_params=["name"])
    with pytest.raises(ragmeter.InvalidArgumentError, match="media_root '.*' is not a directory"):
        ragmeter.evaluate([row], "token_f1", progress=False, media_root=tmp_path / "missing")
    with pytest.raises(ragmeter.InvalidArgumentError, match="critic_votes must be odd"):
        ragmeter.evaluate([row], "token_f1", progress=False, critic_votes=2)


def test_plan_counts_the_calls_the_clis_dry_run_counts_and_sends_nothing(ragmeter_bin):
    import subprocess

    judge = ragmeter.OpenAIJudge("http://127.0.0.1:9/v1", "gpt-4o-mini")  # nothing listens there
    planned = ragmeter.plan(EXAMPLE, "faithfulness,context_recall,answer_relevancy", judge=judge, repeat=2)
    dry = subprocess.run([str(ragmeter_bin), "eval", str(EXAMPLE), "--metrics",
                          "faithfulness,context_recall,answer_relevancy", "--judge-url", "http://127.0.0.1:9/v1",
                          "--judge-model", "gpt-4o-mini", "--dry-run", "--repeat", "2"],
                         capture_output=True, text=True, check=True).stdout
    assert f"dry run: {planned['rows']} rows ({planned['rejected']} rejected), 3 metrics" in dry
    calls = ", ".join(f"{kind} {n}" for kind, n in planned["calls"].items())
    assert f"planned calls: {planned['total_calls']} ({calls})" in dry
    assert f"estimated tokens: {planned['prompt_tokens']} prompt, {planned['completion_tokens']} completion" in dry
    assert f"estimated cost: ${planned['cost_usd']:.4f}" in dry
    assert planned["rows"] == 30 and planned["judge"] == "llm" and planned["total_calls"] > 0
    offline = ragmeter.plan(EXAMPLE, "token_f1")
    assert offline["judge"] == "offline" and offline["total_calls"] == 0 and offline["cost_usd"] is None
    with pytest.raises(ragmeter.InvalidArgumentError, match="critic_votes must be odd"):
        ragmeter.plan(EXAMPLE, "token_f1", critic_votes=4)
