"""How the offline judge reads Chinese and Japanese, against English pairs of the same kind.

Every score comes from `ragmeter eval` (the default offline judge); this script only writes
input files and computes the statistics.

  Chinese: OCNLI dev (bench/data/ocnli_dev.jsonl.gz, native Chinese NLI, the majority label of
  five annotators; the 50 pairs without a majority are left out). Japanese: JNLI valid
  (bench/data/jnli_valid.jsonl.gz, JGLUE v1.3). Each entailed or contradicted pair becomes a
  sample with the premise as the one retrieved context and the hypothesis as the response
  (no question); neutral pairs are not used. Reported: AUROC of faithfulness, entailed =
  positive, contradicted = negative, ties counting half; it is the pairwise accuracy over
  every (entailed, contradicted) pair of the split. OCNLI also has premises with both an
  entailed and a contradicted hypothesis: their pairwise accuracy is reported on its own.

  English pairs of the same kind: HaluEval QA (tests/data/halueval_qa_one_turn.jsonl), each
  item's right answer (the passage supports it) and hallucinated answer (it does not) over
  the same passage, with the question, as bench/offline_judge_quality.py scores them (same
  split). HaluEval's wrong answers are written to be plausible, not to contradict the passage
  sentence by sentence as NLI hypotheses do; no English NLI set is used here (see
  docs/languages.md).

  Copied text: per premise (per HaluEval passage), its first sentence as the response, and
  that sentence without its first two characters (Chinese, Japanese) or its first word
  (English) as another, a span that starts inside the passage's text as an answer quoting part
  of a sentence does: the share that gets faithfulness 1 (text a passage states word for word
  must).

Split: a premise (a HaluEval question) is in dev when the first 8 hex digits of
sha256("ragmeter-judge-languages:<set>:<premise>") are even, else in test (HaluEval keeps
bench/offline_judge_quality.py's split: sha256("ragmeter-judge-quality:halueval:<question>")).
Every hypothesis of a premise falls in the premise's half. Rules were tuned on dev only.

Run:  RAGMETER_BUILD_DIR=build python3 bench/offline_judge_languages.py [--split dev|test|both]
          [--json FIGURES.json] [--dump DIR (dev rows with scores and reasons)]
Needs only Python 3's standard library. Results are in docs/languages.md and docs/judges.md.
"""
import argparse
import gzip
import hashlib
import json
import pathlib
import re
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import offline_judge_quality as quality  # noqa: E402  (statistics and the ragmeter runner)

REPO = pathlib.Path(__file__).resolve().parent.parent
OCNLI = REPO / "bench/data/ocnli_dev.jsonl.gz"
JNLI = REPO / "bench/data/jnli_valid.jsonl.gz"
SALT = "ragmeter-judge-languages"
METRIC = "faithfulness"


def split_of(dataset, premise):
    digest = hashlib.sha256(f"{SALT}:{dataset}:{premise}".encode("utf-8")).hexdigest()
    return "dev" if int(digest[:8], 16) % 2 == 0 else "test"


# Words whose period ends no sentence: titles and company forms; an initial ("J.") and a
# dotted abbreviation ("U.S.", "S.A.") are recognised by their shape.
ABBREVIATIONS = {"Mr", "Mrs", "Ms", "Dr", "St", "Jr", "Sr", "Prof", "Gen", "Col", "Lt", "Sgt",
                 "Rev", "vs", "No", "Co", "Inc", "Ltd", "Corp", "Bros", "Mt", "Ft", "approx"}


def ends_sentence(text, match):
    """Whether the sentence-end mark `match` ends a sentence (not an initial or abbreviation)."""
    if match.group() != ".":
        return True
    word = re.search(r"(\S+)$", text[: match.start()])
    token = word.group(1).lstrip("(\"'") if word else ""
    return not (re.fullmatch(r"[A-Z]", token) or token in ABBREVIATIONS
                or re.fullmatch(r"(?:[A-Za-z]\.)+[A-Za-z]", token))


def first_sentence(text):
    """The text up to its first sentence end (。！？ or . ! ? before a space, a period after an
    initial or abbreviation excepted), as written."""
    for match in re.finditer(r"[。！？]|[.!?](?=\s)", text):
        if ends_sentence(text, match):
            return text[: match.end()].strip()
    return text.strip()


