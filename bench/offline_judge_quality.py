"""How well the offline judge agrees with people, and how fast it is.

Quality (the default): builds evaluation files from two human-labelled sets, scores them with
`ragmeter eval` (every score comes from the binary; this script holds no metric logic) and
computes agreement statistics on a dev and a test split.

  HaluEval QA (tests/data/halueval_qa_one_turn.jsonl, 500 items): each item's right answer
  and hallucinated answer are scored against the same knowledge passage (the one retrieved
  context) and question. Reported per metric: pairwise accuracy (right scored above
  hallucinated; a tie counts half and is also reported on its own) and AUROC over all
  answers (right = positive, ties count half). faithfulness is the judged metric, k_precision
  (response vs contexts) its baseline. answer_correctness and token_f1 use `right_answer` as
  the reference, so the right answer is scored against itself: they are a sanity check (can
  the metric tell a different answer from the reference?), not a measure of correctness.

  RAGChecker human labels (bench/data/ragchecker_human_labeled.json.gz, 280 questions, each
  labelled by two annotators; no retrieved contexts): both systems' responses are scored
  against `gt_answer`; delta = score(model2) - score(model1) is correlated (Pearson, Spearman)
  with `correctness_label` and `overall_label`. The labels are integers from -2 to 2 used as
  they are; positive means model2's response is better (see docs/judges.md for how that was
  established). As in RAGChecker's own meta-evaluation, each of the 560 annotations is one
  point (an item's delta appears once per annotator); a delta that cannot be computed (a
  metric skipped for one response: six responses are empty) is replaced by the split's median
  delta and counted. The agreement of annotator 1 with annotator 2 is printed as the ceiling.
  k_precision needs contexts, which this set lacks; token_f1 and answer_token_recall are the
  baselines.

Intervals: 95% percentile bootstrap over items (1,000 resamples, seed 11); for RAGChecker both
annotations of a drawn item are taken.

Split: an item is in dev when the first 8 hex digits of
sha256("ragmeter-judge-quality:<set>:<id>") are even, else in test; <id> is the question
text for HaluEval and `instance_id` for RAGChecker (both annotators of an item fall in the
same split). Tune on dev only.

Speed (--speed): 10,000 samples built from HaluEval (the right or the hallucinated answer,
the gold passage plus 2 to 4 other items' passages as distractors in shuffled order, ids for
the retrieval metrics), scored with `--metrics all` on the offline judge with --threads 1 and
2 under /usr/bin/time -v (wall time and peak RSS). No --out file is written (summary only).

Run:  RAGMETER_BUILD_DIR=build python3 bench/offline_judge_quality.py [--split dev|test|both]
          [--json FIGURES.json] [--dump DIR (the dev split's per-row results, for error analysis)]
          [--embedder auto|offline|local (default auto, as ragmeter eval)]
      RAGMETER_BUILD_DIR=build python3 bench/offline_judge_quality.py --speed
Needs only Python 3's standard library. Results are in docs/judges.md and docs/performance.md.
"""
import argparse
import gzip
import hashlib
import json
import math
import os
import pathlib
import random
import re
import subprocess
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parent.parent
BUILD = pathlib.Path(os.environ.get("RAGMETER_BUILD_DIR", REPO / "build"))
HALUEVAL = REPO / "tests/data/halueval_qa_one_turn.jsonl"
RAGCHECKER = REPO / "bench/data/ragchecker_human_labeled.json.gz"
SPLIT_SALT = "ragmeter-judge-quality"
EMBEDDER = "auto"  # --embedder: similarity by the local model when installed, else bag of stems

HALUEVAL_METRICS = ["faithfulness", "ragchecker_faithfulness", "k_precision", "answer_correctness", "token_f1"]
RAGCHECKER_METRICS = ["factual_correctness", "answer_correctness", "factual_correctness_precision",
                      "factual_correctness_recall", "ragchecker_precision", "ragchecker_recall",
                      "ragchecker_f1", "semantic_similarity", "answer_relevancy", "token_f1",
                      "answer_token_recall"]
