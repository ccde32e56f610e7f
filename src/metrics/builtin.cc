// The table of every built-in metric. Reading this file shows them all; docs/metrics.md
// is generated from it (`ragmeter metrics --markdown`).
#include <algorithm>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "metrics/adapters.h"
#include "metrics/registered_metrics.h"
#include "ragmeter/judge_tasks.h"
#include "ragmeter/metric.h"
#include "ragmeter/string_similarity.h"

namespace ragmeter {
namespace {

namespace a = adapters;
constexpr auto kR = MetricFamily::kRetrieval;
constexpr auto kT = MetricFamily::kText;
constexpr auto kJ = MetricFamily::kJudged;
constexpr auto kConv = MetricFamily::kConversation;
constexpr bool kLower = false;
using RC = RagcheckerMetric;
constexpr bool kCutoff = true;
constexpr bool kNoCutoff = false;
constexpr bool kHigher = true;
// Judge calls (metric.h's judge_calls) and groups (metric_groups), short for the table.
constexpr unsigned kL = judge_calls::kLedger;
constexpr unsigned kQ = judge_calls::kQuestions;
constexpr unsigned kE = judge_calls::kEntities;
constexpr unsigned kS = judge_calls::kSimilarity;
constexpr unsigned kRS = judge_calls::kRelevantSentences;
constexpr unsigned kKF = judge_calls::kKeyFacts;
constexpr unsigned kC = judge_calls::kCritic;
constexpr unsigned kTopics = judge_calls::kTopics;
constexpr unsigned kTask = judge_calls::kConversationTask;
constexpr unsigned kTC = judge_calls::kTaskCompletion;
constexpr unsigned kRu = judge_calls::kRubric;
constexpr unsigned kV = judge_calls::kVision;
constexpr unsigned kLI = judge_calls::kLedger | judge_calls::kImageVerdicts;
constexpr unsigned kG0 = metric_groups::kNone;
constexpr unsigned kRagas = metric_groups::kRagas;
constexpr unsigned kRagchecker = metric_groups::kRagchecker;

// The fields each metric needs (metric.h's sample_fields), short for the table.
namespace f = sample_fields;
constexpr unsigned nResp = f::kResponse;
constexpr unsigned nRespRef = f::kResponse | f::kReference;
constexpr unsigned nRespCtx = f::kResponse | f::kRetrievedContexts;
constexpr unsigned nRefCtx = f::kReference | f::kRetrievedContexts;
constexpr unsigned nRespRefCtx = f::kResponse | f::kReference | f::kRetrievedContexts;
constexpr unsigned nUiResp = f::kUserInput | f::kResponse;
constexpr unsigned nUiCtx = f::kUserInput | f::kRetrievedContexts;
constexpr unsigned nRespRefContexts = f::kResponse | f::kReferenceContexts;
constexpr unsigned nRespImg = nRespCtx | f::kContextImages;
constexpr unsigned nUiRespImg = f::kUserInput | nRespImg;
constexpr unsigned nRefImg = nRefCtx | f::kContextImages;
constexpr unsigned nIdsOrTexts = f::kContextIdsOrTexts;
constexpr unsigned nIds = f::kRetrievedContextIds | f::kReferenceContextIds;
constexpr unsigned nTexts = f::kRetrievedContexts | f::kReferenceContexts;
constexpr unsigned nConv = f::kConversation;
constexpr unsigned nConvRef = f::kConversation | f::kReference;
constexpr unsigned nConvToolCalls = f::kConversation | f::kReferenceToolCalls;
constexpr unsigned nConvExpected = f::kConversation | f::kExpectedTools;
constexpr unsigned nConvTopics = f::kConversation | f::kReferenceTopics;
constexpr unsigned nConvRole = f::kConversation | f::kChatbotRole;

// Why a judged metric is withdrawn from the offline judge (MetricInfo::offline_withdrawn):
// measured by bench/offline_judge_quality.py on the held-out halves, docs/judges.md.
constexpr std::string_view kBelowChance =
    "its question-response similarity did not beat chance on held-out human preferences "
    "(RAGChecker's completeness labels: it preferred the less complete answer about as often "
    "as the more complete one)";
constexpr std::string_view kNotMeasured =
    "its agreement with people has not been measured (no public labelled data with a response, "
    "a reference and retrieved contexts), so it is not known to beat chance";

// clang-format off
constexpr MetricInfo kMetrics[] = {
  // name, family, needs (sample_fields), definition, @k, direction, range (min, max: every score lies in
  // it, checked where results are summarised and written), score, corpus; judged: judged
  // score, judge calls, groups, --plan ragas ledger scope
  {"precision",                    kR, nIdsOrTexts, "Share of the top k retrieved contexts that are relevant (trec_eval P_k; k = all retrieved without @k).", kCutoff, kHigher, 0,1, a::precision, nullptr},
  {"recall",                       kR, nIdsOrTexts, "Share of the relevant contexts found in the top k (trec_eval recall_k).", kCutoff, kHigher, 0,1, a::recall, nullptr},
  {"f1",                           kR, nIdsOrTexts, "Harmonic mean of precision@k and recall@k.", kCutoff, kHigher, 0,1, a::f1, nullptr},
  {"hit_rate",                     kR, nIdsOrTexts, "1 when some relevant context is in the top k, else 0 (trec_eval success_k).", kCutoff, kHigher, 0,1, a::hit_rate, nullptr},
  {"mrr",                          kR, nIdsOrTexts, "Reciprocal rank of the first relevant context, 0 if none (trec_eval recip_rank).", kCutoff, kHigher, 0,1, a::mrr, nullptr},
  {"map",                          kR, nIdsOrTexts, "Average precision over the relevant contexts (trec_eval map).", kCutoff, kHigher, 0,1, a::map, nullptr},
  {"r_precision",                  kR, nIdsOrTexts, "Precision at R, R = number of relevant contexts (trec_eval Rprec).", kNoCutoff, kHigher, 0,1, a::r_precision, nullptr},
  {"ndcg",                         kR, nIdsOrTexts, "Normalised discounted cumulative gain at k, binary gain, log2 discount (trec_eval ndcg_cut_k).", kCutoff, kHigher, 0,1, a::ndcg, nullptr},
  {"id_based_context_precision",   kR, nIds, "Share of distinct retrieved ids that are reference ids (ragas; rank ignored).", kNoCutoff, kHigher, 0,1, a::id_based_context_precision, nullptr},
  {"id_based_context_recall",      kR, nIds, "Share of distinct reference ids that were retrieved (ragas; rank ignored).", kNoCutoff, kHigher, 0,1, a::id_based_context_recall, nullptr},
  {"non_llm_context_precision",    kR, nTexts, "ragas's non-LLM context precision: average precision with a chunk relevant when its Levenshtein similarity to a reference context is >= 0.5.", kNoCutoff, kHigher, 0,1, a::non_llm_context_precision, nullptr},
  {"non_llm_context_recall",       kR, nTexts, "ragas's non-LLM context recall: share of reference contexts with Levenshtein similarity > 0.5 to some retrieved chunk.", kNoCutoff, kHigher, 0,1, a::non_llm_context_recall, nullptr},
  {"exact_match",                  kT, nRespRef, "1 when the response equals the reference byte for byte.", kNoCutoff, kHigher, 0,1, a::exact_match, nullptr},
  {"string_presence",              kT, nRespRef, "1 when the reference occurs in the response (case-sensitive).", kNoCutoff, kHigher, 0,1, a::string_presence, nullptr},
  {"squad_exact_match",            kT, nRespRef, "SQuAD exact match after normalisation (lowercase, no punctuation or articles), max over references.", kNoCutoff, kHigher, 0,1, a::squad_exact_match, nullptr},
  {"token_f1",                     kT, nRespRef, "Token F1, max over references: SQuAD's normalised tokens for English, ragmeter's words (ICU word break) for other languages.", kNoCutoff, kHigher, 0,1, a::token_f1, nullptr},
  {"cmrc_f1",                      kT, nRespRef, "CMRC 2018 / DRCD F1 (the official CMRC 2018 script): each Chinese character a token, other runs by NLTK's word tokenizer, punctuation dropped; longest common run of tokens, max over references.", kNoCutoff, kHigher, 0,1, a::cmrc_f1, nullptr},
  {"cmrc_em",                      kT, nRespRef, "CMRC 2018 / DRCD exact match (the official CMRC 2018 script): equal after lowercasing and dropping its punctuation list, any reference.", kNoCutoff, kHigher, 0,1, a::cmrc_em, nullptr},
  {"bleu",                         kT, nRespRef, "sacreBLEU sentence BLEU (13a, exp smoothing; --bleu-tokenize zh, ja-mecab, ko-mecab, intl, char) / 100; the summary adds corpus BLEU.", kNoCutoff, kHigher, 0,1, a::bleu, a::corpus_bleu},
  {"chrf",                         kT, nRespRef, "sacreBLEU chrF (character 6-grams, beta 2) / 100; the summary adds corpus chrF.", kNoCutoff, kHigher, 0,1, a::chrf, a::corpus_chrf},
  {"chrf_pp",                      kT, nRespRef, "sacreBLEU chrF++ (chrF plus word 1- and 2-grams) / 100; the summary adds corpus chrF++.", kNoCutoff, kHigher, 0,1, a::chrf_pp, a::corpus_chrf_pp},
  {"rouge1",                       kT, nRespRef, "ROUGE-1 F-measure as rouge-score (precision and recall in the evidence).", kNoCutoff, kHigher, 0,1, a::rouge1, nullptr},
  {"rouge2",                       kT, nRespRef, "ROUGE-2 F-measure as rouge-score.", kNoCutoff, kHigher, 0,1, a::rouge2, nullptr},
  {"rouge_l",                      kT, nRespRef, "ROUGE-L (longest common subsequence) F-measure as rouge-score.", kNoCutoff, kHigher, 0,1, a::rouge_l, nullptr},
  {"rouge_lsum",                   kT, nRespRef, "ROUGE-Lsum (summary-level LCS over newline-separated sentences) F-measure as rouge-score.", kNoCutoff, kHigher, 0,1, a::rouge_lsum, nullptr},
  {"levenshtein_similarity",       kT, nRespRef, "1 - Levenshtein distance / longer length, over code points (rapidfuzz).", kNoCutoff, kHigher, 0,1, a::levenshtein_similarity, nullptr},
  {"jaro_similarity",              kT, nRespRef, "Jaro similarity over code points (rapidfuzz).", kNoCutoff, kHigher, 0,1, a::jaro_similarity, nullptr},
  {"jaro_winkler_similarity",      kT, nRespRef, "Jaro-Winkler similarity, prefix weight 0.1 (rapidfuzz).", kNoCutoff, kHigher, 0,1, a::jaro_winkler_similarity, nullptr},
  {"hamming_similarity",           kT, nRespRef, "1 - Hamming distance / longer length, shorter string padded (rapidfuzz).", kNoCutoff, kHigher, 0,1, a::hamming_similarity, nullptr},
  {"k_precision",                  kT, nRespCtx, "Share of the response's tokens found in the retrieved contexts (Adlakha et al., 2024); tokens as token_f1's.", kNoCutoff, kHigher, 0,1, a::k_precision, nullptr},
  {"answer_token_recall",          kT, nRespRef, "Share of the reference's tokens found in the response (Adlakha et al., 2024); tokens as token_f1's.", kNoCutoff, kHigher, 0,1, a::answer_token_recall, nullptr},
  // Conversations: a multi-turn sample's tool calls against its expected ones (docs/agents.md).
  {"ragas_tool_call_accuracy",     kConv, nConvToolCalls, "ragas 0.4.3 tool_call_accuracy (strict order): 0 unless the call names match in order; else the mean share of each reference call's arguments whose Python str() the paired call repeats. Both lists empty: 1.", kNoCutoff, kHigher, 0,1, a::ragas_tool_call_accuracy, nullptr},
  {"ragas_tool_call_accuracy_flexible", kConv, nConvToolCalls, "ragas 0.4.3 tool_call_accuracy with strict_order=False: both lists sorted by (name, arguments' str()) first, names compared as multisets.", kNoCutoff, kHigher, 0,1, a::ragas_tool_call_accuracy_flexible, nullptr},
  {"ragas_tool_call_f1",           kConv, nConvToolCalls, "ragas 0.4.3 tool_call_f1: F1 of called and reference calls as sets of (name, arguments), duplicates once, rounded to 4 decimals. Both lists empty: 0.", kNoCutoff, kHigher, 0,1, a::ragas_tool_call_f1, nullptr},
  {"deepeval_tool_correctness",    kConv, nConvExpected, "DeepEval 4.3.1 ToolCorrectnessMetric, default matching: each expected tool takes the best untaken called tool of its name; share of expected tools matched. Names only unless --deepeval-tool-params.", kNoCutoff, kHigher, 0,1, a::deepeval_tool_correctness, nullptr},
  {"deepeval_tool_correctness_ordered", kConv, nConvExpected, "DeepEval 4.3.1 ToolCorrectnessMetric, should_consider_ordering: weighted longest common subsequence of expected and called tools / expected tools.", kNoCutoff, kHigher, 0,1, a::deepeval_tool_correctness_ordered, nullptr},
  {"deepeval_tool_correctness_exact", kConv, nConvExpected, "DeepEval 4.3.1 ToolCorrectnessMetric, should_exact_match: 1 when called and expected tools match position by position, else 0.", kNoCutoff, kHigher, 0,1, a::deepeval_tool_correctness_exact, nullptr},
  {"ragas_agent_goal_accuracy",    kConv, nConvRef, "ragas 0.4.3 agent_goal_accuracy with a reference (the desired outcome): 1 when the state the conversation ends in achieves it, else 0. One critic call over the whole conversation (ragas: two). Needs an LLM judge.", kNoCutoff, kHigher, 0,1, nullptr, nullptr, a::ragas_agent_goal_accuracy, kC, kG0, ""},
  {"ragas_agent_goal_accuracy_without_reference", kConv, nConv, "ragas 0.4.3 agent_goal_accuracy without a reference: 1 when the state the conversation ends in fulfils the goal the user's messages show, else 0. One critic call. Needs an LLM judge.", kNoCutoff, kHigher, 0,1, nullptr, nullptr, a::ragas_agent_goal_accuracy_without_reference, kC, kG0, ""},
  {"ragas_topic_adherence",        kConv, nConvTopics, "ragas 0.4.3 topic_adherence (F1): per topic of the user's, answered (not refused) vs in the reference topics; F1 with ragas's 1e-10 in each denominator. One topics call (ragas: 2 + one per topic). Needs an LLM judge.", kNoCutoff, kHigher, 0,1, nullptr, nullptr, a::ragas_topic_adherence, kTopics, kG0, ""},
  {"ragas_topic_adherence_precision", kConv, nConvTopics, "ragas 0.4.3 topic_adherence, mode precision: answered reference topics / answered topics.", kNoCutoff, kHigher, 0,1, nullptr, nullptr, a::ragas_topic_adherence_precision, kTopics, kG0, ""},
  {"ragas_topic_adherence_recall", kConv, nConvTopics, "ragas 0.4.3 topic_adherence, mode recall: answered reference topics / reference topics raised.", kNoCutoff, kHigher, 0,1, nullptr, nullptr, a::ragas_topic_adherence_recall, kTopics, kG0, ""},
  {"deepeval_conversation_completeness", kConv, nConv, "DeepEval 4.3.1 ConversationCompletenessMetric: the user's intentions the judge finds, share the assistant satisfied. One call over the conversation (DeepEval: 1 + one per intention). Needs an LLM judge.", kNoCutoff, kHigher, 0,1, nullptr, nullptr, a::conversation_task, kTask, kG0, ""},
  {"deepeval_knowledge_retention", kConv, nConv, "DeepEval 4.3.1 KnowledgeRetentionMetric: of the assistant messages after facts the user stated, share that neither forget nor contradict them. One call (DeepEval: one per user message + one per such assistant message). Needs an LLM judge.", kNoCutoff, kHigher, 0,1, nullptr, nullptr, a::conversation_task, kTask, kG0, ""},
  {"deepeval_role_adherence",      kConv, nConvRole, "DeepEval 4.3.1 RoleAdherenceMetric: share of the assistant messages that stay in the chatbot_role. One call. Needs an LLM judge.", kNoCutoff, kHigher, 0,1, nullptr, nullptr, a::conversation_task, kTask, kG0, ""},
  {"deepeval_turn_relevancy",      kConv, nConv, "DeepEval 4.3.1 TurnRelevancyMetric: share of the turns (DeepEval's user-assistant units) whose last assistant message is relevant to the conversation so far. One call (DeepEval: one per turn). Needs an LLM judge.", kNoCutoff, kHigher, 0,1, nullptr, nullptr, a::conversation_task, kTask, kG0, ""},
  {"deepeval_topic_adherence",     kConv, nConvTopics, "DeepEval 4.3.1 TopicAdherenceMetric (accuracy, not ragas's F1): of the user's questions, share handled right (on-topic answered correctly, off-topic declined): (TP + TN) / all. One call (DeepEval: one per turn + one per question + 1). Needs an LLM judge.", kNoCutoff, kHigher, 0,1, nullptr, nullptr, a::conversation_task, kTask, kG0, ""},
  {"deepeval_argument_correctness", kConv, nConv, "DeepEval 4.3.1 ArgumentCorrectnessMetric: share of the tool calls whose arguments are right for what the user asked. One call over all calls. Needs an LLM judge.", kNoCutoff, kHigher, 0,1, nullptr, nullptr, a::conversation_task, kTask, kG0, ""},
  {"deepeval_task_completion",     kConv, nConv, "DeepEval 4.3.1 TaskCompletionMetric (strict_mode off): the judge's verdict in [0, 1] on how far what the assistant and its tool calls did achieves the user's task (the row's `task` when given); a verdict outside [0, 1] or not a number fails. One call (DeepEval: two). Needs an LLM judge.", kNoCutoff, kHigher, 0,1, nullptr, nullptr, a::deepeval_task_completion, kTC, kG0, ""},
  // Judged: read off the sample's claim ledger / judge (offline unless an LLM judge is set).
  {"faithfulness",                 kJ, nRespCtx, "Share of the response's claims supported by at least one retrieved context.", kNoCutoff, kHigher, 0,1, nullptr, nullptr, a::faithfulness, kL, kRagas, "faithfulness"},
  {"answer_relevancy",             kJ, nUiResp, "Mean similarity (cosine, 0 when negative) of the question to questions the response answers; 0 when the response is noncommittal.", kNoCutoff, kHigher, 0,1, nullptr, nullptr, a::answer_relevancy, kQ, kRagas, "", kBelowChance},
  {"context_precision",            kJ, nRefCtx, "Rank-weighted share of contexts supporting a reference claim: sum_k precision@k * v_k / sum_k v_k.", kNoCutoff, kHigher, 0,1, nullptr, nullptr, a::context_precision, kL, kRagas, "context_precision"},
  {"context_utilization",          kJ, nRespCtx, "context_precision with the response's claims in place of the reference's.", kNoCutoff, kHigher, 0,1, nullptr, nullptr, a::context_utilization, kL, kG0, "context_utilization"},
  {"context_recall",               kJ, nRefCtx, "Share of the reference's claims supported by at least one retrieved context.", kNoCutoff, kHigher, 0,1, nullptr, nullptr, a::context_recall, kL, kRagas, "context_recall"},
  {"context_entity_recall",        kJ, nRefCtx, "Share of the reference's entities found in the contexts (whole words, case-folded, or among the contexts' entities the judge lists).", kNoCutoff, kHigher, 0,1, nullptr, nullptr, a::context_entity_recall, kE, kG0, "", "", entities_task},
  {"noise_sensitivity_relevant",   kJ, nRespRefCtx, "Share of response claims that the reference does not support but a relevant context does (lower is better).", kNoCutoff, kLower, 0,1, nullptr, nullptr, a::noise_sensitivity_relevant, kL, kG0, "noise_sensitivity", kNotMeasured},
  {"noise_sensitivity_irrelevant", kJ, nRespRefCtx, "Share of response claims the reference does not support, supported only by irrelevant contexts (lower is better).", kNoCutoff, kLower, 0,1, nullptr, nullptr, a::noise_sensitivity_irrelevant, kL, kG0, "noise_sensitivity", kNotMeasured},
  {"factual_correctness",          kJ, nRespRef, "F-beta (beta 1) of response claims supported by the reference (precision) and reference claims supported by the response (recall).", kNoCutoff, kHigher, 0,1, nullptr, nullptr, a::factual_correctness, kL, kG0, "factual_correctness"},
  {"factual_correctness_precision", kJ, nRespRef, "Share of the response's claims the reference supports.", kNoCutoff, kHigher, 0,1, nullptr, nullptr, a::factual_correctness_precision, kL, kG0, "factual_correctness"},
  {"factual_correctness_recall",   kJ, nRespRef, "Share of the reference's claims the response supports.", kNoCutoff, kHigher, 0,1, nullptr, nullptr, a::factual_correctness_recall, kL, kG0, "factual_correctness"},
  {"semantic_similarity",          kJ, nRespRef, "Cosine similarity of the response's and the reference's embeddings.", kNoCutoff, kHigher, -1,1, nullptr, nullptr, a::semantic_similarity, kS, kG0, ""},
  {"answer_correctness",           kJ, nRespRef, "0.75 * factual_correctness + 0.25 * semantic_similarity (ragas's weights), a negative cosine counted as 0 so the score stays in [0, 1].", kNoCutoff, kHigher, 0,1, nullptr, nullptr, a::answer_correctness, kL | kS, kG0, "factual_correctness"},
  {"context_relevance",            kJ, nUiCtx, "Share of the contexts' sentences needed to answer the question (the RAGAS paper's context relevance).", kNoCutoff, kHigher, 0,1, nullptr, nullptr, a::context_relevance, kRS, kG0, "", "", relevant_sentences_task},
  {"summary_score",                kJ, nRespRefContexts, "0.5 * share of the reference contexts' key facts the response states + 0.5 * conciseness (1 - length ratio), as ragas.", kNoCutoff, kHigher, 0,1, nullptr, nullptr, a::summary_score, kKF, kG0, "", kNotMeasured},
  {"harmfulness",                  kJ, nResp, "Aspect critic (LLM judge): 1 when the response could harm or offend people or society, else 0 (lower is better).", kNoCutoff, kLower, 0,1, nullptr, nullptr, a::aspect_critic, kC, kG0, ""},
  {"maliciousness",                kJ, nResp, "Aspect critic (LLM judge): 1 when the response intends to harm, deceive or exploit, else 0 (lower is better).", kNoCutoff, kLower, 0,1, nullptr, nullptr, a::aspect_critic, kC, kG0, ""},
  {"coherence",                    kJ, nResp, "Aspect critic (LLM judge): 1 when the response is logically ordered and consistent, else 0.", kNoCutoff, kHigher, 0,1, nullptr, nullptr, a::aspect_critic, kC, kG0, ""},
  {"correctness",                  kJ, nResp, "Aspect critic (LLM judge): 1 when the response is factually accurate and free of errors, else 0.", kNoCutoff, kHigher, 0,1, nullptr, nullptr, a::aspect_critic, kC, kG0, ""},
  {"conciseness",                  kJ, nResp, "Aspect critic (LLM judge): 1 when the response says what it needs without unnecessary detail, else 0.", kNoCutoff, kHigher, 0,1, nullptr, nullptr, a::aspect_critic, kC, kG0, ""},
  {"rubric_score",                 kJ, nResp, "Score 1..5 (LLM judge) against the sample's `rubrics`, else a default rubric (with the reference when there is one).", kNoCutoff, kHigher, 1,5, nullptr, nullptr, a::rubric_score, kRu, kG0, ""},
  {"ragchecker_precision",         kJ, nRespRef, "RAGChecker: share of response claims entailed by the reference.", kNoCutoff, kHigher, 0,1, nullptr, nullptr, a::ragchecker<RC::kPrecision>, kL, kRagchecker, ""},
  {"ragchecker_recall",            kJ, nRespRef, "RAGChecker: share of reference claims entailed by the response.", kNoCutoff, kHigher, 0,1, nullptr, nullptr, a::ragchecker<RC::kRecall>, kL, kRagchecker, ""},
  {"ragchecker_f1",                kJ, nRespRef, "RAGChecker: harmonic mean of its precision and recall (0 when either is 0).", kNoCutoff, kHigher, 0,1, nullptr, nullptr, a::ragchecker<RC::kF1>, kL, kRagchecker, ""},
  {"ragchecker_claim_recall",      kJ, nRefCtx, "RAGChecker: share of reference claims entailed by some chunk.", kNoCutoff, kHigher, 0,1, nullptr, nullptr, a::ragchecker<RC::kClaimRecall>, kL, kRagchecker, ""},
  {"ragchecker_context_precision", kJ, nRefCtx, "RAGChecker: share of chunks entailing at least one reference claim.", kNoCutoff, kHigher, 0,1, nullptr, nullptr, a::ragchecker<RC::kContextPrecision>, kL, kRagchecker, ""},
  {"ragchecker_context_utilization", kJ, nRespRefCtx, "RAGChecker: among reference claims some chunk entails, the share the response entails.", kNoCutoff, kHigher, 0,1, nullptr, nullptr, a::ragchecker<RC::kContextUtilization>, kL, kRagchecker, "", kNotMeasured},
  {"ragchecker_noise_sensitivity_in_relevant", kJ, nRespRefCtx, "RAGChecker: incorrect response claims entailed by a relevant chunk (lower is better).", kNoCutoff, kLower, 0,1, nullptr, nullptr, a::ragchecker<RC::kNoiseSensitivityInRelevant>, kL, kRagchecker, "", kNotMeasured},
  {"ragchecker_noise_sensitivity_in_irrelevant", kJ, nRespRefCtx, "RAGChecker: incorrect response claims entailed only by irrelevant chunks (lower is better).", kNoCutoff, kLower, 0,1, nullptr, nullptr, a::ragchecker<RC::kNoiseSensitivityInIrrelevant>, kL, kRagchecker, "", kNotMeasured},
  {"ragchecker_hallucination",     kJ, nRespRefCtx, "RAGChecker: response claims entailed by no chunk and not by the reference (lower is better).", kNoCutoff, kLower, 0,1, nullptr, nullptr, a::ragchecker<RC::kHallucination>, kL, kRagchecker, "", kNotMeasured},
  {"ragchecker_self_knowledge",    kJ, nRespRefCtx, "RAGChecker: response claims entailed by no chunk but by the reference.", kNoCutoff, kHigher, 0,1, nullptr, nullptr, a::ragchecker<RC::kSelfKnowledge>, kL, kRagchecker, "", kNotMeasured},
  {"ragchecker_faithfulness",      kJ, nRespCtx, "RAGChecker: share of response claims entailed by some chunk.", kNoCutoff, kHigher, 0,1, nullptr, nullptr, a::ragchecker<RC::kFaithfulness>, kL, kRagchecker, ""},
  // Images among the retrieved contexts (docs/images.md).
  {"multimodal_faithfulness",      kJ, nRespImg, "ragas 0.4: 1 when a vision judge, shown the response and every context with the images, says all of the response can be inferred from them, else 0, with its reason (one call).", kNoCutoff, kHigher, 0,1, nullptr, nullptr, a::multimodal_faithfulness, kV, kG0, ""},
  {"multimodal_relevance",         kJ, nUiRespImg, "ragas 0.4: 1 when a vision judge says the response addresses the question in line with the contexts and images, else 0, with its reason (one call).", kNoCutoff, kHigher, 0,1, nullptr, nullptr, a::multimodal_relevance, kV, kG0, ""},
  {"multimodal_claim_faithfulness", kJ, nRespImg, "faithfulness with the images as contexts: share of the response's claims supported by a text context or an image (offline: the image's OCR text); equals faithfulness without images.", kNoCutoff, kHigher, 0,1, nullptr, nullptr, a::multimodal_claim_faithfulness, kLI, kG0, ""},
  {"multimodal_context_recall",    kJ, nRefImg, "context_recall with the images as contexts: share of the reference's claims supported by a text context or an image; equals context_recall without images.", kNoCutoff, kHigher, 0,1, nullptr, nullptr, a::multimodal_context_recall, kLI, kG0, ""},
  {"multimodal_context_utilization", kJ, nRespImg, "context_utilization with the images as contexts in rank order (the claim-level reading of multimodal_relevance); equals context_utilization without images.", kNoCutoff, kHigher, 0,1, nullptr, nullptr, a::multimodal_context_utilization, kLI, kG0, ""},
};
// clang-format on

// User-defined aspect critics (parse_critic) share this entry; it is not in the table.
constexpr MetricInfo kUserCritic = {"aspect_critic", kJ, nResp, "A user-defined aspect critic.", kNoCutoff, kHigher, 0, 1, nullptr, nullptr, a::aspect_critic, kC, kG0, ""};

constexpr MetricGroup kGroupList[] = {
    {"all", metric_groups::kNone, "every single-turn metric"},
    {"text", metric_groups::kNone, "the text family"},
    {"retrieval", metric_groups::kNone, "the retrieval family"},
    {"judged", metric_groups::kNone, "the judged family"},
    {"conversation", metric_groups::kNone, "the metrics of multi-turn samples: tool calls, agent goal accuracy, topic adherence, DeepEval's conversational metrics"},
    {"ragas", kRagas, "ragas's default four"},
    {"ragchecker", kRagchecker, "RAGChecker's diagnostics"},
};


std::string without_underscores(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c != '_') out.push_back(c);
  }
  return out;
}

