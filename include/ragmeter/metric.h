// Metrics: what one metric computes for one sample, and the table of every metric.
//
// Every (sample, metric) ends in exactly one outcome: a score, `skipped` (a required
// field is missing or empty; the reason names it) or `failed` (the computation could
// not finish; the reason says why). Never a silent NaN.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ragmeter/bleu.h"
#include "ragmeter/chrf.h"
#include "ragmeter/rouge.h"
#include "ragmeter/sample.h"
#include "ragmeter/status.h"
#include "ragmeter/tool_metrics.h"

namespace ragmeter {

enum class Outcome { kOk, kSkipped, kFailed };

// "ok", "skipped", "failed".
const char* outcome_name(Outcome outcome);

struct MetricResult {
  Outcome outcome = Outcome::kOk;
  double score = 0.0;            // meaningful when outcome == kOk
  std::string reason;            // why skipped or failed (redact_secrets applied)
  nlohmann::ordered_json evidence;  // optional detail (precision/recall parts, ...)
  // Additive sufficient statistics for corpus-level scores (BLEU, chrF); summed over
  // the scored samples and turned into one corpus value in the summary.
  std::vector<double> corpus_stats;
  // A caution about a score that is still given, the same text for the same situation
  // (e.g. rouge-score's tokenizer dropped the text's script): counted per metric in the
  // summary and shown on the terminal. Empty when there is none.
  std::string note;
  // A judged metric under EvalOptions::repeat > 1 (repeats.h): its score in each repeat,
  // in repeat order, nullopt where that repeat was skipped or failed. An `ok` result has
  // them all and `score` is their mean. Empty when the metric was judged once.
  std::vector<std::optional<double>> repeat_scores;
  // The evidence of each repeat, in repeat order (a JSON array; `evidence` is repeat 1's),
  // or null.
  nlohmann::ordered_json repeat_evidence;
  // Set when the metric has a pass mark (EvalOptions::pass_marks) and was repeated: whether
  // its repeats fall on both sides of the mark (repeats_straddle).
  std::optional<bool> flaky;

