"""Oracle test: ragmeter's trec_eval-compatible evaluation against pytrec_eval (trec_eval 9).

Generates, with a fixed seed, several qrels/run file pairs (binary and graded relevance
0..3 with some negative levels, many score ties, scores equal only in single precision,
duplicate document ids, queries without relevant documents, queries only in the run or
only in the qrels, rankings shorter and longer than the cutoffs, empty runs, comments,
blank lines, tabs, CRLF and extra columns) and requires every measure of every query, and
every mean, to equal pytrec_eval's within 1e-9:

- the probe <build>/probes/trec_probe (RAGMETER_BUILD_DIR, default /work/main/build)
  reads the files with ragmeter's readers and prints every value at full precision;
- the CLI <build>/ragmeter `ir -q` must print pytrec_eval's values rounded to 4 decimals.

pytrec_eval takes a run as {query: {doc: score}}, which cannot hold a document twice: a
duplicated document goes in with its best score, the place ragmeter counts it at (real
trec_eval refuses such a run). pytrec_eval gives no means; trec_eval's "all" is the
plain mean over the evaluated queries, so the test averages pytrec_eval's values.

Run: RAGMETER_BUILD_DIR=/work/build-ir /root/.cache/ragmeter/venv/bin/python -m pytest -q \
     tests/oracle/test_trec_eval.py
"""

import json
import os
import random
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import pytrec_eval

BUILD_DIR = Path(os.environ.get("RAGMETER_BUILD_DIR", "/work/main/build"))
PROBE = BUILD_DIR / "probes" / "trec_probe"
CLI = BUILD_DIR / "ragmeter"
MEASURES = {"P", "recall", "map", "Rprec", "recip_rank", "ndcg", "ndcg_cut", "success"}
CUTOFFS = [5, 10, 15, 20, 30, 100, 200, 500, 1000]
MEASURE_NAMES = (["map", "Rprec", "recip_rank", "ndcg"]
                 + [f"{family}_{k}" for family in ("P", "recall", "ndcg_cut") for k in CUTOFFS]
                 + ["success_1", "success_5", "success_10"])
TOLERANCE = 1e-9
SEED = 20250107
MIN_QUERIES = 1000  # evaluated queries over all generated cases


@dataclass
class Case:
    """One qrels/run pair: file lines and the same data as pytrec_eval's dicts."""
    name: str
    qrels_lines: list = field(default_factory=list)
    run_lines: list = field(default_factory=list)
    qrels: dict = field(default_factory=dict)  # qid -> {doc: level}
    run: dict = field(default_factory=dict)    # qid -> {doc: best score}
    newline: str = "\n"

    def write(self, directory):
        qrels_path = directory / f"{self.name}.qrels"
        run_path = directory / f"{self.name}.run"
        qrels_path.write_text(self.newline.join(self.qrels_lines) + self.newline)
        run_text = self.newline.join(self.run_lines) + (self.newline if self.run_lines else "")
        run_path.write_text(run_text)
        return qrels_path, run_path


def doc_id(rng, j):
    """Document ids of several shapes, so that descending-id tie breaks are exercised."""
    return rng.choice([f"d{j}", f"doc-{j:04d}", f"D{j}x", f"{j}"])


def score_for(rng, mode, rank):
    if mode == "integer_ties":       # few distinct values: long runs of ties
        return float(rng.randint(0, 4))
    if mode == "rounded":            # two decimals: frequent ties
        return round(rng.uniform(-1, 1), 2)
    if mode == "float_collisions":   # distinct doubles that are the same float
        return rng.choice([0.3, 0.1 + 0.2, 1.0, 1.0 + 2**-40, 7.25, 7.25 * (1 + 1e-12),
                           1e39, 1e300, float("inf"), -1e300, 3.4028235e38])
    if mode == "rank_based":
        return 1000.0 - rank
    return rng.gauss(0, 10)           # "distinct": almost never ties


def format_score(rng, score):
    text = repr(score) if rng.random() < 0.9 else f"{score:.17g}"
    if score > 0 and rng.random() < 0.05:
        text = "+" + text            # trec_eval's atof accepts a sign
    return text


def judgement_level(rng, graded):
    if rng.random() < 0.05:
        return rng.choice([-1, -2])  # "in the pool but unjudged"
    if graded:
        return rng.choices([0, 1, 2, 3], weights=[5, 3, 2, 1])[0]
    return rng.choices([0, 1], weights=[3, 1])[0]


