"""ragmeter's local embedder against sentence-transformers on the same model directory.

Benchmark environment, not the default suite: bench/setup_reference_embedder.sh makes the
venv with sentence-transformers and torch (several GB). Run:

  bash bench/setup_reference_embedder.sh
  RAGMETER_BUILD_DIR=build ~/.cache/ragmeter/st-venv/bin/python bench/sentence_embedder_reference.py

Checks that every text's embedding has cosine >= 1 - 1e-4 to sentence-transformers'
(exit code 1 otherwise), and prints the worst cosine and, on 2 threads (torch's
set_num_threads(2) against ragmeter's two embedder threads), the sentences per second of
both on the short and the long texts (best of 3, batches of 256, one process each; the
probe's time is measured around its request, so its model load is not counted, nor is
sentence-transformers').

Texts: the questions, answers and knowledge paragraphs of tests/data/halueval_qa_one_turn.jsonl,
knowledge joined past 256 tokens (truncated by both), accents, CJK, emoji, empty and
whitespace-only texts.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch
from sentence_transformers import SentenceTransformer

REPO = Path(__file__).resolve().parents[1]
BUILD_DIR = Path(os.environ.get("RAGMETER_BUILD_DIR", REPO / "build"))
PROBE = BUILD_DIR / "probes" / "sentence_embedder_probe"
MODEL_DIR = Path(os.environ.get("RAGMETER_EMBEDDER_MODEL", Path(os.environ.get(
    "RAGMETER_CACHE", Path.home() / ".cache" / "ragmeter")) / "models" / "all-MiniLM-L6-v2"))
DATA = REPO / "tests" / "data" / "halueval_qa_one_turn.jsonl"


def texts():
    rows = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines()]
    out = []
    for r in rows[:150]:
        out += [r["question"], r["right_answer"], r["hallucinated_answer"], r["knowledge"]]
    out += [" ".join(r["knowledge"] for r in rows[i:i + 6]) for i in range(0, 60, 6)]
    out += ["", "   ", "\t\n", "Café naïve Ångström ΟΔΟΣ İstanbul", "東京は日本の首都です。北京大学",
            "👍🏽 great!! [SEP] [MASK]", "x" * 300, "The weather is lovely today."]
    return out


def probe_embed(batch):
    done = subprocess.run([str(PROBE), str(MODEL_DIR)], input=(json.dumps({"texts": batch}) + "\n").encode(),
                          capture_output=True, check=True)
    return np.array(json.loads(done.stdout)["vectors"], dtype=np.float64)


def probe_rate(batch_sets):
    """Sentences/s of the probe over `batch_sets` (lists of batches), model load excluded."""
    proc = subprocess.Popen([str(PROBE), str(MODEL_DIR)], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    proc.stdin.write((json.dumps({"texts": ["warm up"]}) + "\n").encode())
    proc.stdin.flush()
    proc.stdout.readline()
    best = []
    for batches in batch_sets:
        times = []
        for _ in range(3):
            start = time.perf_counter()
            for batch in batches:
                proc.stdin.write((json.dumps({"texts": batch}) + "\n").encode())
                proc.stdin.flush()
                proc.stdout.readline()
            times.append(time.perf_counter() - start)
        best.append(sum(len(b) for b in batches) / min(times))
    proc.stdin.close()
    proc.wait()
    return best


def st_rate(model, batch_sets):
    best = []
    for batches in batch_sets:
        times = []
        for _ in range(3):
            start = time.perf_counter()
            for batch in batches:
                model.encode(batch, batch_size=len(batch))
            times.append(time.perf_counter() - start)
        best.append(sum(len(b) for b in batches) / min(times))
    return best


def main():
    torch.set_num_threads(2)
    # The package's zip names a 2_Normalize module in modules.json without its (empty)
    # folder; sentence-transformers wants the folder, so it reads a copy that has it.
    with tempfile.TemporaryDirectory() as tmp:
        model_dir = Path(tmp) / "model"
        shutil.copytree(MODEL_DIR, model_dir)
        (model_dir / "2_Normalize").mkdir(exist_ok=True)
        model = SentenceTransformer(str(model_dir), device="cpu")
    assert model.max_seq_length == 256, model.max_seq_length
    all_texts = texts()
    want = model.encode(all_texts, batch_size=64, convert_to_numpy=True).astype(np.float64)
    got = probe_embed(all_texts)
    cosines = (got * want).sum(axis=1) / np.linalg.norm(got, axis=1) / np.linalg.norm(want, axis=1)
    worst = int(np.argmin(cosines))
    print(f"{len(all_texts)} texts: worst cosine {cosines[worst]:.7f} ({all_texts[worst][:60]!r}), "
          f"mean {cosines.mean():.7f}, max |difference| {np.abs(got - want).max():.2e}")

    rows = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines()]
    short = [r["question"] for r in rows]
    tokenizer = model.tokenizer
    long_texts = []
    for i in range(len(rows)):
        words = " ".join(rows[(i + j) % len(rows)]["knowledge"] for j in range(4)).split()
        text = ""
        for w in words:
            nxt = (text + " " + w).strip()
            if len(tokenizer(nxt)["input_ids"]) > 200:
                break
            text = nxt
        long_texts.append(text)
    sets = [[short[i:i + 256] for i in range(0, len(short), 256)],
            [long_texts[i:i + 256] for i in range(0, len(long_texts), 256)]]
    ours = probe_rate(sets)
    theirs = st_rate(model, sets)
    for name, a, b in zip(("short", "long"), ours, theirs):
        print(f"{name} texts on 2 threads: ragmeter {a:.0f} sentences/s, sentence-transformers {b:.0f} "
              f"sentences/s ({a / b:.2f}x)")
    if cosines.min() < 1 - 1e-4:
        print("FAIL: a cosine below 1 - 1e-4")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
