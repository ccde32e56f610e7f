// Judges: what the judged metrics ask of a judge, and the per-sample cache of its answers.
//
// A Judge turns a sample into the claim ledger (claim_ledger.h), compares two texts by
// embedding similarity and answers judge tasks (JudgeTask: one request of a fixed prompt, judge_tasks.h builds
// them), which the offline judge answers by its rules where a task has them. Two kinds exist: the offline
// judge (make_offline_judge, no network, no model: classical methods, see
// offline_judge.h and text_vectors.h) and an LLM judge over an OpenAI-compatible
// server (llm_judge.h). Judged metrics never call a judge directly: they read a
// SampleJudgement, which asks the judge at most once per sample for each thing.
//
// Thread-safety: a Judge's methods are called concurrently from several threads and
// must be thread-safe. A SampleJudgement belongs to one thread.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ragmeter/claim_ledger.h"
#include "ragmeter/conversation_task.h"
#include "ragmeter/image.h"
#include "ragmeter/sample.h"
#include "ragmeter/status.h"

namespace ragmeter {

class OcrReader;
struct LocalEmbedders;

// One of a sample's images, read (image.h), at its rank among the retrieved contexts.
struct SampleImage {
  std::size_t rank = 0;
  Image image;
};

// ragas 0.4's two one-call multimodal metrics: is the response faithful to the contexts
// (text and images), and is it relevant to the question and in line with them.
enum class MultimodalQuestion { kFaithfulness, kRelevance };

// A vision judge's verdict on one of them, with its reason.
struct MultimodalVerdict {
  bool verdict = false;
  std::string reason;
  // Why the reason is not in the sample's language (the judge wrote it in another script,
  // also when asked again); the verdict stands. Empty when it is.
  std::string warning;
};

// What a judge proposes for answer_relevancy.
struct GeneratedQuestions {
  std::vector<std::string> questions;  // questions the response would answer
  bool noncommittal = false;           // the response declines to answer
  std::string method;                  // how they were obtained (for the evidence)
};

// The cache keys (hex SHA-256 of the request, as the judge cache and `--traces` name
// them) of the judge calls behind one answer, appended in the order they were made.
// The offline judge makes no calls and leaves it untouched. May be null: not recorded.
using CallLog = std::vector<std::string>;

// An aspect critic's verdict: does the response meet the definition? With votes > 1,
// the majority of that many independent judgements (odd, so there is no tie).
struct CriticVerdict {
  bool verdict = false;
  std::string reason;
  int votes_for = 0;  // judgements that said yes
  int votes = 0;      // judgements made
  // Why the reason is not in the sample's language (the LLM judge wrote it in another
  // script, also when asked again); the verdict stands. Empty when it is.
  std::string warning;
};

// A rubric score: an integer 1..5 with the judge's reason.
struct RubricScore {
  int score = 0;
  std::string reason;
  std::string warning;  // as CriticVerdict::warning
};

// summary_score's key facts: the claims of a text and whether a summary states each.
struct KeyFactCoverage {
  std::vector<std::string> facts;
  std::vector<bool> covered;  // one per fact
};

// ragas's topic adherence: the topics of a conversation's user messages, and for each
// whether the assistant answered it (did not refuse) and whether it falls into one of the
// reference topics. The three lists have one entry per topic.
struct TopicVerdicts {
  std::vector<std::string> topics;
  std::vector<bool> answered;
  std::vector<bool> in_reference;
  std::string reason;
  std::string warning;  // as CriticVerdict::warning
};

// A piece of a vision task's request (JudgeTask::parts): text as it is, or one
// of the sample's images.
struct TaskPart {
  std::string text;                     // when `image` is null
  const SampleImage* image = nullptr;   // the image shown here; outlives the ask
};

// A question for a judge, as data (judge_tasks.h builds them): one request, a JSON reply.
// Judge::ask asks it. A task the offline judge also answers carries its rules as `offline`.
struct JudgeTask {
  std::string kind;         // the call's name in usage and traces: "rubric", "critic:polite"
  std::string prompt;       // the task's instructions: the request's fixed text, first
  nlohmann::json schema;    // the reply's JSON schema
  std::string schema_name;  // the schema's name in the request
  std::string sections;     // the sample's texts as the request shows them, after the prompt
  // What the reply writes in the sample's language ("the reason"), and its texts there,
  // which the language check reads. Empty: the reply writes nothing of its own (it copies
  // the sample's sentences or names), so the request has no language line and no check.
  std::string_view written;
  std::vector<std::string> (*written_texts)(const nlohmann::json& reply) = nullptr;
  // Ballot `vote` (0-based) of a majority of `votes`: with votes > 1 each ballot samples at
  // temperature 0.7 with a seed of its own (so each is its own cache entry).
  int vote = 0;
  int votes = 1;
  // What needs an LLM judge, as a judge without one says it: "rubric scores" (plural) or
  // "topic adherence".
  std::string subject;
  bool subject_plural = false;
  // The reply's expected length in tokens: the dry run's estimate (plan_eval) of a task a
  // metric row names (MetricInfo::task).
  std::int64_t completion_tokens = 0;
  // How a judge without a model answers the task: the offline rules' reply to the sample,
  // in the shape the schema gives the model's, so one reading serves both. Null: only a
  // judge with a model answers it (the default Judge::ask names `subject`).
  std::function<StatusOr<nlohmann::json>(const Sample& sample)> offline;
  // A task for a vision model (ragas 0.4's one-call multimodal metrics): the request's
  // content after the prompt, texts and images in order, in place of `sections` (a
  // vision task even when the sample has no image). Only a judge with a vision model
  // answers it (LlmJudgeOptions::vision); any other says it "needs a vision model
  // (`subject`)".
  std::vector<TaskPart> parts;
  bool needs_vision() const { return !parts.empty(); }
};

// A task's reply.
struct TaskReply {
  nlohmann::json reply;
  // Why the reply's written texts are not in the sample's language ("the judge wrote the
  // reason in Latin script, not in Chinese, also when asked again"); empty when they are.
  std::string wrong_script;
  // The reply is the task's offline rules' (JudgeTask::offline), not a model's.
  bool offline = false;
  // The model that wrote it (LlmJudgeOptions::model); empty for the offline rules.
  std::string model;
};

class Judge {
 public:
  virtual ~Judge() = default;
  // Short description for reports: "offline (lexical entailment, no model; offline-v3)", "llm gpt-4o-mini at ...".
  // Never contains a key.
  virtual std::string description() const = 0;
  // True for the offline judge, alone or with the local sentence models: the metric table's
  // MetricInfo::offline_withdrawn then applies (evaluate.h, EvalOptions). The offline judge
  // with an embeddings server (make_offline_judge_with_embedder) answers false: a metric
  // asked for by name is scored with the server's embeddings.
  virtual bool is_offline() const { return false; }
  // Why this judge cannot make the calls `calls` (judge_calls bits, MetricInfo::calls) on
  // text in `language` (a code: "th"), in one sentence; empty when it can. The offline
  // judge's rules cover some languages (offline_judge_gap, offline_judge.h); a judge with a
  // model has no gap (the default). score_sample makes a judged metric `skipped` with it.
  virtual std::string language_gap(std::string_view language, unsigned calls) const {
    (void)language;
    (void)calls;
    return {};
  }
  // The judge of repeat `repeat` (1, 2, ...) of a run that judges each sample several times
  // (EvalOptions::repeat, repeats.h): the same judge, sampling every reply at
  // `temperature` with the seed `repeat`, whose claims, verdicts and replies are its own
  // (cached apart from the other repeats' and from an unrepeated run's), so a repeat
  // re-judges the whole sample, its claims included. The same object for the same
  // arguments, owned by this judge too; its calls count in this judge's usage_by_call.
  // nullptr (the default): the judge is deterministic (the offline judge), so a repeat
  // would give the same answers. Thread-safe.
  virtual std::shared_ptr<Judge> for_repeat(int repeat, double temperature) {
    (void)repeat;
    (void)temperature;
    return nullptr;
  }
  // The claim ledger of the sample: claims of response and reference (when present),
  // the retrieved contexts as chunks, every table filled as far as the judge could.
  virtual StatusOr<ClaimLedger> claim_ledger(const Sample& sample, CallLog* calls) = 0;
  // Execution plans (docs/metrics.md). In the compact plan every metric reads the one
  // shared ledger: scope "" for all. A judge running ragas's call structure takes the
  // metric's ragas scope (MetricInfo::ragas_scope) and builds that scope's ledger with
  // that metric's calls.
  virtual std::string ledger_scope(std::string_view /*ragas_scope*/) const { return {}; }
  virtual StatusOr<ClaimLedger> scoped_claim_ledger(const Sample& sample, std::string_view scope,
                                                    CallLog* calls) {
    (void)scope;
    return claim_ledger(sample, calls);
  }
  // Cosine similarity of the two texts' embeddings, in [-1, 1].
  virtual StatusOr<double> similarity(std::string_view a, std::string_view b, CallLog* calls) = 0;
  // Cosine similarities of `a` to each of `others` (answer_relevancy). The default asks
  // similarity() once per text; a judge with an embedder embeds them in one request.
  virtual StatusOr<std::vector<double>> similarities(std::string_view a,
                                                     const std::vector<std::string>& others,
                                                     CallLog* calls);
  // One way to ask a task (judge_tasks.h: answer relevancy's questions, context relevance's
  // sentences, the entities, aspect critics, rubric scores, topic adherence, the conversation tasks, task
  // completion, the one-call multimodal verdicts): one request of `task.prompt` over `task.sections` whose reply is the JSON
  // `task.schema` describes, asked in the sample's language (a reply mostly in another
  // script is asked again once; still so, TaskReply::wrong_script says it). The default,
  // which the offline judge keeps, answers with `task.offline` when the task has it and
  // FailedPrecondition naming task.subject when it does not (it needs an LLM judge; a task
  // that shows images: a vision model).
  virtual StatusOr<TaskReply> ask(const JudgeTask& task, const Sample& sample, CallLog* calls);
  // The key facts (claims) of `text` and whether `summary` states each of them.
  virtual StatusOr<KeyFactCoverage> key_fact_coverage(std::string_view text,
                                                      std::string_view summary, CallLog* calls) = 0;
  // The claim ledger over the sample's text contexts and its images together: the
  // chunks in rank order (the row's retrieved_contexts order), an image's chunk with
  // Chunk::image set to its SHA-256. `images` are the sample's images, read, in rank
  // order. The default reads each image's text with `ocr` (in the sample's language)
  // and judges it as a text chunk with claim_ledger, so without images the ledger is
  // claim_ledger's. An LLM judge with a vision model judges the images themselves.
  // An image whose text cannot be read makes it fail with that reason.
  virtual StatusOr<ClaimLedger> multimodal_claim_ledger(const Sample& sample,
                                                        const std::vector<SampleImage>& images,
                                                        OcrReader& ocr, CallLog* calls);
  // Called by the evaluation loop with each batch of samples before any of them is
  // scored, from one thread while no other method runs. A judge may prepare what the
  // batch shares: with the local embedder, the batch's questions, responses and
  // references are cut, in row order, into pieces of at most 512 word pieces, and a piece
  // is embedded in one pass (each distinct text once) when the first similarity of one of
  // its texts is asked: rows finish piece by piece. The samples outlive the batch's
  // scoring. Default: nothing.
  virtual void prepare_batch(const std::vector<const Sample*>& samples) { (void)samples; }
  // What the judge's calls have used so far, per kind of call ("claims", "verdicts",
  // "questions", "entities", "embeddings"): {"kind": {"calls", "cache_hits", "failed",
  // "prompt_tokens", "completion_tokens"}}; null for a judge that makes no calls.
  // Thread-safe.
  virtual nlohmann::ordered_json usage_by_call() const { return nullptr; }
  // The samples the judge was given (prepare_batch), counted by the language its prompts
  // asked it to write in: {"en": 12, "zh": 10} ("en" for English and for samples whose
  // language cannot be told, which get the English prompts as they are). Null for a
  // judge that writes nothing (the offline judge). Thread-safe.
  virtual nlohmann::ordered_json judged_languages() const { return nullptr; }
};

// The offline judge: deterministic, thread-safe, no I/O.
//  - claim_ledger: offline_claim_ledger (offline_judge.h);
//  - similarity: cosine of offline_text_vector (text_vectors.h);
//  - ask: the task's offline rules (JudgeTask::offline), e.g. offline_entities
//    (text_vectors.h) for the entities.
std::shared_ptr<Judge> make_offline_judge();
// The same with similarity (semantic_similarity, answer_correctness, answer_relevancy)
// from `embedders` (sentence_embedder.h: the English model, and the multilingual one for
// text that is not English; none: the offline vectors), batched across the rows of each
// evaluation batch (prepare_batch). description() names the embedders.
std::shared_ptr<Judge> make_offline_judge(LocalEmbedders embedders);

// Where a run's images come from and how their text is read (EvalOptions::media, ::ocr).
struct ImageAccess {
  const MediaOptions* media = nullptr;  // null: MediaOptions{} (data URIs only)
  OcrReader* ocr = nullptr;             // null: one Tesseract reader with default options
};

// The judge's answers for one sample, each asked for once and kept. Not thread-safe.
class SampleJudgement {
 public:
  SampleJudgement(const Sample& sample, Judge& judge, ImageAccess images = {})
      : sample_(sample), judge_(judge), access_(images) {}

