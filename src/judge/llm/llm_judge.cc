// The LLM judge of include/ragmeter/llm_judge.h (llm_judge_impl.h lists its files): the
// compact plan's ledger and similarity. Prompts come from
// src/judge/prompts/ (embedded by cmake/embed_prompts.cmake).
#include "judge/llm/llm_judge_impl.h"

#include <cmath>

#include <fmt/format.h>

#include "core/row_turns.h"
#include "judge/llm/embedding_similarity.h"
#include "judge/llm/llm_requests.h"
#include "judge/llm/row_sharing.h"
#include "judge/llm/llm_window.h"
#include "ragmeter/offline_judge.h"
#include "judge/offline/text_vectors.h"
#include "ragmeter_prompts.inc"

namespace ragmeter {

using Json = nlohmann::json;

namespace {

// What the verdict store's keys hold besides the cell: the version too, since stored cells
// are the model's verdicts after the checks in code.
std::string verdict_store_prompts() {
  return std::string(kLlmPromptVersion) + "\n" + std::string(prompts::k_verdict_table_system) +
         "\n" + std::string(prompts::k_verdict_table);
}

std::string claim_store_prompts() {
  return std::string(prompts::k_system) + "\n" + std::string(prompts::k_claims);
}

}  // namespace

LlmJudge::LlmJudge(LlmJudgeOptions options, std::shared_ptr<llm::ResponseCache> cache)
    : options_(std::move(options)), cache_(std::move(cache)), book_(options_.endpoint_options),
      embed_book_(options_.embedder_endpoint_options),
      store_(cache_, options_.endpoint_options, verdict_store_prompts()),
      claims_(cache_, options_.endpoint_options, claim_store_prompts()) {
  if (!options_.embedder && options_.local_embedder) {
    local_ = std::make_shared<LocalSimilarity>(options_.local_embedder);
  }
}

LlmJudge::LlmJudge(const LlmJudge& base, RepeatDraw draw)
    : options_(base.options_), cache_(base.cache_), book_(base.book_.for_repeat(draw)),
      embed_book_(base.embed_book_.for_repeat({})),  // embeddings are not drawn
      store_(cache_, options_.endpoint_options, verdict_store_prompts(), draw),
      claims_(cache_, options_.endpoint_options, claim_store_prompts(), draw),
      local_(base.local_) {}

std::shared_ptr<Judge> LlmJudge::for_repeat(int repeat, double temperature) {
  if (repeat < 1) return nullptr;
  std::lock_guard<std::mutex> lock(repeats_mutex_);
  std::shared_ptr<Judge>& judge = repeats_[{repeat, temperature}];
  if (!judge) judge = std::make_shared<LlmJudge>(*this, RepeatDraw{repeat, temperature});
  return judge;
}

std::string LlmJudge::description() const {
  std::string out = "llm " + options_.model;
  if (!options_.endpoint.empty()) out += " at " + options_.endpoint;
  out += " (" + (local_ ? "similarity: " + local_->identity() + "; " : std::string()) + "prompts " +
         std::string(kLlmPromptVersion) + (options_.ragas_plan ? ", ragas plan" : ", compact plan");
  if (book_.draw().active()) {
    out += fmt::format(", repeat {} at temperature {}", book_.draw().repeat,
                       book_.draw().temperature);
  }
  return out + ")";
}

std::string llm_prompt_version(const JudgeLanguage& language) {
  if (language.english()) return std::string(kLlmPromptVersion);
  return std::string(kLlmPromptVersion) + "+" + std::string(kLlmLanguagePromptVersion) + ":" +
         language.code;
}

MayShare LlmJudge::row_sharing() const {
  return options_.ragas_plan ? nullptr : &compact_rows_may_share;
}

StatusOr<std::vector<std::vector<std::string>>> LlmJudge::text_claims(
    std::string_view question, const std::vector<std::string>& texts, CallLog* calls,
    const JudgeLanguage& language) {
  ClaimsCallOptions call;
  call.book = &book_;
  call.client = options_.chat.get();
  call.store = &claims_;
  call.context_tokens = options_.context_tokens;
  call.max_tokens = options_.max_tokens;
  call.language = language;
  call.may_share = row_sharing();
  return extract_text_claims(call, question, texts, calls);
}

StatusOr<ClaimLedger> LlmJudge::claim_ledger(const Sample& sample, CallLog* calls) {
  const JudgeLanguage language = judge_language_of(sample);
  const std::string question = sample.user_input.value_or("");
  const std::string response = sample.response.value_or("");
  const std::string reference(sample.reference().value_or(""));
  // A short answer ("Arthur's Magazine") gets the offline judge's claim, which carries
  // the question (offline_judge.h): small models tend to copy the fragment instead, and
  // stating it costs a call a sample (docs/design.md, "Short answers").
  const std::string response_short = answer_premise(response, question);
  const std::string reference_short = answer_premise(reference, question);
  const bool response_is_short = !response.empty() && response_short != response;
  const bool reference_is_short = !reference.empty() && reference_short != reference;
  std::vector<std::string> response_claims;
  std::vector<std::string> reference_claims;
  if (response_is_short) response_claims = {response_short};
  if (reference_is_short) reference_claims = {reference_short};
  const bool ask_response = !response.empty() && !response_is_short;
  const bool ask_reference = !reference.empty() && !reference_is_short;
  if (!ask_response && !ask_reference) pass_row_turn(&claims_);  // core/row_turns.h
  if (ask_response || ask_reference) {
    // A text that needs no call (a short answer) is left out of the request; equal texts
    // are read once and get the same claims.
    RAGMETER_ASSIGN_OR_RETURN(
        std::vector<std::vector<std::string>> claims,
        text_claims(question, {ask_response ? response : "", ask_reference ? reference : ""}, calls,
                    language));
    if (ask_response) response_claims = std::move(claims[0]);
    if (ask_reference) reference_claims = std::move(claims[1]);
  }
  static const std::vector<std::string> kNone;
  const auto& chunks = sample.retrieved_contexts ? *sample.retrieved_contexts : kNone;
  ClaimLedger ledger = make_claim_ledger(response_claims, reference_claims, chunks);
  if (sample.retrieved_context_ids && sample.retrieved_context_ids->size() == chunks.size()) {
    for (std::size_t k = 0; k < chunks.size(); ++k) {
      ledger.chunks[k].doc_id = (*sample.retrieved_context_ids)[k];
    }
  }
  ledger.provenance = {"llm", options_.model, llm_prompt_version(language)};

  fill_verdicts(&ledger, chunks, reference.empty() ? std::nullopt : std::optional(reference_short),
                response.empty() ? std::nullopt : std::optional(response_short), calls, language);
  return ledger;
}

void LlmJudge::prepare_batch(const std::vector<const Sample*>& samples) {
  if (local_) local_->prepare_batch(samples);
  std::map<std::string, std::int64_t> counts;
  for (const Sample* sample : samples) {
    const JudgeLanguage language = judge_language_of(*sample);
    ++counts[language.english() ? "en" : language.code];
  }
  std::lock_guard<std::mutex> lock(languages_mutex_);
  for (const auto& [code, n] : counts) languages_[code] += n;
}

nlohmann::ordered_json LlmJudge::judged_languages() const {
  std::lock_guard<std::mutex> lock(languages_mutex_);
  if (languages_.empty()) return nullptr;
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const auto& [code, n] : languages_) out[code] = n;
  return out;
}

