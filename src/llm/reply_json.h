// Tolerant parsing of JSON replies from language models.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

#include "ragmeter/status.h"

namespace ragmeter::llm {

// Parses the JSON value in a model's reply, tolerating what models do: Markdown code
// fences, prose before or after the value, a trailing comma, single-quoted strings,
// Python literals (True/False/None), smart quotes around keys and strings, raw newlines
// in strings, and a reply cut short (open strings, arrays and objects closed at the end,
// a dangling key dropped). A reply that is strict JSON is taken as it is; otherwise the
// first object or array that parses is returned, looking inside ```fences``` first.
// InvalidArgument with a short description otherwise (no bracket at all, NaN or
// Infinity, unquoted words, a missing comma). Thread-safe (no shared state).
StatusOr<nlohmann::json> parse_reply_json(std::string_view reply);

// Checks `value` against the subset of JSON Schema the prompts use: type (a name or a
// list; 1.0 counts as an integer), properties, required, items (one schema for all),
// enum, minimum/maximum, additionalProperties (false or a schema), minItems/maxItems.
// Other keywords are ignored. OK when it conforms; InvalidArgument naming the first
// offending path otherwise, e.g. "$.verdicts[2].verdict: expected integer".
Status check_schema(const nlohmann::json& value, const nlohmann::json& schema);

}  // namespace ragmeter::llm
