// Window splitting for the LLM judge's calls (llm_window.h).
#include "judge/llm/llm_window.h"

#include <algorithm>

#include "judge/llm/llm_requests.h"
#include "judge/llm/verdict_table.h"
#include "ragmeter/llm_judge.h"
#include "ragmeter/offline_judge.h"
#include "ragmeter_prompts.inc"

namespace ragmeter {
namespace {

// The reasons of a verdicts reply (what the language check reads).
std::vector<std::string> verdict_reasons(const nlohmann::json& reply) {
  std::vector<std::string> out;
  const nlohmann::json& verdicts = reply.contains("verdicts") ? reply["verdicts"] : nlohmann::json();
  if (!verdicts.is_array()) return out;
  for (const nlohmann::json& entry : verdicts) {
    if (entry.is_object() && entry.contains("reason") && entry["reason"].is_string()) {
      out.push_back(entry["reason"].get<std::string>());
    }
  }
  return out;
}

// The cells of one verdicts call, or of its failure (every cell missing with the error as
// reason, so the metrics can say why).
std::vector<VerdictCell> verdicts_call(CallBook& book, llm::Client& client,
                                       const std::vector<std::string>& claims,
                                       std::string_view premise, CallLog* calls,
                                       const JudgeLanguage& language,
                                       std::vector<std::string>* warnings) {
  LanguageReply answer = chat_in_language(
      book, client, language, kReasonsWhat,
      [&](const std::string& line) { return llm_verdicts_request(claims, premise, line); },
      verdict_reasons, "verdicts", calls);
  if (answer.reply.ok()) {
    if (answer.wrong) add_warning(warnings, reasons_warning(language, *answer.wrong));
    return read_llm_verdicts(*answer.reply, claims.size());
  }
  std::vector<VerdictCell> cells(claims.size());
  for (VerdictCell& cell : cells) cell.reason = "not judged: " + answer.reply.status().message();
  return cells;
}

// Verdicts for `claims` against `premise` in one call (see judge_within_window).
std::vector<VerdictCell> judge_claims(CallBook& book, llm::Client& client,
                                      const std::vector<std::string>& claims,
                                      const std::string& premise, CallLog* calls,
                                      const JudgeLanguage& language,
                                      std::vector<std::string>* warnings) {
  std::vector<std::string> unique;
  std::vector<std::size_t> slot(claims.size());
  for (std::size_t i = 0; i < claims.size(); ++i) {
    auto it = std::find(unique.begin(), unique.end(), claims[i]);
    slot[i] = static_cast<std::size_t>(it - unique.begin());
    if (it == unique.end()) unique.push_back(claims[i]);
  }
  std::vector<VerdictCell> cells =
      verdicts_call(book, client, unique, premise, calls, language, warnings);
  std::vector<std::size_t> omitted;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (!cells[i].judged() && cells[i].reason.empty()) omitted.push_back(i);
  }
  if (!omitted.empty() && omitted.size() < unique.size()) {
    std::vector<std::string> again;
    for (std::size_t i : omitted) again.push_back(unique[i]);
    std::vector<VerdictCell> second =
        verdicts_call(book, client, again, premise, calls, language, warnings);
    for (std::size_t j = 0; j < omitted.size(); ++j) cells[omitted[j]] = std::move(second[j]);
  }
  std::vector<VerdictCell> out;
  out.reserve(claims.size());
  for (std::size_t i = 0; i < claims.size(); ++i) {
    out.push_back(cells[slot[i]]);
    if (!out.back().judged() && out.back().reason.empty()) {
      out.back().reason = "not judged: the judge's reply had no verdict for this claim";
    }
  }
  return out;
}

}  // namespace

std::string reasons_warning(const JudgeLanguage& language, Script script) {
  return wrong_script_message(language, "the verdicts' reasons", script) +
         "; the verdicts are kept";
}

void add_warning(std::vector<std::string>* warnings, const std::string& warning) {
  if (warnings == nullptr || warning.empty()) return;
  if (std::find(warnings->begin(), warnings->end(), warning) == warnings->end()) {
    warnings->push_back(warning);
  }
}

