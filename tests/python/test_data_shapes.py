"""The data shapes ragas users have, accepted as they are: the dicts
EvaluationDataset.from_list takes, ragas's legacy question/answer/contexts/ground_truth
columns (Dataset.from_dict), pandas DataFrames and Hugging Face datasets, both ways."""

import math

import datasets
import numpy as np
import pandas as pd
import pytest

import ragmeter

METRICS = "token_f1,bleu,rouge_l,non_llm_context_precision,faithfulness"

# ragas's quick start (docs "Evaluate a simple RAG system"): a list of these dicts.
RAGAS_SAMPLES = [
    {
        "user_input": "Who introduced the theory of relativity?",
        "retrieved_contexts": ["Albert Einstein proposed the theory of relativity, which transformed our understanding of time, space, and gravity."],
        "response": "Albert Einstein introduced the theory of relativity.",
        "reference": "Albert Einstein proposed the theory of relativity, which transformed our understanding of time, space, and gravity.",
        "reference_contexts": ["Albert Einstein proposed the theory of relativity, which transformed our understanding of time, space, and gravity."],
    },
    {
        "user_input": "Who was the first computer programmer?",
        "retrieved_contexts": ["Ada Lovelace is regarded as the first computer programmer for her work on Charles Babbage's early mechanical computer, the Analytical Engine."],
        "response": "Ada Lovelace is considered the first computer programmer.",
        "reference": "Ada Lovelace is regarded as the first computer programmer for her work on Charles Babbage's early mechanical computer, the Analytical Engine.",
        "reference_contexts": ["Ada Lovelace is regarded as the first computer programmer."],
    },
]

# ragas's legacy (0.1) quick start: a dict of columns for Dataset.from_dict.
LEGACY_COLUMNS = {
    "question": [s["user_input"] for s in RAGAS_SAMPLES],
    "answer": [s["response"] for s in RAGAS_SAMPLES],
    "contexts": [s["retrieved_contexts"] for s in RAGAS_SAMPLES],
    "ground_truth": [s["reference"] for s in RAGAS_SAMPLES],
}


def scores(result):
    return {m: result.scores(m) for m in result.metrics}


@pytest.fixture(scope="module")
def from_dicts():
    return ragmeter.evaluate(RAGAS_SAMPLES, metrics=METRICS, progress=False)


def test_ragas_quick_start_dicts(from_dicts):
    assert from_dicts.summary["rows"] == {"read": 2, "rejected": 0}
    frame = from_dicts.to_pandas()
    assert (frame[[f"{m}_status" for m in METRICS.split(",")]] == "ok").all().all()
    # Hand-checked: SQuAD F1 of row 0: response tokens {albert, einstein, introduced, theory,
    # of, relativity} against the reference's 15 tokens, overlap 5 ("the" is an article):
    # precision 5/6, recall 5/15, F1 = 2pr/(p+r) = 10/21.
    assert frame["token_f1"][0] == pytest.approx(10 / 21, abs=1e-12)


def test_legacy_columns_as_dict_and_as_hf_dataset(from_dicts):
    legacy_metrics = "token_f1,bleu,rouge_l,faithfulness"
    expected = {m: from_dicts.scores(m) for m in legacy_metrics.split(",")}
    as_dict = ragmeter.evaluate(LEGACY_COLUMNS, metrics=legacy_metrics, progress=False)
    as_dataset = ragmeter.evaluate(datasets.Dataset.from_dict(LEGACY_COLUMNS),
                                   metrics=legacy_metrics, progress=False)
    assert scores(as_dict) == expected
    assert scores(as_dataset) == expected


