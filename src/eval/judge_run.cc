// A run's judge as the evaluation sees it: the options it sets (apply_judge,
// judge_factory.h) and what the summary reports about it (make_run_info, results.h).
#include <algorithm>
#include <chrono>
#include <ctime>

#include "ragmeter/dataset.h"
#include "ragmeter/judge_factory.h"
#include "ragmeter/metric.h"
#include "ragmeter/results.h"

namespace ragmeter {
namespace {

using Json = nlohmann::ordered_json;

std::string utc_now() {
  std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return date;
}

// The run's identity for the summary and the report.
Json run_identity(const ConfiguredJudge& judge, const std::string& dataset,
                  const std::string& description) {
  Json run;
  run["ragmeter_version"] = RAGMETER_VERSION;
  run["dataset"] = dataset.empty() ? Json(nullptr) : Json(dataset);
  auto hash = dataset.empty() ? StatusOr<std::string>(not_found("no file")) : file_sha256(dataset);
  run["dataset_sha256"] = hash.ok() ? Json(*hash) : Json(nullptr);
  run["judge"] = description;
  run["model"] = judge.llm() ? judge.settings.judge_model : std::string();
  run["plan"] = judge.plan;
  run["date"] = utc_now();
  return run;
}

}  // namespace

void apply_judge(const ConfiguredJudge& judge, bool metrics_given, EvalOptions* options) {
  options->judge = judge.judge;
  // Each sample waits on its judge calls or embeddings requests.
  if (judge.makes_calls()) options->threads = std::max(options->threads, judge.concurrency);
  if (!judge.llm() && !metrics_given) {
    const bool score_withdrawn = options->offline_score_withdrawn;
    std::erase_if(options->metrics, [score_withdrawn](const MetricRequest& r) {
      return r.definition.empty() && offline_default_leaves_out(*r.info, score_withdrawn);
    });
  }
}

RunInfo make_run_info(const ConfiguredJudge& judge, std::string dataset) {
  RunInfo info;
  info.judge = judge.description();
  info.usage = judge.usage();
  info.usage_by_call = judge.usage_by_call();
  info.judged_languages = judge.judged_languages();
  info.run = run_identity(judge, dataset, info.judge);
  info.dataset = std::move(dataset);
  return info;
}

}  // namespace ragmeter
