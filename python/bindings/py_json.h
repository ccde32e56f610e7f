// Python values <-> JSON values, for rows going into the library and results coming out.
//
// Python -> JSON follows what pandas' to_json and json.dumps do with a DataFrame's or a
// list of dicts' cells: None, float NaN, pandas.NA and NaT are null; bool, int, float and
// str map to themselves; list, tuple and numpy arrays (anything with tolist()) are
// arrays; dicts (Mappings) with str keys are objects; numpy scalars are their values.
// Every call needs the GIL.
#pragma once

#include <optional>
#include <string>

#include <nanobind/nanobind.h>
#include <nlohmann/json.hpp>

namespace ragmeter::python {

// Converts `value` into `*out`. Returns an empty optional on success, else why the value
// could not be converted ("unsupported type 'bytes'", "a str that is not valid Unicode").
// Never raises.
std::optional<std::string> to_json(PyObject* value, nlohmann::ordered_json* out);

// The Python value of `value` (None, bool, int, float, str, list, dict). Raises on
// memory exhaustion only.
nanobind::object from_json(const nlohmann::ordered_json& value);

}  // namespace ragmeter::python
