"""The pure scoring functions of the C++ library, one call per pair of texts or ranking.

    from ragmeter import metrics
    metrics.bleu("The cat sat.", "The cat sat on the mat.")      # sacreBLEU / 100
    metrics.rouge_l(response, reference, mode="recall")
    metrics.ndcg(["d3", "d1"], {"d1": 2, "d2": 1}, k=10)

Values equal the reference implementations' (sacreBLEU, rouge-score, rapidfuzz,
trec_eval, the SQuAD script), all on a 0..1 scale; docs/metrics.md defines each. The GIL
is released while they compute. ``table()`` lists every metric evaluate() accepts.
"""

from __future__ import annotations

from typing import Any, Dict, List

from ._core import (
    answer_token_recall,
    bleu,
    chrf,
    chrf_pp,
    corpus_bleu,
    corpus_chrf,
    exact_match,
    f1,
    hamming_similarity,
    hit_rate,
    id_based_context_precision,
    id_based_context_recall,
    jaro_similarity,
    jaro_winkler_similarity,
    k_precision,
    levenshtein_distance,
    levenshtein_similarity,
    map,
    metric_names,
    metric_table,
    mrr,
    ndcg,
    precision,
    r_precision,
    recall,
    rouge1,
    rouge2,
    rouge_l,
    rouge_lsum,
    squad_exact_match,
    string_presence,
    token_f1,
)

__all__ = [
    "answer_token_recall",
    "bleu",
    "chrf",
    "chrf_pp",
    "corpus_bleu",
    "corpus_chrf",
    "exact_match",
    "f1",
    "hamming_similarity",
    "hit_rate",
    "id_based_context_precision",
    "id_based_context_recall",
    "jaro_similarity",
    "jaro_winkler_similarity",
    "k_precision",
    "levenshtein_distance",
    "levenshtein_similarity",
    "map",
    "metric_names",
    "mrr",
    "ndcg",
    "precision",
    "r_precision",
    "recall",
    "rouge1",
    "rouge2",
    "rouge_l",
    "rouge_lsum",
    "squad_exact_match",
    "string_presence",
    "table",
    "token_f1",
]


def table() -> List[Dict[str, Any]]:
    """Every metric: name, family, fields, definition, takes_cutoff, higher_is_better,
    needs_llm; as ``ragmeter metrics`` prints them."""
    return metric_table()
