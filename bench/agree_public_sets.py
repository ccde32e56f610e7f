"""`ragmeter agree` on the public human-labelled sets the project uses, for a judge.

Writes, in --outdir, the evaluation input and the labels files, runs `ragmeter eval` and
`ragmeter agree` (every score and every statistic comes from the binary: this script only
writes files, runs commands and lays their JSON out as Markdown), and prints the commands
and the tables.

  HaluEval QA (tests/data/halueval_qa_one_turn.jsonl, 500 items): each item's right and
  hallucinated answer, with the question and the knowledge passage as the one retrieved
  context, rows `<i>:right` and `<i>:hallucinated`. Labels twice: binary (right 1,
  hallucinated 0: pass mark, accuracy, kappa, alpha, AUROC, correlations) and pairwise
  (the right row is b in even items, a in odd ones: pairwise accuracy, correlations).
  RAGChecker human labels (bench/data/ragchecker_human_labeled.json.gz, 280 items, two
  annotators each, integers -2..2, > 0 = model2's response better): both responses scored
  against `gt_answer`, rows `<instance_id>:model1` / `:model2`; pairwise labels
  (id_a model1, id_b model2), one file per label kind (correctness, completeness, overall),
  the two annotations of an item as two anonymous annotators (the people's ceiling).

Run:  RAGMETER_BUILD_DIR=build python3 bench/agree_public_sets.py --outdir /tmp/agree-sets
          [--judge-args "--embedder offline"] [--resamples 1000]
          [--sets halueval,ragchecker] [--halueval-items FIRST:END] [--ragchecker-items N]
      (an LLM judge: --judge-args "--judge openai --judge-url ... --judge-model ... --cache F"
      and a slice of the items, since a small local model answers a call in tens of seconds)
Needs only Python 3's standard library. Results are in docs/judges.md.
"""
import argparse
import gzip
import json
import os
import pathlib
import shlex
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parent.parent
BUILD = pathlib.Path(os.environ.get("RAGMETER_BUILD_DIR", REPO / "build"))
HALUEVAL = REPO / "tests/data/halueval_qa_one_turn.jsonl"
RAGCHECKER = REPO / "bench/data/ragchecker_human_labeled.json.gz"

HALUEVAL_METRICS = ["faithfulness", "ragchecker_faithfulness", "k_precision"]
RAGCHECKER_METRICS = ["factual_correctness", "factual_correctness_precision",
                      "factual_correctness_recall", "ragchecker_precision", "ragchecker_recall",
                      "ragchecker_f1", "answer_correctness", "semantic_similarity",
                      "answer_relevancy", "token_f1", "answer_token_recall"]
LABEL_KINDS = ["correctness_label", "completeness_label", "overall_label"]


def write_jsonl(path, rows):
    with open(path, "w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    return path


def run(cmd, commands):
    commands.append(" ".join(shlex.quote(str(c)) for c in cmd))
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True)
    if proc.returncode not in (0, 3):
        sys.exit(f"failed ({proc.returncode}): {commands[-1]}\n{proc.stderr}")
    return proc.stdout


def evaluate(data, metrics, outdir, name, judge_args, commands):
    results = outdir / f"{name}.results.jsonl"
    run([BUILD / "ragmeter", "eval", data, "--metrics", ",".join(metrics), "--out", results,
         "-q", "--offline-score-withdrawn", *shlex.split(judge_args)], commands)
    return results


def agree(results, labels, out, args, commands, extra=()):
    return run([BUILD / "ragmeter", "agree", results, labels, "--out", out,
                "--bootstrap-resamples", str(args.resamples), *extra], commands)


def halueval(outdir, args, commands):
    items = [json.loads(line) for line in open(HALUEVAL, encoding="utf-8")]
    first, end = args.halueval_items
    rows, binary, pairwise = [], [], []
    for i, item in list(enumerate(items))[first:end]:
        for kind in ("right", "hallucinated"):
            rows.append({"id": f"{i}:{kind}", "user_input": item["question"],
                         "response": item[f"{kind}_answer"],
                         "retrieved_contexts": [item["knowledge"]],
                         "reference": item["right_answer"]})
            binary.append({"id": f"{i}:{kind}", "label": 1 if kind == "right" else 0})
        # The right answer is row b of even items and row a of odd ones, so that the
        # preferences vary and the correlations of the difference are defined too.
        a, b = ("hallucinated", "right") if i % 2 == 0 else ("right", "hallucinated")
        pairwise.append({"id_a": f"{i}:{a}", "id_b": f"{i}:{b}", "label": "b" if i % 2 == 0 else "a"})
    data = write_jsonl(outdir / "halueval.jsonl", rows)
    results = evaluate(data, HALUEVAL_METRICS, outdir, "halueval", args.judge_args, commands)
    outputs = {}
    for name, labels, extra in (("binary", binary, ()), ("pairwise", pairwise, ("--scale", "pairwise"))):
        path = write_jsonl(outdir / f"halueval.labels.{name}.jsonl", labels)
        out = outdir / f"halueval.agree.{name}.json"
        print(agree(results, path, out, args, commands, extra))
        outputs[name] = json.load(open(out, encoding="utf-8"))
    return outputs


