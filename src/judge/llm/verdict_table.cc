// Grouping premises into verdict table calls (verdict_table.h).
#include "judge/llm/verdict_table.h"

#include <algorithm>

#include "ragmeter_prompts.inc"

namespace ragmeter {

namespace {
// Room per claim line ("12. " and the newline) and per premise header ("[P12]\n").
constexpr std::size_t kClaimOverhead = 6;
constexpr std::size_t kPremiseOverhead = 8;
}  // namespace

std::size_t verdict_table_fixed_bytes() {
  return prompts::k_verdict_table_system.size() + prompts::k_verdict_table.size() + 64;
}

bool fits_window(std::size_t claim_bytes, std::size_t premise_bytes, std::size_t fixed_bytes,
                 int window, int max_tokens) {
  if (window <= 0) return true;
  const std::int64_t reserve = std::min<std::int64_t>(max_tokens, window / 4);
  return estimate_tokens(fixed_bytes + claim_bytes + premise_bytes) <= window - reserve;
}

std::vector<std::vector<std::size_t>> group_premises(std::size_t claim_bytes,
                                                     const std::vector<std::size_t>& premise_bytes,
                                                     std::size_t fixed_bytes, int window,
                                                     int max_tokens) {
  std::vector<std::vector<std::size_t>> groups;
  std::vector<std::size_t> current;
  std::size_t current_bytes = 0;
  for (std::size_t i = 0; i < premise_bytes.size(); ++i) {
    const std::size_t bytes = premise_bytes[i] + kPremiseOverhead;
    if (!current.empty() &&
        !fits_window(claim_bytes, current_bytes + bytes, fixed_bytes, window, max_tokens)) {
      groups.push_back(std::move(current));
      current.clear();
      current_bytes = 0;
    }
    current.push_back(i);
    current_bytes += bytes;
  }
  if (!current.empty()) groups.push_back(std::move(current));
  return groups;
}

std::string padded_number(std::size_t number, std::size_t largest) {
  std::string digits = std::to_string(number);
  const std::size_t width = std::to_string(std::max(largest, number)).size();
  return std::string(width - digits.size(), '0') + digits;
}

std::string premise_label(std::size_t index, std::size_t premises) {
  return "P" + padded_number(index + 1, premises);
}

}  // namespace ragmeter