def run_length(rng):
    return rng.choices(
        [rng.randint(1, 4), rng.randint(5, 35), rng.randint(90, 220), rng.randint(480, 520),
         rng.randint(990, 1200)],
        weights=[20, 40, 25, 8, 7])[0]


def add_query(rng, case, qid, graded, in_qrels, in_run):
    length = run_length(rng)
    pool = max(length, 5) * rng.choice([1, 1, 2])
    docs = [doc_id(rng, j) for j in range(pool)]
    docs = list(dict.fromkeys(docs))  # distinct ids
    if in_qrels:
        judged = rng.sample(docs, k=max(1, int(len(docs) * rng.uniform(0.05, 0.6))))
        no_relevant = rng.random() < 0.1
        all_negative = rng.random() < 0.02
        judgements = {}
        for doc in judged:
            level = judgement_level(rng, graded)
            if no_relevant:
                level = min(level, 0)
            if all_negative:
                level = -1
            judgements[doc] = level
        if max(judgements.values()) < -1:
            # trec_eval sizes an array by the highest level + 1: below -1 it crashes
            # (pytrec_eval segfaults). ragmeter scores such a query 0 (unit tested).
            judgements[judged[0]] = -1
        case.qrels[qid] = judgements
        iteration = rng.choice(["0", "Q0", "1"])
        case.qrels_lines += [f"{qid} {iteration} {doc}{rng.choice([' ', chr(9)])}{level}"
                             for doc, level in judgements.items()]
    if in_run:
        mode = rng.choice(["integer_ties", "rounded", "float_collisions", "rank_based",
                           "distinct"])
        retrieved = rng.sample(docs, k=min(length, len(docs)))
        entries = [(doc, score_for(rng, mode, rank)) for rank, doc in enumerate(retrieved)]
        if rng.random() < 0.15:      # the same document again, with another score
            entries += [(doc, score_for(rng, mode, 0)) for doc, _ in
                        rng.sample(entries, k=min(len(entries), rng.randint(1, 5)))]
        rng.shuffle(entries)         # file order and rank column carry no meaning
        best = case.run.setdefault(qid, {})
        for rank, (doc, score) in enumerate(entries):
            best[doc] = max(score, best.get(doc, float("-inf")))
            extra = " extra columns" if rng.random() < 0.02 else ""
            case.run_lines.append(
                f"{qid}\tQ0 {doc} {rank + 1} {format_score(rng, score)} tag{extra}")


def make_case(rng, name, n_queries, graded):
    case = Case(name, newline=rng.choice(["\n", "\n", "\r\n"]))
    for i in range(n_queries):
        qid = rng.choice([f"q{i}", f"{i}", f"topic-{i:03d}"])
        where = rng.choices(["both", "qrels_only", "run_only"], weights=[90, 5, 5])[0]
        add_query(rng, case, qid, graded, where != "run_only", where != "qrels_only")
    rng.shuffle(case.qrels_lines)
    rng.shuffle(case.run_lines)
    for lines in (case.qrels_lines, case.run_lines):
        lines.insert(0, "# generated by test_trec_eval.py")
        if lines:
            lines.insert(rng.randrange(len(lines)), "")
    return case


def cases():
    rng = random.Random(SEED)
    generated = [
        make_case(rng, "binary", 400, graded=False),
        make_case(rng, "graded", 450, graded=True),
        make_case(rng, "graded_small", 250, graded=True),
        make_case(rng, "binary_small", 60, graded=False),
    ]
    empty_run = make_case(rng, "empty_run", 20, graded=True)
    empty_run.run_lines, empty_run.run = [], {}
    comments_only = make_case(rng, "comments_only_run", 10, graded=False)
    comments_only.run_lines, comments_only.run = ["# nothing retrieved"], {}
    return generated + [empty_run, comments_only]


CASES = cases()


def pytrec_values(case):
    """pytrec_eval's per-query values; trec_eval evaluates only queries in both files."""
    evaluator = pytrec_eval.RelevanceEvaluator(case.qrels, MEASURES)
    return evaluator.evaluate({qid: docs for qid, docs in case.run.items() if docs})


def means(per_query):
    if not per_query:
        return {}
    return {m: sum(values[m] for values in per_query.values()) / len(per_query)
            for m in MEASURE_NAMES}


