"""Oracle test: ragmeter's trec_eval-compatible evaluation against pytrec_eval (trec_eval 9).

ragmeter follows trec_eval 10 by default; every call here passes --trec-eval-version 9,
the release pytrec_eval wraps (trec_eval 10 has no oracle on PyPI: its differences are
hand-computed in tests/unit/trec_v10_test.cc and tests/cli/test_trec_eval10_cli.py).

Every measure of trec_eval's `-m all_trec` (pytrec_eval's, which wraps trec_eval's C code),
with the options people use (-l, -J, -M, -c, -m with parameters). Generates, with a fixed seed, several qrels/run file pairs (binary and graded relevance
0..3 with some negative levels, many score ties, scores equal only in single precision,
duplicate document ids, queries without relevant documents, queries only in the run or
only in the qrels, rankings shorter and longer than the cutoffs, empty runs, comments,
blank lines, tabs, CRLF and extra columns) and requires every measure of every query, and
every summary, to equal pytrec_eval's within 1e-9 (NaN where trec_eval gives NaN):

- the probe <build>/probes/trec_probe (RAGMETER_BUILD_DIR, default /work/main/build)
  reads the files with ragmeter's readers and prints every value at full precision;
- the CLI <build>/ragmeter `ir -q` must print pytrec_eval's values rounded to 4 decimals.

pytrec_eval takes a run as {query: {doc: score}}, which cannot hold a document twice: a
duplicated document goes in with its best score, the place ragmeter counts it at (real
trec_eval refuses such a run). pytrec_eval gives no summaries; the test forms trec_eval's
"all" from pytrec_eval's per-query values as trec_eval documents it: the mean over the
evaluated queries (-c: over every query of the qrels, the missing ones 0), the sum for the
num_* counts, exp(mean of the logs) for gm_map and gm_bpref (-c: log(0.00001) for each
missing query). pytrec_eval has no -M: its oracle is trec_eval on the run cut to its first
M documents in trec_eval's order.

Run: RAGMETER_BUILD_DIR=/work/build-ir /root/.cache/ragmeter/venv/bin/python -m pytest -q \
     tests/oracle/test_trec_eval.py
"""

import json
import math
import os
import random
import struct
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import pytrec_eval

BUILD_DIR = Path(os.environ.get("RAGMETER_BUILD_DIR", "/work/main/build"))
PROBE = BUILD_DIR / "probes" / "trec_probe"
CLI = BUILD_DIR / "ragmeter"
# Values trec_eval prints only in the summary (pytrec_eval gives them per query: 1 for
# num_q, the log for gm_*), or only per query as text (relstring), or as text (runid).
SUMMARY_ONLY = {"num_q", "gm_map", "gm_bpref"}
TEXT = {"runid", "relstring"}
SUMS = {"num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"}
MIN_GEO_MEAN = 0.00001
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


def trec_float(score):
    """A score as trec_eval compares it: a C float (rounded to nearest, overflow to inf)."""
    try:
        return struct.unpack("f", struct.pack("f", score))[0]
    except OverflowError:
        return math.copysign(math.inf, score)


def truncated_run(run, depth):
    """The first `depth` documents of each query in trec_eval's order (score as a float,
    descending; ties by document id descending): pytrec_eval's input for trec_eval -M."""
    if not depth:
        return run
    out = {}
    for qid, docs in run.items():
        ranked = sorted(docs.items(), key=lambda item: (trec_float(item[1]), item[0]),
                        reverse=True)
        out[qid] = dict(ranked[:depth])
    return out


def pytrec_values(case, measures=("all_trec",), relevance_level=1, judged_only=False, depth=0):
    """pytrec_eval's per-query values; trec_eval evaluates only queries in both files."""
    evaluator = pytrec_eval.RelevanceEvaluator(case.qrels, set(measures),
                                               relevance_level=relevance_level,
                                               judged_docs_only_flag=judged_only)
    run = truncated_run({qid: docs for qid, docs in case.run.items() if docs}, depth)
    return evaluator.evaluate(run)


def summary(per_query, n_qrels_queries=None):
    """trec_eval's "all" line from per-query values (n_qrels_queries: -c)."""
    evaluated = len(per_query)
    queries = n_qrels_queries or evaluated
    missing = queries - evaluated
    out = {}
    for measure in next(iter(per_query.values())):
        values = [v[measure] for v in per_query.values()]
        if measure in TEXT:
            continue
        if measure == "num_q":
            out[measure] = queries
        elif measure in SUMS:
            out[measure] = sum(values)
        elif measure in ("gm_map", "gm_bpref"):
            out[measure] = math.exp((sum(values) + missing * math.log(MIN_GEO_MEAN)) / queries)
        else:
            out[measure] = sum(values) / queries
    return out


