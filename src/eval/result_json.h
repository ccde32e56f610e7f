// The JSON of one per-row result line (docs/output.md), shared by the --out writer and
// write_results_jsonl so that both give the same bytes. Internal to src/eval.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ragmeter/dataset.h"
#include "ragmeter/metric.h"
#include "ragmeter/status.h"

namespace ragmeter::result_json {

// The row's fields, then "scores", "status", "reasons", "evidence", and "repeats" when a
// result was repeated (MetricResult::repeat_scores); results[m] belongs to metrics[m].
nlohmann::ordered_json scored_row(nlohmann::ordered_json fields,
                                  const std::vector<std::string>& metrics,
                                  const std::vector<MetricResult>& results);

// {"row_error": {...}, "scores": all null, "status": all "failed", "reasons", "evidence": {}}
// with reasons[m] the reason of metrics[m].
nlohmann::ordered_json rejected_row(const RowError& error, const std::vector<std::string>& metrics,
                                    const std::vector<std::string>& reasons);

// The reason every metric of a rejected row gets.
std::string rejected_reason(const RowError& error);

// check_score_range for each of a row's results (results[m] belongs to metrics[m]),
// the error prefixed with the row's line: what every result writer checks before it
// writes a row, so no file ever holds a score outside its metric's range.
Status check_row_scores(const Row& row, const std::vector<MetricRequest>& metrics,
                        const std::vector<MetricResult>& results);

// One line of compact JSON (invalid UTF-8 replaced). Unavailable when the stream fails.
Status write_line(const nlohmann::ordered_json& object, std::ostream& out);

}  // namespace ragmeter::result_json
