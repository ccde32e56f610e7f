"""Throughput of ragmeter against the Python reference implementations, same pairs, one core.

For each metric: 100,000 (response, reference) pairs built from HaluEval text
(tests/data/halueval_qa_one_turn.jsonl, deterministic), scored
  - by the reference in this process (sacreBLEU, rouge-score, rapidfuzz), timing only the
    scoring loop (file reading and JSON parsing are not counted for the reference), and
  - by ragmeter's scoring functions on the same pairs in memory (bench/scoring_loop_bench.cc),
    timing only the scoring loop, as the reference is timed: the like-for-like ratio; and
  - by `ragmeter eval --threads 1` on a JSONL file of the same pairs, timing the whole
    command (reading, parsing, scoring, summary): the end-to-end ratio, which is
    conservative since the reference's I/O is not counted.
Each side is timed --repeat times (default 3), alternating, and its best time is kept: the
machine is shared and noisy, and the best of several runs is the least disturbed estimate for
both sides alike. Prints pairs/s for each and both ratios, and checks that both sides' scores
sum to the same total (0..1 scale), so they scored the same thing. pytrec_eval is compared with `ragmeter ir` on 10,000 generated queries: the
reference is timed on in-memory dicts, ragmeter on reading the files and printing -q lines.

Run: RAGMETER_BUILD_DIR=build ~/.cache/ragmeter/venv/bin/python bench/compare_references.py [--pairs N] [--repeat N]
"""
import argparse
import json
import os
import pathlib
import random
import subprocess
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parent.parent
BUILD = pathlib.Path(os.environ.get("RAGMETER_BUILD_DIR", REPO / "build"))


def make_pairs(n, seed=1):
    rng = random.Random(seed)
    rows = [json.loads(l) for l in open(REPO / "tests/data/halueval_qa_one_turn.jsonl", encoding="utf-8")]
    pairs = []
    for _ in range(n):
        r = rng.choice(rows)
        sentences = [s for s in r["knowledge"].split(".") if s.strip()]
        response = rng.choice([r["hallucinated_answer"], r["right_answer"] + ". " + rng.choice(sentences),
                               rng.choice(sentences)])
        reference = r["right_answer"] + ". " + rng.choice(sentences)
        pairs.append((response, reference))
    return pairs


def reference_scorers():
    import sacrebleu
    from rapidfuzz.distance import JaroWinkler, Levenshtein
    from rouge_score import rouge_scorer

    bleu = sacrebleu.BLEU(effective_order=True)
    chrf = sacrebleu.CHRF()
    rouge_l = rouge_scorer.RougeScorer(["rougeL"])
    rouge_2 = rouge_scorer.RougeScorer(["rouge2"])
    return {
        "bleu": ("sacrebleu", lambda h, r: bleu.sentence_score(h, [r]).score / 100),
        "chrf": ("sacrebleu", lambda h, r: chrf.sentence_score(h, [r]).score / 100),
        "rouge_l": ("rouge-score", lambda h, r: rouge_l.score(r, h)["rougeL"].fmeasure),
        "rouge2": ("rouge-score", lambda h, r: rouge_2.score(r, h)["rouge2"].fmeasure),
        "levenshtein_similarity": ("rapidfuzz", Levenshtein.normalized_similarity),
        "jaro_winkler_similarity": ("rapidfuzz", JaroWinkler.similarity),
    }


def time_reference(fn, pairs):
    total = 0.0
    start = time.perf_counter()
    for h, r in pairs:
        total += fn(h, r)
    return time.perf_counter() - start, total