def run_probe(qrels_path, run_path, *options):
    if not PROBE.exists():
        pytest.fail(f"probe not built: {PROBE} (cmake --build <build> --target trec_probe)")
    out = subprocess.run([str(PROBE), str(qrels_path), str(run_path), *options,
                          "--trec-eval-version", "9"], check=True,
                         capture_output=True, text=True, timeout=60)
    return json.loads(out.stdout)


def same(got, expected):
    if isinstance(expected, float) and math.isnan(expected):
        return got is None  # the probe's JSON writes NaN as null
    return got is not None and abs(got - expected) <= TOLERANCE


class Comparison:
    """Counts compared values and collects mismatches."""

    def __init__(self):
        self.compared, self.max_diff, self.mismatches = 0, 0.0, []

    def check(self, where, got, expected):
        self.compared += 1
        if got is not None and not math.isnan(expected):
            self.max_diff = max(self.max_diff, abs(got - expected))
        if not same(got, expected):
            self.mismatches.append((*where, got, expected))


def compare_case(comparison, case, tmp_path, options, rename=None, **pytrec_args):
    """Compares every value of `case` under probe `options` with pytrec_eval's."""
    rename = rename or {}
    expected = pytrec_values(case, **pytrec_args)
    if not expected:
        return 0
    got = run_probe(*case.write(tmp_path), *options)
    got_all = got.pop("all", {})
    assert set(got) == set(expected), f"{case.name} {options}: evaluated queries differ"
    for qid, values in expected.items():
        for measure, value in values.items():
            if measure in SUMMARY_ONLY or measure in TEXT:
                continue
            comparison.check((case.name, qid, measure), got[qid].get(rename.get(measure, measure)),
                             value)
    n_qrels = len(case.qrels) if "-c" in options else None
    for measure, value in summary(expected, n_qrels).items():
        comparison.check((case.name, "all", measure), got_all.get(rename.get(measure, measure)),
                         value)
    return len(expected)


def test_pytrec_eval_all_trec_is_the_measures_the_probe_prints(tmp_path):
    case = CASES[3]
    expected = pytrec_values(case)
    got = run_probe(*case.write(tmp_path), "-m", "all_trec")
    printed = set(got["all"]) | set(next(v for q, v in got.items() if q != "all"))
    assert set(next(iter(expected.values()))) - printed == set()
    assert printed - set(next(iter(expected.values()))) == set()


# (probe options, pytrec_eval arguments, measures renamed from pytrec_eval's to trec_eval's)
OPTION_SETS = {
    "defaults": ([], {}),
    "relevance_level_2": (["-l", "2"], {"relevance_level": 2}),
    "judged_only": (["-J"], {"judged_only": True}),
    "depth_50": (["-M", "50"], {"depth": 50}),
    "depth_7_level_2": (["-M", "7", "-l", "2"], {"depth": 7, "relevance_level": 2}),
}


@pytest.mark.parametrize("name", OPTION_SETS)
def test_every_all_trec_measure_of_every_query_matches_pytrec_eval(name, tmp_path):
    options, pytrec_args = OPTION_SETS[name]
    comparison, queries = Comparison(), 0
    for case in CASES:
        queries += compare_case(comparison, case, tmp_path, ["-m", "all_trec", *options],
                                **pytrec_args)
    print(f"\ntrec_eval oracle ({name}): {comparison.compared} values of {queries} queries "
          f"compared, max abs diff {comparison.max_diff:.3g}")
    assert not comparison.mismatches, \
        f"{len(comparison.mismatches)} mismatches, first: {comparison.mismatches[:5]}"
    assert queries >= MIN_QUERIES


def test_complete_average_over_every_qrels_query_matches(tmp_path):
    """-c: pytrec_eval's per-query values averaged over every query of the qrels."""
    comparison = Comparison()
    for case in CASES[:4]:
        compare_case(comparison, case, tmp_path, ["-m", "all_trec", "-c"])
    assert comparison.compared > 0
    assert not comparison.mismatches, comparison.mismatches[:5]


def test_measure_parameters_match_pytrec_eval(tmp_path):
    """-m with parameters, as trec_eval takes them (pytrec_eval names set_F and 11pt_avg
    without their parameters; trec_eval appends them)."""
    measures = ["P.5,7", "recall.3,250", "ndcg_cut.3,12", "map_cut.2,8", "success.2,3",
                "relative_P.4", "iprec_at_recall.0.25,0.75", "Rprec_mult.0.5,1.5",
                "set_F.0.5", "11pt_avg.0.2,0.5,0.8"]
    options = [arg for m in measures for arg in ("-m", m)]
    rename = {"set_F": "set_F_0.5", "11pt_avg": "11pt_avg_0.2,0.5,0.8"}
    comparison = Comparison()
    for case in CASES[2:4]:
        compare_case(comparison, case, tmp_path, options, rename=rename, measures=measures)
    assert comparison.compared > 1000
    assert not comparison.mismatches, comparison.mismatches[:5]