  const Sample& sample() const { return sample_; }
  Judge& judge() { return judge_; }
  // The ledger (asked for on the first call).
  const StatusOr<ClaimLedger>& ledger();
  // The ledger `metric` reads (Judge::ledger_scope): the shared one in the compact plan,
  // asked for once per scope. `calls` receives the CallLog behind it.
  const StatusOr<ClaimLedger>& ledger_for(std::string_view ragas_scope, const CallLog** calls);
  // The generated questions (asked for on the first call).
  const StatusOr<GeneratedQuestions>& questions();
  // ask_topics (judge_tasks.h) over the conversation's reference topics, asked for once (the
  // three topic adherence metrics read one call). Precondition: both set.
  const StatusOr<TopicVerdicts>& topic_verdicts();
  const CallLog& topic_calls() const { return topic_calls_; }
  // similarity(response, reference), asked for on the first call. Precondition: both set.
  const StatusOr<double>& response_reference_similarity();
  // The sample's images (Sample::retrieved_images), read on the first call: every one,
  // or the first error (load_image's: FailedPrecondition when the run does not allow its
  // source, which metrics report as `skipped`).
  const StatusOr<std::vector<SampleImage>>& images();
  // Judge::multimodal_claim_ledger over images(), asked for once; ledger() itself when
  // the sample has no image, so a text metric and its multimodal version read one ledger.
  const StatusOr<ClaimLedger>& multimodal_ledger();
  const CallLog& multimodal_calls() const { return multimodal_calls_; }
  // The reader of the images' text.
  OcrReader& ocr();
  // The judge calls behind ledger(), questions() and the similarity (CallLog).
  const CallLog& ledger_calls() const { return ledger_calls_; }
  const CallLog& questions_calls() const { return questions_calls_; }
  const CallLog& similarity_calls() const { return similarity_calls_; }

 private:
  const Sample& sample_;
  Judge& judge_;
  ImageAccess access_;
  std::optional<StatusOr<std::vector<SampleImage>>> images_;
  std::optional<StatusOr<ClaimLedger>> multimodal_ledger_;
  CallLog multimodal_calls_;
  std::optional<StatusOr<ClaimLedger>> ledger_;
  std::optional<StatusOr<GeneratedQuestions>> questions_;
  std::optional<StatusOr<TopicVerdicts>> topics_;
  CallLog topic_calls_;
  std::optional<StatusOr<double>> similarity_;
  CallLog ledger_calls_;
  struct Scoped {
    std::optional<StatusOr<ClaimLedger>> ledger;
    CallLog calls;
  };
  std::map<std::string, Scoped, std::less<>> scoped_;
  CallLog questions_calls_;
  CallLog similarity_calls_;
};

}  // namespace ragmeter