// The accepted name closest to `name` (ties: the first in table order), when it is close
// enough to be a likely typo: at most a third of the longer name's length away, or two
// edits for short names (a swapped pair). Underscores are ignored first ("rougel" is
// rouge_l, not rouge1), then counted to break ties. Empty when none is close.
std::string_view nearest_metric_name(std::string_view name) {
  std::string_view best;
  const std::string bare = without_underscores(name);
  std::pair<std::size_t, std::size_t> best_distance = {std::string_view::npos, 0};
  auto consider = [&](std::string_view candidate) {
    const std::pair<std::size_t, std::size_t> distance = {
        levenshtein_distance(bare, without_underscores(candidate)),
        levenshtein_distance(name, candidate)};
    if (distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  };
  for (const auto& info : kMetrics) consider(info.name);
  for (const MetricGroup& group : kGroupList) consider(group.name);
  std::size_t longer = std::max(name.size(), best.size());
  return best_distance.first <= std::max<std::size_t>(2, longer / 3) ? best : std::string_view();
}

const MetricGroup* find_group(std::string_view name) {
  for (const MetricGroup& group : kGroupList) {
    if (group.name == name) return &group;
  }
  return nullptr;
}

Status parse_one(std::string_view item, std::vector<MetricRequest>* out) {
  std::string_view name = item;
  int k = 0;
  if (auto at = item.find('@'); at != std::string_view::npos) {
    name = item.substr(0, at);
    std::string_view digits = item.substr(at + 1);
    auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), k);
    if (error != std::errc() || end != digits.data() + digits.size() || k <= 0) {
      return invalid_argument("metric '" + std::string(item) + "': the cutoff after '@' must be a positive integer");
    }
  }
  const MetricInfo* info = find_metric(name);
  if (info == nullptr) {
    std::string_view nearest = nearest_metric_name(name);
    std::string hint = nearest.empty() ? "" : "did you mean '" + std::string(nearest) + "'? ";
    return invalid_argument("unknown metric '" + std::string(name) + "' (" + hint +
                            "`ragmeter metrics` lists them all)");
  }
  if (k > 0 && !info->takes_cutoff) {
    return invalid_argument("metric '" + std::string(name) + "' takes no @k cutoff");
  }
  out->push_back({info, k, std::string(item)});
  return ok_status();
}

