// What the judge adds to a judged metric's evidence, shared by the judged adapters
// (judged_adapters.cc, multimodal_adapters.cc).
#pragma once

#include <string>
#include <vector>

#include "ragmeter/judge.h"
#include "ragmeter/metric.h"

namespace ragmeter::adapters {

// Adds the keys of the judge calls behind a result to its evidence (none for the
// offline judge), so `--traces` can show each call.
inline MetricResult with_calls(MetricResult result, const CallLog& calls) {
  if (calls.empty()) return result;
  if (!result.evidence.is_object()) result.evidence = nlohmann::ordered_json::object();
  for (const std::string& key : calls) result.evidence["judge_calls"].push_back(key);
  return result;
}

// Adds what the judge warned of (e.g. reasons written in another language than the
// sample's, docs/judges.md "Languages") to a result's evidence.
inline MetricResult with_warnings(MetricResult result, const std::vector<std::string>& warnings) {
  if (warnings.empty()) return result;
  if (!result.evidence.is_object()) result.evidence = nlohmann::ordered_json::object();
  for (const std::string& warning : warnings) result.evidence["warnings"].push_back(warning);
  return result;
}

// A judge's error as the metric's failure: "judge: MESSAGE".
inline MetricResult judge_failed(const Status& status) {
  return MetricResult::failed("judge: " + status.message());
}

// A judge that cannot judge this at all (the offline judge for critics, rubrics and the
// conversation tasks) makes the metric skipped, with the judge's reason; any other error
// makes it failed.
inline MetricResult judge_refused_or_failed(const Status& status, const CallLog& calls) {
  if (status.code() == StatusCode::kFailedPrecondition) return MetricResult::skipped(status.message());
  return with_calls(judge_failed(status), calls);
}

}  // namespace ragmeter::adapters
