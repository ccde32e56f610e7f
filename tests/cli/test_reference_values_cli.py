"""End to end: scores written by `ragmeter eval` equal the Python references on real text."""
import json

from cli_shared import REPO


def test_cli_scores_equal_reference_implementations(run, tmp_path):
    from rouge_score import rouge_scorer
    import sacrebleu
    from rapidfuzz.distance import Levenshtein

    rows = []
    for line in open(REPO / "tests/data/halueval_qa_one_turn.jsonl", encoding="utf-8"):
        r = json.loads(line)
        rows.append({"response": r["hallucinated_answer"], "reference": r["right_answer"]})
        rows.append({"response": r["right_answer"] + " " + r["question"], "reference": r["right_answer"]})
    data = tmp_path / "pairs.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out, summary = tmp_path / "r.jsonl", tmp_path / "s.json"
    p = run("eval", data, "-m", "rouge_l,rouge2,bleu,chrf,levenshtein_similarity", "--out", out,
            "--summary", summary, "-q")
    assert p.returncode == 0, p.stderr
    results = [json.loads(l) for l in open(out, encoding="utf-8")]
    scorer = rouge_scorer.RougeScorer(["rougeL", "rouge2"])
    bleu = sacrebleu.BLEU(effective_order=True)
    chrf = sacrebleu.CHRF()
    for row, res in zip(rows, results):
        rs = scorer.score(row["reference"], row["response"])
        assert abs(res["scores"]["rouge_l"] - rs["rougeL"].fmeasure) < 1e-9
        assert abs(res["scores"]["rouge2"] - rs["rouge2"].fmeasure) < 1e-9
        assert abs(res["scores"]["bleu"] - bleu.sentence_score(row["response"], [row["reference"]]).score / 100) < 1e-9
        assert abs(res["scores"]["chrf"] - chrf.sentence_score(row["response"], [row["reference"]]).score / 100) < 1e-9
        lev = Levenshtein.normalized_similarity(row["response"], row["reference"])
        assert abs(res["scores"]["levenshtein_similarity"] - lev) < 1e-9
    s = json.loads(summary.read_text())
    corpus = sacrebleu.corpus_bleu([r["response"] for r in rows], [[r["reference"] for r in rows]])
    assert abs(s["metrics"]["bleu"]["corpus"] - corpus.score / 100) < 1e-9
    corpus_chrf = sacrebleu.corpus_chrf([r["response"] for r in rows], [[r["reference"] for r in rows]])
    assert abs(s["metrics"]["chrf"]["corpus"] - corpus_chrf.score / 100) < 1e-9