def time_ragmeter_loop(metric, path):
    out = subprocess.run([str(BUILD / "bench" / "scoring_loop_bench"), str(path), metric],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def time_ragmeter(metric, path):
    cmd = [str(BUILD / "ragmeter"), "eval", str(path), "-m", metric, "--threads", "1", "-q",
           "--bootstrap-resamples", "0"]
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


IR_FAMILIES = ("P", "recall", "map", "Rprec", "recip_rank", "ndcg", "ndcg_cut", "success")


def compare_ir(queries=10_000, docs=100, seed=2, measures=IR_FAMILIES):
    """`ragmeter ir` against pytrec_eval on the same qrels and run, the same measures."""
    import pytrec_eval

    rng = random.Random(seed)
    qrels, run = {}, {}
    for q in range(queries):
        qid = f"q{q}"
        pool = [f"d{rng.randrange(5000)}" for _ in range(docs)]
        qrels[qid] = {d: rng.choice([0, 0, 1, 2]) for d in pool[:30]}
        run[qid] = {d: rng.random() for d in pool}
    with tempfile.TemporaryDirectory() as tmp:
        qrels_path, run_path = pathlib.Path(tmp) / "qrels", pathlib.Path(tmp) / "run"
        with open(qrels_path, "w") as f:
            for qid, judged in qrels.items():
                f.writelines(f"{qid} 0 {d} {rel}\n" for d, rel in judged.items())
        with open(run_path, "w") as f:
            for qid, scored in run.items():
                f.writelines(f"{qid} Q0 {d} {i} {s!r} bench\n" for i, (d, s) in enumerate(scored.items()))
        start = time.perf_counter()
        pytrec_eval.RelevanceEvaluator(qrels, set(measures)).evaluate(run)
        ref_s = time.perf_counter() - start
        start = time.perf_counter()
        # trec_eval 9: pytrec_eval's release, so all_trec is the same measures on both sides.
        subprocess.run([str(BUILD / "ragmeter"), "ir", "--trec-eval-version", "9", "-q",
                        str(qrels_path), str(run_path),
                        *[arg for m in measures for arg in ("-m", m)]],
                       check=True, stdout=subprocess.DEVNULL)
        ours_s = time.perf_counter() - start
    label = "all_trec (ir -q)" if measures == ("all_trec",) else "trec measures (ir -q)"
    print(f"{label:<26} {'pytrec_eval':<12} {queries / ref_s:>12.0f} {queries / ours_s:>17.0f} "
          f"{ref_s / ours_s:>7.1f}x   (queries/s; {docs} docs each)", flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3, help="runs per side; the best counts")
    parser.add_argument("--metrics", default="bleu,chrf,rouge_l,rouge2,levenshtein_similarity,jaro_winkler_similarity")
    args = parser.parse_args()
    pairs = make_pairs(args.pairs)
    scorers = reference_scorers()
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "pairs.jsonl"
        with open(path, "w", encoding="utf-8") as f:
            for h, r in pairs:
                f.write(json.dumps({"response": h, "reference": r}) + "\n")
        print(f"{'metric':<24} {'reference':<12} {'ref pairs/s':>11} {'loop pairs/s':>13} "
              f"{'loop ratio':>10} {'eval pairs/s':>13} {'e2e ratio':>9}  sums (ref / ragmeter)")
        for metric in args.metrics.split(","):
            name, fn = scorers[metric]
            ref_s, loop, ours_s = float("inf"), None, float("inf")
            for _ in range(max(1, args.repeat)):
                seconds, ref_sum = time_reference(fn, pairs)
                ref_s = min(ref_s, seconds)
                run = time_ragmeter_loop(metric, path)
                if loop is None or run["seconds"] < loop["seconds"]:
                    loop = run
                ours_s = min(ours_s, time_ragmeter(metric, path))
            print(f"{metric:<24} {name:<12} {len(pairs) / ref_s:>11.0f} {len(pairs) / loop['seconds']:>13.0f} "
                  f"{ref_s / loop['seconds']:>9.1f}x {len(pairs) / ours_s:>13.0f} {ref_s / ours_s:>8.1f}x  "
                  f"{ref_sum:.4f} / {loop['sum']:.4f}", flush=True)
    compare_ir()
    compare_ir(measures=("all_trec",))


if __name__ == "__main__":
    main()
