// Adapters from a Sample to the pure scoring functions: they check the required
// fields (skipped with the field's name when missing or empty) and call the function.
// One per metric; the table in builtin.cc refers to them.
#pragma once

#include "ragmeter/ledger_metrics.h"
#include "ragmeter/metric.h"

namespace ragmeter::adapters {

#define RAGMETER_DECLARE_SCORE(name) \
  MetricResult name(const Sample& s, const MetricRequest& r, const ScoringOptions& o)

// Retrieval (ids, or string-matched contexts when ids are absent).
RAGMETER_DECLARE_SCORE(precision);
RAGMETER_DECLARE_SCORE(recall);
RAGMETER_DECLARE_SCORE(f1);
RAGMETER_DECLARE_SCORE(hit_rate);
RAGMETER_DECLARE_SCORE(mrr);
RAGMETER_DECLARE_SCORE(map);
RAGMETER_DECLARE_SCORE(r_precision);
RAGMETER_DECLARE_SCORE(ndcg);
RAGMETER_DECLARE_SCORE(id_based_context_precision);
RAGMETER_DECLARE_SCORE(id_based_context_recall);
RAGMETER_DECLARE_SCORE(non_llm_context_precision);
RAGMETER_DECLARE_SCORE(non_llm_context_recall);

// Text, response against reference.
RAGMETER_DECLARE_SCORE(exact_match);
RAGMETER_DECLARE_SCORE(string_presence);
RAGMETER_DECLARE_SCORE(squad_exact_match);
RAGMETER_DECLARE_SCORE(token_f1);
RAGMETER_DECLARE_SCORE(cmrc_f1);
RAGMETER_DECLARE_SCORE(cmrc_em);
RAGMETER_DECLARE_SCORE(bleu);
RAGMETER_DECLARE_SCORE(chrf);
RAGMETER_DECLARE_SCORE(chrf_pp);
RAGMETER_DECLARE_SCORE(rouge1);
RAGMETER_DECLARE_SCORE(rouge2);
RAGMETER_DECLARE_SCORE(rouge_l);
RAGMETER_DECLARE_SCORE(rouge_lsum);
RAGMETER_DECLARE_SCORE(levenshtein_similarity);
RAGMETER_DECLARE_SCORE(jaro_similarity);
RAGMETER_DECLARE_SCORE(jaro_winkler_similarity);
RAGMETER_DECLARE_SCORE(hamming_similarity);
RAGMETER_DECLARE_SCORE(k_precision);
RAGMETER_DECLARE_SCORE(answer_token_recall);

// Conversations (conversation_adapters.cc): the tool calls of a multi-turn sample.
RAGMETER_DECLARE_SCORE(ragas_tool_call_accuracy);
RAGMETER_DECLARE_SCORE(ragas_tool_call_accuracy_flexible);
RAGMETER_DECLARE_SCORE(ragas_tool_call_f1);
RAGMETER_DECLARE_SCORE(deepeval_tool_correctness);
RAGMETER_DECLARE_SCORE(deepeval_tool_correctness_ordered);
RAGMETER_DECLARE_SCORE(deepeval_tool_correctness_exact);

#undef RAGMETER_DECLARE_SCORE

// Judged (judged_adapters.cc): read the sample's judgement (judge.h).
#define RAGMETER_DECLARE_JUDGED(name) \
  MetricResult name(SampleJudgement& j, const MetricRequest& r, const ScoringOptions& o)

RAGMETER_DECLARE_JUDGED(faithfulness);
RAGMETER_DECLARE_JUDGED(answer_relevancy);
RAGMETER_DECLARE_JUDGED(context_precision);
RAGMETER_DECLARE_JUDGED(context_utilization);
RAGMETER_DECLARE_JUDGED(context_recall);
RAGMETER_DECLARE_JUDGED(context_entity_recall);
RAGMETER_DECLARE_JUDGED(noise_sensitivity_relevant);
RAGMETER_DECLARE_JUDGED(noise_sensitivity_irrelevant);
RAGMETER_DECLARE_JUDGED(factual_correctness);
RAGMETER_DECLARE_JUDGED(factual_correctness_precision);
RAGMETER_DECLARE_JUDGED(factual_correctness_recall);
RAGMETER_DECLARE_JUDGED(semantic_similarity);
RAGMETER_DECLARE_JUDGED(answer_correctness);
RAGMETER_DECLARE_JUDGED(aspect_critic);
// Conversations (judged_adapters.cc): ragas's agent goal accuracy as one critic call.
RAGMETER_DECLARE_JUDGED(ragas_agent_goal_accuracy);
RAGMETER_DECLARE_JUDGED(ragas_agent_goal_accuracy_without_reference);
// ... and ragas's topic adherence (F1, precision, recall) from one "topics" call.
RAGMETER_DECLARE_JUDGED(ragas_topic_adherence);
RAGMETER_DECLARE_JUDGED(ragas_topic_adherence_precision);
RAGMETER_DECLARE_JUDGED(ragas_topic_adherence_recall);
// ... and DeepEval's conversational metrics, each a conversation task named by the metric
// (conversation_task.h; conversation_task_adapter.cc).
RAGMETER_DECLARE_JUDGED(conversation_task);
// DeepEval's task completion (ask_task_completion; conversation_task_adapter.cc).
RAGMETER_DECLARE_JUDGED(deepeval_task_completion);
RAGMETER_DECLARE_JUDGED(rubric_score);
RAGMETER_DECLARE_JUDGED(context_relevance);
RAGMETER_DECLARE_JUDGED(summary_score);
// Images among the contexts (multimodal_adapters.cc).
RAGMETER_DECLARE_JUDGED(multimodal_faithfulness);
RAGMETER_DECLARE_JUDGED(multimodal_relevance);
RAGMETER_DECLARE_JUDGED(multimodal_claim_faithfulness);
RAGMETER_DECLARE_JUDGED(multimodal_context_recall);
RAGMETER_DECLARE_JUDGED(multimodal_context_utilization);

// RAGChecker's diagnostics, one instantiation per RagcheckerMetric.
template <RagcheckerMetric M>
RAGMETER_DECLARE_JUDGED(ragchecker);

#undef RAGMETER_DECLARE_JUDGED

// Corpus-level forms.
double corpus_bleu(const std::vector<double>& stats, const MetricRequest& r, const ScoringOptions& o);
double corpus_chrf(const std::vector<double>& stats, const MetricRequest& r, const ScoringOptions& o);
double corpus_chrf_pp(const std::vector<double>& stats, const MetricRequest& r,
                      const ScoringOptions& o);

}  // namespace ragmeter::adapters