RAGCHECKER_LABELS = ["correctness_label", "completeness_label", "overall_label"]
# Not a ragmeter metric: the response's length in words, the plain baseline a
# reference-free metric (answer_relevancy) has to beat on completeness.
RESPONSE_WORDS = "response_words (baseline, no metric)"
# Retrieval contexts built from HaluEval (see halueval_contexts): per item, the gold
# passage among distractors against the distractors alone, and the gold passage first
# against last. Lower-is-better metrics are compared the other way round.
CONTEXT_METRICS = ["context_precision", "context_recall", "context_entity_recall",
                   "context_relevance", "context_utilization", "ragchecker_claim_recall",
                   "ragchecker_context_precision", "k_precision"]
RANK_METRICS = ["context_precision", "context_utilization"]


# ---- Split and statistics ---------------------------------------------------------------

def split_of(dataset, item_id):
    digest = hashlib.sha256(f"{SPLIT_SALT}:{dataset}:{item_id}".encode("utf-8")).hexdigest()
    return "dev" if int(digest[:8], 16) % 2 == 0 else "test"


def mean(xs):
    return sum(xs) / len(xs)


def pearson(x, y):
    mx, my = mean(x), mean(y)
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    if sxx == 0 or syy == 0:
        return float("nan")
    return sxy / math.sqrt(sxx * syy)


def ranks(xs):
    """Ranks from 1, ties given their average rank."""
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    out = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return out


def spearman(x, y):
    return pearson(ranks(x), ranks(y))


def auroc(positives, negatives):
    """P(score of a random positive > score of a random negative), ties counting half
    (the Mann-Whitney U statistic from average ranks)."""
    if not positives or not negatives:
        return float("nan")
    r = ranks(list(positives) + list(negatives))
    rank_sum = sum(r[: len(positives)])
    u = rank_sum - len(positives) * (len(positives) + 1) / 2
    return u / (len(positives) * len(negatives))


def bootstrap_ci(groups, statistic, resamples=1000, seed=11):
    """Percentile 95% interval of statistic(rows) over resamples of the groups (items):
    groups[r] is the item of row r; every row of a drawn item is taken, once per draw."""
    rows_of = {}
    for r, g in enumerate(groups):
        rows_of.setdefault(g, []).append(r)
    keys = sorted(rows_of)
    rng = random.Random(seed)
    values = []
    for _ in range(resamples):
        rows = [r for _ in keys for r in rows_of[keys[rng.randrange(len(keys))]]]
        value = statistic(rows)
        if not math.isnan(value):
            values.append(value)
    if not values:
        return [float("nan"), float("nan")]
    values.sort()
    return [values[int(0.025 * (len(values) - 1))], values[int(0.975 * (len(values) - 1))]]


def median(xs):
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


# ---- Running ragmeter -------------------------------------------------------------------

def ragmeter():
    binary = BUILD / "ragmeter"
    if not binary.exists():
        sys.exit(f"{binary} not found: build it or set RAGMETER_BUILD_DIR")
    return binary


