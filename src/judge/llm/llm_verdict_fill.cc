// The compact plan's verdicts (llm_judge_impl.h): every claim against every premise,
// each (claim, premise) pair taken from memory or the verdict store when known, the others
// asked in verdict table calls grouped by the window.
#include <algorithm>
#include <future>

#include "core/concurrent_jobs.h"
#include "core/row_turns.h"
#include "judge/llm/llm_judge_impl.h"
#include "judge/llm/row_sharing.h"
#include "judge/llm/llm_requests.h"
#include "judge/llm/llm_window.h"
#include "judge/llm/verdict_checks.h"
#include "judge/llm/verdict_signs.h"
#include "judge/llm/verdict_table.h"
#include "ragmeter/offline_judge.h"

namespace ragmeter {
namespace {

using Pair = std::pair<std::size_t, std::size_t>;  // (claim, premise)

// A ledger's texts as the verdict tables see them: the distinct premises and claims (a
// duplicate chunk or claim is asked once), and each chunk's, claim's and whole text's
// place among them.
struct VerdictTexts {
  std::vector<std::string> premises, claims;
  std::vector<std::size_t> chunk_premise, response_claim, reference_claim;
  std::optional<std::size_t> reference_premise, response_premise;
};

std::size_t index_of(std::vector<std::string>& list, const std::string& text) {
  auto it = std::find(list.begin(), list.end(), text);
  if (it != list.end()) return static_cast<std::size_t>(it - list.begin());
  list.push_back(text);
  return list.size() - 1;
}

VerdictTexts verdict_texts(const ClaimLedger& ledger, const std::vector<std::string>& chunks,
                           const std::optional<std::string>& reference,
                           const std::optional<std::string>& response) {
  VerdictTexts texts;
  for (const std::string& chunk : chunks) {
    texts.chunk_premise.push_back(index_of(texts.premises, chunk));
  }
  if (reference && !ledger.response_claims.empty()) {
    texts.reference_premise = index_of(texts.premises, *reference);
  }
  if (response && !ledger.reference_claims.empty()) {
    texts.response_premise = index_of(texts.premises, *response);
  }
  for (const Claim& claim : ledger.response_claims) {
    texts.response_claim.push_back(index_of(texts.claims, claim.text));
  }
  for (const Claim& claim : ledger.reference_claims) {
    texts.reference_claim.push_back(index_of(texts.claims, claim.text));
  }
  return texts;
}

// The pairs the tables need, each once, in table order.
std::vector<Pair> needed_pairs(const VerdictTexts& texts) {
  std::vector<Pair> needed;
  auto need = [&](std::size_t claim, std::size_t premise) {
    if (std::find(needed.begin(), needed.end(), Pair{claim, premise}) == needed.end()) {
      needed.emplace_back(claim, premise);
    }
  };
  for (std::size_t c : texts.response_claim) {
    for (std::size_t p : texts.chunk_premise) need(c, p);
    if (texts.reference_premise) need(c, *texts.reference_premise);
  }
  for (std::size_t c : texts.reference_claim) {
    for (std::size_t p : texts.chunk_premise) need(c, p);
    if (texts.response_premise) need(c, *texts.response_premise);
  }
  return needed;
}

// Where the needed pairs' verdicts come from.
struct VerdictSources {
  std::map<Pair, StoredVerdict> found;
  std::map<Pair, std::shared_future<StoredVerdict>> waiting;  // being judged elsewhere
  std::map<Pair, std::string> started;                        // ours to judge: their keys
  std::vector<Pair> missing;
  bool known = false;  // a pair from the store or another thread
};

// The needed pairs a judge must read, with their store keys.
struct JudgedPairs {
  std::vector<Pair> pairs;
  std::vector<std::string> keys;
};

// A premise that holds the claim's very words states it: its pair is entailed in `found`,
// with no call. (A small model judging a claim against its own text in a table was seen
// to answer Contradiction.) The other pairs are returned.
JudgedPairs pairs_to_judge(const VerdictTexts& texts, const std::vector<Pair>& needed,
                           const VerdictStore& store, const std::string& instruction,
                           std::map<Pair, StoredVerdict>* found) {
  std::vector<std::string> folded_premises;
  for (const std::string& premise : texts.premises) {
    folded_premises.push_back(offline_fold_case(normalize_content_text(premise)));
  }
  JudgedPairs judged;
  for (const Pair& pair : needed) {
    const std::string claim = offline_fold_case(normalize_content_text(texts.claims[pair.first]));
    if (!claim.empty() && folded_premises[pair.second].find(claim) != std::string::npos) {
      (*found)[pair].cell.verdict = Verdict::kEntailment;
      continue;
    }
    judged.pairs.push_back(pair);
    judged.keys.push_back(
        store.key(texts.claims[pair.first], texts.premises[pair.second], instruction));
  }
  return judged;
}

// Each judged pair awaited from another thread judging it now, taken from the store, or
// started as ours to ask (missing). All keys at once, so that two rows judging the same
// cells at the same time do not split them into two calls.
void look_up_pairs(VerdictStore& store, const VerdictTexts& texts, const JudgedPairs& judged,
                   const std::string& instruction, VerdictSources* sources) {
  auto entries = store.find_or_start_all(judged.keys);
  for (std::size_t i = 0; i < judged.pairs.size(); ++i) {
    const Pair& pair = judged.pairs[i];
    const std::string& key = judged.keys[i];
    if (auto& pending = entries[i]) {
      sources->waiting.emplace(pair, std::move(*pending));
      sources->known = true;
    } else if (auto stored =
                   store.find(texts.claims[pair.first], texts.premises[pair.second], instruction)) {
      store.remember(key, *stored);
      sources->found[pair] = std::move(*stored);
      sources->known = true;
    } else {
      sources->started.emplace(pair, key);
      sources->missing.push_back(pair);
    }
  }
}

// Every started key is finished, judged or not; the judged ones are stored together.
void finish_started(VerdictStore& store, const VerdictSources& sources) {
  std::vector<std::pair<std::string, StoredVerdict>> finished;
  for (const auto& [pair, key] : sources.started) {
    auto it = sources.found.find(pair);
    finished.emplace_back(key, it == sources.found.end() ? StoredVerdict{} : it->second);
  }
  store.finish_all(std::move(finished));
}

VerdictCell cell_of(const std::map<Pair, StoredVerdict>& found, std::size_t claim,
                    std::size_t premise) {
  auto it = found.find(Pair{claim, premise});
  return it == found.end() ? VerdictCell{} : it->second.cell;
}

// The ledger's verdict tables from the pairs' verdicts.
void write_verdict_tables(const VerdictTexts& texts, const std::map<Pair, StoredVerdict>& found,
                          ClaimLedger* ledger) {
  const std::size_t a = texts.response_claim.size(), r = texts.reference_claim.size();
  const std::size_t chunks = texts.chunk_premise.size();
  for (std::size_t i = 0; i < a; ++i) {
    for (std::size_t k = 0; k < chunks; ++k) {
      ledger->response_vs_chunks.at(i, k) =
          cell_of(found, texts.response_claim[i], texts.chunk_premise[k]);
    }
  }
  for (std::size_t j = 0; j < r; ++j) {
    for (std::size_t k = 0; k < chunks; ++k) {
      ledger->reference_vs_chunks.at(j, k) =
          cell_of(found, texts.reference_claim[j], texts.chunk_premise[k]);
    }
  }
  if (texts.reference_premise) {
    ledger->response_vs_reference.clear();
    for (std::size_t i = 0; i < a; ++i) {
      ledger->response_vs_reference.push_back(
          cell_of(found, texts.response_claim[i], *texts.reference_premise));
    }
  }
  if (texts.response_premise) {
    ledger->reference_vs_response.clear();
    for (std::size_t j = 0; j < r; ++j) {
      ledger->reference_vs_response.push_back(
          cell_of(found, texts.reference_claim[j], *texts.response_premise));
    }
  }
}

// The needed pairs' language warnings to the ledger, and their calls, each once, to `calls`.
void note_warnings_and_calls(const std::vector<Pair>& needed, std::map<Pair, StoredVerdict>& found,
                             ClaimLedger* ledger, CallLog* calls) {
  for (const Pair& pair : needed) add_warning(&ledger->warnings, found[pair].language_warning);
  if (!calls) return;
  for (const Pair& pair : needed) {
    const std::string& call = found[pair].call;
    if (!call.empty() && std::find(calls->begin(), calls->end(), call) == calls->end()) {
      calls->push_back(call);
    }
  }
}

}  // namespace

void LlmJudge::fill_verdicts(ClaimLedger* ledger, const std::vector<std::string>& chunks,
                             std::optional<std::string> reference,
                             std::optional<std::string> response, CallLog* calls,
                             const JudgeLanguage& language) {
  const std::string instruction = language_instruction(language, kReasonsWhat);
  const VerdictTexts texts = verdict_texts(*ledger, chunks, reference, response);
  const std::vector<Pair> needed = needed_pairs(texts);
  if (needed.empty()) {
    pass_row_turn(&store_);
    return;
  }
  VerdictSources sources;
  const JudgedPairs judged = pairs_to_judge(texts, needed, store_, instruction, &sources.found);
  {
    // Which cells this row asks is decided after the rows before it decided theirs
    // (core/row_turns.h): the tables do not depend on which thread got here first.
    RowTurn turn(&store_, row_sharing());
    look_up_pairs(store_, texts, judged, instruction, &sources);
  }
  if (!sources.missing.empty()) {
    ask_missing(texts.claims, texts.premises, sources.missing, language, &sources.found);
  }
  finish_started(store_, sources);
  for (auto& [pair, pending] : sources.waiting) sources.found[pair] = pending.get();
  if (sources.missing.empty() && sources.known) {
    book_.record_store_hit("verdicts");  // a call the store made unnecessary
  }
  write_verdict_tables(texts, sources.found, ledger);
  note_warnings_and_calls(needed, sources.found, ledger, calls);
}

namespace {

// One table call's claims and premises (indices into the ledger's texts).
struct TableGroup {
  std::vector<std::size_t> claims;
  std::vector<std::size_t> premises;
};

// The table calls that ask the `missing` pairs: the premises grouped as the window allows
// (group_premises), each call with the claims that have a missing pair against one of its
// premises.
std::vector<TableGroup> table_groups(const std::vector<std::string>& claims,
                                     const std::vector<std::string>& premises,
                                     const std::vector<Pair>& missing, std::size_t fixed_bytes,
                                     int window, int max_tokens) {
  std::vector<std::size_t> missing_premises, missing_claims;
  for (const auto& [c, p] : missing) {
    if (std::find(missing_premises.begin(), missing_premises.end(), p) == missing_premises.end()) missing_premises.push_back(p);
    if (std::find(missing_claims.begin(), missing_claims.end(), c) == missing_claims.end()) missing_claims.push_back(c);
  }
  std::size_t claim_bytes = 0;
  for (std::size_t c : missing_claims) claim_bytes += claims[c].size() + 6;
  std::vector<std::size_t> premise_bytes;
  for (std::size_t p : missing_premises) premise_bytes.push_back(premises[p].size());
  // The claims with a missing pair against any of `group`'s premises.
  auto claims_for = [&](const std::vector<std::size_t>& group) {
    std::vector<std::size_t> out;
    for (std::size_t c : missing_claims) {
      for (std::size_t p : group) {
        if (std::find(missing.begin(), missing.end(), std::pair{c, p}) != missing.end()) {
          out.push_back(c);
          break;
        }
      }
    }
    return out;
  };
  std::vector<TableGroup> out;
  for (const auto& group : group_premises(claim_bytes, premise_bytes, fixed_bytes, window, max_tokens)) {
    TableGroup call;
    for (std::size_t g : group) call.premises.push_back(missing_premises[g]);
    call.claims = claims_for(call.premises);
    out.push_back(std::move(call));
  }
  return out;
}

}  // namespace

void LlmJudge::ask_missing(const std::vector<std::string>& claims,
                           const std::vector<std::string>& premises, const std::vector<Pair>& missing,
                           const JudgeLanguage& language, std::map<Pair, StoredVerdict>* found) {
  const std::size_t fixed =
      verdict_table_fixed_bytes() + language_instruction(language, kReasonsWhat).size();
  // One task per table call, run concurrently; each returns its pairs' cells with the key
  // of the call behind them.
  const std::vector<TableGroup> groups =
      table_groups(claims, premises, missing, fixed, options_.context_tokens, options_.max_tokens);
  for (auto& cells : run_concurrently(groups.size(), [&](std::size_t g) {
         return ask_group(claims, premises, groups[g].claims, groups[g].premises, missing, language);
       })) {
    for (auto& [pair, verdict] : cells) (*found)[pair] = std::move(verdict);
  }
}

namespace {

using GroupCells = std::vector<std::vector<StoredVerdict>>;  // [claim][premise] of a group

// The (claim, premise) cells of a group that `missing` asks for, in the group's numbering.
std::vector<std::pair<std::size_t, std::size_t>> asked_cells(
    const std::vector<std::size_t>& group_claims, const std::vector<std::size_t>& group_premises,
    const std::vector<Pair>& missing) {
  std::vector<std::pair<std::size_t, std::size_t>> asked;
  for (std::size_t i = 0; i < group_claims.size(); ++i) {
    for (std::size_t j = 0; j < group_premises.size(); ++j) {
      if (std::find(missing.begin(), missing.end(), std::pair{group_claims[i], group_premises[j]}) !=
          missing.end()) {
        asked.emplace_back(i, j);
      }
    }
  }
  return asked;
}

// The group's asked cells as the store keeps them: the model's Entailments vetted in code
// (verdict_checks.h, each text analysed once), a cell the reply left out saying so.
std::vector<std::pair<Pair, StoredVerdict>> vetted_cells(
    const std::vector<std::string>& claim_texts, const std::vector<std::string>& premise_texts,
    const std::vector<std::size_t>& group_claims, const std::vector<std::size_t>& group_premises,
    const std::vector<Pair>& missing, GroupCells* cells) {
  std::vector<std::optional<OfflineClaim>> claim_analyses(claim_texts.size());
  std::vector<std::optional<OfflinePremise>> premise_analyses(premise_texts.size());
  std::vector<std::pair<Pair, StoredVerdict>> out;
  for (std::size_t i = 0; i < group_claims.size(); ++i) {
    for (std::size_t j = 0; j < group_premises.size(); ++j) {
      const Pair pair{group_claims[i], group_premises[j]};
      if (std::find(missing.begin(), missing.end(), pair) == missing.end()) continue;
      StoredVerdict verdict = std::move((*cells)[i][j]);
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

}  // namespace

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
  GroupCells cells(claim_texts.size(), std::vector<StoredVerdict>(premise_texts.size()));
  const std::size_t fixed =
      verdict_table_fixed_bytes() + language_instruction(language, kReasonsWhat).size();
  if (premise_texts.size() == 1 &&
      !fits_window(claim_bytes, premise_bytes, fixed, options_.context_tokens, options_.max_tokens)) {
    judge_long_premise(claim_texts, premise_texts[0], language, &cells);
  } else {
    ask_table(claim_texts, premise_texts, asked_cells(group_claims, group_premises_, missing),
              language, &cells);
  }
  return vetted_cells(claim_texts, premise_texts, group_claims, group_premises_, missing, &cells);
}

void LlmJudge::judge_long_premise(const std::vector<std::string>& claim_texts,
                                  const std::string& premise, const JudgeLanguage& language,
                                  std::vector<std::vector<StoredVerdict>>* cells) {
  CallLog log;
  std::vector<std::string> warnings;
  std::vector<VerdictCell> column =
      judge_within_window(book_, *options_.chat, claim_texts, premise, options_.context_tokens,
                          options_.max_tokens, &log, language, &warnings);
  for (std::size_t i = 0; i < column.size(); ++i) {
    (*cells)[i][0].cell = std::move(column[i]);
    (*cells)[i][0].call = log.empty() ? "" : log.front();
    if (!warnings.empty()) (*cells)[i][0].language_warning = warnings.front();
  }
}

void LlmJudge::ask_table(const std::vector<std::string>& claim_texts,
                         const std::vector<std::string>& premise_texts,
                         const std::vector<Pair>& asked, const JudgeLanguage& language,
                         std::vector<std::vector<StoredVerdict>>* cells) {
  std::vector<SuspectClaim> suspects = table_call(claim_texts, premise_texts, asked, language, cells);
  // Cells the reply left out (not a failed call: that leaves a reason) are asked once more,
  // in one call.
  std::vector<Pair> again;
  for (const auto& [i, j] : asked) {
    if (!(*cells)[i][j].cell.judged() && (*cells)[i][j].cell.reason.empty()) again.emplace_back(i, j);
  }
  if (!again.empty() && again.size() < asked.size()) {
    std::vector<std::vector<StoredVerdict>> second(claim_texts.size(),
                                                   std::vector<StoredVerdict>(premise_texts.size()));
    table_call(claim_texts, premise_texts, again, language, &second);
    for (const auto& [i, j] : again) (*cells)[i][j] = std::move(second[i][j]);
  }
  // A table of several passages too large to go unchecked whose reply shows the model did
  // not read them: its flagged claims are asked again passage by passage; a table of one
  // passage is as narrow as a re-ask would be, so only its claims whose own quote states
  // them are settled (docs/design.md, "Long passages"). Nothing is learned for later
  // tables: a limit one row teaches would cut another row's table or not by which row
  // finished first, and the scores with it.
  std::int64_t premise_tokens = 0;
  for (const std::string& premise : premise_texts) premise_tokens += estimate_tokens(premise.size());
  const std::int64_t span = table_span(claim_texts.size(), premise_tokens);
  if (span <= kSmallTableSpan || suspects.empty()) return;
  if (premise_texts.size() > 1) {
    reask_by_passage(claim_texts, premise_texts, asked, suspects, language, cells);
  } else {
    settle_by_quote(suspects, cells);
  }
  ask_by_window(claim_texts, premise_texts, asked, suspects, language, cells);
}

void LlmJudge::ask_by_window(const std::vector<std::string>& claims,
                             const std::vector<std::string>& premises,
                             const std::vector<Pair>& asked,
                             const std::vector<SuspectClaim>& suspects,
                             const JudgeLanguage& language,
                             std::vector<std::vector<StoredVerdict>>* cells) {
  const std::string code = language.english() ? "en" : language.code;
  if (!offline_judge_gap(code).empty()) return;
  std::vector<std::optional<OfflinePremise>> analyses(premises.size());
  auto analysis = [&](std::size_t j) -> const OfflinePremise& {
    if (!analyses[j]) analyses[j].emplace(premises[j], code);
    return *analyses[j];
  };
  // A claim (or a clause of one) and an asked passage's sentences the offline rules find
  // it in (claim_window), or nothing when they do not, or when those are the whole passage
  // (asked already).
  auto window_of = [&](const std::string& part, std::size_t j) -> std::optional<std::string> {
    const OfflineClaim claim(part, code);
    if (judge_claim(claim, analysis(j)).verdict != Verdict::kEntailment) return std::nullopt;
    std::string text = claim_window(claim, analysis(j));
    if (text.size() >= premises[j].size()) return std::nullopt;
    return text;
  };
  struct Window {
    std::size_t claim = 0;
    std::size_t premise = 0;
    std::vector<std::string> parts;  // the claim, or its clauses
    std::vector<std::string> texts;  // the sentences each part is asked against
  };
  // Asks every part of every window alone against its sentences, concurrently; a window
  // whose every part the model entails (checked like any other verdict) makes its cell
  // Entailment, its reason saying so. Returns whether each window did.
  auto ask = [&](const std::vector<Window>& windows) {
    std::vector<std::pair<std::size_t, std::size_t>> asks;  // (window, part)
    for (std::size_t w = 0; w < windows.size(); ++w) {
      for (std::size_t p = 0; p < windows[w].parts.size(); ++p) asks.emplace_back(w, p);
    }
    std::vector<StoredVerdict> verdicts = run_concurrently(asks.size(), [&](std::size_t a) {
      const Window& window = windows[asks[a].first];
      const std::size_t part = asks[a].second;
      std::vector<std::vector<StoredVerdict>> one(1, std::vector<StoredVerdict>(1));
      settle_by_quote(table_call({window.parts[part]}, {window.texts[part]}, {{0, 0}}, language, &one), &one);
      return std::move(one[0][0]);
    });
    std::vector<bool> entailed(windows.size(), false);
    std::size_t a = 0;
    for (std::size_t w = 0; w < windows.size(); ++w) {
      const Window& window = windows[w];
      const std::size_t first = a;
      a += window.parts.size();
      bool all = true;
      for (std::size_t k = first; k < a; ++k) all = all && verdicts[k].cell.supports();
      if (!all) continue;  // the passage's own verdict stands
      entailed[w] = true;
      StoredVerdict& cell = (*cells)[window.claim][window.premise];
      std::string note =
          std::string(window.parts.size() == 1
                          ? "asked again with the sentences of this passage that hold the claim's words"
                          : "asked again clause by clause, each with the sentences of this passage "
                            "that hold its words") +
          " (the passage's verdict: " + std::string(verdict_name(cell.cell.verdict)) + ")";
      for (std::size_t k = first; k < a; ++k) {
        if (verdicts[k].cell.reason.empty()) continue;
        note += (window.parts.size() == 1 ? ": " : "; \"" + window.parts[k - first] + "\": ") +
                verdicts[k].cell.reason;
      }
      StoredVerdict verdict = std::move(verdicts[first]);
      verdict.cell.reason = std::move(note);
      cell = std::move(verdict);
    }
    return entailed;
  };
  // Round 1, per flagged claim still supported by no asked passage: the claim against the
  // sentences of the first asked passage the offline rules find it in.
  std::vector<std::size_t> unsupported;
  std::vector<Window> whole;
  for (const SuspectClaim& suspect : suspects) {
    const std::size_t i = suspect.claim;
    bool supported = false;
    for (const auto& [c, j] : asked) supported = supported || (c == i && (*cells)[i][j].cell.supports());
    if (supported) continue;
    unsupported.push_back(i);
    for (const auto& [c, j] : asked) {
      if (c != i) continue;
      if (std::optional<std::string> text = window_of(claims[i], j)) {
        whole.push_back(Window{i, j, {claims[i]}, {*text}});
        break;
      }
    }
  }
  const std::vector<bool> whole_entailed = ask(whole);
  // Round 2, per such claim still unsupported (no window held it, or the model did not
  // entail it there): its clauses (extract_claims, two or more), each against its own
  // sentences of the first asked passage the offline rules find every clause in. A claim
  // that sums up two places of a passage is asked as its parts.
  std::vector<Window> by_clause;
  for (const std::size_t i : unsupported) {
    bool done = false;
    for (std::size_t w = 0; w < whole.size(); ++w) done = done || (whole[w].claim == i && whole_entailed[w]);
    const std::vector<std::string> clauses = done ? std::vector<std::string>() : extract_claims(claims[i], {}, code);
    if (clauses.size() < 2) continue;
    for (const auto& [c, j] : asked) {
      if (c != i) continue;
      Window parts{i, j, {}, {}};
      for (const std::string& clause : clauses) {
        std::optional<std::string> text = window_of(clause, j);
        if (!text) break;
        parts.parts.push_back(clause);
        parts.texts.push_back(std::move(*text));
      }
      if (parts.parts.size() < clauses.size()) continue;
      by_clause.push_back(std::move(parts));
      break;
    }
  }
  ask(by_clause);
}

void LlmJudge::settle_by_quote(const std::vector<SuspectClaim>& suspects,
                               std::vector<std::vector<StoredVerdict>>* cells) {
  for (const SuspectClaim& suspect : suspects) {
    const bool by_reason = suspect.sign == TableSign::kUnexplainedRejection;
    if ((suspect.sign != TableSign::kQuoteStatesClaim && !by_reason) || !suspect.passage_states) {
      continue;
    }
    StoredVerdict& verdict = (*cells)[suspect.claim][suspect.quoted_premise];
    if (!verdict.cell.judged() || verdict.cell.supports()) continue;
    verdict.cell = settle_quoted_support(verdict.cell.verdict, suspect.quote, by_reason);
  }
}

void LlmJudge::reask_by_passage(const std::vector<std::string>& claims,
                                const std::vector<std::string>& premises,
                                const std::vector<Pair>& asked,
                                const std::vector<SuspectClaim>& suspects,
                                const JudgeLanguage& language,
                                std::vector<std::vector<StoredVerdict>>* cells) {
  std::vector<std::string> texts;
  for (const SuspectClaim& suspect : suspects) texts.push_back(claims[suspect.claim]);
  // One call per passage, concurrently: the flagged claims asked against it. (One call per
  // claim and passage was tried on the long-passage dev rows: it moved one pair the wrong
  // way and none the right way, for 62 calls instead of 38; docs/dev/judge-measurements.md.)
  std::vector<std::vector<Pair>> pairs(premises.size());
  std::vector<std::size_t> passages;  // those with a flagged claim asked against them
  for (std::size_t j = 0; j < premises.size(); ++j) {
    for (std::size_t s = 0; s < suspects.size(); ++s) {
      if (std::find(asked.begin(), asked.end(), Pair{suspects[s].claim, j}) != asked.end()) {
        pairs[j].emplace_back(s, 0);
      }
    }
    if (!pairs[j].empty()) passages.push_back(j);
  }
  std::vector<std::vector<std::vector<StoredVerdict>>> replies =
      run_concurrently(passages.size(), [&](std::size_t p) {
        const std::size_t j = passages[p];
        std::vector<std::vector<StoredVerdict>> one(texts.size(), std::vector<StoredVerdict>(1));
        settle_by_quote(table_call(texts, {premises[j]}, pairs[j], language, &one), &one);
        return one;
      });
  for (std::size_t p = 0; p < passages.size(); ++p) {
    const std::size_t j = passages[p];
    auto& one = replies[p];
    for (const auto& [s, zero] : pairs[j]) {
      StoredVerdict verdict = std::move(one[s][0]);
      if (verdict.cell.judged()) {
        const std::string note = "asked again with this passage alone (the table's reply: " +
                                 std::string(table_sign_name(suspects[s].sign)) + ")";
        verdict.cell.reason = verdict.cell.reason.empty() ? note : note + ": " + verdict.cell.reason;
      }
      (*cells)[suspects[s].claim][j] = std::move(verdict);
    }
  }
}

std::vector<SuspectClaim> LlmJudge::table_call(const std::vector<std::string>& claims,
                                               const std::vector<std::string>& premises,
                                               const std::vector<Pair>& pairs,
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
  std::vector<SuspectClaim> suspects;
  if (reply.ok()) {
    table = read_llm_verdict_table(*reply, claims.size(), premises.size());
    const auto evidence = read_table_evidence(*reply, claims.size());
    suspects = suspect_claims(claims, premises, table, evidence, pairs, language.code);
    check_quoted_evidence(evidence, claims, premises, pairs, language.code, &table);
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
  return suspects;
}

}  // namespace ragmeter
