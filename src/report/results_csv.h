// Reading back the CSV results `ragmeter eval --out FILE.csv` writes (docs/output.md), as
// the objects of its JSONL results. Internal to src/report.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ragmeter/status.h"

namespace ragmeter::report_csv {

// The columns of a results CSV's header: the field columns, then per metric `<m>`,
// `<m>_status`, `<m>_reason`, then `extra_fields`.
struct ResultsCsvLayout {
  std::vector<std::string> fields;
  std::vector<std::string> metrics;
};

// The layout of a header given as the column names in order. InvalidArgument when it is
// not a results header (no final `extra_fields`, or a metric without its status and
// reason columns).
StatusOr<ResultsCsvLayout> results_csv_layout(const std::vector<std::string>& columns);

// One CSV row (column -> cell text, every cell a string) as its JSONL object: the fields
// (cells that hold a JSON list or object parsed back, empty cells left out, then the
// `extra_fields` object's members), "scores", "status", "reasons", "evidence" (always
// empty: the CSV has none). A row whose fields are all empty and whose every metric failed
// with "row rejected: ERROR" is a rejected row: {"row_error": {"message": ERROR}, ...}.
// InvalidArgument naming the metric for an unknown status or an `ok` score that is not a
// number.
StatusOr<nlohmann::ordered_json> results_object(const nlohmann::ordered_json& cells,
                                                const ResultsCsvLayout& layout);

}  // namespace ragmeter::report_csv
