// Token prices and cost.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "ragmeter/llm.h"

namespace ragmeter::llm {

// The price of `model`: exact name, then the longest matching prefix (so
// "gpt-4o-mini-2024-07-18" finds "gpt-4o-mini"), searched in the built-in table joined
// with `overrides` (an override replaces the built-in entry of the same name and adds
// new names). nullopt for unknown (local) models, which cost 0. Thread-safe.
std::optional<ModelPrice> find_price(const std::string& model,
                                     const std::map<std::string, ModelPrice>& overrides);

// Cost in USD of `usage` at `price`: cached prompt tokens (at most prompt_tokens) at the
// cached rate, the other prompt tokens at the prompt rate, completion tokens at theirs.
double cost_usd(const TokenUsage& usage, const ModelPrice& price);

// The date (YYYY-MM-DD) the built-in figures are from, for the docs and the summary;
// pricing.cc says where they come from.
const char* price_table_date();

}  // namespace ragmeter::llm
