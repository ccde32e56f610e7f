"""ragmeter from Python in a dozen lines: ragas-style samples in, scores and a DataFrame out.

Run from the repository root after `pip install ./python` (and pandas for to_pandas):
    python examples/python_quickstart.py
The test suite runs it (tests/python/test_docs.py), so it cannot rot.
"""

import json

import ragmeter
from ragmeter import metrics

# The dicts ragas's EvaluationDataset.from_list takes.
samples = [
    {
        "user_input": "Who introduced the theory of relativity?",
        "retrieved_contexts": ["Albert Einstein proposed the theory of relativity."],
        "response": "Albert Einstein introduced the theory of relativity.",
        "reference": "Albert Einstein proposed the theory of relativity.",
    },
    {
        "user_input": "Who was the first computer programmer?",
        "retrieved_contexts": ["Ada Lovelace is regarded as the first computer programmer."],
        "response": "Charles Babbage was the first computer programmer.",
        "reference": "Ada Lovelace is regarded as the first computer programmer.",
    },
]

result = ragmeter.evaluate(samples, metrics=["faithfulness", "token_f1", "bleu"], progress=False)
print(result)                                   # the summary table, as `ragmeter eval` prints it
print("mean faithfulness:", result["faithfulness"])
frame = result.to_pandas()                      # a row per sample: fields, score, status, reason
print(frame[["user_input", "faithfulness", "token_f1", "bleu"]])
print(json.dumps(result.evidence(1)["faithfulness"]["claims"], indent=1))  # claims and verdicts
print("BLEU of one pair:", metrics.bleu("The cat sat.", "The cat sat on the mat."))
