// The compact plan's verdicts (llm_judge_impl.h): every claim against every premise,
// each (claim, premise) pair taken from memory or the verdict store when known, the others
// asked in verdict table calls grouped by the window.
#include <algorithm>
#include <future>

#include "judge/llm_judge_impl.h"
#include "judge/llm_requests.h"
#include "judge/llm_window.h"
#include "judge/verdict_checks.h"
#include "judge/verdict_table.h"
#include "ragmeter/offline_judge.h"

namespace ragmeter {

void LlmJudge::fill_verdicts(ClaimLedger* ledger, const std::vector<std::string>& chunks,
                           std::optional<std::string> reference,
                           std::optional<std::string> response, CallLog* calls,
                           const JudgeLanguage& language) {
  const std::string instruction = language_instruction(language, kReasonsWhat);
  // Distinct premise and claim texts: duplicate chunks or claims are asked once.
  std::vector<std::string> premises, claims;
  auto index_of = [](std::vector<std::string>& list, const std::string& text) {
    auto it = std::find(list.begin(), list.end(), text);
    if (it != list.end()) return static_cast<std::size_t>(it - list.begin());
    list.push_back(text);
    return list.size() - 1;
  };
  std::vector<std::size_t> chunk_premise;
  for (const std::string& chunk : chunks) chunk_premise.push_back(index_of(premises, chunk));
  const std::size_t a = ledger->response_claims.size(), r = ledger->reference_claims.size();
  std::optional<std::size_t> reference_premise, response_premise;
  if (reference && a > 0) reference_premise = index_of(premises, *reference);
  if (response && r > 0) response_premise = index_of(premises, *response);
  std::vector<std::size_t> response_claim, reference_claim;
  for (const Claim& claim : ledger->response_claims) response_claim.push_back(index_of(claims, claim.text));
  for (const Claim& claim : ledger->reference_claims) reference_claim.push_back(index_of(claims, claim.text));

  // The pairs the tables need, in table order.
  using Pair = std::pair<std::size_t, std::size_t>;  // (claim, premise)
  std::vector<Pair> needed;
  auto need = [&](std::size_t claim, std::size_t premise) {
    if (std::find(needed.begin(), needed.end(), Pair{claim, premise}) == needed.end()) {
      needed.emplace_back(claim, premise);
    }
  };
  for (std::size_t c : response_claim) {
    for (std::size_t p : chunk_premise) need(c, p);
    if (reference_premise) need(c, *reference_premise);
  }
  for (std::size_t c : reference_claim) {
    for (std::size_t p : chunk_premise) need(c, p);
    if (response_premise) need(c, *response_premise);
  }
  if (needed.empty()) return;

  std::map<Pair, StoredVerdict> found;
  std::map<Pair, std::shared_future<StoredVerdict>> waiting;  // being judged elsewhere
  std::map<Pair, std::string> started;                        // ours to judge: their keys
  std::vector<Pair> missing;
  bool known = false;
  std::vector<std::string> folded_premises;
  for (const std::string& premise : premises) {
    folded_premises.push_back(offline_fold_case(normalize_content_text(premise)));
  }
  std::vector<Pair> judged;  // the pairs a judge must read, and their keys
  std::vector<std::string> keys;
  for (const Pair& pair : needed) {
    // A premise that holds the claim's very words states it: no call. (A small model
    // judging a claim against its own text in a table was seen to answer Contradiction.)
    const std::string claim = offline_fold_case(normalize_content_text(claims[pair.first]));
    if (!claim.empty() && folded_premises[pair.second].find(claim) != std::string::npos) {
      found[pair].cell.verdict = Verdict::kEntailment;
      continue;
    }
    judged.push_back(pair);
    keys.push_back(store_.key(claims[pair.first], premises[pair.second], instruction));
  }
  // All at once, so that two rows judging the same cells at the same time do not split
  // them into two calls.
  auto entries = store_.find_or_start_all(keys);
  for (std::size_t i = 0; i < judged.size(); ++i) {
    const Pair& pair = judged[i];
    const std::string& key = keys[i];
    if (auto& pending = entries[i]) {
      waiting.emplace(pair, std::move(*pending));
      known = true;
    } else if (auto stored = store_.find(claims[pair.first], premises[pair.second], instruction)) {
      store_.remember(key, *stored);
      found[pair] = std::move(*stored);
      known = true;
    } else {
      started.emplace(pair, key);
      missing.push_back(pair);
    }
  }
  if (!missing.empty()) ask_missing(claims, premises, missing, language, &found);
  // Every started key is finished, judged or not; the judged ones are stored together.
  std::vector<std::pair<std::string, StoredVerdict>> finished;
  for (const auto& [pair, key] : started) {
    auto it = found.find(pair);
    finished.emplace_back(key, it == found.end() ? StoredVerdict{} : it->second);
  }
  store_.finish_all(std::move(finished));
  for (auto& [pair, pending] : waiting) found[pair] = pending.get();
  if (missing.empty() && known) {
    book_.record_store_hit("verdicts");  // a call the store made unnecessary
  }

  auto cell_of = [&](std::size_t claim, std::size_t premise) {
    auto it = found.find(Pair{claim, premise});
    return it == found.end() ? VerdictCell{} : it->second.cell;
  };
  for (std::size_t i = 0; i < a; ++i) {
    for (std::size_t k = 0; k < chunks.size(); ++k) {
      ledger->response_vs_chunks.at(i, k) = cell_of(response_claim[i], chunk_premise[k]);
    }
  }
  for (std::size_t j = 0; j < r; ++j) {
    for (std::size_t k = 0; k < chunks.size(); ++k) {
      ledger->reference_vs_chunks.at(j, k) = cell_of(reference_claim[j], chunk_premise[k]);
    }
  }
  if (reference_premise) {
    ledger->response_vs_reference.clear();
    for (std::size_t i = 0; i < a; ++i) {
      ledger->response_vs_reference.push_back(cell_of(response_claim[i], *reference_premise));
    }
  }
  if (response_premise) {
    ledger->reference_vs_response.clear();
    for (std::size_t j = 0; j < r; ++j) {
      ledger->reference_vs_response.push_back(cell_of(reference_claim[j], *response_premise));
    }
  }
  for (const Pair& pair : needed) add_warning(&ledger->warnings, found[pair].language_warning);
  if (calls) {
    for (const Pair& pair : needed) {
      const std::string& call = found[pair].call;
      if (!call.empty() && std::find(calls->begin(), calls->end(), call) == calls->end()) {
        calls->push_back(call);
      }
    }
  }
}

void LlmJudge::ask_missing(const std::vector<std::string>& claims,
                         const std::vector<std::string>& premises, const std::vector<Pair>& missing,
                         const JudgeLanguage& language, std::map<Pair, StoredVerdict>* found) {
  std::vector<std::size_t> missing_premises, missing_claims;
  for (const auto& [c, p] : missing) {
    if (std::find(missing_premises.begin(), missing_premises.end(), p) == missing_premises.end()) missing_premises.push_back(p);
    if (std::find(missing_claims.begin(), missing_claims.end(), c) == missing_claims.end()) missing_claims.push_back(c);
  }
  std::size_t claim_bytes = 0;
  for (std::size_t c : missing_claims) claim_bytes += claims[c].size() + 6;
  std::vector<std::size_t> premise_bytes;
  for (std::size_t p : missing_premises) premise_bytes.push_back(premises[p].size());
  const std::size_t fixed =
      verdict_table_fixed_bytes() + language_instruction(language, kReasonsWhat).size();
  const int window = options_.context_tokens;
  const int max_tokens = options_.max_tokens;
  const auto groups = group_premises(claim_bytes, premise_bytes, fixed, window, max_tokens);

  // One task per group; each returns its pairs' cells with the key of the call behind them.
  using Cells = std::vector<std::pair<std::pair<std::size_t, std::size_t>, StoredVerdict>>;
  std::vector<std::future<Cells>> tasks;
  for (const auto& group : groups) {
    std::vector<std::size_t> group_premises_;
    for (std::size_t g : group) group_premises_.push_back(missing_premises[g]);
    std::vector<std::size_t> group_claims;  // claims with a missing pair in this group
    for (std::size_t c : missing_claims) {
      for (std::size_t p : group_premises_) {
        if (std::find(missing.begin(), missing.end(), std::pair{c, p}) != missing.end()) {
          group_claims.push_back(c);
          break;
        }
      }
    }
    tasks.push_back(std::async(std::launch::async, [&, group_premises_, group_claims] {
      return ask_group(claims, premises, group_claims, group_premises_, missing, language);
    }));
  }
  for (auto& task : tasks) {
    for (auto& [pair, verdict] : task.get()) (*found)[pair] = std::move(verdict);
  }
}

std::vector<std::pair<LlmJudge::Pair, StoredVerdict>> LlmJudge::ask_group(
  const std::vector<std::string>& claims, const std::vector<std::string>& premises,
  const std::vector<std::size_t>& group_claims, const std::vector<std::size_t>& group_premises_,
  const std::vector<Pair>& missing, const JudgeLanguage& language) {
  std::vector<std::string> claim_texts, premise_texts;
  std::size_t claim_bytes = 0, premise_bytes = 0;
  for (std::size_t c : group_claims) {
    claim_texts.push_back(claims[c]);
    claim_bytes += claims[c].size() + 6;
  }
  for (std::size_t p : group_premises_) {
    premise_texts.push_back(premises[p]);
    premise_bytes += premises[p].size() + 8;
  }
  // cells[i][j]: claim i against premise j, with the call that judged it.
  std::vector<std::vector<StoredVerdict>> cells(claim_texts.size(),
                                                std::vector<StoredVerdict>(premise_texts.size()));
  const std::size_t fixed =
      verdict_table_fixed_bytes() + language_instruction(language, kReasonsWhat).size();
  if (premise_texts.size() == 1 &&
      !fits_window(claim_bytes, premise_bytes, fixed, options_.context_tokens, options_.max_tokens)) {
    CallLog log;
    std::vector<std::string> warnings;
    std::vector<VerdictCell> column =
        judge_within_window(book_, *options_.chat, claim_texts, premise_texts[0],
                            options_.context_tokens, options_.max_tokens, &log, language, &warnings);
    for (std::size_t i = 0; i < column.size(); ++i) {
      cells[i][0].cell = std::move(column[i]);
      cells[i][0].call = log.empty() ? "" : log.front();
      if (!warnings.empty()) cells[i][0].language_warning = warnings.front();
    }
  } else {
    // The cells this call must fill, in its own numbering.
    std::vector<std::pair<std::size_t, std::size_t>> asked;
    for (std::size_t i = 0; i < group_claims.size(); ++i) {
      for (std::size_t j = 0; j < group_premises_.size(); ++j) {
        if (std::find(missing.begin(), missing.end(),
                      std::pair{group_claims[i], group_premises_[j]}) != missing.end()) {
          asked.emplace_back(i, j);
        }
      }
    }
    table_call(claim_texts, premise_texts, asked, language, &cells);
    // Cells the reply left out (not a failed call: that leaves a reason) are asked
    // once more, in one call.
    std::vector<std::pair<std::size_t, std::size_t>> again;
    for (const auto& [i, j] : asked) {
      if (!cells[i][j].cell.judged() && cells[i][j].cell.reason.empty()) again.emplace_back(i, j);
    }
    if (!again.empty() && again.size() < asked.size()) {
      std::vector<std::vector<StoredVerdict>> second(
          claim_texts.size(), std::vector<StoredVerdict>(premise_texts.size()));
      table_call(claim_texts, premise_texts, again, language, &second);
      for (const auto& [i, j] : again) cells[i][j] = std::move(second[i][j]);
    }
  }
  // The model's Entailments vetted in code (verdict_checks.h): each text analysed once.
  std::vector<std::optional<OfflineClaim>> claim_analyses(claim_texts.size());
  std::vector<std::optional<OfflinePremise>> premise_analyses(premise_texts.size());
  std::vector<std::pair<std::pair<std::size_t, std::size_t>, StoredVerdict>> out;
  for (std::size_t i = 0; i < group_claims.size(); ++i) {
    for (std::size_t j = 0; j < group_premises_.size(); ++j) {
      const std::pair<std::size_t, std::size_t> pair{group_claims[i], group_premises_[j]};
      if (std::find(missing.begin(), missing.end(), pair) == missing.end()) continue;
      StoredVerdict verdict = std::move(cells[i][j]);
      if (verdict.cell.supports()) {
        if (!claim_analyses[i]) claim_analyses[i].emplace(claim_texts[i]);
        if (!premise_analyses[j]) premise_analyses[j].emplace(premise_texts[j]);
        verdict.cell =
            vet_entailment(std::move(verdict.cell), *claim_analyses[i], *premise_analyses[j]);
      }
      if (!verdict.cell.judged() && verdict.cell.reason.empty()) {
        verdict.cell.reason = "not judged: the judge's reply had no verdict for this claim";
      }
      out.emplace_back(pair, std::move(verdict));
    }
  }
  return out;
}

void LlmJudge::table_call(const std::vector<std::string>& claims,
                        const std::vector<std::string>& premises, const std::vector<Pair>& pairs,
                        const JudgeLanguage& language,
                        std::vector<std::vector<StoredVerdict>>* cells) {
  LanguageReply answer = chat_in_language(
      book_, *options_.chat, language, kReasonsWhat,
      [&](const std::string& line) { return llm_verdict_table_request(claims, premises, pairs, line); },
      [&](const nlohmann::json& reply) { return read_table_reasons(reply, claims.size()); }, "verdicts",
      nullptr);
  const std::string& key = answer.call;
  const StatusOr<nlohmann::json>& reply = answer.reply;
  const std::string warning = answer.wrong ? reasons_warning(language, *answer.wrong) : "";
  std::vector<std::vector<VerdictCell>> table;
  if (reply.ok()) {
    table = read_llm_verdict_table(*reply, claims.size(), premises.size());
    const auto evidence = read_table_evidence(*reply, claims.size());
    check_quoted_evidence(evidence, premises, &table);
    std::vector<std::string> labels;
    for (std::size_t j = 0; j < premises.size(); ++j) {
      labels.push_back(premise_label(j, premises.size()));
    }
    locate_entailment_by_evidence(evidence, premises, pairs, labels, &table);
  }
  for (const auto& [i, j] : pairs) {
    {
      StoredVerdict& verdict = (*cells)[i][j];
      verdict.call = key;
      if (reply.ok()) {
        verdict.cell = std::move(table[i][j]);
        verdict.language_warning = warning;
      } else {
        verdict.cell = VerdictCell{};
        verdict.cell.reason = "not judged: " + reply.status().message();
      }
    }
  }
}

}  // namespace ragmeter
