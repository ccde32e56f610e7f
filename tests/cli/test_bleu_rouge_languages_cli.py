"""End to end: `ragmeter eval` with sacreBLEU's language tokenizers and the notes that say
when a reference's default tokenizer does not fit the text (docs/languages.md)."""
import json

from cli_shared import REPO

PAIRS = [
    {"user_input": "中国的首都是哪里？", "response": "首都是北京", "reference": "北京"},
    {"user_input": "中国的首都是哪里？", "response": "中国的首都是北京。", "reference": "首都是北京"},
    {"user_input": "What is the capital of France?", "response": "Paris", "reference": "Paris"},
]


def write_rows(path, rows):
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def test_rouge_on_chinese_says_the_default_tokenizer_dropped_the_text(run, tmp_path):
    data = write_rows(tmp_path / "zh.jsonl", PAIRS)
    out, summary = tmp_path / "r.jsonl", tmp_path / "s.json"
    p = run("eval", data, "-m", "rouge_l", "--out", out, "--summary", summary)
    assert p.returncode == 0, p.stderr
    note = json.loads(summary.read_text())["metrics"]["rouge_l"]["note"]
    assert note["rows"] == 2
    assert "dropped every letter of the response and the reference (Han)" in note["text"]
    assert "--rouge-tokenizer unicode" in note["text"]
    assert "note: rouge_l on 2 of 3 scored rows" in p.stdout
    rows = [json.loads(line) for line in open(out, encoding="utf-8")]
    assert rows[0]["scores"]["rouge_l"] == 0.0 and "note" in rows[0]["evidence"]["rouge_l"]
    assert "note" not in rows[2]["evidence"]["rouge_l"]
    # With the option the note names, the Chinese rows score and carry no note.
    p = run("eval", data, "-m", "rouge_l", "--rouge-tokenizer", "unicode", "--summary", summary)
    assert p.returncode == 0, p.stderr
    metric = json.loads(summary.read_text())["metrics"]["rouge_l"]
    assert "note" not in metric and metric["mean"] > 0.5


def test_bleu_zh_equals_sacrebleu_and_13a_carries_a_note(run, tmp_path):
    import sacrebleu

    data = write_rows(tmp_path / "zh.jsonl", PAIRS)
    out, summary = tmp_path / "r.jsonl", tmp_path / "s.json"
    p = run("eval", data, "-m", "bleu", "--bleu-tokenize", "zh", "--out", out, "--summary", summary)
    assert p.returncode == 0, p.stderr
    bleu = sacrebleu.BLEU(tokenize="zh", effective_order=True)
    for row, result in zip(PAIRS, (json.loads(line) for line in open(out, encoding="utf-8"))):
        want = bleu.sentence_score(row["response"], [row["reference"]]).score / 100
        assert abs(result["scores"]["bleu"] - want) < 1e-9
    assert "note" not in json.loads(summary.read_text())["metrics"]["bleu"]
    p = run("eval", data, "-m", "bleu", "--summary", summary)
    assert p.returncode == 0, p.stderr
    note = json.loads(summary.read_text())["metrics"]["bleu"]["note"]
    assert note["rows"] == 2 and "--bleu-tokenize zh" in note["text"]


def test_a_missing_mecab_dictionary_is_a_usage_error_naming_the_fix(run, tmp_path):
    data = write_rows(tmp_path / "ja.jsonl", [{"response": "東京です", "reference": "東京"}])
    p = run("eval", data, "-m", "bleu", "--bleu-tokenize", "ja-mecab",
            env={"RAGMETER_MECAB_IPADIC": str(tmp_path / "nowhere")})
    assert p.returncode == 2
    assert "RAGMETER_MECAB_IPADIC" in p.stderr and "scripts/setup_mecab.sh" in p.stderr


def test_an_unknown_bleu_tokenizer_lists_sacrebleus(run, tmp_path):
    data = write_rows(tmp_path / "ja.jsonl", [{"response": "a", "reference": "a"}])
    p = run("eval", data, "-m", "bleu", "--bleu-tokenize", "ja")
    assert p.returncode == 2
    assert "ja-mecab" in p.stderr and "ko-mecab" in p.stderr


def test_cmrc_f1_scores_the_longest_common_run(run, tmp_path):
    data = write_rows(tmp_path / "cmrc.jsonl",
                      [{"response": "北京的大学", "reference": "北京大学"}])
    out = tmp_path / "r.jsonl"
    p = run("eval", data, "-m", "cmrc_f1,cmrc_em", "--out", out)
    assert p.returncode == 0, p.stderr
    scores = json.loads(out.read_text(encoding="utf-8"))["scores"]
    assert abs(scores["cmrc_f1"] - 2 * 0.4 * 0.5 / 0.9) < 1e-12
    assert scores["cmrc_em"] == 0.0
