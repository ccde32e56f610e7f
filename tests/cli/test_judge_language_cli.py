"""`ragmeter eval` with an LLM judge on a Chinese and an English row (docs/judges.md,
"Languages"): the Chinese row's questions call carries the LANGUAGE line and, answered in
Latin script twice, is asked exactly once more and then fails with the reason; the English
row's request has no such line; the summary counts the samples per judged language and the
calls asked again. The judge is the FAKE server (tests/fakes/fake_llm_server.cc, not a model),
answering every request with the same English questions."""
import json
import urllib.request

from cli_shared import fake_script, fake_stats, judge_flags, read_jsonl

LATIN = json.dumps({"questions": ["When was the bridge built?"], "response_is_noncommittal": False})


def fake_requests(base):
    with urllib.request.urlopen(base + "/fake/requests", timeout=10) as reply:
        return json.load(reply)


def test_a_chinese_row_answered_in_latin_is_asked_once_more_then_fails(run, tmp_path,
                                                                        start_fake_llm_server):
    server = start_fake_llm_server(LATIN)
    fake_script(server, {"default": {"content": LATIN}})
    rows = [{"user_input": "大桥是哪一年建成的？", "response": "大桥建于1932年。它横跨长江。"},
            {"user_input": "When was the bridge built?", "response": "The bridge was built in 1932."}]
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    out, summary = tmp_path / "r.jsonl", tmp_path / "s.json"
    p = run("eval", data, "-m", "answer_relevancy", "--out", out, "--summary", summary, "-q",
            *judge_flags(server))
    assert p.returncode == 3, p.stderr  # a (sample, metric) failed
    chinese, english = read_jsonl(out)
    assert chinese["status"]["answer_relevancy"] == "failed"
    assert chinese["reasons"]["answer_relevancy"] == (
        "judge: the judge wrote the questions in Latin script, not in Chinese, also when asked "
        "again in so many words")
    assert english["status"]["answer_relevancy"] == "ok"
    assert fake_stats(server)["chat"] == 3  # English once, Chinese twice
    users = [r["body"]["messages"][-1]["content"] for r in fake_requests(server)]
    chinese_users = [u for u in users if "大桥建于1932年" in u]
    english_users = [u for u in users if "The bridge was built in 1932." in u]
    assert len(chinese_users) == 2 and len(english_users) == 1
    assert chinese_users[0].endswith(
        "LANGUAGE: the texts are in Chinese (中文). Write the questions in Chinese (中文), as the "
        "texts are written. Keep the keys and the fixed values of the reply exactly as the task "
        "shows them.\n")
    assert "not in Latin script" in chinese_users[1]
    assert "LANGUAGE:" not in english_users[0]
    report = json.loads(summary.read_text(encoding="utf-8"))
    assert report["judge"]["languages"] == {"en": 1, "zh": 1}
    questions = report["usage"]["by_call"]["questions"]
    assert questions["calls"] == 3
    assert questions["asked_again_for_language"] == 1 and questions["wrong_language"] == 1
