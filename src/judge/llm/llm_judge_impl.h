// The LLM judge of include/ragmeter/llm_judge.h, declared for its implementation files:
//   llm_judge.cc          the compact plan's ledger, similarity
//   llm_verdict_fill.cc   the compact plan's verdicts: the verdict store, table calls
//   llm_ragas_plan.cc     the ragas plan's per-metric ledgers
//   llm_key_facts.cc      summary_score's key facts
//   llm_task.cc           the judge's tasks (judge_tasks.h: relevant sentences, entities,
//                         critics, rubrics, conversations)
// with the requests in llm_requests.cc, claims in llm_claims.cc and window splitting in
// llm_window.cc. Internal to src/judge/.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/row_turns.h"
#include "judge/llm/call_book.h"
#include "judge/llm/claim_store.h"
#include "judge/llm/judge_language.h"
#include "judge/llm/llm_claims.h"
#include "judge/llm/verdict_signs.h"
#include "judge/llm/verdict_store.h"
#include "judge/local_similarity.h"
#include "ragmeter/llm_judge.h"

namespace ragmeter {

class LlmJudge : public Judge {
 public:
  LlmJudge(LlmJudgeOptions options, std::shared_ptr<llm::ResponseCache> cache);
  // The judge of one repeat (for_repeat): `base`'s options, clients, cache and local
  // embedder, its books' counts, and stores of its own keyed by `draw`.
  LlmJudge(const LlmJudge& base, RepeatDraw draw);

  std::shared_ptr<Judge> for_repeat(int repeat, double temperature) override;

  std::string description() const override;
  StatusOr<ClaimLedger> claim_ledger(const Sample& sample, CallLog* calls) override;
  void prepare_batch(const std::vector<const Sample*>& samples) override;
  StatusOr<double> similarity(std::string_view a, std::string_view b, CallLog* calls) override;
  StatusOr<std::vector<double>> similarities(std::string_view a,
                                             const std::vector<std::string>& others,
                                             CallLog* calls) override;
  // llm_task.cc: the judge's tasks (judge_tasks.h), one request each, in the sample's
  // language (a task whose reply writes nothing of its own: as it is).
  StatusOr<TaskReply> ask(const JudgeTask& task, const Sample& sample, CallLog* calls) override;
  StatusOr<KeyFactCoverage> key_fact_coverage(std::string_view text, std::string_view summary,
                                              CallLog* calls) override;
  // Images (llm_vision.cc): with LlmJudgeOptions::vision, each image is shown to the
  // model with the claims (one "image_verdicts" call per image); without it, the images'
  // OCR text is judged as text. (A task that shows images, the one-call metrics' "vision"
  // call, is asked by ask() and needs the vision model.)
  StatusOr<ClaimLedger> multimodal_claim_ledger(const Sample& sample,
                                                const std::vector<SampleImage>& images,
                                                OcrReader& ocr, CallLog* calls) override;
  nlohmann::ordered_json usage_by_call() const override;
  nlohmann::ordered_json judged_languages() const override;
  std::string ledger_scope(std::string_view ragas_scope) const override;
  StatusOr<ClaimLedger> scoped_claim_ledger(const Sample& sample, std::string_view scope,
                                            CallLog* calls) override;

 private:
  using Pair = std::pair<std::size_t, std::size_t>;  // (claim, premise)