def score_rows(rows, metrics, workdir, name, threads):
    """Writes rows to <workdir>/<name>.jsonl, runs `ragmeter eval` and returns, per row, a
    dict metric -> score (None when not ok) and the per-row results."""
    data = pathlib.Path(workdir) / f"{name}.jsonl"
    out = pathlib.Path(workdir) / f"{name}.out.jsonl"
    with open(data, "w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    cmd = [str(ragmeter()), "eval", str(data), "-m", ",".join(metrics), "-o", str(out), "-q",
           "--threads", str(threads), "--bootstrap-resamples", "0", "--embedder", EMBEDDER,
           "--offline-score-withdrawn"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode not in (0, 3):
        sys.exit(f"ragmeter failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stderr}")
    results = [json.loads(line) for line in open(out, encoding="utf-8")]
    if len(results) != len(rows):
        sys.exit(f"{name}: {len(results)} results for {len(rows)} rows")
    scores = []
    for result in results:
        scores.append({m: (result["scores"][m] if result["status"][m] == "ok" else None)
                       for m in metrics})
    return scores, results, " ".join(cmd)


# ---- HaluEval ---------------------------------------------------------------------------

def halueval(workdir, threads, dump):
    items = [json.loads(line) for line in open(HALUEVAL, encoding="utf-8")]
    rows = []
    for index, item in enumerate(items):
        for kind in ("right", "hallucinated"):
            rows.append({"id": f"{index}:{kind}", "user_input": item["question"],
                         "response": item[f"{kind}_answer"],
                         "retrieved_contexts": [item["knowledge"]],
                         "reference": item["right_answer"]})
    scores, results, cmd = score_rows(rows, HALUEVAL_METRICS, workdir, "halueval", threads)
    if dump:
        write_dump(dump, "halueval", results, lambda r: split_of("halueval", items[r // 2]["question"]))
    figures = {}
    for split in ("dev", "test"):
        chosen = [i for i, item in enumerate(items)
                  if split_of("halueval", item["question"]) == split]
        per_metric = {}
        for metric in HALUEVAL_METRICS:
            right = [scores[2 * i][metric] for i in chosen]
            wrong = [scores[2 * i + 1][metric] for i in chosen]
            # Per item: 1 when the right answer scores higher, 0.5 for a tie, 0 when lower.
            outcomes = [1.0 if r > w else 0.5 if r == w else 0.0
                        for r, w in zip(right, wrong) if r is not None and w is not None]
            positives = [r for r in right if r is not None]
            negatives = [w for w in wrong if w is not None]
            per_metric[metric] = {
                "pairs": len(outcomes),
                "wins": outcomes.count(1.0), "ties": outcomes.count(0.5),
                "losses": outcomes.count(0.0),
                "unscored_pairs": len(chosen) - len(outcomes),
                "pairwise_accuracy": mean(outcomes) if outcomes else float("nan"),
                "pairwise_accuracy_ci95": bootstrap_ci(
                    list(range(len(outcomes))), lambda rows: mean([outcomes[r] for r in rows])),
                "auroc": auroc(positives, negatives),
                "answers_scored": len(positives) + len(negatives),
            }
        figures[split] = {"items": len(chosen), "metrics": per_metric}
    return figures, cmd


# ---- HaluEval as retrieval: the gold passage among distractors ------------------------------

STOPWORDS = set("""a an and are as at be by for from had has have he her his in is it its of on
or she that the their they this to was were which who whom with what when where why how did
does do not""".split())


def content_words(text):
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOPWORDS and len(w) > 2}


def distractors(items, count=3):
    """Per item, the `count` other items' passages that share the most content words with
    its question (ties: lower index first): distractors on the question's topic where
    there are any, not random ones."""
    words = [content_words(item["knowledge"]) for item in items]
    out = []
    for i, item in enumerate(items):
        question = content_words(item["question"])
        ranked = sorted((k for k in range(len(items)) if k != i),
                        key=lambda k: (-len(question & words[k]), k))
        out.append(ranked[:count])
    return out


def halueval_contexts(workdir, threads):
    """Context metrics on HaluEval: the item's passage (its gold HotpotQA supporting
    paragraphs) is what the question needs. Per item three samples with the right answer
    as response and reference: gold first among two distractors, the three distractors
    alone, and gold last after two distractors. "present" compares gold first with no
    gold (every context metric should prefer it); "rank" compares gold first with gold
    last (the rank-aware metrics should prefer it)."""
    items = [json.loads(line) for line in open(HALUEVAL, encoding="utf-8")]
    near = distractors(items)
    layouts = {"first": lambda g, d: [g, d[0], d[1]], "absent": lambda g, d: [d[0], d[1], d[2]],
               "last": lambda g, d: [d[0], d[1], g]}
    rows = []
    for index, item in enumerate(items):
        d = [items[k]["knowledge"] for k in near[index]]
        for name, layout in layouts.items():
            rows.append({"id": f"{index}:{name}", "user_input": item["question"],
                         "response": item["right_answer"], "reference": item["right_answer"],
                         "retrieved_contexts": layout(item["knowledge"], d)})
    scores, _, cmd = score_rows(rows, CONTEXT_METRICS, workdir, "halueval_contexts", threads)
    figures = {}
    for split in ("dev", "test"):
        chosen = [i for i, item in enumerate(items) if split_of("halueval", item["question"]) == split]
        per_metric = {}
        for metric in CONTEXT_METRICS:
            entry = {}  # every metric here is higher-is-better
            for pair, worse in (("present", "absent"), ("rank", "last")):
                if pair == "rank" and metric not in RANK_METRICS:
                    continue
                outcomes = []
                for i in chosen:
                    good = scores[3 * i][metric]
                    bad = scores[3 * i + list(layouts).index(worse)][metric]
                    if good is None or bad is None:
                        continue
                    outcomes.append(1.0 if good > bad else 0.5 if good == bad else 0.0)
                entry[pair] = {
                    "pairs": len(outcomes), "wins": outcomes.count(1.0),
                    "ties": outcomes.count(0.5), "losses": outcomes.count(0.0),
                    "pairwise_accuracy": mean(outcomes) if outcomes else float("nan"),
                    "pairwise_accuracy_ci95": bootstrap_ci(
                        list(range(len(outcomes))), lambda rows: mean([outcomes[r] for r in rows]))}
            per_metric[metric] = entry
        figures[split] = {"items": len(chosen), "metrics": per_metric}
    return figures, cmd


# ---- RAGChecker ---------------------------------------------------------------------------

def ragchecker(workdir, threads, dump):
    with gzip.open(RAGCHECKER, "rt", encoding="utf-8") as f:
        annotations = json.load(f)
    items = {}  # instance_id -> the item (both annotators share query and responses)
    for a in annotations:
        items.setdefault(a["instance_id"], a)
    ids = sorted(items)
    rows = []
    for iid in ids:
        item = items[iid]
        for model in ("model1", "model2"):
            rows.append({"id": f"{iid}:{model}", "user_input": item["query"],
                         "response": item[model]["response"], "reference": item["gt_answer"]})
    scores, results, cmd = score_rows(rows, RAGCHECKER_METRICS, workdir, "ragchecker", threads)
    for row, score in zip(rows, scores):
        score[RESPONSE_WORDS] = len(row["response"].split())
    if dump:
        write_dump(dump, "ragchecker", results, lambda r: split_of("ragchecker", ids[r // 2]))
    position = {iid: k for k, iid in enumerate(ids)}
    figures = {}
    for split in ("dev", "test"):
        chosen = [a for a in annotations if split_of("ragchecker", a["instance_id"]) == split]
        per_metric = {}
        for metric in RAGCHECKER_METRICS + [RESPONSE_WORDS]:
            deltas = []
            for a in chosen:
                k = position[a["instance_id"]]
                s1, s2 = scores[2 * k][metric], scores[2 * k + 1][metric]
                deltas.append(None if s1 is None or s2 is None else s2 - s1)
            known = [d for d in deltas if d is not None]
            fill = median(known) if known else 0.0
            filled = [fill if d is None else d for d in deltas]
            entry = {"filled": len(deltas) - len(known),
                     "zero_deltas": sum(1 for d in filled if d == 0)}
            for label in RAGCHECKER_LABELS:
                y = [a[label] for a in chosen]
                entry[label] = {
                    "pearson": pearson(filled, y), "spearman": spearman(filled, y),
                    "pearson_ci95": bootstrap_ci(
                        [a["instance_id"] for a in chosen],
                        lambda rows: pearson([filled[r] for r in rows], [y[r] for r in rows]))}
                entry[label].update(pairwise_agreement(filled, y, chosen))
            per_metric[metric] = entry
        # Human-human agreement on the same split: annotator 1 vs annotator 2 of each item.
        firsts, seconds = {}, {}
        for a in chosen:
            (seconds if a["instance_id"] in firsts else firsts)[a["instance_id"]] = a
        both = sorted(set(firsts) & set(seconds))
        human = {}
        for label in RAGCHECKER_LABELS:
            one = [firsts[i][label] for i in both]
            two = [seconds[i][label] for i in both]
            human[label] = {"pearson": pearson(one, two), "spearman": spearman(one, two)}
            human[label].update(pairwise_agreement(two, one, [firsts[i] for i in both]))
        figures[split] = {"items": len({a["instance_id"] for a in chosen}),
                          "annotations": len(chosen), "metrics": per_metric,
                          "human_agreement": human}
    return figures, cmd


def pairwise_agreement(deltas, labels, annotations):
    """Over the annotations with a preference (label != 0): the share where the metric's
    delta has the label's sign, a zero delta counting half; with its 95% bootstrap
    interval over items and n, the number of such annotations."""
    chosen = [r for r, label in enumerate(labels) if label != 0]
    outcome = {r: 1.0 if deltas[r] * labels[r] > 0 else 0.5 if deltas[r] == 0 else 0.0
               for r in chosen}
    groups = [annotations[r]["instance_id"] for r in chosen]
    order = list(chosen)
    return {"pairwise": mean(list(outcome.values())) if outcome else float("nan"),
            "pairwise_n": len(chosen),
            "pairwise_ci95": bootstrap_ci(groups, lambda rows: mean([outcome[order[r]] for r in rows]))}


def write_dump(directory, name, results, split_of_row):
    """Per-row results of the dev split only, for error analysis while tuning."""
    directory = pathlib.Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / f"{name}_dev.jsonl", "w", encoding="utf-8") as f:
        for r, result in enumerate(results):
            if split_of_row(r) == "dev":
                f.write(json.dumps(result, ensure_ascii=False) + "\n")


# ---- Report -----------------------------------------------------------------------------------

def fmt(x):
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.3f}"


def report(halu, rag, splits):
    print("## HaluEval QA: right vs hallucinated answer over the same passage")
    for split in splits:
        f = halu[split]
        print(f"\n{split}: {f['items']} items")
        print("| metric | pairwise accuracy | wins / ties / losses | AUROC |")
        print("|---|---:|---:|---:|")
        for metric, m in f["metrics"].items():
            note = (" (sanity check: reference = right answer)"
                    if metric in ("answer_correctness", "token_f1") else "")
            unscored = f", {m['unscored_pairs']} pairs unscored" if m["unscored_pairs"] else ""
            ci = m["pairwise_accuracy_ci95"]
            print(f"| {metric}{note} | {fmt(m['pairwise_accuracy'])} [{fmt(ci[0])}, {fmt(ci[1])}] | "
                  f"{m['wins']} / {m['ties']} / {m['losses']}{unscored} | {fmt(m['auroc'])} |")
    print("\n## RAGChecker human labels: delta = score(model2) - score(model1) vs the label")
    short = {"correctness_label": "correctness", "completeness_label": "completeness",
             "overall_label": "overall"}
    for split in splits:
        f = rag[split]
        print(f"\n{split}: {f['items']} items, {f['annotations']} annotations")
        print("| metric | " + " | ".join(f"{short[l]} Pearson | {short[l]} Spearman"
                                         for l in RAGCHECKER_LABELS) + " | zero deltas |")
        print("|---|" + "---:|---:|" * len(RAGCHECKER_LABELS) + "---:|")
        for metric, m in f["metrics"].items():
            filled = f" ({m['filled']} filled with the median)" if m["filled"] else ""
            cells = []
            for label in RAGCHECKER_LABELS:
                c = m[label]
                low, high = c["pearson_ci95"]
                cells += [f"{fmt(c['pearson'])} [{fmt(low)}, {fmt(high)}]", fmt(c["spearman"])]
            print(f"| {metric}{filled} | {' | '.join(cells)} | {m['zero_deltas']} |")
        h = f["human_agreement"]
        print("| annotator 1 vs annotator 2 | " + " | ".join(
            f"{fmt(h[l]['pearson'])} | {fmt(h[l]['spearman'])}" for l in RAGCHECKER_LABELS) + " | |")
        print(f"\n{split}: pairwise agreement with the annotations that prefer one response "
              "(sign of delta = sign of label; a zero delta counts half) [95% interval], n")
        print("| metric | " + " | ".join(short[l] for l in RAGCHECKER_LABELS) + " |")
        print("|---|" + "---:|" * len(RAGCHECKER_LABELS))
        rows = list(f["metrics"].items()) + [("annotator 2 vs annotator 1", h)]
        for metric, m in rows:
            cells = []
            for label in RAGCHECKER_LABELS:
                c = m[label]
                low, high = c["pairwise_ci95"]
                cells.append(f"{fmt(c['pairwise'])} [{fmt(low)}, {fmt(high)}], {c['pairwise_n']}")
            print(f"| {metric} | {' | '.join(cells)} |")


def report_contexts(contexts, splits):
    print("\n## HaluEval as retrieval: gold passage first among 2 distractors vs the "
          "3 distractors alone (present), vs gold last (rank)")
    for split in splits:
        f = contexts[split]
        print(f"\n{split}: {f['items']} items")
        print("| metric | present: pairwise accuracy | wins / ties / losses | "
              "rank: pairwise accuracy | wins / ties / losses |")
        print("|---|---:|---:|---:|---:|")
        for metric, m in f["metrics"].items():
            cells = []
            for pair in ("present", "rank"):
                if pair not in m:
                    cells += ["", ""]
                    continue
                c = m[pair]
                low, high = c["pairwise_accuracy_ci95"]
                cells += [f"{fmt(c['pairwise_accuracy'])} [{fmt(low)}, {fmt(high)}]",
                          f"{c['wins']} / {c['ties']} / {c['losses']}"]
            note = " (baseline, no judge)" if metric == "k_precision" else ""
            print(f"| {metric}{note} | {' | '.join(cells)} |")


# ---- Speed --------------------------------------------------------------------------------------

def speed_rows(n, seed=7):
    items = [json.loads(line) for line in open(HALUEVAL, encoding="utf-8")]
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        gold = i % len(items)
        item = items[gold]
        others = rng.sample([k for k in range(len(items)) if k != gold], rng.randint(2, 4))
        chunks = [gold] + others
        rng.shuffle(chunks)
        kind = "right" if rng.random() < 0.5 else "hallucinated"
        rows.append({"id": i, "user_input": item["question"], "response": item[f"{kind}_answer"],
                     "retrieved_contexts": [items[k]["knowledge"] for k in chunks],
                     "retrieved_context_ids": [f"h{k}" for k in chunks],
                     "reference": item["right_answer"],
                     "reference_contexts": [item["knowledge"]],
                     "reference_context_ids": [f"h{gold}"]})
    return rows


def speed(workdir, rows_count):
    path = pathlib.Path(workdir) / "speed.jsonl"
    with open(path, "w", encoding="utf-8") as f:
        for row in speed_rows(rows_count):
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{rows_count} samples, {path.stat().st_size / 1e6:.1f} MB, 3 to 5 contexts each; "
          f"--metrics all, offline judge, no --out")
    for threads in (1, 2):
        summary = pathlib.Path(workdir) / f"speed_summary_{threads}.json"
        cmd = ["/usr/bin/time", "-v", str(ragmeter()), "eval", str(path), "--metrics", "all", "-q",
               "--threads", str(threads), "--summary", str(summary)]
        start = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True)
        elapsed = time.perf_counter() - start
        if proc.returncode not in (0, 3):
            sys.exit(f"ragmeter failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stderr}")
        rss_kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr).group(1))
        wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", proc.stderr).group(1)
        cpu_user = float(re.search(r"User time \(seconds\): (\S+)", proc.stderr).group(1))
        metrics = json.load(open(summary, encoding="utf-8"))["metrics"]
        scored = sum(m["n"] for m in metrics.values())
        print(f"--threads {threads}: {rows_count / elapsed:,.0f} rows/s ({elapsed:.1f} s wall, "
              f"time -v {wall}, user {cpu_user:.1f} s), peak RSS {rss_kb / 1024:.1f} MB, "
              f"{len(metrics)} metrics, {scored:,} scores; exit {proc.returncode}")
    print("command:", " ".join(cmd[2:]).replace("--threads 2", "--threads N"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--split", choices=["dev", "test", "both"], default="both",
                        help="which split's figures to print (tune with dev)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", help="also write the figures to this JSON file")
    parser.add_argument("--dump", help="write the dev split's per-row results to this directory")
    parser.add_argument("--speed", action="store_true", help="measure speed instead of quality")
    parser.add_argument("--speed-rows", type=int, default=10_000)
    parser.add_argument("--embedder", choices=["auto", "offline", "local"], default="auto",
                        help="ragmeter eval's --embedder: similarity (semantic_similarity, "
                             "answer_correctness, answer_relevancy) by the local model or the "
                             "offline bag-of-stems vectors")
    args = parser.parse_args()
    global EMBEDDER
    EMBEDDER = args.embedder
    with tempfile.TemporaryDirectory(prefix="ragmeter-judge-quality-") as workdir:
        if args.speed:
            speed(workdir, args.speed_rows)
            return
        start = time.perf_counter()
        halu, halu_cmd = halueval(workdir, args.threads, args.dump)
        rag, rag_cmd = ragchecker(workdir, args.threads, args.dump)
        contexts, contexts_cmd = halueval_contexts(workdir, args.threads)
        splits = ["dev", "test"] if args.split == "both" else [args.split]
        print(f"ragmeter: {ragmeter()} --embedder {EMBEDDER}")
        report(halu, rag, splits)
        report_contexts(contexts, splits)
        print(f"\n({time.perf_counter() - start:.1f} s)")
        if args.json:
            shown = {"halueval": {s: halu[s] for s in splits}, "ragchecker": {s: rag[s] for s in splits},
                     "halueval_contexts": {s: contexts[s] for s in splits},
                     "commands": [halu_cmd, rag_cmd, contexts_cmd]}
            with open(args.json, "w", encoding="utf-8") as f:
                json.dump(shown, f, indent=1)


if __name__ == "__main__":
    main()
