// Per-row results in memory: the collecting sink and the --out writer over a table.
#include "ragmeter/result_table.h"

#include "eval/result_json.h"

namespace ragmeter {

std::vector<std::string> metric_names(const std::vector<MetricRequest>& metrics) {
  std::vector<std::string> names;
  names.reserve(metrics.size());
  for (const MetricRequest& request : metrics) names.push_back(request.name);
  return names;
}

ResultTableSink::ResultTableSink(std::vector<std::string> metric_names) {
  table_.metrics = std::move(metric_names);
}

Status ResultTableSink::on_row(const Row& row, const std::vector<MetricResult>& results) {
  return take_row(Row(row), std::vector<MetricResult>(results));
}

Status ResultTableSink::take_row(Row&& row, std::vector<MetricResult>&& results) {
  if (results.size() != table_.metrics.size()) {
    return invalid_argument("a row has " + std::to_string(results.size()) + " results for " +
                            std::to_string(table_.metrics.size()) + " metrics");
  }
  RowResult& out = table_.rows.emplace_back();
  out.index = row.index;
  out.fields = std::move(row.fields);
  out.results = std::move(results);
  return ok_status();
}

Status ResultTableSink::on_rejected(const RowError& error) {
  RowResult& out = table_.rows.emplace_back();
  out.index = error.index;
  out.error = error;
  out.results.assign(table_.metrics.size(),
                     MetricResult::failed(result_json::rejected_reason(error)));
  return ok_status();
}

ResultTable ResultTableSink::release() {
  ResultTable out = std::move(table_);
  table_ = ResultTable{};
  table_.metrics = out.metrics;
  return out;
}

Status write_results_jsonl(const ResultTable& table, std::ostream& out) {
  std::vector<std::string> reasons;
  for (const RowResult& row : table.rows) {
    if (row.results.size() < table.metrics.size()) {
      return invalid_argument("row " + std::to_string(row.index) + " has " +
                              std::to_string(row.results.size()) + " results for " +
                              std::to_string(table.metrics.size()) + " metrics");
    }
    if (row.error) {
      reasons.clear();
      for (const MetricResult& result : row.results) reasons.push_back(result.reason);
      RAGMETER_RETURN_IF_ERROR(result_json::write_line(
          result_json::rejected_row(*row.error, table.metrics, reasons), out));
      continue;
    }
    nlohmann::ordered_json fields = row.fields.is_null() ? nlohmann::ordered_json::object()
                                                         : row.fields;
    RAGMETER_RETURN_IF_ERROR(result_json::write_line(
        result_json::scored_row(std::move(fields), table.metrics, row.results), out));
  }
  return ok_status();
}

}  // namespace ragmeter
