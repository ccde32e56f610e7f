"""`ragmeter gen` through the CLI with a FAKE judge server (tests/fakes/fake_llm_server.cc,
not a model): errors for unusable input, skipped files reported, and the exit code and
summary of a run whose filters reject too much. (The real local model's end-to-end test
is tests/llm/test_gen_llm.py.)
"""
import json
import pathlib

import pytest

# One fixed reply for every chat request: a valid generation (one pair on P1), a passing
# critic verdict and a closed-book answer that does not know, at once. Every generation
# call proposes the same question.
REPLY = json.dumps({
    "pairs": [{"passages": ["P1"], "question": "Which river flows through Vienna?",
               "reference": "The Danube."}],
    "answerable": True, "grounded": True, "standalone": True, "why_not": "",
    "answer": "unknown",
})


@pytest.fixture
def fake_server(start_fake_llm_server):
    return start_fake_llm_server(REPLY) + "/v1"


def judge(url):
    return ["--judge-url", url, "--judge-model", "fake", "--cache-mode", "off", "--concurrency", "1"]


def test_a_folder_without_readable_documents_is_an_error_naming_each_file(run, tmp_path, fake_server):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "empty.md").write_text("")
    (docs / "latin1.txt").write_bytes("caf\xe9 cr\xe8me".encode("latin-1"))
    p = run("gen", docs, "--out", tmp_path / "t.jsonl", *judge(fake_server))
    assert p.returncode == 2
    assert "skipped empty.md" in p.stderr
    assert "skipped latin1.txt" in p.stderr and "UTF-8" in p.stderr
    assert "no readable documents" in p.stderr and "2 skipped" in p.stderr
    empty = tmp_path / "nothing"
    empty.mkdir()
    p = run("gen", empty, "--out", tmp_path / "t.jsonl", *judge(fake_server))
    assert p.returncode == 2 and "no readable documents" in p.stderr


def test_generation_needs_an_llm_judge(run, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# Rivers\n\nThe Danube flows through Vienna and Budapest on its way east.\n")
    p = run("gen", docs, "--out", tmp_path / "t.jsonl", "--judge", "offline")
    assert p.returncode == 2 and "needs an LLM judge" in p.stderr
    p = run("gen", docs, "--out", tmp_path / "t.jsonl", "--judge-url", "http://127.0.0.1:9/v1",
            "--judge-model", "m", "--types", "simple=1,tricky=2")
    assert p.returncode == 2 and "'tricky'" in p.stderr


def test_a_set_the_filters_cannot_fill_exits_3_with_the_rejections_counted(run, tmp_path, fake_server):
    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    (docs / "a.md").write_text("# Rivers\n\nThe Danube flows through Vienna and Budapest on its way east.\n")
    (docs / "sub" / "b.txt").write_text("Tulips flower in spring and grow from bulbs planted in autumn.\n")
    (docs / "bad.txt").write_bytes(b"\xff\xfe broken")
    out, summary = tmp_path / "t.jsonl", tmp_path / "s.json"
    p = run("gen", docs, "--out", out, "--size", "2", "--max-contexts", "3",
            "--types", "simple=1", "--neighbours", "0", "--summary", summary, *judge(fake_server))
    assert p.returncode == 3, p.stderr
    assert "skipped bad.txt" in p.stderr and "only 1 of 2 rows" in p.stderr
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 1
    assert rows[0]["user_input"] == "Which river flows through Vienna?"
    assert rows[0]["sources"][0]["path"] in ("a.md", "sub/b.txt")
    s = json.loads(summary.read_text())
    # 3 contexts: 3 generation calls; the first pair passes the critic (1 call), the two
    # later ones are near-duplicates of it (no critic call).
    assert s["contexts_tried"] == 3 and s["pairs_proposed"] == 3
    assert s["rejected"] == {"near-duplicate question": 2}
    assert s["usage"]["by_call"]["generate"]["calls"] == 3
    assert s["usage"]["by_call"]["critic"]["calls"] == 1
    assert s["usage"]["by_call"]["closed_book"]["calls"] == 1  # the critic's one accepted pair
    # What the set covers: 1 row, a simple question on one passage.
    assert s["coverage"] == {"rows": 1, "type_share": {"conditional": 0.0, "multi_context": 0.0,
                                                       "reasoning": 0.0, "simple": 1.0},
                             "multi_context_share": 0.0, "distinct_openings": 1,
                             "distinct_opening_share": 1.0}
    assert "question types: " in p.stdout and "distinct openings 1 (100%)" in p.stdout
    assert s["documents"] == {"loaded": 2, "files_seen": 3, "skipped": 1,
                              "problems": s["documents"]["problems"]}
    assert s["documents"]["problems"][0]["path"] == "bad.txt"
    assert s["index"]["reused"] is False and pathlib.Path(str(out) + ".index").exists()
    # The same chunks again: the saved index is reused.
    p = run("gen", docs, "--out", out, "--size", "1", "--types", "simple=1", "--summary", summary,
            *judge(fake_server))
    assert p.returncode == 0, p.stderr
    assert json.loads(summary.read_text())["index"]["reused"] is True
