// Per-sample JSONL results.
#include <functional>

#include "eval/result_json.h"
#include "ragmeter/result_table.h"
#include "ragmeter/results.h"
#include "ragmeter/stats.h"

namespace ragmeter {
namespace result_json {

using Json = nlohmann::ordered_json;

namespace {

// A repeated result's "repeats" entry: {"scores": [each repeat's, null where not scored],
// "std": of the scored ones (null below two), "flaky" (with a pass mark), "evidence":
// [each repeat's] (when kept)}.
Json repeats_entry(const MetricResult& result) {
  Json scores = Json::array();
  std::vector<double> scored;
  for (const std::optional<double>& score : result.repeat_scores) {
    scores.push_back(score ? Json(*score) : Json(nullptr));
    if (score) scored.push_back(*score);
  }
  Json entry = {{"scores", std::move(scores)}};
  const SummaryStats spread = summarize(scored, {.resamples = 0});
  entry["std"] = scored.size() >= 2 ? Json(spread.std) : Json(nullptr);
  if (result.flaky) entry["flaky"] = *result.flaky;
  if (!result.repeat_evidence.is_null()) entry["evidence"] = result.repeat_evidence;
  return entry;
}

}  // namespace

Json scored_row(Json fields, const std::vector<std::string>& metrics,
                const std::vector<MetricResult>& results) {
  Json object = std::move(fields);
  Json scores = Json::object(), status = Json::object(), reasons = Json::object(),
       evidence = Json::object(), repeats = Json::object();
  for (std::size_t m = 0; m < metrics.size(); ++m) {
    const std::string& name = metrics[m];
    const MetricResult& result = results[m];
    scores[name] = result.outcome == Outcome::kOk ? Json(result.score) : Json(nullptr);
    status[name] = outcome_name(result.outcome);
    if (result.outcome != Outcome::kOk) reasons[name] = result.reason;
    if (!result.evidence.is_null()) evidence[name] = result.evidence;
    if (!result.repeat_scores.empty()) repeats[name] = repeats_entry(result);
  }
  object["scores"] = std::move(scores);
  object["status"] = std::move(status);
  object["reasons"] = std::move(reasons);
  object["evidence"] = std::move(evidence);
  // Only in a repeated run (--repeat), so every other run's bytes are as before.
  if (!repeats.empty()) object["repeats"] = std::move(repeats);
  return object;
}

// A rejected row keeps its place: its position and error, and every metric failed.
Json rejected_row(const RowError& error, const std::vector<std::string>& metrics,
                  const std::vector<std::string>& reasons) {
  Json object;
  object["row_error"] = {{"file", error.file}, {"line", error.line}, {"field", error.field},
                         {"message", error.message}};
  Json scores = Json::object(), status = Json::object(), reason_object = Json::object();
  for (std::size_t m = 0; m < metrics.size(); ++m) {
    scores[metrics[m]] = nullptr;
    status[metrics[m]] = outcome_name(Outcome::kFailed);
    reason_object[metrics[m]] = reasons[m];
  }
  object["scores"] = std::move(scores);
  object["status"] = std::move(status);
  object["reasons"] = std::move(reason_object);
  object["evidence"] = Json::object();
  return object;
}

Status check_row_scores(const Row& row, const std::vector<MetricRequest>& metrics,
                        const std::vector<MetricResult>& results) {
  for (std::size_t m = 0; m < metrics.size() && m < results.size(); ++m) {
    if (Status s = check_score_range(metrics[m], results[m]); !s.ok()) {
      return Status(s.code(), "the row at line " + std::to_string(row.line) + ": " + s.message());
    }
  }
  return ok_status();
}

std::string rejected_reason(const RowError& error) { return "row rejected: " + error.to_string(); }

Status write_line(const Json& object, std::ostream& out) {
  out << object.dump(-1, ' ', false, Json::error_handler_t::replace) << '\n';
  if (!out) return unavailable("cannot write the per-sample results");
  return ok_status();
}

}  // namespace result_json

namespace {

// Each row as its JSON object, handed to `put`: a line of the JSONL file, or an object
// kept in memory.
class JsonRowSink : public ResultSink {
 public:
  using Put = std::function<Status(nlohmann::ordered_json)>;
  JsonRowSink(std::vector<MetricRequest> metrics, Put put)
      : requests_(std::move(metrics)), metrics_(metric_names(requests_)), put_(std::move(put)) {}

  Status on_row(const Row& row, const std::vector<MetricResult>& results) override {
    RAGMETER_RETURN_IF_ERROR(result_json::check_row_scores(row, requests_, results));
    return put_(result_json::scored_row(row.fields, metrics_, results));
  }

  Status on_rejected(const RowError& error) override {
    std::vector<std::string> reasons(metrics_.size(), result_json::rejected_reason(error));
    return put_(result_json::rejected_row(error, metrics_, reasons));
  }

 private:
  std::vector<MetricRequest> requests_;
  std::vector<std::string> metrics_;  // their names
  Put put_;
};

}  // namespace

std::unique_ptr<ResultSink> make_json_rows_collector(std::vector<nlohmann::ordered_json>* rows,
                                                     std::vector<MetricRequest> metrics) {
  return std::make_unique<JsonRowSink>(std::move(metrics), [rows](nlohmann::ordered_json row) {
    rows->push_back(std::move(row));
    return ok_status();
  });
}

std::unique_ptr<ResultSink> make_jsonl_result_writer(std::ostream& out,
                                                     std::vector<MetricRequest> metrics) {
  return std::make_unique<JsonRowSink>(std::move(metrics), [&out](const nlohmann::ordered_json& row) {
    return result_json::write_line(row, out);
  });
}

Status FanOutSink::on_row(const Row& row, const std::vector<MetricResult>& results) {
  for (ResultSink* sink : sinks_) RAGMETER_RETURN_IF_ERROR(sink->on_row(row, results));
  return ok_status();
}

Status FanOutSink::on_rejected(const RowError& error) {
  for (ResultSink* sink : sinks_) RAGMETER_RETURN_IF_ERROR(sink->on_rejected(error));
  return ok_status();
}

Status FanOutSink::finish() {
  for (ResultSink* sink : sinks_) RAGMETER_RETURN_IF_ERROR(sink->finish());
  return ok_status();
}

}  // namespace ragmeter
