// Built-in token prices of common OpenAI models.
//
// Where the figures come from: OpenAI's public API pricing page (standard tier, USD per
// million tokens) as the author of this file knew it around June 2025, written from
// memory and not re-checked against the live page when the table was written. Prices
// change; users override any entry (or add their own models) with [prices."MODEL"] in
// the judge config file (docs/judges.md). Local servers (vLLM, llama.cpp, Ollama) have
// no entry and cost 0.
#include "llm/pricing.h"

#include <algorithm>

namespace ragmeter::llm {
namespace {

struct PriceEntry {
  const char* model;
  ModelPrice price;  // prompt, completion, cached prompt
};

// Models without a cached-input discount list their prompt price as the cached price.
constexpr PriceEntry kBuiltinPrices[] = {
    {"gpt-4o", {2.50, 10.00, 1.25}},
    {"gpt-4o-2024-05-13", {5.00, 15.00, 5.00}},  // the first gpt-4o snapshot cost more
    {"gpt-4o-mini", {0.15, 0.60, 0.075}},
    {"gpt-4.1", {2.00, 8.00, 0.50}},
    {"gpt-4.1-mini", {0.40, 1.60, 0.10}},
    {"gpt-4.1-nano", {0.10, 0.40, 0.025}},
    {"o3-mini", {1.10, 4.40, 0.55}},
    {"gpt-3.5-turbo", {0.50, 1.50, 0.50}},
    {"text-embedding-3-small", {0.02, 0.0, 0.02}},
    {"text-embedding-3-large", {0.13, 0.0, 0.13}},
    {"text-embedding-ada-002", {0.10, 0.0, 0.10}},
};

// Exact name first, then the longest name that prefixes `model`.
std::optional<ModelPrice> lookup(const std::string& model,
                                 const std::map<std::string, ModelPrice>& table) {
  if (auto exact = table.find(model); exact != table.end()) return exact->second;
  const std::pair<const std::string, ModelPrice>* best = nullptr;
  for (const auto& entry : table) {
    bool prefix = model.starts_with(entry.first) && !entry.first.empty();
    if (prefix && (best == nullptr || entry.first.size() > best->first.size())) best = &entry;
  }
  if (best == nullptr) return std::nullopt;
  return best->second;
}

}  // namespace

std::optional<ModelPrice> find_price(const std::string& model,
                                     const std::map<std::string, ModelPrice>& overrides) {
  // Overrides join the table rather than being searched first, so an override of
  // "gpt-4o" does not capture "gpt-4o-mini", which has its own longer entry.
  std::map<std::string, ModelPrice> table = overrides;
  for (const PriceEntry& entry : kBuiltinPrices) table.emplace(entry.model, entry.price);
  return lookup(model, table);
}

double cost_usd(const TokenUsage& usage, const ModelPrice& price) {
  std::int64_t cached =
      std::max<std::int64_t>(0, std::min(usage.cached_tokens, usage.prompt_tokens));
  double uncached_prompt = static_cast<double>(usage.prompt_tokens - cached);
  double total = uncached_prompt * price.prompt_per_million +
                 static_cast<double>(cached) * price.cached_prompt_per_million +
                 static_cast<double>(usage.completion_tokens) * price.completion_per_million;
  return total / 1e6;
}

const char* price_table_date() { return "2025-06-01"; }

}  // namespace ragmeter::llm