def copied_span(sentence):
    """The sentence without its first two characters (text without spaces) or first word."""
    if " " in sentence.strip():
        return sentence.strip().split(" ", 1)[1]
    return sentence.strip()[2:]


def read_nli(path):
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def nli_rows(dataset, items):
    """Samples of the entailed and contradicted pairs, and one copied-sentence sample per premise."""
    pairs, copies = [], []
    seen = set()
    for item in items:
        premise = item["sentence1"]
        if item["label"] in ("entailment", "contradiction"):
            pairs.append({"id": f"{dataset}:{len(pairs)}", "response": item["sentence2"],
                          "retrieved_contexts": [premise], "label": item["label"],
                          "split": split_of(dataset, premise), "premise": premise})
        if premise not in seen:
            seen.add(premise)
            copies.extend(copy_rows(dataset, len(copies), premise, split_of(dataset, premise)))
    return pairs, copies


def copy_rows(dataset, start, passage, split):
    """The copied first sentence and the copied span of a passage, as samples."""
    sentence = first_sentence(passage)
    return [{"id": f"{dataset}:copy:{start + k}", "response": response, "kind": kind,
             "retrieved_contexts": [passage], "split": split}
            for k, (kind, response) in enumerate((("sentence", sentence), ("span", copied_span(sentence))))]


def halueval_rows():
    items = [json.loads(line) for line in open(quality.HALUEVAL, encoding="utf-8")]
    pairs, copies = [], []
    for index, item in enumerate(items):
        split = quality.split_of("halueval", item["question"])
        for kind, label in (("right", "entailment"), ("hallucinated", "contradiction")):
            pairs.append({"id": f"halueval:{index}:{kind}", "user_input": item["question"],
                          "response": item[f"{kind}_answer"], "retrieved_contexts": [item["knowledge"]],
                          "label": label, "split": split, "premise": item["question"]})
        copies.extend(copy_rows("halueval", len(copies), item["knowledge"], split))
    return pairs, copies


def score(rows, workdir, name, threads):
    """Scores rows (their bookkeeping fields stripped) and returns per-row score or None,
    the per-row results and the command."""
    inputs = [{k: v for k, v in row.items() if k not in ("label", "split", "premise", "kind")}
              for row in rows]
    scores, results, cmd = quality.score_rows(inputs, [METRIC], workdir, name, threads)
    return [s[METRIC] for s in scores], results, cmd


def pair_figures(rows, scores, split):
    chosen = [r for r, row in enumerate(rows) if row["split"] == split]
    positives = [scores[r] for r in chosen if rows[r]["label"] == "entailment" and scores[r] is not None]
    negatives = [scores[r] for r in chosen if rows[r]["label"] == "contradiction" and scores[r] is not None]
    groups = [rows[r]["premise"] for r in chosen]

    def auroc_of(sample):
        pos = [scores[chosen[i]] for i in sample if rows[chosen[i]]["label"] == "entailment"
               and scores[chosen[i]] is not None]
        neg = [scores[chosen[i]] for i in sample if rows[chosen[i]]["label"] == "contradiction"
               and scores[chosen[i]] is not None]
        return quality.auroc(pos, neg)

    # Same-premise pairs: every entailed hypothesis against every contradicted one of its premise.
    by_premise = {}
    for r in chosen:
        if scores[r] is not None:
            by_premise.setdefault(rows[r]["premise"], {"entailment": [], "contradiction": []})[
                rows[r]["label"]].append(scores[r])
    outcomes = [1.0 if e > c else 0.5 if e == c else 0.0
                for g in by_premise.values() for e in g["entailment"] for c in g["contradiction"]]
    return {
        "entailed": len(positives), "contradicted": len(negatives),
        "unscored": len(chosen) - len(positives) - len(negatives),
        "auroc": quality.auroc(positives, negatives),
        "auroc_ci95": quality.bootstrap_ci(groups, auroc_of),
        "mean_entailed": quality.mean(positives) if positives else float("nan"),
        "mean_contradicted": quality.mean(negatives) if negatives else float("nan"),
        "entailed_scoring_1": sum(1 for s in positives if s == 1.0),
        "contradicted_scoring_0": sum(1 for s in negatives if s == 0.0),
        "same_premise_pairs": len(outcomes),
        "same_premise_accuracy": quality.mean(outcomes) if outcomes else float("nan"),
    }