  // The claims of `texts` read as answers to `question`, written in `language`
  // (extract_text_claims).
  StatusOr<std::vector<std::vector<std::string>>> text_claims(std::string_view question,
                                                              const std::vector<std::string>& texts,
                                                              CallLog* calls,
                                                              const JudgeLanguage& language);
  // The compact plan's verdicts: every response claim against every chunk and the
  // reference, every reference claim against every chunk and the response. Each (claim,
  // premise) pair already known (in memory or in the verdict store) is taken from there,
  // one being judged by another thread is awaited; the others are asked in as few table
  // calls as the window allows (verdict_table.h), run concurrently. A premise too long to
  // share a call with the claims is judged on its own, split if need be
  // (judge_within_window). Reasons are asked for in `language`; the warnings of calls
  // whose reasons stayed in another script go to ledger->warnings.
  // The earlier rows a row waits behind at the stores (core/row_turns.h): those that may
  // share its claims or verdicts under the compact plan (row_sharing.h); all of them under
  // the ragas plan, whose ledgers read other texts.
  MayShare row_sharing() const;
  void fill_verdicts(ClaimLedger* ledger, const std::vector<std::string>& chunks,
                     std::optional<std::string> reference, std::optional<std::string> response,
                     CallLog* calls, const JudgeLanguage& language);
  // Asks the judge for the `missing` (claim, premise) pairs and puts their cells in
  // `found`.
  void ask_missing(const std::vector<std::string>& claims, const std::vector<std::string>& premises,
                   const std::vector<Pair>& missing, const JudgeLanguage& language,
                   std::map<Pair, StoredVerdict>* found);
  // One group of ask_missing: a table call of the group's claims against its premises
  // (claims the reply leaves out asked once more), or, for one premise too long to share
  // a call, judge_within_window. Returns the cells of the group's missing pairs.
  std::vector<std::pair<Pair, StoredVerdict>> ask_group(const std::vector<std::string>& claims,
                                                        const std::vector<std::string>& premises,
                                                        const std::vector<std::size_t>& group_claims,
                                                        const std::vector<std::size_t>& group_premises,
                                                        const std::vector<Pair>& missing,
                                                        const JudgeLanguage& language);
  // ask_group's two ways: the claims against one premise too long to share a call
  // (judge_within_window, column 0 of `cells`), or one table call of the `asked` cells
  // (cells the reply left out asked once more, a table whose reply shows signs of not being
  // read asked again passage by passage: reask_by_passage).
  void judge_long_premise(const std::vector<std::string>& claim_texts, const std::string& premise,
                          const JudgeLanguage& language,
                          std::vector<std::vector<StoredVerdict>>* cells);
  void ask_table(const std::vector<std::string>& claim_texts,
                 const std::vector<std::string>& premise_texts, const std::vector<Pair>& asked,
                 const JudgeLanguage& language, std::vector<std::vector<StoredVerdict>>* cells);
  // One verdict table call for `pairs` (claim, premise); a failed call leaves every
  // cell missing with its error. Reasons in `language`: a reply whose reasons stay in
  // another script when asked again keeps its verdicts, each cell with the warning.
  // Returns the claims whose reply shows a sign that the model did not read the
  // passages (verdict_signs.h).
  std::vector<SuspectClaim> table_call(const std::vector<std::string>& claims,
                                       const std::vector<std::string>& premises,
                                       const std::vector<Pair>& pairs,
                                       const JudgeLanguage& language,
                                       std::vector<std::vector<StoredVerdict>>* cells);
  // The `suspects` of a table call of `claims` against `premises` (the `asked` cells)
  // asked again in one table call per passage, concurrently (settle_by_quote applied to
  // each); their cells in `cells` are replaced by those calls' and their reasons say why.
  void reask_by_passage(const std::vector<std::string>& claims,
                        const std::vector<std::string>& premises, const std::vector<Pair>& asked,
                        const std::vector<SuspectClaim>& suspects, const JudgeLanguage& language,
                        std::vector<std::vector<StoredVerdict>>* cells);
  // The `suspects` of a table call (after reask_by_passage or settle_by_quote) that no
  // asked passage supports yet, where the offline judge finds the claim in an asked
  // passage (judge_claim: Entailment; the first such passage): the claim asked alone
  // against that passage's sentences holding its words (claim_window), one call per claim,
  // concurrently. Then, per such claim still unsupported (no window held it whole, or the
  // model did not entail it there) where one asked passage holds each of its clauses
  // (extract_claims: two or more), each clause asked alone against its own sentences. An
  // Entailment there (every clause's, for a claim asked by clauses; checked like any other)
  // replaces the passage's cell, its reason saying so; any other verdict leaves the
  // passage's own. Nothing in a language the offline judge has no rules for (docs/design.md,
  // "Long passages: the claim's own sentences decide" and "... a claim asked by its
  // clauses").
  void ask_by_window(const std::vector<std::string>& claims, const std::vector<std::string>& premises,
                     const std::vector<Pair>& asked, const std::vector<SuspectClaim>& suspects,
                     const JudgeLanguage& language, std::vector<std::vector<StoredVerdict>>* cells);
  // The cells of a call of one passage whose reply showed `suspects`: each claim with
  // kQuoteStatesClaim or kUnexplainedRejection whose passage states it
  // (SuspectClaim::passage_states) and whose cell is not Entailment gets
  // settle_quoted_support's Entailment.
  // `cells` is [claim][premise] in the call's numbering.
  static void settle_by_quote(const std::vector<SuspectClaim>& suspects,
                              std::vector<std::vector<StoredVerdict>>* cells);

  LlmJudgeOptions options_;
  std::shared_ptr<llm::ResponseCache> cache_;
  CallBook book_;
  CallBook embed_book_;
  VerdictStore store_;
  ClaimStore claims_;
  std::shared_ptr<LocalSimilarity> local_;  // shared with the repeats' judges
  std::mutex repeats_mutex_;
  std::map<std::pair<int, double>, std::shared_ptr<Judge>> repeats_;  // for_repeat's judges
  mutable std::mutex languages_mutex_;
  std::map<std::string, std::int64_t> languages_;  // samples by the language judged in
};

// The prompt version of a ledger judged in `language`: kLlmPromptVersion for English,
// else "llm-v14+lang-v1:zh" (kLlmLanguagePromptVersion and the code).
std::string llm_prompt_version(const JudgeLanguage& language);

}  // namespace ragmeter
