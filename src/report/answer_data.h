// Internal to src/report: the parts of the report's data that carry its judgements
// (report_answer.h) and its charts' bins.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "ragmeter/report.h"

namespace ragmeter::report_internal {

// The "answer" block of a run's report data (docs/report.md, "The first screen"):
// {"headline", "ragas_score", "weaker_part", "worst", "changes"}. `metrics` is the data's
// "metrics" array (means and intervals from the summary where given).
nlohmann::ordered_json run_answer(const ReportInput& input, const nlohmann::ordered_json& metrics);

// What a comparison (comparison_to_json) found: {"base", "new", "matched", "alpha",
// "compared", "changed": [...], "unchanged": [...], "no_pairs": [...], "summary"}; changed
// metrics worse first, then by the size of the change.
nlohmann::ordered_json changes_summary(const nlohmann::ordered_json& comparison);

// {"low", "high", "counts"}: `scores` in 10 equal bins over [low, high] (the last bin
// includes high; a score outside the range counts in the nearest end bin).
nlohmann::ordered_json histogram_json(const std::vector<double>& scores, double low, double high);

}  // namespace ragmeter::report_internal