def run_probe(qrels_path, run_path):
    if not PROBE.exists():
        pytest.fail(f"probe not built: {PROBE} (cmake --build <build> --target trec_probe)")
    out = subprocess.run([str(PROBE), str(qrels_path), str(run_path)], check=True,
                         capture_output=True, text=True, timeout=60)
    return json.loads(out.stdout)


def test_pytrec_eval_returns_the_measure_names_the_probe_prints():
    evaluator = pytrec_eval.RelevanceEvaluator({"q": {"d": 1}}, MEASURES)
    assert set(evaluator.evaluate({"q": {"d": 1.0}})["q"]) == set(MEASURE_NAMES)


def test_every_measure_of_every_query_matches_pytrec_eval(tmp_path):
    compared, max_diff, mismatches = 0, 0.0, []
    for case in CASES:
        expected = pytrec_values(case)
        got = run_probe(*case.write(tmp_path))
        got_all = got.pop("all", {})
        assert set(got) == set(expected), f"{case.name}: evaluated queries differ"
        for qid, values in expected.items():
            assert set(got[qid]) == set(values), f"{case.name} {qid}: measure names differ"
            for measure, value in values.items():
                diff = abs(got[qid][measure] - value)
                max_diff = max(max_diff, diff)
                if diff > TOLERANCE:
                    mismatches.append((case.name, qid, measure, got[qid][measure], value))
        for measure, value in means(expected).items():
            diff = abs(got_all[measure] - value)
            max_diff = max(max_diff, diff)
            if diff > TOLERANCE:
                mismatches.append((case.name, "all", measure, got_all[measure], value))
        compared += len(expected)
    print(f"\ntrec_eval oracle: {compared} queries x {len(MEASURE_NAMES)} measures compared, "
          f"max abs diff {max_diff:.3g}")
    assert not mismatches, f"{len(mismatches)} mismatches, first: {mismatches[:5]}"
    assert compared >= MIN_QUERIES


def test_unreadable_run_is_reported_with_file_and_line(tmp_path):
    if not PROBE.exists():
        pytest.fail(f"probe not built: {PROBE}")
    qrels = tmp_path / "q.txt"
    run = tmp_path / "r.txt"
    qrels.write_text("q1 0 d1 1\n")
    run.write_text("q1 Q0 d1 1 0.5 tag\nq1 Q0 d2 2 high tag\n")
    out = subprocess.run([str(PROBE), str(qrels), str(run)], capture_output=True, text=True)
    assert out.returncode == 2
    assert "r.txt:2:" in out.stderr


def rounded_matches(printed, value):
    """trec_eval prints %.4f; a value within 1e-9 of a rounding boundary may round
    either way, so a printed value may also be off by the last digit there."""
    return printed == f"{value:.4f}" or abs(float(printed) - value) <= 5e-5 + 1e-9


@pytest.mark.parametrize("case", [c for c in CASES if c.name in ("graded_small", "binary_small")],
                         ids=lambda c: c.name)
def test_cli_prints_pytrec_eval_values_rounded(case, tmp_path):
    if not CLI.exists():
        pytest.skip(f"the ragmeter program is not built at {CLI} "
                    "(cmake --build <build> --target ragmeter)")
    qrels_path, run_path = case.write(tmp_path)
    out = subprocess.run([str(CLI), "ir", "-q", "--qrels", str(qrels_path), "--run",
                          str(run_path)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    expected = pytrec_values(case)
    expected["all"] = means(expected)
    seen = 0
    for line in out.stdout.splitlines():
        measure, qid, printed = line.split("\t")
        assert len(measure) >= 22 and measure == measure.strip().ljust(22)
        value = expected[qid][measure.strip()]
        assert rounded_matches(printed, value), (qid, measure.strip(), printed, value)
        seen += 1
    assert seen == len(expected) * len(MEASURE_NAMES)


def test_cli_unreadable_file_exits_with_usage_code(tmp_path):
    if not CLI.exists():
        pytest.skip(f"the ragmeter program is not built at {CLI}")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 1\nq1 0 d2\n")
    run = tmp_path / "run.txt"
    run.write_text("q1 Q0 d1 1 0.5 tag\n")
    out = subprocess.run([str(CLI), "ir", "--qrels", str(qrels), "--run", str(run)],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2
    assert "qrels.txt:2: expected 4 columns" in out.stderr
    assert out.stdout == ""
