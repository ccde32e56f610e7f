// Reading a per-row results file (`ragmeter eval --out`) back into a ResultTable.
#include <fstream>
#include <istream>
#include <string>

#include "ragmeter/result_table.h"

namespace ragmeter {
namespace {

using Json = nlohmann::ordered_json;

bool is_result_key(const std::string& key) {
  return key == "scores" || key == "status" || key == "reasons" || key == "evidence" ||
         key == "repeats" || key == "row_error";
}

StatusOr<Outcome> parse_outcome(const Json& value) {
  if (value == "ok") return Outcome::kOk;
  if (value == "skipped") return Outcome::kSkipped;
  if (value == "failed") return Outcome::kFailed;
  return invalid_argument("unknown status " + value.dump());
}

// The object `key` of a results line, or an empty object when absent.
StatusOr<const Json*> member_object(const Json& line, const char* key) {
  static const Json kEmpty = Json::object();
  auto it = line.find(key);
  if (it == line.end()) return &kEmpty;
  if (!it->is_object()) return invalid_argument(std::string("\"") + key + "\" is not an object");
  return &*it;
}

// A "repeats" entry (--repeat): its scores, flaky mark and evidence.
Status read_repeats(const std::string& metric, const Json& entry, MetricResult* result) {
  const auto scores = entry.is_object() ? entry.find("scores") : entry.end();
  if (scores == entry.end() || !scores->is_array()) {
    return invalid_argument("the repeats of metric '" + metric + "' have no \"scores\" list");
  }
  for (const Json& score : *scores) {
    if (!score.is_null() && !score.is_number()) {
      return invalid_argument("a repeat score of metric '" + metric + "' is not a number");
    }
    result->repeat_scores.push_back(score.is_null() ? std::nullopt
                                                    : std::optional<double>(score.get<double>()));
  }
  if (auto flaky = entry.find("flaky"); flaky != entry.end() && flaky->is_boolean()) {
    result->flaky = flaky->get<bool>();
  }
  if (auto evidence = entry.find("evidence"); evidence != entry.end()) {
    result->repeat_evidence = *evidence;
  }
  return ok_status();
}

StatusOr<MetricResult> read_result(const std::string& metric, const Json& status, const Json& scores, const Json& reasons,
                                   const Json& evidence, const Json& repeats) {
  auto it = status.find(metric);
  if (it == status.end()) return invalid_argument("no status for metric '" + metric + "'");
  MetricResult result;
  RAGMETER_ASSIGN_OR_RETURN(result.outcome, parse_outcome(*it));
  if (result.outcome == Outcome::kOk) {
    auto score = scores.find(metric);
    if (score == scores.end() || !score->is_number()) {
      return invalid_argument("metric '" + metric + "' is ok but its score is not a number");
    }
    result.score = score->get<double>();
  }
  if (auto reason = reasons.find(metric); reason != reasons.end() && reason->is_string()) {
    result.reason = reason->get<std::string>();
  }
  if (auto detail = evidence.find(metric); detail != evidence.end()) result.evidence = *detail;
  if (auto entry = repeats.find(metric); entry != repeats.end()) {
    RAGMETER_RETURN_IF_ERROR(read_repeats(metric, *entry, &result));
  }
  return result;
}

StatusOr<RowError> read_row_error(const Json& value, const std::string& name) {
  if (!value.is_object()) return invalid_argument("\"row_error\" is not an object");
  RowError error;
  error.file = value.value("file", name);
  error.line = value.value("line", std::int64_t{0});
  error.field = value.value("field", std::string());
  error.message = value.value("message", std::string());
  return error;
}

Status read_line(const Json& line, const std::string& name, ResultTable* table) {
  if (!line.is_object()) return invalid_argument("a results line must be a JSON object");
  RAGMETER_ASSIGN_OR_RETURN(const Json* status, member_object(line, "status"));
  if (!line.contains("status")) return invalid_argument("no \"status\" object");
  RAGMETER_ASSIGN_OR_RETURN(const Json* scores, member_object(line, "scores"));
  RAGMETER_ASSIGN_OR_RETURN(const Json* reasons, member_object(line, "reasons"));
  RAGMETER_ASSIGN_OR_RETURN(const Json* evidence, member_object(line, "evidence"));
  RAGMETER_ASSIGN_OR_RETURN(const Json* repeats, member_object(line, "repeats"));
  if (table->rows.empty()) {
    for (auto it = status->begin(); it != status->end(); ++it) table->metrics.push_back(it.key());
  }
  RowResult row;
  row.index = static_cast<std::int64_t>(table->rows.size());
  if (auto error = line.find("row_error"); error != line.end()) {
    RAGMETER_ASSIGN_OR_RETURN(RowError read, read_row_error(*error, name));
    read.index = row.index;
    row.error = std::move(read);
  } else {
    row.fields = Json::object();
    for (auto it = line.begin(); it != line.end(); ++it) {
      if (!is_result_key(it.key())) row.fields[it.key()] = *it;
    }
  }
  row.results.reserve(table->metrics.size());
  for (const std::string& metric : table->metrics) {
    RAGMETER_ASSIGN_OR_RETURN(MetricResult result,
                              read_result(metric, *status, *scores, *reasons, *evidence, *repeats));
    row.results.push_back(std::move(result));
  }
  table->rows.push_back(std::move(row));
  return ok_status();
}

}  // namespace

StatusOr<ResultTable> read_results_jsonl(std::istream& in, const std::string& name) {
  ResultTable table;
  std::string text;
  for (std::int64_t line_number = 1; std::getline(in, text); ++line_number) {
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
    Json line = Json::parse(text, nullptr, /*allow_exceptions=*/false);
    Status status = line.is_discarded() ? invalid_argument("not valid JSON")
                                        : read_line(line, name, &table);
    if (!status.ok()) {
      return invalid_argument(name + ":" + std::to_string(line_number) + ": " + status.message());
    }
  }
  if (in.bad()) return unavailable(name + ": read error");
  return table;
}

StatusOr<ResultTable> read_results_jsonl(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return not_found("cannot open results file " + path);
  return read_results_jsonl(in, path);
}

}  // namespace ragmeter
