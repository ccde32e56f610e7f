// Selectors over JSON replies: a JSON Pointer ("/data/items/0/text") or a dotted path
// ("data.items.0.text"), and the text of a value for messages.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace ragmeter::run {

// The value `selector` names in `value`, or null when it names nothing. A selector that
// starts with '/' is a JSON Pointer (RFC 6901, "~0" and "~1" escapes); otherwise a dotted
// path whose parts are object keys or, in an array, decimal indices. An empty selector
// names `value` itself.
const nlohmann::json* select_json(const nlohmann::json& value, std::string_view selector);

// At most `limit` bytes of `text` (cut at a UTF-8 boundary) followed by "... (N bytes)"
// when it was longer: what was received, for error messages.
std::string truncate_for_message(std::string_view text, std::size_t limit = 200);

}  // namespace ragmeter::run
