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
#include "ragmeter/judge_factory.h"

namespace ragmeter {

// Writes one JSON object per input row to `out` (not owned; must outlive the writer), in
// input order. A rejected row is written as {"row_error": {"file", "line", "field",
// "message"}, "scores": all null, "status": all "failed", "reasons": the error}.
std::unique_ptr<ResultSink> make_jsonl_result_writer(std::ostream& out,
                                                     std::vector<MetricRequest> metrics);

// Keeps each row as the JSON object make_jsonl_result_writer writes as its line, in
// `rows` (for the HTML report, which reads those objects): no text in between.
std::unique_ptr<ResultSink> make_json_rows_collector(std::vector<nlohmann::ordered_json>* rows,
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
struct RunInfo {
  std::string judge = "offline";  // the judge the run used (its description, no key)
  std::string dataset;            // input path
  JudgeUsage usage;
  // Judge::usage_by_call(): the same usage split by kind of call; null for none. The
  // compact plan shares each call among every metric that reads the ledger, so usage is
  // reported per kind of call, not per metric.
  nlohmann::ordered_json usage_by_call;
  // Judge::judged_languages(): the samples the judge was given, by the language it was
  // asked to write in, as the summary's judge.languages; null for none (offline judge).
  nlohmann::ordered_json judged_languages;
  // The run's identity for the summary's "run" and the report: {"ragmeter_version",
  // "dataset", "dataset_sha256", "judge", "model", "plan", "date"}; null: left out.
  nlohmann::ordered_json run;
};

// The RunInfo of a run with `judge` over `dataset` (empty for rows held in memory: the
// summary then has no "dataset"), as `ragmeter eval` reports it: the judge's description,
// usage so far and usage by call, and the run's identity (RunInfo::run; "dataset" and
// "dataset_sha256" are null for rows in memory, "model" is empty for the offline judge,
// "date" is now in UTC to the second). Reads the dataset file to hash it. Call it after
// the run. Thread-safe.
RunInfo make_run_info(const ConfiguredJudge& judge, std::string dataset);

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