def copy_figures(rows, scores, split):
    out = {}
    for kind in ("sentence", "span"):
        chosen = [r for r, row in enumerate(rows) if row["split"] == split and row["kind"] == kind]
        ones = sum(1 for r in chosen if scores[r] == 1.0)
        unscored = sum(1 for r in chosen if scores[r] is None)
        out[kind] = {"premises": len(chosen), "faithfulness_1": ones, "unscored": unscored,
                     "share": ones / len(chosen) if chosen else float("nan")}
    return out


def write_dump(directory, name, rows, results):
    directory = pathlib.Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / f"{name}_dev.jsonl", "w", encoding="utf-8") as f:
        for row, result in zip(rows, results):
            if row["split"] == "dev":
                f.write(json.dumps({"label": row.get("label"), **result}, ensure_ascii=False) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--split", choices=["dev", "test", "both"], default="dev",
                        help="which split's figures to print (tune with dev; test is read rarely)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", help="also write the figures to this JSON file")
    parser.add_argument("--dump", help="write the dev split's per-row results to this directory")
    args = parser.parse_args()
    quality.EMBEDDER = "offline"  # faithfulness reads no embedding
    sets = {"Chinese (OCNLI dev)": ("ocnli", *nli_rows("ocnli", read_nli(OCNLI))),
            "Japanese (JNLI valid)": ("jnli", *nli_rows("jnli", read_nli(JNLI))),
            "English (HaluEval, same kind)": ("halueval", *halueval_rows())}
    splits = ["dev", "test"] if args.split == "both" else [args.split]
    figures, commands = {}, []
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="ragmeter-judge-languages-") as workdir:
        for title, (name, pairs, copies) in sets.items():
            pair_scores, pair_results, cmd = score(pairs, workdir, f"{name}_pairs", args.threads)
            copy_scores, copy_results, _ = score(copies, workdir, f"{name}_copies", args.threads)
            commands.append(cmd)
            if args.dump:
                write_dump(args.dump, f"{name}_pairs", pairs, pair_results)
                write_dump(args.dump, f"{name}_copies", copies, copy_results)
            figures[title] = {s: {"pairs": pair_figures(pairs, pair_scores, s),
                                  "copies": copy_figures(copies, copy_scores, s)} for s in splits}
    print(f"ragmeter: {quality.ragmeter()}")
    fmt = quality.fmt
    for split in splits:
        print(f"\n## {split}: faithfulness, entailed vs contradicted (AUROC = pairwise accuracy over "
              "all such pairs), and copied first sentences")
        print("| set | entailed / contradicted | AUROC [95% interval] | mean entailed / contradicted "
              "| entailed at 1 / contradicted at 0 | same-premise pairs: accuracy, n "
              "| copied sentence at 1 | copied span at 1 |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        for title, by_split in figures.items():
            p, c = by_split[split]["pairs"], by_split[split]["copies"]
            low, high = p["auroc_ci95"]
            same = (f"{fmt(p['same_premise_accuracy'])}, {p['same_premise_pairs']}"
                    if p["same_premise_pairs"] else "")
            unscored = f" ({p['unscored']} unscored)" if p["unscored"] else ""
            copied = " | ".join(
                f"{c[k]['faithfulness_1']} / {c[k]['premises']} ({fmt(c[k]['share'])})"
                f"{', ' + str(c[k]['unscored']) + ' unscored' if c[k]['unscored'] else ''}"
                for k in ("sentence", "span"))
            print(f"| {title} | {p['entailed']} / {p['contradicted']}{unscored} | "
                  f"{fmt(p['auroc'])} [{fmt(low)}, {fmt(high)}] | "
                  f"{fmt(p['mean_entailed'])} / {fmt(p['mean_contradicted'])} | "
                  f"{p['entailed_scoring_1']} / {p['contradicted_scoring_0']} | {same} | {copied} |")
    print(f"\ncommands (per set): {commands[0]}")
    print(f"({time.perf_counter() - start:.1f} s)")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"figures": figures, "commands": commands}, f, indent=1, ensure_ascii=False)


if __name__ == "__main__":
    main()
