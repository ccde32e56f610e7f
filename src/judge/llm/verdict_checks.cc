// Checks in code of the compact plan's verdicts (verdict_checks.h).
#include "judge/llm/verdict_checks.h"

#include <algorithm>
#include <set>

#include "judge/llm/verdict_signs.h"
#include "judge/llm/verdict_table.h"

namespace ragmeter {
namespace {

// A quote counts when this share of its 3-token runs occurs in the passage.
constexpr double kQuoteShingleShare = 0.8;
constexpr std::size_t kShingle = 3;
// Quotes in reasons are cut to this many bytes.
constexpr std::size_t kQuoteInReason = 80;

std::vector<std::string> token_keys(std::string_view text) {
  std::vector<std::string> keys;
  for (OfflineToken& token : offline_tokenize(text)) keys.push_back(std::move(token.key));
  return keys;
}

std::string joined(const std::vector<std::string>& keys, std::size_t begin, std::size_t count) {
  std::string out;
  for (std::size_t k = begin; k < begin + count; ++k) out += keys[k] + '\x1f';
  return out;
}

std::string short_quote(const std::string& quote) {
  if (quote.size() <= kQuoteInReason) return quote;
  std::size_t cut = kQuoteInReason;
  while (cut > 0 && (static_cast<unsigned char>(quote[cut]) & 0xC0) == 0x80) --cut;  // UTF-8
  return quote.substr(0, cut) + "...";
}

bool has_content_word(const std::vector<OfflineToken>& tokens) {
  return std::any_of(tokens.begin(), tokens.end(),
                     [](const OfflineToken& token) { return !token.stopword; });
}

}  // namespace

std::string evidence_key(std::size_t claim, std::size_t claims) {
  return "Evidence " + padded_number(claim + 1, claims);
}

std::vector<std::optional<std::string>> read_table_evidence(const nlohmann::json& reply,
                                                            std::size_t claims) {
  std::vector<std::optional<std::string>> out(claims);
  if (!reply.is_object()) return out;
  for (std::size_t i = 0; i < claims; ++i) {
    const auto it = reply.find(evidence_key(i, claims));
    if (it != reply.end() && it->is_string()) out[i] = it->get<std::string>();
  }
  return out;
}

bool quote_found(std::string_view quote, std::string_view text) {
  const std::vector<OfflineToken> quote_tokens = offline_tokenize(quote);
  if (!has_content_word(quote_tokens)) return false;
  std::vector<std::string> q;
  for (const OfflineToken& token : quote_tokens) q.push_back(token.key);
  const std::vector<std::string> t = token_keys(text);
  const std::size_t width = std::min(kShingle, q.size());
  if (t.size() < width) return false;
  std::set<std::string> shingles;
  for (std::size_t k = 0; k + width <= t.size(); ++k) shingles.insert(joined(t, k, width));
  std::size_t found = 0;
  const std::size_t runs = q.size() - width + 1;
  for (std::size_t k = 0; k < runs; ++k) found += shingles.contains(joined(q, k, width)) ? 1 : 0;
  if (width < kShingle) return found == runs;  // a short quote: all of it, in a row
  return static_cast<double>(found) >= kQuoteShingleShare * static_cast<double>(runs);
}

void check_quoted_evidence(const std::vector<std::optional<std::string>>& evidence,
                           const std::vector<std::string>& claims,
                           const std::vector<std::string>& premises,
                           const std::vector<std::pair<std::size_t, std::size_t>>& asked,
                           std::string_view language, std::vector<std::vector<VerdictCell>>* cells) {
  for (std::size_t i = 0; i < cells->size() && i < evidence.size(); ++i) {
    if (!evidence[i]) continue;
    const std::string& quote = *evidence[i];
    if (std::any_of(premises.begin(), premises.end(),
                    [&](const std::string& premise) { return quote_found(quote, premise); })) {
      continue;
    }
    std::vector<std::size_t> said;  // asked premises the judge said Entailment for
    for (const auto& [claim, premise] : asked) {
      if (claim == i && premise < (*cells)[i].size() && (*cells)[i][premise].supports()) {
        said.push_back(premise);
      }
    }
    if (said.empty()) continue;
    const std::string unquoted =
        has_content_word(offline_tokenize(quote))
            ? "the judge said Entailment, but its evidence is in no passage: \"" +
                  short_quote(quote) + "\""
            : "the judge said Entailment, but quoted no passage sentence for it";
    std::string named;
    for (std::size_t j : said) named += (named.empty() ? "" : ", ") + premise_label(j, premises.size());
    for (const auto& [c, j] : asked) {
      if (c != i || j >= premises.size() || j >= (*cells)[i].size()) continue;
      VerdictCell& cell = (*cells)[i][j];
      if (i < claims.size() && passage_states_claim(claims[i], premises[j], language)) {
        const std::string was = verdict_name(cell.verdict);
        cell.verdict = Verdict::kEntailment;
        cell.confidence.reset();
        cell.reason = unquoted + "; a sentence of this passage states the claim";
        if (was != verdict_name(Verdict::kEntailment)) {
          cell.reason += " (here the judge said " + was + ", Entailment for " + named + ")";
        }
      } else if (cell.verdict == Verdict::kEntailment) {
        cell.verdict = Verdict::kNeutral;
        cell.confidence.reset();
        cell.reason = unquoted;
      }
    }
  }
}

void locate_entailment_by_evidence(const std::vector<std::optional<std::string>>& evidence,
                                   const std::vector<std::string>& premises,
                                   const std::vector<std::pair<std::size_t, std::size_t>>& asked,
                                   const std::vector<std::string>& labels,
                                   std::vector<std::vector<VerdictCell>>* cells) {
  for (std::size_t i = 0; i < cells->size() && i < evidence.size(); ++i) {
    if (!evidence[i]) continue;
    std::vector<std::size_t> said;    // asked premises the judge said Entailment for
    std::vector<std::size_t> quoted;  // asked premises holding the evidence
    for (const auto& [claim, premise] : asked) {
      if (claim != i || premise >= premises.size()) continue;
      if ((*cells)[i][premise].supports()) said.push_back(premise);
      if (quote_found(*evidence[i], premises[premise])) quoted.push_back(premise);
    }
    if (said.empty()) continue;
    std::string named;
    for (std::size_t j : said) named += (named.empty() ? "" : ", ") + labels[j];
    for (std::size_t k : quoted) {
      VerdictCell& cell = (*cells)[i][k];
      if (cell.supports() || !cell.judged()) continue;
      const std::string was = verdict_name(cell.verdict);
      cell.verdict = Verdict::kEntailment;
      cell.confidence.reset();
      cell.reason = "the judge said " + was + " here and Entailment for " + named +
                    ", quoting this passage: \"" + short_quote(*evidence[i]) + "\"";
    }
  }
}

VerdictCell vet_entailment(VerdictCell cell, const OfflineClaim& claim,
                           const OfflinePremise& premise) {
  if (cell.verdict != Verdict::kEntailment) return cell;
  std::optional<VerdictCell> rule = missing_number_or_name(claim, premise);
  if (!rule) return cell;
  rule->reason = "the judge said Entailment, but " + rule->reason;
  rule->confidence.reset();  // the offline rule's fixed confidence is not the judge's
  return *rule;
}

}  // namespace ragmeter
