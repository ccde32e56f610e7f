// CSV results read back as JSONL result objects (results_csv.h).
#include "report/results_csv.h"

#include <string_view>

namespace ragmeter::report_csv {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::string_view kRejected = "row rejected: ";

const std::string& cell(const Json& cells, const std::string& column) {
  static const std::string kEmpty;
  auto it = cells.find(column);
  return it != cells.end() && it->is_string() ? it->get_ref<const std::string&>() : kEmpty;
}

// A cell the writer wrote as JSON text (a list or an object) parsed back; else the text.
Json field_value(const std::string& text) {
  if (!text.empty() && (text.front() == '[' || text.front() == '{')) {
    Json parsed = Json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (!parsed.is_discarded()) return parsed;
  }
  return text;
}

bool is_rejected_row(const Json& cells, const ResultsCsvLayout& layout) {
  if (layout.metrics.empty()) return false;
  for (const std::string& field : layout.fields) {
    if (!cell(cells, field).empty()) return false;
  }
  for (const std::string& metric : layout.metrics) {
    if (cell(cells, metric + "_status") != "failed") return false;
    if (!cell(cells, metric + "_reason").starts_with(kRejected)) return false;
  }
  return true;
}

}  // namespace

StatusOr<ResultsCsvLayout> results_csv_layout(const std::vector<std::string>& columns) {
  if (columns.empty() || columns.back() != "extra_fields") {
    return invalid_argument("not a results CSV (ragmeter eval --out FILE.csv): its last column "
                            "is not extra_fields");
  }
  ResultsCsvLayout layout;
  std::size_t end = columns.size() - 1;  // metrics' triples end here
  while (end >= 3 && columns[end - 2] == columns[end - 3] + "_status" &&
         columns[end - 1] == columns[end - 3] + "_reason") {
    layout.metrics.insert(layout.metrics.begin(), columns[end - 3]);
    end -= 3;
  }
  if (layout.metrics.empty()) {
    return invalid_argument("not a results CSV (ragmeter eval --out FILE.csv): no metric "
                            "columns (METRIC, METRIC_status, METRIC_reason)");
  }
  layout.fields.assign(columns.begin(), columns.begin() + static_cast<std::ptrdiff_t>(end));
  return layout;
}

StatusOr<Json> results_object(const Json& cells, const ResultsCsvLayout& layout) {
  Json object = Json::object();
  const bool rejected = is_rejected_row(cells, layout);
  if (rejected) {
    const std::string& reason = cell(cells, layout.metrics.front() + "_reason");
    object["row_error"] = {{"message", reason.substr(kRejected.size())}};
  } else {
    for (const std::string& field : layout.fields) {
      const std::string& text = cell(cells, field);
      if (!text.empty()) object[field] = field_value(text);
    }
    if (const std::string& extra = cell(cells, "extra_fields"); !extra.empty()) {
      Json members = Json::parse(extra, nullptr, /*allow_exceptions=*/false);
      if (!members.is_object()) return invalid_argument("extra_fields is not a JSON object");
      for (auto& [key, value] : members.items()) object[key] = value;
    }
  }
  Json scores = Json::object(), status = Json::object(), reasons = Json::object();
  for (const std::string& metric : layout.metrics) {
    const std::string& outcome = cell(cells, metric + "_status");
    if (outcome != "ok" && outcome != "skipped" && outcome != "failed") {
      return invalid_argument("metric '" + metric + "': unknown status '" + outcome + "'");
    }
    status[metric] = outcome;
    scores[metric] = nullptr;
    if (outcome == "ok") {
      Json score = Json::parse(cell(cells, metric), nullptr, /*allow_exceptions=*/false);
      if (!score.is_number()) {
        return invalid_argument("metric '" + metric + "' is ok but its score '" +
                                cell(cells, metric) + "' is not a number");
      }
      scores[metric] = score;
    } else {
      reasons[metric] = cell(cells, metric + "_reason");
    }
  }
  object["scores"] = std::move(scores);
  object["status"] = std::move(status);
  object["reasons"] = std::move(reasons);
  object["evidence"] = Json::object();
  return object;
}

}  // namespace ragmeter::report_csv
