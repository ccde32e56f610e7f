// JSON values as Python sees them after json.loads: ragas and DeepEval compare tool-call
// arguments with Python's str() and ==, and ragmeter must draw the same lines.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace ragmeter {

// Python's str() of the value json.loads makes of `value`: a string is itself; None, True,
// False; an int in decimal; a float as repr() writes it (shortest round trip, "1.0",
// "1e+16", "1e-05"); a list "[a, b]" and an object "{'k': v}" (keys in their order) with
// their items in repr() form, strings quoted and escaped as repr() does it.
std::string python_str(const nlohmann::ordered_json& value);

// Python's == between the values json.loads makes of `a` and `b`, as ragas's
// make_hashable leaves them: objects equal when they have the same keys with equal values
// (order ignored), lists item by item, numbers by value with True == 1 == 1.0 and False ==
// 0 == 0.0, strings by code points, None only to None.
bool python_equal(const nlohmann::ordered_json& a, const nlohmann::ordered_json& b);

}  // namespace ragmeter