def test_pandas_round_trip(from_dicts):
    frame = pd.DataFrame(RAGAS_SAMPLES)
    result = ragmeter.evaluate(frame, metrics=METRICS, progress=False)
    assert scores(result) == scores(from_dicts)
    out = result.to_pandas()
    # The input columns come back unchanged, then the sample's language, then score,
    # status and reason per metric.
    pd.testing.assert_frame_equal(out[list(frame.columns)], frame)
    assert set(out["language"]) == {"en"}
    expected = list(frame.columns) + ["language"]
    for m in METRICS.split(","):
        expected += [m, f"{m}_status", f"{m}_reason"]
    assert list(out.columns) == expected
    assert out["bleu"].dtype == np.float64
    # ...and the output frame evaluates to the same numbers again.
    again = ragmeter.evaluate(out[list(frame.columns)], metrics=METRICS, progress=False)
    assert scores(again) == scores(from_dicts)


def test_pandas_missing_values_are_missing_fields():
    frame = pd.DataFrame({"response": ["a b c", "a b", None], "reference": ["a b c", np.nan, "x"]})
    result = ragmeter.evaluate(frame, metrics="token_f1", progress=False).to_pandas()
    assert list(result["token_f1_status"]) == ["ok", "skipped", "skipped"]
    assert result["token_f1"][0] == 1.0 and math.isnan(result["token_f1"][1])
    assert "reference" in result["token_f1_reason"][1]
    assert "response" in result["token_f1_reason"][2]


def test_numpy_list_cells_from_a_hf_dataset_to_pandas(from_dicts):
    # datasets' to_pandas() holds list columns as numpy arrays.
    frame = datasets.Dataset.from_list(RAGAS_SAMPLES).to_pandas()
    assert isinstance(frame["retrieved_contexts"][0], np.ndarray)
    result = ragmeter.evaluate(frame, metrics=METRICS, progress=False)
    assert scores(result) == scores(from_dicts)


def test_hf_dataset_round_trip(from_dicts):
    dataset = datasets.Dataset.from_list(RAGAS_SAMPLES)
    result = ragmeter.evaluate(dataset, metrics=METRICS, progress=False)
    assert scores(result) == scores(from_dicts)
    back = datasets.Dataset.from_pandas(result.to_pandas())
    assert back["bleu"] == from_dicts.scores("bleu")
    assert back["user_input"] == dataset["user_input"]


def test_column_map_renames_as_the_cli_flag(from_dicts):
    renamed = [{"q": s["user_input"], "a": s["response"], "gold": s["reference"]} for s in RAGAS_SAMPLES]
    for column_map in ({"q": "user_input", "a": "response", "gold": "reference"},
                       ["q=user_input", "a=response", "gold=reference"]):
        result = ragmeter.evaluate(renamed, metrics="token_f1,bleu", column_map=column_map,
                                   progress=False)
        assert result.scores("bleu") == from_dicts.scores("bleu")


class FakeSingleTurnSample:
    """Duck-typed as a pydantic model (ragas's SingleTurnSample): model_dump()."""

    def __init__(self, **fields):
        self.fields = fields

    def model_dump(self, exclude_none=False):
        return {k: v for k, v in self.fields.items() if not (exclude_none and v is None)}


class FakeEvaluationDataset:
    """Duck-typed as ragas's EvaluationDataset: .samples and .to_list()."""

    def __init__(self, samples):
        self.samples = samples

    def to_list(self):
        return [s.model_dump() for s in self.samples]


def test_ragas_sample_objects_by_duck_typing(from_dicts):
    samples = [FakeSingleTurnSample(rubrics=None, **s) for s in RAGAS_SAMPLES]
    as_samples = ragmeter.evaluate(samples, metrics=METRICS, progress=False)
    as_dataset = ragmeter.evaluate(FakeEvaluationDataset(samples), metrics=METRICS, progress=False)
    assert scores(as_samples) == scores(as_dataset) == scores(from_dicts)


def test_a_single_dict_of_strings_is_refused_with_a_hint():
    with pytest.raises(ragmeter.InvalidArgumentError, match=r"evaluate\(\[sample\]\)"):
        ragmeter.evaluate(RAGAS_SAMPLES[0], metrics="bleu", progress=False)
