"""A build without the optional dependencies (CMakeLists.txt, RAGMETER_WITH_*=OFF;
docs/library.md, "Building without a dependency"): the library and the program build
without poppler-cpp, gumbo, cmark, Tesseract, MeCab, libcurl, OpenBLAS and
libsentencepiece and link none of them; what does not need them scores as the full build
does; what does is refused or skipped saying which dependency is missing; and another
project finds the reduced package with find_package and links none of them either.

The reduced build lives beside the full one (build-minimal/ in the checkout) and compiles
with the full build's flags, so with ccache (CCACHE_BASEDIR = the checkout, as
scripts/build.sh sets it) only the stand-ins (src/*/without_*.cc) are compiled anew."""

import json
import os
import pathlib
import shutil
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("RAGMETER_BUILD_DIR", REPO / "build"))
MINIMAL = REPO / "build-minimal"
EXAMPLE = REPO / "examples" / "halueval_rag.jsonl"
OPTIONS = ["DOCUMENT_FORMATS", "TESSERACT", "MECAB", "CURL", "OPENBLAS", "SENTENCEPIECE"]
LEFT_OUT = ["poppler", "gumbo", "cmark", "tesseract", "mecab", "curl", "openblas", "sentencepiece"]


def run(*args, env=None, cwd=None, timeout=3600):
    proc = subprocess.run([str(a) for a in args], capture_output=True, text=True, env=env, cwd=cwd,
                          timeout=timeout)
    return proc


def check(*args, **kwargs):
    proc = run(*args, **kwargs)
    assert proc.returncode == 0, (args, proc.stdout[-3000:], proc.stderr[-3000:])
    return proc


def build_env():
    env = dict(os.environ)
    env.setdefault("CCACHE_BASEDIR", str(REPO))
    return env


def launcher_flags():
    return ["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"] if shutil.which("ccache") else []


@pytest.fixture(scope="module")
def minimal_prefix(tmp_path_factory):
    """Configures, builds and installs the reduced build; its install prefix."""
    check("cmake", "-S", REPO, "-B", MINIMAL, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
          "-DRAGMETER_WERROR=ON", "-DRAGMETER_BUILD_TESTS=OFF", "-DRAGMETER_BUILD_BENCH=OFF",
          *launcher_flags(), *[f"-DRAGMETER_WITH_{o}=OFF" for o in OPTIONS], env=build_env())
    check("cmake", "--build", MINIMAL, "-j", str(os.cpu_count() or 2), env=build_env())
    prefix = tmp_path_factory.mktemp("minimal") / "prefix"
    check("cmake", "--install", MINIMAL, "--prefix", prefix)
    return prefix


def linked_libraries(binary):
    return check("ldd", binary).stdout


def test_the_program_links_none_of_the_left_out_libraries(minimal_prefix):
    linked = linked_libraries(MINIMAL / "ragmeter")
    assert [name for name in LEFT_OUT if name in linked] == []
    # The full build does link them, so the check can fail.
    full = linked_libraries(BUILD / "ragmeter")
    assert [name for name in LEFT_OUT if name in full] == LEFT_OUT


def test_the_version_names_what_the_build_left_out(minimal_prefix):
    full = check(BUILD / "ragmeter", "--version").stdout.strip()
    assert full.startswith("ragmeter ") and "(" not in full
    assert check(MINIMAL / "ragmeter", "--version").stdout.strip() == full + (
        " (built without poppler-cpp, gumbo, cmark, Tesseract, MeCab, libcurl, OpenBLAS, "
        "libsentencepiece)")


def test_what_needs_none_of_them_scores_as_the_full_build(minimal_prefix, tmp_path):
    metrics = "rouge_l,bleu,token_f1,faithfulness,context_recall,semantic_similarity"
    out = {}
    for name, build in (("minimal", MINIMAL), ("full", BUILD)):
        out[name] = tmp_path / f"{name}.jsonl"
        check(build / "ragmeter", "eval", EXAMPLE, "-m", metrics, "--out", out[name], "-q")
    minimal = [json.loads(line) for line in out["minimal"].open()]
    full = [json.loads(line) for line in out["full"].open()]
    assert len(minimal) == len(full) == 30
    for a, b in zip(minimal, full):
        assert a["status"] == b["status"]
        for metric, score in b["scores"].items():
            # The local encoder's products by plain loops instead of OpenBLAS: the same
            # sums in another order.
            tolerance = 1e-6 if metric == "semantic_similarity" else 0.0
            assert abs(a["scores"][metric] - score) <= tolerance, (metric, a["scores"][metric], score)


