"""ragmeter.metrics: the pure scoring functions against the reference implementations
(sacreBLEU, rouge-score, rapidfuzz) and hand-checked retrieval values."""

import itertools

import pytest
import rapidfuzz.distance as rf
import sacrebleu
from rouge_score import rouge_scorer

import ragmeter
from ragmeter import metrics


@pytest.fixture(scope="module")
def pairs(example_rows_module):
    texts = [r["response"] for r in example_rows_module] + [r["reference"] for r in example_rows_module]
    texts += [c[:300] for r in example_rows_module for c in r["retrieved_contexts"][:2]]
    texts += ["", "a", "The cat sat on the mat.", "the cat  sat on a mat", "Straße über Ünïcödé 3.14"]
    return list(itertools.islice(itertools.product(texts[:40], texts[-45:]), 600))


@pytest.fixture(scope="module")
def example_rows_module():
    from conftest import EXAMPLE, read_jsonl

    return read_jsonl(EXAMPLE)


def test_bleu_and_chrf_equal_sacrebleu(pairs):
    chrf_pp = sacrebleu.CHRF(word_order=2)
    for hyp, ref in pairs:
        assert metrics.bleu(hyp, ref) == pytest.approx(sacrebleu.sentence_bleu(hyp, [ref]).score / 100, abs=1e-9)
        assert metrics.chrf(hyp, ref) == pytest.approx(sacrebleu.sentence_chrf(hyp, [ref]).score / 100, abs=1e-9)
        assert metrics.chrf_pp(hyp, ref) == pytest.approx(chrf_pp.sentence_score(hyp, [ref]).score / 100, abs=1e-9)
    hyps = [h for h, _ in pairs[:50]]
    refs = [r for _, r in pairs[:50]]
    assert metrics.corpus_bleu(hyps, refs) == pytest.approx(sacrebleu.corpus_bleu(hyps, [refs]).score / 100, abs=1e-9)
    # The best of several references (sacreBLEU too gives 100.00000000000004 for a match).
    assert metrics.bleu("the cat", ["a dog", "the cat"]) == pytest.approx(1.0, abs=1e-12)


def test_rouge_equals_rouge_score(pairs):
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL", "rougeLsum"], use_stemmer=True)
    for hyp, ref in pairs:
        expected = scorer.score(ref, hyp)  # rouge-score takes (target, prediction)
        assert metrics.rouge1(hyp, ref, stem=True) == pytest.approx(expected["rouge1"].fmeasure, abs=1e-12)
        assert metrics.rouge2(hyp, ref, stem=True, mode="recall") == pytest.approx(expected["rouge2"].recall, abs=1e-12)
        assert metrics.rouge_l(hyp, ref, stem=True, mode="precision") == pytest.approx(expected["rougeL"].precision, abs=1e-12)
        assert metrics.rouge_lsum(hyp, ref, stem=True) == pytest.approx(expected["rougeLsum"].fmeasure, abs=1e-12)


def test_string_similarities_equal_rapidfuzz(pairs):
    for a, b in pairs:
        assert metrics.levenshtein_distance(a, b) == rf.Levenshtein.distance(a, b)
        assert metrics.levenshtein_similarity(a, b) == pytest.approx(rf.Levenshtein.normalized_similarity(a, b), abs=1e-12)
        assert metrics.jaro_similarity(a, b) == pytest.approx(rf.Jaro.similarity(a, b), abs=1e-12)
        assert metrics.jaro_winkler_similarity(a, b) == pytest.approx(rf.JaroWinkler.similarity(a, b), abs=1e-12)
        assert metrics.hamming_similarity(a, b) == pytest.approx(rf.Hamming.normalized_similarity(a, b), abs=1e-12)
    with pytest.raises(ValueError):
        metrics.jaro_winkler_similarity("a", "b", prefix_weight=2.0)


