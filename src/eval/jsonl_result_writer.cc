// Per-sample JSONL results.
#include "ragmeter/results.h"

namespace ragmeter {
namespace {

using Json = nlohmann::ordered_json;

class JsonlResultWriter : public ResultSink {
 public:
  JsonlResultWriter(std::ostream& out, std::vector<MetricRequest> metrics)
      : out_(out), metrics_(std::move(metrics)) {}

  Status on_row(const Row& row, const std::vector<MetricResult>& results) override {
    Json object = row.fields;
    Json scores = Json::object(), status = Json::object(), reasons = Json::object(),
         evidence = Json::object();
    for (std::size_t m = 0; m < metrics_.size(); ++m) {
      const std::string& name = metrics_[m].name;
      const MetricResult& result = results[m];
      scores[name] = result.outcome == Outcome::kOk ? Json(result.score) : Json(nullptr);
      status[name] = outcome_name(result.outcome);
      if (result.outcome != Outcome::kOk) reasons[name] = result.reason;
      if (!result.evidence.is_null()) evidence[name] = result.evidence;
    }
    object["scores"] = std::move(scores);
    object["status"] = std::move(status);
    object["reasons"] = std::move(reasons);
    object["evidence"] = std::move(evidence);
    return write(object);
  }

  // A rejected row keeps its place: its position and error, and every metric failed.
  Status on_rejected(const RowError& error) override {
    Json object;
    object["row_error"] = {{"file", error.file}, {"line", error.line}, {"field", error.field},
                           {"message", error.message}};
    Json scores = Json::object(), status = Json::object(), reasons = Json::object();
    for (const auto& metric : metrics_) {
      scores[metric.name] = nullptr;
      status[metric.name] = outcome_name(Outcome::kFailed);
      reasons[metric.name] = "row rejected: " + error.to_string();
    }
    object["scores"] = std::move(scores);
    object["status"] = std::move(status);
    object["reasons"] = std::move(reasons);
    object["evidence"] = Json::object();
    return write(object);
  }

 private:
  Status write(const Json& object) {
    out_ << object.dump(-1, ' ', false, Json::error_handler_t::replace) << '\n';
    if (!out_) return unavailable("cannot write the per-sample results");
    return ok_status();
  }

  std::ostream& out_;
  std::vector<MetricRequest> metrics_;
};

}  // namespace

std::unique_ptr<ResultSink> make_jsonl_result_writer(std::ostream& out,
                                                     std::vector<MetricRequest> metrics) {
  return std::make_unique<JsonlResultWriter>(out, std::move(metrics));
}

Status FanOutSink::on_row(const Row& row, const std::vector<MetricResult>& results) {
  for (ResultSink* sink : sinks_) RAGMETER_RETURN_IF_ERROR(sink->on_row(row, results));
  return ok_status();
}

Status FanOutSink::on_rejected(const RowError& error) {
  for (ResultSink* sink : sinks_) RAGMETER_RETURN_IF_ERROR(sink->on_rejected(error));
  return ok_status();
}

}  // namespace ragmeter
