"""`ragmeter ir` with trec_eval 10.0's command line and semantics, byte for byte.

No trec_eval 10 oracle is on PyPI, so every expected line here is worked out by hand in
the comment above it. The data: qrels judge q1's x 1, y 0, w 2 and q2's a 1; the run
ranks q1's x (3.0), z (2.0, unjudged), w (1.0) and has no q2; the run's last line is
tagged tagB. `--trec-eval-version 9` (pytrec_eval's trec_eval) is checked against
pytrec_eval in tests/oracle/test_trec_eval.py.
"""

import pytest

QRELS = "# judged by hand\nq1 0 x 1\nq1 0 y 0\nq1 0 w 2\nq2 0 a 1\n"
RUN = "# a comment line\nq1 Q0 x 1 3.0 tagA\nq1 Q0 z 2 2.0 tagA\nq1 Q0 w 3 1.0 tagB\n"


def line(measure, query, value):
    return f"{measure:<22}\t{query}\t{value}"


@pytest.fixture
def files(tmp_path):
    qrels = tmp_path / "qrels.txt"
    run = tmp_path / "run.txt"
    qrels.write_text(QRELS)
    run.write_text(RUN)
    return qrels, run


def lines_of(result):
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


def test_complete_with_per_query_prints_the_runs_missing_query(run, files):
    # q1: 3 retrieved; P_1 = 1 (x); P_3 = 2/3 (x and w, level 2 >= 1).
    # q2 is not in the run: with -c trec_eval 10 prints it, every value 0.
    # all: num_ret 3 + 0; P_1 (1 + 0) / 2; P_3 (2/3 + 0) / 2 = 0.3333.
    out = lines_of(run("ir", "-q", "-c", "-m", "P.1,3", "-m", "num_ret", *files))
    assert out == [
        line("num_ret", "q1", 3), line("P_1", "q1", "1.0000"), line("P_3", "q1", "0.6667"),
        line("num_ret", "q2", 0), line("P_1", "q2", "0.0000"), line("P_3", "q2", "0.0000"),
        line("num_ret", "all", 3), line("P_1", "all", "0.5000"), line("P_3", "all", "0.3333")]


def test_complete_in_trec_eval_9_averages_the_missing_query_without_printing_it(run, files):
    out = lines_of(run("ir", "--trec-eval-version", "9", "-q", "-c", "-m", "P.1", *files))
    assert out == [line("P_1", "q1", "1.0000"), line("P_1", "all", "0.5000")]


def test_missing_query_relstring_is_empty(run, files):
    # q1: x level 1, z not in the pool, w level 2 -> '1-2'; q2 retrieved nothing -> ''.
    out = lines_of(run("ir", "-q", "-c", "-m", "relstring", *files))
    assert out == [line("relstring", "q1", "'1-2'"), line("relstring", "q2", "''")]


def test_run_from_standard_input(run, files):
    # q1's R = 2 (x, w): AP = (1/1 + 2/3) / 2 = 0.8333.
    out = lines_of(run("ir", "-m", "map", files[0], "-", stdin=RUN))
    assert out == [line("map", "all", "0.8333")]


def test_trec_eval_attached_option_values(run, files):
    # -l2: only w (level 2) is relevant, at rank 3: P_3 = 1/3. With -M2 only x and z are
    # looked at: 0.
    assert lines_of(run("ir", "-l2", "-mP.3", *files)) == [line("P_3", "all", "0.3333")]
    assert lines_of(run("ir", "-l2", "-M2", "-mP.3", *files)) == [line("P_3", "all", "0.0000")]


def test_qrels_and_run_options_still_work(run, files):
    qrels, run_file = files
    assert run("ir", "-m", "map", "--qrels", qrels, "--run", run_file).stdout == \
        run("ir", "-m", "map", qrels, run_file).stdout


def test_fractional_cutoff_is_truncated_as_trec_eval_does(run, files):
    names = [l.split("\t")[0].strip()
             for l in lines_of(run("ir", "-mndcg_cut.10,20,23.4", *files))]
    assert names == ["ndcg_cut_10", "ndcg_cut_20", "ndcg_cut_23"]


def test_runid_is_the_last_lines_tag(run, files):
    assert lines_of(run("ir", "-m", "runid", *files)) == [line("runid", "all", "tagB")]


def test_recall_cutoffs_round_in_trec_eval_10(run, files):
    # R = 2; recall 0.55 is 1.1 relevant documents. trec_eval 10 rounds to 1: the best
    # precision from x (rank 1) on, 1.0. trec_eval 9 makes (long)(1.1 + 0.9) = 2: from
    # w (rank 3) on, 2/3.
    assert lines_of(run("ir", "-m", "iprec_at_recall.0.55", *files)) == \
        [line("iprec_at_recall_0.55", "all", "1.0000")]
    assert lines_of(run("ir", "--trec-eval-version", "9", "-m", "iprec_at_recall.0.55",
                        *files)) == [line("iprec_at_recall_0.55", "all", "0.6667")]