  static MetricResult ok(double score) {
    MetricResult result;
    result.score = score;
    return result;
  }
  static MetricResult skipped(std::string reason) {
    MetricResult result;
    result.outcome = Outcome::kSkipped;
    result.reason = redact_secrets(std::move(reason));
    return result;
  }
  static MetricResult failed(std::string reason) {
    MetricResult result;
    result.outcome = Outcome::kFailed;
    result.reason = redact_secrets(std::move(reason));
    return result;
  }
};

// Options shared by the deterministic metrics. Plain values; the defaults reproduce
// the reference implementations (sacreBLEU, rouge-score, ragas).
struct ScoringOptions {
  BleuOptions bleu;               // sentence BLEU always uses effective order
  ChrfOptions chrf;               // word_order is set by the metric (chrf: 0, chrf_pp: 2)
  RougeOptions rouge;             // stemming off, rouge-score tokenizer
  // String-matched retrieval: a retrieved chunk is relevant when its normalised
  // Levenshtein similarity to some reference context is >= this (recall: >), as ragas.
  double context_match_threshold = 0.5;
  // Judged metrics.
  double factual_beta = 1.0;                   // factual_correctness's F-beta
  double answer_correctness_factual_weight = 0.75;   // ragas's weights: factual F1 ...
  double answer_correctness_semantic_weight = 0.25;  // ... and semantic similarity
  // When set, semantic_similarity is 1 at or above this cosine and 0 below (ragas's
  // threshold); unset, it is the cosine itself.
  std::optional<double> semantic_similarity_threshold;
  // Aspect critics: judgements per verdict, majority wins. Odd; 1 = a single judgement.
  int critic_votes = 1;
  // DeepEval's tool correctness: what besides the name it compares (its evaluation_params;
  // DeepEval's default: the name only). The matching is set by the metric.
  DeepEvalToolOptions deepeval_tools;
};

// A metric as requested: a table entry plus its cutoff for rank metrics
// ("precision@5" -> k = 5; no suffix -> k = 0, the whole ranking).
struct MetricInfo;
struct MetricRequest {
  const MetricInfo* info = nullptr;
  int k = 0;
  std::string name;  // as the user wrote it, e.g. "ndcg@10"; the key in results
  // Aspect critics: what the critic checks. Empty for built-in critics (their own
  // definition is used) and for every other metric.
  std::string definition;
};

using ScoreFunction = MetricResult (*)(const Sample& sample, const MetricRequest& request,
                                       const ScoringOptions& options);
using CorpusFunction = double (*)(const std::vector<double>& summed_stats,
                                  const MetricRequest& request, const ScoringOptions& options);

// The judged metrics read a SampleJudgement (judge.h): the judge's ledger, similarity
// and questions for the sample, each asked for once however many metrics read them.
class SampleJudgement;
struct JudgeTask;  // judge.h
using JudgedScoreFunction = MetricResult (*)(SampleJudgement& judgement,
                                             const MetricRequest& request,
                                             const ScoringOptions& options);

// kRetrieval and kText need no judge; kJudged metrics ask the judge (offline by default).
// kConversation metrics read a multi-turn sample (conversation.h) and need no judge; every
// other family is single-turn and is `skipped` on a multi-turn sample.
enum class MetricFamily { kRetrieval, kText, kJudged, kConversation };

// The judge calls a judged metric makes with an LLM judge (bits of MetricInfo::calls),
// named as the summary's usage.by_call and --traces name them. A call two requested
// metrics share is made once per sample (the compact plan).
namespace judge_calls {
inline constexpr unsigned kNone = 0;
inline constexpr unsigned kLedger = 1u << 0;     // "claims", then "verdicts": the claim ledger
inline constexpr unsigned kQuestions = 1u << 1;  // "questions" (+ "embeddings" with an embedder)
inline constexpr unsigned kEntities = 1u << 2;   // "entities": the reference's and the contexts'
inline constexpr unsigned kSimilarity = 1u << 3;  // "embeddings" of response and reference
                                                  // (with an embedder; else offline vectors)
inline constexpr unsigned kRelevantSentences = 1u << 4;  // "relevant_sentences"
inline constexpr unsigned kKeyFacts = 1u << 5;   // "claims" of the reference contexts, then
                                                 // "verdicts" of each against the response
inline constexpr unsigned kCritic = 1u << 6;     // "critic:NAME", once per vote; LLM only
inline constexpr unsigned kRubric = 1u << 7;     // "rubric"; LLM only
inline constexpr unsigned kVision = 1u << 8;     // "vision": one call with the images; a vision
                                                 // model only
inline constexpr unsigned kImageVerdicts = 1u << 9;  // "image_verdicts": the claims against each
                                                     // image (a vision model; none offline: OCR)
inline constexpr unsigned kTopics = 1u << 10;  // "topics": a conversation's topics, answered
                                               // and on the reference topics; LLM only
inline constexpr unsigned kConversationTask = 1u << 11;  // one call named by the metric: a
                                                         // conversation task's verdicts
                                                         // (conversation_task.h); LLM only
inline constexpr unsigned kTaskCompletion = 1u << 12;  // "task_completion": a conversation's
                                                       // task, outcome and a verdict in
                                                       // [0, 1]; LLM only
}  // namespace judge_calls

// Named groups of metrics (bits of MetricInfo::groups), each a --metrics shorthand.
namespace metric_groups {
inline constexpr unsigned kNone = 0;
inline constexpr unsigned kRagas = 1u << 0;       // "ragas": ragas's default four
inline constexpr unsigned kRagchecker = 1u << 1;  // "ragchecker": RAGChecker's diagnostics
}  // namespace metric_groups

// The fields a metric needs (bits of MetricInfo::needs), said once in the metric's table
// row. Before a metric is scored, the first of them a sample lacks (in the order below)
// makes the (sample, metric) `skipped` with a reason naming the field
// (missing_required_field); `ragmeter metrics`, the summary's "needs" and the metric
// reference print them (required_fields_text), and the dry run plans no call for a metric
// that would be skipped so.
namespace sample_fields {
inline constexpr unsigned kNone = 0;
inline constexpr unsigned kUserInput = 1u << 0;
inline constexpr unsigned kResponse = 1u << 1;
inline constexpr unsigned kReference = 1u << 2;  // on a conversation: its desired outcome
inline constexpr unsigned kRetrievedContexts = 1u << 3;  // text passages: a sample whose
                                                         // contexts are all images is skipped
inline constexpr unsigned kContextImages = 1u << 4;  // with kRetrievedContexts: image
                                                     // contexts count too
inline constexpr unsigned kReferenceContexts = 1u << 5;
inline constexpr unsigned kRetrievedContextIds = 1u << 6;
inline constexpr unsigned kReferenceContextIds = 1u << 7;
// The rank metrics: retrieved_context_ids and reference_context_ids when the sample has
// both, else retrieved_contexts and reference_contexts.
inline constexpr unsigned kContextIdsOrTexts = 1u << 8;
inline constexpr unsigned kConversation = 1u << 9;  // a multi-turn row (conversation.h)
// The conversation's expected tool calls, present (an empty list is given); the second
// bit names the field as DeepEval does.
inline constexpr unsigned kReferenceToolCalls = 1u << 10;
inline constexpr unsigned kExpectedTools = 1u << 11;
inline constexpr unsigned kReferenceTopics = 1u << 12;  // present and not empty
inline constexpr unsigned kChatbotRole = 1u << 13;      // present
}  // namespace sample_fields

// The fields of `needs` (sample_fields bits) as the help text prints them, e.g.
// "response, reference" or "response, retrieved_contexts (text and images)".
std::string required_fields_text(unsigned needs);

// The bit of a field named as required_fields_text names it ("chatbot_role" ->
// kChatbotRole); kNone for a name that is no such field.
unsigned required_field_bit(std::string_view name);

// The `skipped` result for the first field of `needs` that `sample` lacks or has empty,
// e.g. "field 'reference' is missing"; nullopt when it has them all. Thread-safe.
std::optional<MetricResult> missing_required_field(const Sample& sample, unsigned needs);

// One row of the metric table (src/metrics/builtin.cc).
struct MetricInfo {
  std::string_view name;
  MetricFamily family;
  unsigned needs;               // sample_fields bits: the fields the metric reads
  std::string_view definition;  // one line
  bool takes_cutoff;            // accepts "@k"
  bool higher_is_better;
  // The range every score of the metric lies in (each table row declares it): an `ok`
  // score outside it is a bug, refused where results are summarised and written
  // (check_score_range). Thresholds outside it are rejected (gates.h), and the report's
  // histograms and compare's effect sizes use it.
  double min_score;
  double max_score;
  // The scoring functions are called only on a sample that has the fields of `needs`
  // (score_sample, evaluate.h, checks them first: missing_required_field).
  ScoreFunction score;          // deterministic metrics; nullptr for judged ones
  CorpusFunction corpus;        // nullptr unless the metric has a corpus-level form
  JudgedScoreFunction judged;   // judged metrics; nullptr for deterministic ones
  // The facts below are read by the dry-run plan, the --metrics groups, the rule of which
  // metrics need an LLM, --plan ragas and the help text: each is said here once.
  unsigned calls = judge_calls::kNone;  // judge_calls bits (judged metrics)
  unsigned groups = metric_groups::kNone;  // metric_groups bits
  // --plan ragas: the ledger scope whose calls ragas makes for this metric (metrics that
  // share a scope share its calls); empty: the shared compact ledger.
  std::string_view ragas_scope;
  // Judged metrics the offline judge does not score by default, because on held-out human
  // labels its version did not beat chance or was not measured (docs/judges.md): why, in
  // one sentence with the figure. Empty: the offline judge scores it. An LLM judge always
  // scores it; EvalOptions::offline_score_withdrawn makes the offline judge score it too.
  std::string_view offline_withdrawn = {};
  // A judged metric that asks one judge task of a sample (judge_tasks.h): the task as the
  // metric asks it, from which the dry run plans the request (its kind, prompt, sections and
  // expected reply length); a task with an empty kind asks nothing of that sample. Null for
  // the metrics whose calls are planned by their `calls` bits.
  JudgeTask (*task)(const Sample& sample) = nullptr;
};

// Every built-in metric, in the order of the table. Thread-safe (immutable).
std::span<const MetricInfo> builtin_metrics();

// Finds a metric by name, built-in or registered (register_metric); nullptr when unknown.
const MetricInfo* find_metric(std::string_view name);

// Adds a metric of the caller's own, after the built-in ones: parse_metric_list,
// find_metric, evaluate, the summary and every writer then take it as they take a built-in
// metric (the groups, "all" and the families list the built-in table only; name it). A
// deterministic metric sets `score` (and `corpus` for a corpus-level form), a judged one
// `judged`, which reads the sample's SampleJudgement (judge.h); `needs` says the fields it
// reads, checked before it runs (missing_required_field), and every score must lie in
// [min_score, max_score] (check_score_range). Its name and definition are copied; its
// groups, ragas scope and offline withdrawal are not read. InvalidArgument when the name is
// empty, has characters other than letters, digits and '_', or is a built-in or registered
// metric's; when not exactly one of score and judged is set, a corpus form has no score,
// `needs` is kNone or the range is empty or infinite. Thread-safe; a registered metric
// stays for the life of the process (docs/library.md).
Status register_metric(const MetricInfo& info);

// The metrics register_metric added, in the order they were added.
std::vector<const MetricInfo*> registered_metrics();

// Parses a comma-separated list of metric names with optional "@k" cutoffs, and the
// shorthands "all" (every single-turn metric), "text"/"retrieval"/"judged"/"conversation"
// (a family) and
// "ragchecker" (RAGChecker's eleven diagnostics). InvalidArgument
// names the unknown metric or the bad cutoff; for an unknown name within a third of its
// length (or two) in edits of an accepted one, the message suggests the nearest ("unknown metric
// 'faithfullness' (did you mean 'faithfulness'? ...)").
StatusOr<std::vector<MetricRequest>> parse_metric_list(std::string_view spec);

const char* metric_family_name(MetricFamily family);

// True for the metrics only an LLM judge can score (their calls include a critic, a
// rubric or a vision call): the offline judge reports them `skipped`.
bool metric_needs_llm(const MetricInfo& info);

// The names of the judge calls in `calls` (judge_calls bits), e.g. "claims, verdicts".
std::string judge_call_names(unsigned calls);

// The --metrics group names of `groups` (metric_groups bits), and every group's name and
// one-line description, in the order --metrics lists them.
struct MetricGroup {
  std::string_view name;
  unsigned bit;  // 0 for the groups defined by a family or by "all"
  std::string_view description;
};
std::span<const MetricGroup> metric_group_list();
// True when the offline judge running the default metric list (no --metrics) leaves
// `info` out: the metrics only an LLM can score (metric_needs_llm) and, unless
// `score_withdrawn`, the ones withdrawn from the offline judge (MetricInfo::offline_withdrawn),
// which would only be skipped.
bool offline_default_leaves_out(const MetricInfo& info, bool score_withdrawn);

// The reason a withdrawn metric is skipped under the offline judge: its
// MetricInfo::offline_withdrawn and how to get a score (an LLM judge, or the flag that
// forces the offline judge). Empty when `info` is not withdrawn.
std::string offline_withdrawn_reason(const MetricInfo& info);

// OK unless `result` is `ok` with a score that is not finite or lies outside the metric's
// declared range [min_score, max_score]: then Internal, "METRIC = VALUE is outside its
// declared range [MIN, MAX]: a bug in ragmeter ...". Skipped and failed results are OK.
// The summary (SummaryBuilder) and the result writers call it on every result, so every
// run, and every test that produces results, checks every metric's range. Thread-safe.
Status check_score_range(const MetricRequest& request, const MetricResult& result);

// A user-defined aspect critic: "NAME=DEFINITION" (e.g. "polite=Is the response polite to
// the user?"). Scores 1 when the judge says the response meets the definition, else 0.
// InvalidArgument when there is no '=', the name is empty, has characters other than
// letters, digits and '_', or is the name of a built-in metric, or the definition is
// empty.
StatusOr<MetricRequest> parse_critic(std::string_view spec);

}  // namespace ragmeter
