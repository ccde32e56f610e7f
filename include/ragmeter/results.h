// Writing results: per-sample JSONL and CSV, the summary JSON and the terminal table.
//
// Formats are a contract (see docs/output.md): per-sample JSONL holds the row's own
// fields, then "scores" {metric: number or null}, "status" {metric: "ok" | "skipped" |
// "failed"}, "reasons" {metric: string} for skipped and failed, and "evidence"
// {metric: ...} where a metric has some.
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ragmeter/evaluate.h"

namespace ragmeter {

// Writes one JSON object per input row to `out` (not owned; must outlive the writer), in
// input order. A rejected row is written as {"row_error": {"file", "line", "field",
// "message"}, "scores": all null, "status": all "failed", "reasons": the error}.
std::unique_ptr<ResultSink> make_jsonl_result_writer(std::ostream& out,
                                                     std::vector<MetricRequest> metrics);

// Writes CSV: a header from the first good row's fields (rejected rows before it are
// held back until it comes, or until finish()), then per metric the columns
// `<metric>`, `<metric>_status`, `<metric>_reason`; fields a later row has that the
// header lacks go to a final `extra_fields` column as a JSON object. Nested values are
// written as JSON text. Evidence is left out (it is in the JSONL output). A rejected row
// is a line with empty field cells and every metric failed with the error as reason.
std::unique_ptr<ResultSink> make_csv_result_writer(std::ostream& out,
                                                   std::vector<MetricRequest> metrics);

// Forwards every call to each sink in turn; the first error stops the forwarding.
class FanOutSink : public ResultSink {
 public:
  void add(ResultSink* sink) { sinks_.push_back(sink); }
  Status on_row(const Row& row, const std::vector<MetricResult>& results) override;
  Status on_rejected(const RowError& error) override;
  Status finish() override;

 private:
  std::vector<ResultSink*> sinks_;
};

// Extra facts for the summary file beyond the scores.
// Judge calls of a run, for the summary's "usage" (all zero for the offline judge).
struct JudgeUsage {
  std::int64_t requests = 0;       // HTTP requests sent, retries included
  std::int64_t cache_hits = 0;     // calls served from the judge cache
  std::int64_t failed_calls = 0;
  std::int64_t prompt_tokens = 0;
  std::int64_t completion_tokens = 0;
  std::int64_t cached_tokens = 0;
  double cost_usd = 0.0;
  // How the judge's client adapted to the server (llm::UsageTotals says more); for the
  // chat client when there is one.
  bool adaptive = false;               // the fields below are filled
  int concurrency_ceiling = 0;         // --concurrency
  int concurrency_settled = 0;         // requests allowed in flight at the end
  int concurrency_lowest = 0;
  int server_parallelism = 0;          // requests the server was seen serving at once; 0: unknown
  std::int64_t timed_out_attempts = 0;  // abandoned for no sign of life, then retried
  double abandoned_server_seconds = 0.0;  // estimated; 0 is the goal
  std::int64_t estimated_usage_calls = 0;  // replies whose tokens were estimated
};

struct RunInfo {
  std::string judge = "offline";  // the judge the run used (its description, no key)
  std::string dataset;            // input path
  JudgeUsage usage;
  // Judge::usage_by_call(): the same usage split by kind of call; null for none. The
  // compact plan shares each call among every metric that reads the ledger, so usage is
  // reported per kind of call, not per metric.
  nlohmann::ordered_json usage_by_call;
  // The run's identity for the summary's "run" and the report: {"ragmeter_version",
  // "dataset", "dataset_sha256", "judge", "model", "plan", "date"}; null: left out.
  nlohmann::ordered_json run;
};

// The summary JSON of the contract: {"metrics": {name: {"mean", "std", "ci95", "n",
// "skipped", "failed"[, "corpus"]}}, "usage": {...}, "judge": {...}, "rows": {"read",
// "rejected"}[, "run": RunInfo::run]}. Means are null when nothing was scored. A cancelled
// run adds "cancelled": true. Thread-safe.
nlohmann::ordered_json summary_to_json(const EvalSummary& summary, const RunInfo& info);

// The exact text `ragmeter eval --summary FILE` writes: summary_to_json indented by 2,
// then a newline. Thread-safe.
std::string summary_json_text(const EvalSummary& summary, const RunInfo& info);

// Whether `path` can be written, checked before a run pays for anything: OK, or
// InvalidArgument "cannot write FLAG PATH: <the operating system's reason>". The file is
// opened for writing without truncation; one that did not exist is removed again.
Status check_output_path(const std::string& path, const std::string& flag);

// A readable fixed-width table of the summary for the terminal.
std::string format_summary_table(const EvalSummary& summary);

}  // namespace ragmeter
