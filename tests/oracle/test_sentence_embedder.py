"""Oracle: ragmeter's local sentence embedder (all-MiniLM-L6-v2) against an independent
forward pass written here in numpy.

Reference: the model's own files read by other code: the weights by the `safetensors`
package (numpy arrays), the token ids by the `tokenizers` package (truncated to the
model's max_seq_length, 256, as sentence-transformers does), and BERT's forward pass in
float64 numpy below, from the formulas of Devlin et al. (2019) and transformers'
BertModel: embeddings (word + position + token type 0) and LayerNorm (eps 1e-12); per
layer, 12-head scaled dot-product self-attention, output projection, residual and
LayerNorm, then the 1536-wide GELU (x/2 (1 + erf(x/sqrt 2)), math.erf) layer, projection,
residual and LayerNorm; then sentence-transformers' mean pooling over the text's tokens
and L2 normalisation. One text at a time, so batching and packing in ragmeter are checked
too. sentence-transformers itself (with torch) is compared in the benchmark environment
(bench/sentence_embedder_reference.py), not here.

ragmeter is driven through tests/oracle/probes/sentence_embedder_probe.cc, one request
with every text (so they are embedded in one batch, with a repeated text).

Run: RAGMETER_BUILD_DIR=build ~/.cache/ragmeter/venv/bin/python \\
       -m pytest -q -p no:cacheprovider tests/oracle/test_sentence_embedder.py
"""

import json
import math
import os
import subprocess
from pathlib import Path

import pytest

np = pytest.importorskip("numpy")
tokenizers = pytest.importorskip("tokenizers")
safetensors_numpy = pytest.importorskip("safetensors.numpy")

REPO = Path(__file__).resolve().parents[2]
BUILD_DIR = Path(os.environ.get("RAGMETER_BUILD_DIR", REPO / "build"))
PROBE = BUILD_DIR / "probes" / "sentence_embedder_probe"
MODEL_DIR = Path(
    os.environ.get(
        "RAGMETER_EMBEDDER_MODEL",
        Path(os.environ.get("RAGMETER_CACHE", Path.home() / ".cache" / "ragmeter"))
        / "models" / "all-MiniLM-L6-v2",
    )
)
DATA = REPO / "tests" / "data" / "halueval_qa_one_turn.jsonl"

TEXTS = [
    "The weather is lovely today.",
    "It's so sunny outside!",
    "He drove to the stadium.",
    "",
    "   \t ",
    "Café naïve Ångström ΟΔΟΣ İstanbul",
    "東京は日本の首都です。北京大学",
    "supercalifragilisticexpialidocious [SEP] x" + "y" * 120,
    "The weather is lovely today.",  # repeated: embedded once, the same vector
]


def halueval_texts(n):
    rows = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines()[:n]]
    return [r["question"] for r in rows] + [r["knowledge"] for r in rows]


erf = np.vectorize(math.erf)


def layer_norm(x, weight, bias, eps=1e-12):
    mean = x.mean(axis=-1, keepdims=True)
    variance = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(variance + eps) * weight + bias


def reference_embedding(w, ids, heads=12, layers=6):
    """w: the model's tensors as float64 arrays."""
    n = len(ids)
    x = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:n]
         + w["embeddings.token_type_embeddings.weight"][0])
    x = layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
    hidden = x.shape[1]
    d = hidden // heads
    for layer in range(layers):
        p = f"encoder.layer.{layer}."

        def linear(v, name):
            return v @ w[p + name + ".weight"].T + w[p + name + ".bias"]

        q = linear(x, "attention.self.query").reshape(n, heads, d).transpose(1, 0, 2)
        k = linear(x, "attention.self.key").reshape(n, heads, d).transpose(1, 0, 2)
        v = linear(x, "attention.self.value").reshape(n, heads, d).transpose(1, 0, 2)
        scores = q @ k.transpose(0, 2, 1) / math.sqrt(d)
        scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
        scores /= scores.sum(axis=-1, keepdims=True)
        context = (scores @ v).transpose(1, 0, 2).reshape(n, hidden)
        x = layer_norm(x + linear(context, "attention.output.dense"),
                       w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"])
        mid = linear(x, "intermediate.dense")
        mid = 0.5 * mid * (1.0 + erf(mid / math.sqrt(2.0)))
        x = layer_norm(x + linear(mid, "output.dense"),
                       w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"])
    pooled = x.mean(axis=0)
    return pooled / max(np.linalg.norm(pooled), 1e-12)


@pytest.fixture(scope="module")
def model():
    if not (MODEL_DIR / "model.safetensors").exists():
        pytest.fail(f"{MODEL_DIR} has no model.safetensors: run scripts/setup_embedder.sh")
    max_seq_length = json.loads((MODEL_DIR / "sentence_bert_config.json").read_text())["max_seq_length"]
    tokenizer = tokenizers.Tokenizer.from_file(str(MODEL_DIR / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_seq_length)
    weights = safetensors_numpy.load_file(str(MODEL_DIR / "model.safetensors"))
    return {k: v.astype(np.float64) for k, v in weights.items() if v.dtype == np.float32}, tokenizer


def embed(texts):
    assert PROBE.exists(), f"{PROBE} is missing: build the sentence_embedder_probe target"
    done = subprocess.run([str(PROBE), str(MODEL_DIR)], input=(json.dumps({"texts": texts}) + "\n").encode(),
                          capture_output=True, check=True, timeout=300)
    answer = json.loads(done.stdout)
    assert "error" not in answer, answer
    return np.array(answer["vectors"], dtype=np.float64), answer["ids"]


def test_embeddings_equal_an_independent_numpy_forward_pass(model):
    weights, tokenizer = model
    texts = TEXTS + halueval_texts(3)  # three questions, three knowledge paragraphs
    got, ids = embed(texts)
    assert got.shape == (len(texts), 384)
    worst = 1.0
    for i, text in enumerate(texts):
        want_ids = tokenizer.encode(text).ids
        assert ids[i] == want_ids, text
        want = reference_embedding(weights, want_ids)
        cosine = float(got[i] @ want / np.linalg.norm(got[i]))
        worst = min(worst, cosine)
        assert cosine > 1 - 1e-6, (text, cosine)
        assert np.abs(got[i] - want).max() < 1e-4, text
        assert abs(np.linalg.norm(got[i]) - 1) < 1e-5
    print(f"worst cosine to the numpy reference: {worst:.9f}")
    assert (got[0] == got[8]).all()  # the repeated text


def test_long_text_is_embedded_from_its_first_256_tokens(model):
    weights, tokenizer = model
    long_text = " ".join(halueval_texts(40))
    tokenizer_full = tokenizers.Tokenizer.from_file(str(MODEL_DIR / "tokenizer.json"))
    tokenizer_full.no_truncation()
    assert len(tokenizer_full.encode(long_text).ids) > 1000
    got, ids = embed([long_text])
    assert len(ids[0]) == 256
    want = reference_embedding(weights, tokenizer.encode(long_text).ids)
    assert float(got[0] @ want) > 1 - 1e-6
