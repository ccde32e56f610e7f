"""The default (offline) judge beyond English, through `ragmeter eval`: a Chinese answer a
passage states word for word scores faithfulness 1 (issue 33 saw 0 for every Chinese answer,
with no warning); a changed number does not; a language without rules is skipped with the
reason, never a number."""
import json

from cli_shared import read_jsonl

PASSAGE = "埃菲尔铁塔位于法国巴黎。埃菲尔铁塔高330米，于1889年建成。"
JUDGED = "faithfulness,context_recall"


def write_rows(path, rows):
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows),
                    encoding="utf-8")


def test_chinese_answer_copied_from_the_passage_scores_one(run, tmp_path):
    data, out = tmp_path / "zh.jsonl", tmp_path / "out.jsonl"
    write_rows(data, [
        {"id": "copied", "user_input": "埃菲尔铁塔有多高？", "response": "埃菲尔铁塔高330米。",
         "retrieved_contexts": [PASSAGE], "reference": "埃菲尔铁塔高330米。"},
        {"id": "changed", "user_input": "埃菲尔铁塔有多高？", "response": "埃菲尔铁塔高300米。",
         "retrieved_contexts": [PASSAGE], "reference": "埃菲尔铁塔高330米。"},
    ])
    p = run("eval", data, "--metrics", JUDGED, "--out", out)
    assert p.returncode == 0, p.stderr
    copied, changed = read_jsonl(out)
    assert copied["status"] == {"faithfulness": "ok", "context_recall": "ok"}
    assert copied["scores"] == {"faithfulness": 1.0, "context_recall": 1.0}
    assert changed["scores"]["faithfulness"] == 0.0
    verdict = changed["evidence"]["faithfulness"]
    assert "300" in json.dumps(verdict, ensure_ascii=False)


def test_language_without_rules_is_skipped_with_the_reason(run, tmp_path):
    data, out = tmp_path / "ko.jsonl", tmp_path / "out.jsonl"
    korean = "서울은 대한민국의 수도이며 가장 큰 도시이다."
    write_rows(data, [{"id": "ko", "user_input": "대한민국의 수도는 어디입니까?", "response": korean,
                       "retrieved_contexts": [korean], "reference": korean}])
    p = run("eval", data, "--metrics", JUDGED + ",exact_match", "--out", out)
    assert p.returncode == 0, p.stderr
    (row,) = read_jsonl(out)
    for metric in JUDGED.split(","):
        assert row["status"][metric] == "skipped"
        assert row["scores"][metric] is None
        assert row["reasons"][metric] == "the offline judge does not cover Korean"
    assert row["status"]["exact_match"] == "ok"


def test_with_an_embeddings_server_the_gap_still_skips_and_similarity_still_scores(
        run, tmp_path, start_fake_llm_server):
    """The offline judge with an embeddings server (the FAKE server here) reads claims with
    the same rules, so a language without rules is `skipped` as above (it was `failed`,
    "judge: the offline judge does not cover Korean"); semantic_similarity only embeds, and
    the server embeds any language, so it is scored."""
    url = start_fake_llm_server("{}")
    data, out = tmp_path / "ko.jsonl", tmp_path / "out.jsonl"
    korean = "서울은 대한민국의 수도이며 가장 큰 도시이다."
    write_rows(data, [{"id": "ko", "user_input": "대한민국의 수도는 어디입니까?", "response": korean,
                       "retrieved_contexts": [korean], "reference": korean}])
    p = run("eval", data, "--metrics", JUDGED + ",semantic_similarity", "--out", out,
            "--embedder", "openai", "--embedder-url", url + "/v1", "--embedder-model", "fake-embedder",
            "--cache-mode", "off")
    assert p.returncode == 0, p.stderr
    (row,) = read_jsonl(out)
    for metric in JUDGED.split(","):
        assert row["status"][metric] == "skipped", row
        assert row["reasons"][metric] == "the offline judge does not cover Korean"
    assert row["status"]["semantic_similarity"] == "ok"
    # The same text embeds to the same vector: cosine 1 (rounding made it 1.0000000000000002,
    # outside the metric's range, which ended the run with exit 4 before the cosine was clamped).
    assert abs(row["scores"]["semantic_similarity"] - 1.0) < 1e-9