def fixture_case(qrels_name, run_name):
    """A Case over the files in tests/data/trec (a duplicated document at its best score)."""
    data = Path(__file__).resolve().parents[1] / "data" / "trec"
    case = Case(f"{qrels_name}+{run_name}")
    for line in (data / qrels_name).read_text().splitlines():
        fields = line.split()
        if fields and not fields[0].startswith("#"):
            case.qrels.setdefault(fields[0], {})[fields[2]] = int(fields[3])
            case.qrels_lines.append(line)
    for line in (data / run_name).read_text().splitlines():
        fields = line.split()
        if fields and not fields[0].startswith("#"):
            docs = case.run.setdefault(fields[0], {})
            docs[fields[2]] = max(float(fields[4]), docs.get(fields[2], -math.inf))
            case.run_lines.append(line)
    return case


def test_repository_trec_files_match_pytrec_eval(tmp_path):
    case = fixture_case("qrels_graded.txt", "run_ties_duplicates.txt")
    comparison = Comparison()
    assert compare_case(comparison, case, tmp_path, ["-m", "all_trec"]) == 2
    assert not comparison.mismatches, comparison.mismatches[:5]


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
    if isinstance(value, float) and math.isnan(value):
        return printed.strip() in ("nan", "-nan")
    return printed == f"{value:.4f}" or abs(float(printed) - value) <= 5e-5 + 1e-9


def run_cli(*args):
    if not CLI.exists():
        pytest.skip(f"the ragmeter program is not built at {CLI} "
                    "(cmake --build <build> --target ragmeter)")
    return subprocess.run([str(CLI), "ir", "--trec-eval-version", "9", *map(str, args)],
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("case", [c for c in CASES if c.name in ("graded_small", "binary_small")],
                         ids=lambda c: c.name)
def test_cli_prints_pytrec_eval_values_rounded(case, tmp_path):
    qrels_path, run_path = case.write(tmp_path)
    out = run_cli("-q", "-m", "all_trec", "--qrels", qrels_path, "--run", run_path)
    assert out.returncode == 0, out.stderr
    expected = pytrec_values(case)
    expected["all"] = summary(expected)
    seen = 0
    for line in out.stdout.splitlines():
        measure, qid, printed = line.split("\t")
        assert len(measure) >= 22 and measure == measure.strip().ljust(22)
        measure = measure.strip()
        if measure == "runid":
            assert (qid, printed) == ("all", "tag")
        elif measure == "relstring":
            assert printed.startswith("'") and printed.endswith("'")
        elif measure in SUMS or measure == "num_q":
            assert printed == str(int(expected[qid][measure])), (qid, measure)
        else:
            assert rounded_matches(printed, expected[qid][measure]), \
                (qid, measure, printed, expected[qid][measure])
        seen += 1
    per_query = len(next(iter(expected.values()))) - len(SUMMARY_ONLY) - 1  # runid: all only
    summary_lines = len(expected["all"]) + 1  # + runid
    assert seen == (len(expected) - 1) * per_query + summary_lines


def test_cli_default_is_trec_eval_official_set(tmp_path):
    case = CASES[3]
    qrels_path, run_path = case.write(tmp_path)
    out = run_cli("--qrels", qrels_path, "--run", run_path)
    assert out.returncode == 0, out.stderr
    names = [line.split("\t")[0].strip() for line in out.stdout.splitlines()]
    official = ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
                "Rprec", "bpref", "recip_rank"]
    official += [f"iprec_at_recall_{x / 10:.2f}" for x in range(11)]
    official += [f"P_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)]
    assert names == official


@pytest.mark.parametrize("measure,message", [
    ("P.0", "not a positive integer"), ("P.5,5", "given twice"), ("nosuch", "unknown measure"),
    ("utility.1,2", "4 coefficients"), ("official.5", "takes no parameters")])
def test_cli_bad_measure_exits_with_usage_code(measure, message, tmp_path):
    qrels_path, run_path = CASES[3].write(tmp_path)
    out = run_cli("-m", measure, "--qrels", qrels_path, "--run", run_path)
    assert out.returncode == 2
    assert message in out.stderr and out.stdout == ""


def test_cli_unreadable_file_exits_with_usage_code(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 1\nq1 0 d2\n")
    run = tmp_path / "run.txt"
    run.write_text("q1 Q0 d1 1 0.5 tag\n")
    out = run_cli("--qrels", qrels, "--run", run)
    assert out.returncode == 2
    assert "qrels.txt:2: expected 4 columns" in out.stderr
    assert out.stdout == ""