StatusOr<double> LlmJudge::similarity(std::string_view a, std::string_view b, CallLog* calls) {
  if (!options_.embedder && local_) return local_->similarity(a, b);
  if (!options_.embedder) return offline_similarity(a, b);
  return embedding_similarity(*options_.embedder, embed_book_, a, b, calls);
}

// One embeddings request for `a` and every text of `others`.
StatusOr<std::vector<double>> LlmJudge::similarities(std::string_view a,
                                                     const std::vector<std::string>& others,
                                                     CallLog* calls) {
  if (!options_.embedder && local_) return local_->similarities(a, others);
  if (!options_.embedder) return Judge::similarities(a, others, calls);
  return embedding_similarities(*options_.embedder, embed_book_, a, others, calls);
}

nlohmann::ordered_json LlmJudge::usage_by_call() const {
  nlohmann::ordered_json out = book_.report();
  const nlohmann::ordered_json embeddings = embed_book_.report();
  for (const auto& item : embeddings.items()) out[item.key()] = item.value();
  return out;
}

StatusOr<std::shared_ptr<Judge>> make_llm_judge(LlmJudgeOptions options) {
  if (!options.chat) return invalid_argument("make_llm_judge: no chat client");
  std::shared_ptr<llm::ResponseCache> cache;
  if (options.verdict_cache && options.verdict_store) {
    // Verdicts and claims in the shared store (judge_hooks.h), under the cache's mode.
    cache = llm::make_store_cache(options.verdict_store, options.verdict_cache->mode);
  } else if (options.verdict_cache) {
    RAGMETER_ASSIGN_OR_RETURN(std::unique_ptr<llm::ResponseCache> opened,
                              llm::open_response_cache(*options.verdict_cache));
    cache = std::move(opened);
  }
  return std::shared_ptr<Judge>(std::make_shared<LlmJudge>(std::move(options), std::move(cache)));
}

}  // namespace ragmeter
