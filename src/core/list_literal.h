// Parsing list-valued cells: a JSON array or a Python list literal as pandas writes it
// to CSV (['a', "b's"], [1, 2]).
#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

#include "ragmeter/status.h"

namespace ragmeter {

// Parses `text` as a JSON array, or failing that as a Python list literal of string
// (single- or double-quoted, with Python escapes), integer, float, True/False/None
// elements. Returns a JSON array. InvalidArgument (with the byte offset) when it is
// neither.
StatusOr<nlohmann::ordered_json> parse_list_literal(std::string_view text);

}  // namespace ragmeter