def test_text_overlap_hand_checked():
    assert metrics.exact_match("Paris", "Paris") == 1.0 and metrics.exact_match("Paris", "paris") == 0.0
    assert metrics.string_presence("It is Paris.", "Paris") == 1.0
    assert metrics.squad_exact_match("The Paris!", ["London", "paris"]) == 1.0
    # tokens {cat, sat} vs {cat, sat, on, mat}: p = 1, r = 1/2, F1 = 2/3
    assert metrics.token_f1("the cat sat", "a cat sat on the mat") == pytest.approx(2 / 3)
    # 2 of the response's 3 tokens are in the contexts
    assert metrics.k_precision("cat sat down", ["the cat", "it sat"]) == pytest.approx(2 / 3)
    assert metrics.answer_token_recall("cat", "the cat sat") == pytest.approx(1 / 2)


def test_text_overlap_counts_words_in_other_languages():
    # The passage's clause with its full stop: SQuAD's tokens make each side one token.
    assert metrics.token_f1("首都是北京。", "首都是北京") == 1.0
    assert metrics.token_f1("首都是北京。", "首都是北京", language="en") == 0.0  # forced SQuAD
    # [首都, 是, 上海] against [首都, 是, 北京]: 2 of 3 words each way.
    assert metrics.token_f1("首都是上海。", "首都是北京") == pytest.approx(2 / 3)
    assert metrics.answer_token_recall("中国的首都是北京。", "北京") == 1.0
    assert metrics.k_precision("首都是北京", ["中国的首都是北京。"]) == 1.0
    with pytest.raises(ValueError, match="unknown language 'xx'"):
        metrics.token_f1("a", "a", language="xx")


def test_retrieval_hand_checked():
    ranking = ["d3", "d1", "d7", "d2"]
    relevant = ["d1", "d2", "d9"]
    assert metrics.precision(ranking, relevant, k=2) == 0.5
    assert metrics.recall(ranking, relevant) == pytest.approx(2 / 3)
    assert metrics.hit_rate(ranking, relevant, k=1) == 0.0
    assert metrics.mrr(ranking, relevant) == 0.5
    # AP: relevant at ranks 2 and 4 -> (1/2 + 2/4) / 3 relevant
    assert metrics.map(ranking, relevant) == pytest.approx((0.5 + 0.5) / 3)
    assert metrics.r_precision(ranking, relevant) == pytest.approx(1 / 3)
    # graded nDCG@3: gains d1=2 at rank 2; ideal d1=2, d2=1 (d9 = 0 gain)
    dcg = 2 / 1.5849625007211562
    idcg = 2 / 1.0 + 1 / 1.5849625007211562
    assert metrics.ndcg(ranking, {"d1": 2, "d2": 1, "d9": 0}, k=3) == pytest.approx(dcg / idcg)
    assert metrics.id_based_context_precision(["a", "b", "b"], ["b", "c"]) == 0.5
    assert metrics.id_based_context_recall(["a", "b"], ["b", "c"]) == 0.5


def test_functions_agree_with_evaluate(example_rows_module):
    result = ragmeter.evaluate(example_rows_module, metrics="bleu,rouge_l,token_f1,chrf_pp",
                               progress=False)
    for i, row in enumerate(example_rows_module):
        assert result.scores("bleu")[i] == metrics.bleu(row["response"], row["reference"])
        assert result.scores("rouge_l")[i] == metrics.rouge_l(row["response"], row["reference"])
        assert result.scores("token_f1")[i] == metrics.token_f1(row["response"], row["reference"])
        assert result.scores("chrf_pp")[i] == metrics.chrf_pp(row["response"], row["reference"])


def test_metric_table_lists_what_evaluate_accepts():
    names = [m["name"] for m in metrics.table()]
    assert {"faithfulness", "bleu", "ndcg", "context_recall"} <= set(names)
    assert metrics.metric_names("ragas") == ["faithfulness", "answer_relevancy",
                                              "context_precision", "context_recall"]
    assert metrics.metric_names("ndcg@10, bleu") == ["ndcg@10", "bleu"]