def test_all_trec_ends_with_rbp_and_unjudged_in_trec_eval_10(run, files):
    # Levels 0..2 gain 0, 1, 2, rescaled to 0, 0.5, 1: x 0.5 at weight 1, w 1.0 at 0.81:
    # rbp = 0.1 * 1.31 = 0.1310. rbp_resid: z unjudged at rank 2 (weight 0.9), tail past
    # 3 documents 0.729: 0.729 + 0.1 * 0.9 = 0.8190. unj_k: 1 unjudged / k.
    out = lines_of(run("ir", "-m", "all_trec", *files))
    assert out[-5:] == [line("rbp", "all", "0.1310"), line("rbp_resid", "all", "0.8190"),
                        line("unj_5", "all", "0.2000"), line("unj_10", "all", "0.1000"),
                        line("unj_20", "all", "0.0500")]
    out9 = lines_of(run("ir", "--trec-eval-version", "9", "-m", "all_trec", *files))
    assert out9[-1] == line("num_nonrel_judged_ret", "all", 0)
    # The rest are the same measures (values differ where recall cutoffs round: R = 2,
    # iprec_at_recall_0.60 is 1 relevant document in 10, 2 in 9).
    assert [l.split("\t")[0] for l in out[:-5]] == [l.split("\t")[0] for l in out9]
    assert line("iprec_at_recall_0.60", "all", "1.0000") in out
    assert line("iprec_at_recall_0.60", "all", "0.6667") in out9


def test_zscores_file(run, files, tmp_path):
    # map of q1 is 5/6; (5/6 - 0.5) / 0.25 = 4/3. Printed as "Z<name>".
    zscores = tmp_path / "zscores"
    zscores.write_text("q1 map 0.5 0.25\n")
    out = lines_of(run("ir", "-q", "-Z", zscores, "-m", "map", *files))
    assert out == ["Z" + line("map", "q1", "1.3333"), "Z" + line("map", "all", "1.3333")]


def test_judgment_groups(run, files, tmp_path):
    # Group A judges x relevant (rank 1: AP 1), group B w (rank 3: AP 1/3): mean 2/3.
    qrels_jg = tmp_path / "qrels.jg"
    qrels_jg.write_text("q1 A x 1\nq1 B w 1\n")
    out = lines_of(run("ir", "-R", "qrels_jg", "-m", "map_avgjg", qrels_jg, files[1]))
    assert out == [line("map_avgjg", "all", "0.6667")]


def test_no_summary(run, files):
    assert lines_of(run("ir", "-q", "-n", "-m", "map", *files)) == [line("map", "q1", "0.8333")]


PREFS = "q1 G 0 a 2\nq1 G 0 b 1\nq1 G 0 c 0\nq1 G 0 d 0\n"
PREFS_RUN = "q1 Q0 c 1 4 tag\nq1 Q0 a 2 3 tag\nq1 Q0 x 3 2 tag\nq1 Q0 b 4 1 tag\n"


def test_preferences_with_trec_evals_command_line(run, tmp_path):
    # One group: a 2 > b 1 > c, d 0. Ranked c, a, x, b (d not retrieved): a>b fulfilled,
    # a>c and b>c not, a>d and b>d fulfilled by implication: 3 of 5 preferences, 1 of
    # them among retrieved pairs. prefs_pair: pairs (c,a) 0, (c,b) 0, (a,b) 1, (a,d) 1,
    # (b,d) 1 -> 3/5; prefs_avgjg: the one group's 3/5.
    prefs, run_file = tmp_path / "prefs", tmp_path / "run"
    prefs.write_text(PREFS)
    run_file.write_text(PREFS_RUN)
    out = lines_of(run("ir", "-m", "prefs", "-q", "-R", "prefs", prefs, run_file))
    per_query = [line("prefs_num_prefs_poss", "q1", 5), line("prefs_num_prefs_ful", "q1", 3),
                 line("prefs_num_prefs_ful_ret", "q1", 1), line("prefs_simp", "q1", "0.6000"),
                 line("prefs_pair", "q1", "0.6000"), line("prefs_avgjg", "q1", "0.6000")]
    summary = [line("runid", "all", "tag"), line("num_q", "all", 1)] + \
        [l.replace("\tq1\t", "\tall\t") for l in per_query]
    assert out == per_query + summary


def test_qrels_read_as_preferences_rank_ties_by_ascending_id(run, tmp_path):
    # a relevant, b not; the run ties them. For preferences trec_eval ranks ties by id
    # ascending (a first: a>b fulfilled, 1.0); for qrels descending (b first: P_1 0).
    qrels, run_file = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q1 0 a 1\nq1 0 b 0\n")
    run_file.write_text("q1 Q0 b 1 1.0 r\nq1 Q0 a 2 1.0 r\n")
    assert lines_of(run("ir", "-R", "qrels_prefs", "-m", "prefs_simp", qrels, run_file)) == \
        [line("prefs_simp", "all", "1.0000")]
    assert lines_of(run("ir", "-m", "P.1", qrels, run_file)) == [line("P_1", "all", "0.0000")]


@pytest.mark.parametrize("args,message", [
    ((), "expected the qrels and the run"),
    (("-R", "qrels_prefs", "-m", "map"), "needs qrels relevance judgements"),
    (("-R", "nosuch"), "unknown relevance format"),
    (("--trec-eval-version", "8"), "expected 9 or 10"),
    (("--trec-eval-version", "9", "-m", "rbp"), "trec_eval 10"),
])
def test_unusable_command_lines_exit_2(run, files, args, message):
    given = files if args else ()
    result = run("ir", *args, *given)
    assert result.returncode == 2
    assert message in result.stderr and result.stdout == ""
