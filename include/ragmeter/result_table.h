// Per-row results held in memory: what `ragmeter eval --out` writes, as values. A
// ResultTableSink collects them from evaluate(); read_results_jsonl reads a results file
// back into the same shape, and write_results_jsonl writes one byte for byte as --out.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ragmeter/dataset.h"
#include "ragmeter/evaluate.h"
#include "ragmeter/metric.h"
#include "ragmeter/status.h"

namespace ragmeter {

// One input row and its outcome for every metric of the run.
struct RowResult {
  std::int64_t index = 0;  // 0-based position among the input rows, rejected ones included
  // The row's own fields in input order; null for a rejected row (its fields were never
  // read, or could not be turned into a sample).
  nlohmann::ordered_json fields;
  // Set for a rejected row. Read back from a results file it has no column (0).
  std::optional<RowError> error;
  // One per ResultTable::metrics, in that order. A rejected row's are all `failed` with
  // the reason "row rejected: " + error->to_string(), as --out writes them. Read back
  // from a file, corpus_stats are empty (the file does not hold them).
  std::vector<MetricResult> results;
};

struct ResultTable {
  std::vector<std::string> metrics;  // metric names as requested ("ndcg@10"), in run order
  std::vector<RowResult> rows;       // in input order
};

// Collects what evaluate() delivers into a ResultTable. Keeps every row, its fields and
// evidence (EvalOptions::keep_evidence = false drops the evidence): memory grows with
// the rows. Not thread-safe (evaluate calls a sink from one thread).
class ResultTableSink : public ResultSink {
 public:
  explicit ResultTableSink(std::vector<std::string> metric_names);
  // Copies the row and its results.
  Status on_row(const Row& row, const std::vector<MetricResult>& results) override;
  // Moves them: what evaluate() calls.
  Status take_row(Row&& row, std::vector<MetricResult>&& results) override;
  Status on_rejected(const RowError& error) override;

  const ResultTable& table() const { return table_; }
  // Moves the table out; the sink is then empty (it keeps the metric names).
  ResultTable release();

 private:
  ResultTable table_;
};

// The metric names of a run's requests, in order (the `metrics` of its ResultTable).
std::vector<std::string> metric_names(const std::vector<MetricRequest>& metrics);

// Writes `table` as `ragmeter eval --out FILE.jsonl` does (docs/output.md): one JSON
// object per row, the row's fields then "scores", "status", "reasons", "evidence"; a
// rejected row as {"row_error": ..., ...} with its results' reasons. A table from
// evaluate() gives the same bytes as --out for the same run. Unavailable when the
// stream fails; InvalidArgument when a row has fewer results than metrics.
Status write_results_jsonl(const ResultTable& table, std::ostream& out);

// Reads a per-row results file that `ragmeter eval --out` (or write_results_jsonl)
// wrote. The metrics are the keys of the first row's "status", in order; every row must
// have a status for each of them. A row's fields are its keys other than "scores",
// "status", "reasons", "evidence" (and "row_error" for a rejected row). `name` is used
// in errors. InvalidArgument naming the file and line for a line that is not JSON, a
// row without "status", an unknown status, a missing metric, a score that is not a
// number where the status is "ok". Thread-safe (the stream is the caller's).
StatusOr<ResultTable> read_results_jsonl(std::istream& in, const std::string& name);

// The same for the file at `path`; NotFound when it cannot be opened.
StatusOr<ResultTable> read_results_jsonl(const std::string& path);

}  // namespace ragmeter