def test_what_needs_them_is_refused_naming_the_dependency(minimal_prefix, tmp_path):
    program = MINIMAL / "ragmeter"
    judge = run(program, "eval", EXAMPLE, "-m", "faithfulness", "--judge-url", "http://127.0.0.1:9/v1",
                "--judge-model", "m")
    assert judge.returncode == 2
    assert "HTTP needs libcurl, which this ragmeter was built without (RAGMETER_WITH_CURL=OFF)" in judge.stderr
    mecab = run(program, "eval", EXAMPLE, "-m", "bleu", "--bleu-tokenize", "ja-mecab")
    assert mecab.returncode == 2
    assert "need MeCab, which this ragmeter was built without (RAGMETER_WITH_MECAB=OFF)" in mecab.stderr


PROBE = """
#include <cstdio>
#include "ragmeter/ragmeter.h"
int main(int argc, char** argv) {
  if (argc < 2) return 2;
  ragmeter::LoadResult result = ragmeter::load_documents(argv[1]);
  for (const auto& d : result.documents) std::printf("document %s\\n", d.path.c_str());
  for (const auto& p : result.problems) std::printf("problem %s: %s\\n", p.path.c_str(), p.reason.c_str());
  auto metrics = ragmeter::parse_metric_list("rouge_l");
  if (!metrics.ok()) return 3;
  ragmeter::Sample sample;
  sample.response = "The tower is in Paris.";
  sample.set_reference("The tower stands in Paris.");
  for (const auto& result : ragmeter::score_sample(sample, ragmeter::EvalOptions{.metrics = *metrics}))
    std::printf("rouge_l %.6f\\n", result.score);
  return 0;
}
"""

PROBE_CMAKE = """
cmake_minimum_required(VERSION 3.25)
project(minimal_probe LANGUAGES CXX)
set(CMAKE_CXX_STANDARD 20)
find_package(ragmeter 0.1 REQUIRED)
add_executable(probe probe.cc)
target_link_libraries(probe PRIVATE ragmeter::ragmeter)
"""


def test_another_project_links_the_reduced_package_without_them(minimal_prefix, tmp_path):
    source = tmp_path / "probe"
    source.mkdir()
    (source / "probe.cc").write_text(PROBE)
    (source / "CMakeLists.txt").write_text(PROBE_CMAKE)
    build = tmp_path / "probe-build"
    check("cmake", "-S", source, "-B", build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
          *launcher_flags(), f"-DCMAKE_PREFIX_PATH={minimal_prefix}")
    check("cmake", "--build", build)
    assert [name for name in LEFT_OUT if name in linked_libraries(build / "probe")] == []
    documents = tmp_path / "documents"
    documents.mkdir()
    (documents / "notes.txt").write_text("The tower is in Paris.\n")
    (documents / "guide.md").write_text("# Guide\n\nThe tower is in Paris.\n")
    (documents / "page.html").write_text("<html><body><p>The tower is in Paris.</p></body></html>")
    out = check(build / "probe", documents).stdout.splitlines()
    assert "document notes.txt" in out
    assert ("problem guide.md: reading Markdown needs cmark, which this ragmeter was built without "
            "(RAGMETER_WITH_DOCUMENT_FORMATS=OFF)") in out
    assert ("problem page.html: reading HTML needs gumbo, which this ragmeter was built without "
            "(RAGMETER_WITH_DOCUMENT_FORMATS=OFF)") in out
    # ROUGE-L F of "the tower is in paris" and "the tower stands in paris": LCS 4 of 5 and 5
    # tokens, F = 0.8.
    assert "rouge_l 0.800000" in out