def ragchecker(outdir, args, commands):
    with gzip.open(RAGCHECKER, "rt", encoding="utf-8") as f:
        annotations = json.load(f)
    items = {}
    for a in annotations:
        items.setdefault(a["instance_id"], a)
    kept = sorted(items)[:args.ragchecker_items] if args.ragchecker_items else sorted(items)
    kept_ids = set(kept)
    annotations = [a for a in annotations if a["instance_id"] in kept_ids]
    rows = []
    for iid in kept:
        for model in ("model1", "model2"):
            rows.append({"id": f"{iid}:{model}", "user_input": items[iid]["query"],
                         "response": items[iid][model]["response"],
                         "reference": items[iid]["gt_answer"]})
    data = write_jsonl(outdir / "ragchecker.jsonl", rows)
    results = evaluate(data, RAGCHECKER_METRICS, outdir, "ragchecker", args.judge_args, commands)
    outputs = {}
    for kind in LABEL_KINDS:
        labels = [{"id_a": f"{a['instance_id']}:model1", "id_b": f"{a['instance_id']}:model2",
                   "label": a[kind]} for a in annotations]
        path = write_jsonl(outdir / f"ragchecker.labels.{kind}.jsonl", labels)
        out = outdir / f"ragchecker.agree.{kind}.json"
        print(agree(results, path, out, args, commands, ("--scale", "pairwise:-2..2")))
        outputs[kind] = json.load(open(out, encoding="utf-8"))
    return outputs


def cell(stat):
    if stat is None or stat["value"] is None:
        return "n/a"
    text = f"{stat['value']:.3f}"
    if stat.get("ci95"):
        text += f" [{stat['ci95'][0]:.3f}, {stat['ci95'][1]:.3f}]"
    return text


def markdown(halu, rag):
    if halu:
        markdown_halueval(halu)
    if rag:
        markdown_ragchecker(rag)


def markdown_halueval(halu):
    print("\n### HaluEval, right (1) vs hallucinated (0) answers, binary labels\n")
    print("| metric | pass mark (dev) | accuracy (test) | balanced accuracy (test) | Cohen's kappa (test) "
          "| Krippendorff's alpha (test) | AUROC (all) | Kendall tau-b (all) | pairwise accuracy (all pairs) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    pairs = {m["metric"]: m for m in halu["pairwise"]["metrics"]}
    for m in halu["binary"]["metrics"]:
        s = m["statistics"]
        mark = "n/a" if not m.get("threshold") else f"{m['threshold']['value']:.4g}"
        p = pairs[m["metric"]]["statistics"]["pairwise_accuracy"]
        print(f"| {m['metric']} | {mark} | {cell(s['accuracy'])} | {cell(s['balanced_accuracy'])} | "
              f"{cell(s['cohen_kappa'])} | {cell(s['krippendorff_alpha'])} | {cell(s['roc_auc'])} | "
              f"{cell(s['kendall_tau_b'])} | {cell(p)} |")
    first = halu["binary"]["metrics"][0]
    print(f"\n{first['labels']} labels on {first['items']} rows; dev {first['dev_items']} / test "
          f"{first['test_items']} rows; pairwise: {halu['pairwise']['metrics'][0]['items']} pairs.")


def markdown_ragchecker(rag):
    for kind in LABEL_KINDS:
        report = rag[kind]
        print(f"\n### RAGChecker, {kind}: delta = score(model2) - score(model1) vs the preference "
              "(-2..2), two annotators\n")
        print("| metric | labels | pairwise accuracy | people | Pearson | people | Spearman | "
              "Kendall tau-b | people |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        for m in report["metrics"]:
            s = m["statistics"]
            if m["errors"]:
                print(f"| {m['metric']} | {m['labels']} | {'; '.join(m['errors'])} |||||||")
                continue
            print(f"| {m['metric']} | {m['labels']} ({m['unscored']} unscored) | "
                  f"{cell(s['pairwise_accuracy'])} | {cell(s['pairwise_accuracy']['ceiling'])} | "
                  f"{cell(s['pearson'])} | {cell(s['pearson']['ceiling'])} | {cell(s['spearman'])} | "
                  f"{cell(s['kendall_tau_b'])} | {cell(s['kendall_tau_b']['ceiling'])} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--outdir", required=True)
    parser.add_argument("--judge-args", default="--embedder offline",
                        help="extra `ragmeter eval` flags choosing the judge and embedder")
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--sets", default="halueval,ragchecker",
                        help="comma-separated: halueval, ragchecker")
    parser.add_argument("--halueval-items", default="0:",
                        help="the HaluEval items as a Python slice FIRST:END (default: all 500)")
    parser.add_argument("--ragchecker-items", type=int, default=0,
                        help="the first N RAGChecker items by instance id (default 0: all 280)")
    args = parser.parse_args()
    first, _, end = args.halueval_items.partition(":")
    args.halueval_items = (int(first or 0), int(end) if end else None)
    sets = set(args.sets.split(","))
    outdir = pathlib.Path(args.outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    commands = []
    halu = halueval(outdir, args, commands) if "halueval" in sets else None
    rag = ragchecker(outdir, args, commands) if "ragchecker" in sets else None
    print("## Commands\n")
    for c in commands:
        print("    " + c)
    markdown(halu, rag)


if __name__ == "__main__":
    main()
