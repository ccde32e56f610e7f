"""examples/cmake_consumer: another CMake project using the library, built both ways CMake
allows (find_package on an installed copy, add_subdirectory on the source tree) and run.
Its printed scores are checked against values found independently: SQuAD token F1 counted
by hand, BLEU from sacreBLEU, ROUGE-L from rouge-score, and the example's own registered
metrics (register_metric: words of the shorter text over the longer's, from str.split(); the
share of the reference's words the response has, a judged metric asking a JudgeTask of its
own that the offline judge answers by the example's rule) in Python."""

import os
import pathlib
import shutil
import string
import subprocess

import pytest
from rouge_score import rouge_scorer
from sacrebleu.metrics import BLEU

REPO = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("RAGMETER_BUILD_DIR", REPO / "build"))
EXAMPLE = REPO / "examples" / "cmake_consumer"

# The example's two good rows (response, reference); its third row is rejected.
PAIRS = [("The Eiffel Tower is in Paris.", "The Eiffel Tower is located in Paris, France."),
         ("Hamlet was written by William Shakespeare.", "William Shakespeare wrote Hamlet.")]
# SQuAD token F1 by hand, after lowercasing and dropping punctuation and articles:
#   eiffel tower is in paris / eiffel tower is located in paris france: 5 common, P 1, R 5/7
#   hamlet was written by william shakespeare / william shakespeare wrote hamlet: 3 common,
#   P 3/6, R 3/4
TOKEN_F1 = [2 * (5 / 7) / (1 + 5 / 7), 2 * 0.5 * 0.75 / (0.5 + 0.75)]


def expected_scores():
    bleu = BLEU(effective_order=True)
    rouge = rouge_scorer.RougeScorer(["rougeL"])
    return {
        "token_f1": TOKEN_F1,
        "bleu": [bleu.sentence_score(r, [ref]).score / 100 for r, ref in PAIRS],
        "rouge_l": [rouge.score(ref, r)["rougeL"].fmeasure for r, ref in PAIRS],
        "word_count_ratio": [min(len(r.split()), len(ref.split())) / max(len(r.split()), len(ref.split()))
                             for r, ref in PAIRS],
        # The judged metric of the example's own, answered by its offline rule (the default
        # judge has no model): the reference's distinct words, punctuation stripped and
        # lowercased, that the response has too.
        "reference_words_kept": [1 - len(set(words(ref)) - set(words(r))) / len(set(words(ref)))
                                 for r, ref in PAIRS],
    }


def words(text):
    return [w.strip(string.punctuation).lower() for w in text.split() if w.strip(string.punctuation)]


def cmake(*args, cwd=None):
    proc = subprocess.run(["cmake", *map(str, args)], capture_output=True, text=True,
                          timeout=3600, cwd=cwd)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc.stdout


def check_output(binary):
    proc = subprocess.run([str(binary)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    rows, means = {}, {}
    for line in proc.stdout.splitlines():
        parts = line.split(" ", 5)
        if parts[0] == "row":
            rows[(int(parts[1]), parts[2])] = (parts[3], float(parts[4]), parts[5])
        elif parts[0] == "mean":
            means[parts[1]] = (float(parts[2]), parts[3])
    expected = expected_scores()
    for metric, values in expected.items():
        for i, value in enumerate(values):
            status, score, reason = rows[(i, metric)]
            assert status == "ok" and reason == ""
            assert score == pytest.approx(value, abs=1e-12), (i, metric)
        # The bad row keeps its place: failed, with the row and the field named.
        status, score, reason = rows[(2, metric)]
        assert status == "failed"
        assert reason == "row rejected: rows:3: field 'response': expected a string, got an object"
        mean, n = means[metric]
        assert n == "n=2"
        assert mean == pytest.approx(sum(values) / 2, abs=1e-12)
    assert "rows read=3 rejected=1" in proc.stdout


def launcher_flags():
    return ["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"] if shutil.which("ccache") else []


def test_installed_package_found_with_find_package(tmp_path):
    prefix = tmp_path / "prefix"
    cmake("--install", BUILD, "--prefix", prefix)
    assert (prefix / "lib" / "cmake" / "ragmeter" / "ragmeterConfig.cmake").exists()
    assert (prefix / "include" / "ragmeter" / "evaluate_rows.h").exists()
    build = tmp_path / "consumer"
    cmake("-S", EXAMPLE, "-B", build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
          *launcher_flags(), f"-DCMAKE_PREFIX_PATH={prefix}")
    cmake("--build", build)
    check_output(build / "score_rows")


def configure_with_add_subdirectory():
    # A fixed place in the build tree, so that a second run is an incremental build. No
    # build type: the library compiles several times faster unoptimised, and the values
    # checked do not depend on it.
    build = BUILD / "cmake_consumer_subdir"
    cmake("-S", EXAMPLE, "-B", build, "-G", "Ninja", *launcher_flags(),
          f"-DRAGMETER_SOURCE_DIR={REPO}")
    return build


def test_source_tree_added_with_add_subdirectory_configures():
    build = configure_with_add_subdirectory()
    # Only the library: no tests, benchmarks or program when ragmeter is not the top level.
    targets = cmake("--build", build, "--target", "help")
    for target in ("ragmeter_tests", "fake_llm_server", "ragmeter:", "bleu_chrf_bench"):
        assert target not in targets
    assert "ragmeter_lib: phony" in targets
    # Generated files stay in ragmeter's own binary directory.
    assert (build / "ragmeter" / "generated" / "ragmeter_prompts.inc").exists()


@pytest.mark.skipif(os.environ.get("RAGMETER_TEST_CMAKE_SUBDIR_BUILD") != "1",
                    reason="compiles the whole library a second time (minutes on 2 cores); "
                           "RAGMETER_TEST_CMAKE_SUBDIR_BUILD=1 runs it")
def test_source_tree_added_with_add_subdirectory_builds_and_runs():
    build = configure_with_add_subdirectory()
    cmake("--build", build, "-j", "2")
    check_output(build / "score_rows")


def library_compile_commands(build_dir):
    import json
    commands = json.loads((build_dir / "compile_commands.json").read_text())
    return [c["command"] for c in commands if "/src/" in c["file"]]


def test_position_independent_code_is_an_option_off_by_default(tmp_path):
    build = tmp_path / "pic"
    cmake("-S", REPO, "-B", build, "-G", "Ninja", "-DRAGMETER_PIC=ON", "-DRAGMETER_BUILD_TESTS=OFF",
          "-DRAGMETER_BUILD_BENCH=OFF", "-DRAGMETER_BUILD_CLI=OFF")
    pic = library_compile_commands(build)
    assert pic and all("-fPIC" in command for command in pic)
    default = library_compile_commands(BUILD)
    assert default and not any("-fPIC" in command for command in default)