std::vector<std::string> split_to_fit(std::string_view text, std::int64_t max_tokens) {
  std::vector<std::string> pieces;
  std::string current;
  auto flush = [&] {
    if (!current.empty()) pieces.push_back(std::move(current));
    current.clear();
  };
  for (std::string_view sentence : split_sentences(text)) {
    while (estimate_tokens(sentence.size()) > max_tokens) {  // cut a long sentence at a space
      flush();
      std::size_t limit = static_cast<std::size_t>(std::max<std::int64_t>(1, (max_tokens - 1) * 3));
      std::size_t cut = sentence.rfind(' ', limit);
      if (cut == std::string_view::npos || cut == 0) cut = std::min(limit, sentence.size());
      pieces.emplace_back(sentence.substr(0, cut));
      sentence.remove_prefix(cut);
      while (!sentence.empty() && sentence.front() == ' ') sentence.remove_prefix(1);
    }
    if (sentence.empty()) continue;
    if (!current.empty() && estimate_tokens(current.size() + 1 + sentence.size()) > max_tokens) flush();
    if (!current.empty()) current += ' ';
    current += sentence;
  }
  flush();
  return pieces;
}

std::int64_t reply_reserve(int window, int max_tokens) {
  return std::min<std::int64_t>(max_tokens, window / 4);
}

bool fits_judge_window(std::size_t bytes, std::size_t task_bytes, int window, int max_tokens) {
  if (window <= 0) return true;
  return estimate_tokens(prompts::k_system.size() + task_bytes + 64 + bytes) <=
         window - reply_reserve(window, max_tokens);
}

void merge_piece_verdict(const VerdictCell& piece, VerdictCell* merged) {
  auto rank = [](Verdict v) {
    switch (v) {
      case Verdict::kEntailment: return 3;
      case Verdict::kContradiction: return 2;
      case Verdict::kNeutral: return 1;
      case Verdict::kMissing: return 0;
    }
    return 0;
  };
  if (rank(piece.verdict) > rank(merged->verdict) ||
      (!merged->judged() && merged->reason.empty())) {
    *merged = piece;
  }
}

WindowCut cut_for_window(const std::vector<std::string>& claims, const std::string& premise,
                         int window, int max_tokens, const JudgeLanguage& language) {
  WindowCut cut;
  if (window <= 0) return cut;
  const std::int64_t room =
      window - reply_reserve(window, max_tokens) -
      estimate_tokens(prompts::k_system.size() + prompts::k_verdicts.size() +
                      language_instruction(language, kReasonsWhat).size() + 64);
  std::int64_t claim_tokens = 0;
  for (const std::string& claim : claims) claim_tokens += estimate_tokens(claim.size() + 6);
  if (claim_tokens + estimate_tokens(premise.size()) <= room) return cut;
  cut.fits = false;
  if (room < 64) {
    cut.no_room = true;
    return cut;
  }
  // Claims get up to half the room; the premise the rest.
  const std::int64_t claims_room = std::min(claim_tokens, room / 2);
  cut.pieces = split_to_fit(premise, room - claims_room);
  std::size_t start = 0;
  while (start < claims.size()) {
    std::int64_t used = 0;
    std::size_t end = start;
    while (end < claims.size() &&
           (end == start || used + estimate_tokens(claims[end].size() + 6) <= claims_room)) {
      used += estimate_tokens(claims[end++].size() + 6);
    }
    cut.groups.emplace_back(start, end);
    start = end;
  }
  return cut;
}

std::vector<VerdictCell> judge_within_window(CallBook& book, llm::Client& client,
                                             const std::vector<std::string>& claims,
                                             const std::string& premise, int window,
                                             int max_tokens, CallLog* calls,
                                             const JudgeLanguage& language,
                                             std::vector<std::string>* warnings) {
  const WindowCut cut = cut_for_window(claims, premise, window, max_tokens, language);
  if (cut.fits) return judge_claims(book, client, claims, premise, calls, language, warnings);
  std::vector<VerdictCell> cells(claims.size());
  if (cut.no_room) {
    for (VerdictCell& cell : cells) {
      cell.reason = "not judged: the judge's context window (" + std::to_string(window) +
                    " tokens) leaves no room for the claims and the premise";
    }
    return cells;
  }
  for (const auto& [start, end] : cut.groups) {
    const std::vector<std::string> group(claims.begin() + static_cast<std::ptrdiff_t>(start),
                                         claims.begin() + static_cast<std::ptrdiff_t>(end));
    for (const std::string& piece : cut.pieces) {
      std::vector<VerdictCell> part =
          judge_claims(book, client, group, piece, calls, language, warnings);
      for (std::size_t i = 0; i < part.size(); ++i) merge_piece_verdict(part[i], &cells[start + i]);
    }
  }
  return cells;
}

}  // namespace ragmeter