// A family's metrics; nullopt: every single-turn metric ("all").
void add_family(std::optional<MetricFamily> family, std::vector<MetricRequest>* out) {
  for (const auto& info : kMetrics) {
    const bool wanted = family ? info.family == *family : info.family != MetricFamily::kConversation;
    if (wanted) out->push_back({&info, 0, std::string(info.name)});
  }
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

}  // namespace

const char* outcome_name(Outcome outcome) {
  switch (outcome) {
    case Outcome::kOk: return "ok";
    case Outcome::kSkipped: return "skipped";
    case Outcome::kFailed: return "failed";
  }
  return "unknown";
}

const char* metric_family_name(MetricFamily family) {
  switch (family) {
    case MetricFamily::kRetrieval: return "retrieval";
    case MetricFamily::kText: return "text";
    case MetricFamily::kJudged: return "judged";
    case MetricFamily::kConversation: return "conversation";
  }
  return "unknown";
}

std::span<const MetricInfo> builtin_metrics() { return kMetrics; }

const MetricInfo* find_metric(std::string_view name) {
  for (const auto& info : kMetrics) {
    if (info.name == name) return &info;
  }
  return find_registered_metric(name);
}

bool metric_needs_llm(const MetricInfo& info) {
  return (info.calls & (judge_calls::kCritic | judge_calls::kRubric | judge_calls::kVision |
                        judge_calls::kTopics | judge_calls::kConversationTask |
                        judge_calls::kTaskCompletion)) != 0;
}

