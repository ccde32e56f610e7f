// Rows from Python data: a list of dicts (records) or a dict of equally long columns
// (what the glue makes of a DataFrame or a datasets.Dataset), converted to JSON rows up
// front while the GIL is held, so the evaluation can run without it.
//
// A cell that cannot be converted (an unsupported type, a str that is not valid Unicode)
// makes its row a RowError naming the field, at its place in the input: the evaluation
// reports it as a rejected row, as the file readers report a malformed line.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nanobind/nanobind.h>
#include <nlohmann/json.hpp>

#include "ragmeter/dataset.h"

namespace ragmeter::python {

struct PyRows {
  std::vector<nlohmann::ordered_json> rows;  // one object per input row (null for a bad one)
  std::vector<std::optional<RowError>> errors;  // empty, or one per row: set for a bad row
  std::string source = "<memory>";             // names the data in error messages
};

// Converts a sequence of dicts (Mappings). A row that is not one is rejected.
PyRows rows_from_records(nanobind::handle records, const std::string& source);

// Converts columns: names[j] and columns[j] (a sequence of length n each).
// InvalidArgumentError when the lengths differ.
PyRows rows_from_columns(const std::vector<std::string>& names, nanobind::handle columns,
                         const std::string& source);

// A reader over the rows (moved out as they are read). Row i has index i and line i + 1.
std::unique_ptr<RowReader> make_py_row_reader(PyRows rows);

}  // namespace ragmeter::python