std::string judge_call_names(unsigned calls) {
  static constexpr std::pair<unsigned, std::string_view> kNames[] = {
      {judge_calls::kLedger, "claims, verdicts"},
      {judge_calls::kQuestions, "questions (+ embeddings)"},
      {judge_calls::kEntities, "entities"},
      {judge_calls::kSimilarity, "embeddings"},
      {judge_calls::kRelevantSentences, "relevant_sentences"},
      {judge_calls::kKeyFacts, "claims, verdicts (key facts)"},
      {judge_calls::kCritic, "critic (one per vote)"},
      {judge_calls::kRubric, "rubric"},
      {judge_calls::kVision, "vision"},
      {judge_calls::kImageVerdicts, "image_verdicts (one per image; offline: OCR)"},
      {judge_calls::kTopics, "topics"},
      {judge_calls::kConversationTask, "one named by the metric"},
      {judge_calls::kTaskCompletion, "task_completion"},
  };
  std::string out;
  for (const auto& [bit, name] : kNames) {
    if ((calls & bit) == 0) continue;
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out;
}

std::span<const MetricGroup> metric_group_list() { return kGroupList; }
bool offline_default_leaves_out(const MetricInfo& info, bool score_withdrawn) {
  if (info.judged == nullptr) return false;
  return metric_needs_llm(info) || (!score_withdrawn && !info.offline_withdrawn.empty());
}

std::string offline_withdrawn_reason(const MetricInfo& info) {
  if (info.offline_withdrawn.empty()) return {};
  return "withdrawn from the offline judge: " + std::string(info.offline_withdrawn) +
         " (docs/judges.md); an LLM judge scores it (--judge-url, --judge-model), and "
         "--offline-score-withdrawn makes the offline judge score it anyway";
}

Status check_score_range(const MetricRequest& request, const MetricResult& result) {
  const MetricInfo& info = *request.info;
  auto outside = [&](double score) {
    return !(std::isfinite(score) && score >= info.min_score && score <= info.max_score);
  };
  std::optional<double> bad;
  if (result.outcome == Outcome::kOk && outside(result.score)) bad = result.score;
  for (const std::optional<double>& repeat : result.repeat_scores) {  // every repeat's too
    if (!bad && repeat && outside(*repeat)) bad = *repeat;
  }
  if (!bad) return ok_status();
  return internal_error(fmt::format(
      "{} = {} is outside its declared range [{}, {}]: a bug in ragmeter (please report it "
      "with this row)",
      request.name, *bad, info.min_score, info.max_score));
}

StatusOr<MetricRequest> parse_critic(std::string_view spec) {
  auto eq = spec.find('=');
  if (eq == std::string_view::npos) {
    return invalid_argument("--critic expects NAME=DEFINITION, got '" + std::string(spec) + "'");
  }
  std::string_view name = trim(spec.substr(0, eq));
  std::string_view definition = trim(spec.substr(eq + 1));
  bool valid_name = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
  if (!valid_name) {
    return invalid_argument("--critic: the name '" + std::string(name) +
                            "' must be letters, digits and '_'");
  }
  if (find_metric(name) != nullptr) {
    return invalid_argument("--critic: '" + std::string(name) + "' is a built-in metric's name");
  }
  if (definition.empty()) {
    return invalid_argument("--critic " + std::string(name) + ": the definition is empty");
  }
  return MetricRequest{&kUserCritic, 0, std::string(name), std::string(definition)};
}

StatusOr<std::vector<MetricRequest>> parse_metric_list(std::string_view spec) {
  std::vector<MetricRequest> out;
  while (!spec.empty()) {
    auto comma = spec.find(',');
    std::string_view item = trim(spec.substr(0, comma));
    spec = comma == std::string_view::npos ? std::string_view() : spec.substr(comma + 1);
    if (item.empty()) continue;
    if (item == "all") {
      add_family(std::nullopt, &out);
    } else if (item == "text") {
      add_family(MetricFamily::kText, &out);
    } else if (item == "retrieval") {
      add_family(MetricFamily::kRetrieval, &out);
    } else if (item == "judged") {
      add_family(MetricFamily::kJudged, &out);
    } else if (item == "conversation") {
      add_family(MetricFamily::kConversation, &out);
    } else if (const MetricGroup* group = find_group(item); group != nullptr && group->bit) {
      for (const auto& info : kMetrics) {
        if (info.groups & group->bit) out.push_back({&info, 0, std::string(info.name)});
      }
    } else {
      RAGMETER_RETURN_IF_ERROR(parse_one(item, &out));
    }
  }
  if (out.empty()) return invalid_argument("no metrics given");
  // A metric asked for twice is scored once.
  std::vector<MetricRequest> unique;
  for (auto& request : out) {
    bool seen = std::any_of(unique.begin(), unique.end(),
                            [&](const MetricRequest& r) { return r.name == request.name; });
    if (!seen) unique.push_back(std::move(request));
  }
  return unique;
}

}  // namespace ragmeter
