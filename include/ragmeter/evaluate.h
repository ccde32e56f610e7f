// Running metrics over a dataset: rows stream in, results stream out in input order,
// and per-metric summaries are accumulated.
//
// Memory holds one batch of rows (EvalOptions::batch_rows) plus one double per scored
// (sample, metric) for the summary statistics.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ragmeter/dataset.h"
#include "ragmeter/judge.h"
#include "ragmeter/metric.h"
#include "ragmeter/sample.h"
#include "ragmeter/stats.h"
#include "ragmeter/status.h"

namespace ragmeter {

// The most (sample, metric) results one batch holds (see EvalOptions::batch_rows).
inline constexpr std::size_t kMaxBatchResults = 65536;

struct EvalOptions {
  std::vector<MetricRequest> metrics;  // what to score, in output order
  ScoringOptions scoring;
  ColumnMap column_map;                // user column -> sample field
  // The judge of the judged metrics; null means the offline judge (make_offline_judge).
  std::shared_ptr<Judge> judge;
  int threads = 1;                     // threads scoring a batch's samples in parallel
  std::int64_t limit = 0;              // score at most this many rows (0: all)
  bool strict = false;                 // stop at the first rejected row
  BootstrapOptions bootstrap;
  // false: each result's evidence is dropped as soon as its sample is scored (the sink
  // sees none). For runs that write no per-sample evidence: with many judged metrics the
  // evidence of a batch is most of the memory.
  bool keep_evidence = true;
  // Rows read, scored and written together, at most: a batch also holds at most
  // kMaxBatchResults results (rows x metrics, but never fewer than 64 rows), so a run
  // with many metrics and their evidence stays within tens of MB. Larger batches keep
  // threads busier at the cost of memory.
  std::size_t batch_rows = 4096;
};

// Receives results in input order, from the calling thread. Implementations write
// them somewhere (JSONL, CSV, memory).
class ResultSink {
 public:
  virtual ~ResultSink() = default;
  // One scored row: results[i] belongs to options.metrics[i].
  virtual Status on_row(const Row& row, const std::vector<MetricResult>& results) = 0;
  // One row that could not be read or turned into a sample, at its place in input order.
  virtual Status on_rejected(const RowError& error) = 0;
};

struct MetricSummary {
  std::string name;
  SummaryStats stats;          // over the scored samples only
  std::int64_t skipped = 0;
  std::int64_t failed = 0;
  std::optional<double> corpus;  // corpus-level value (BLEU, chrF) when the metric has one
  bool higher_is_better = true;
};

// ragas's original headline number: the harmonic mean of the means of faithfulness,
// answer_relevancy, context_precision and context_recall, over those of them the run
// scored (at least two). 0 when one of the means is 0.
struct RagasScore {
  double value = 0.0;
  std::vector<std::string> of;  // the metrics that went in, in run order
};

// The ragas_score of a run's metric summaries; nullopt when fewer than two of the four
// were scored.
std::optional<RagasScore> ragas_score(const std::vector<MetricSummary>& metrics);

struct EvalSummary {
  std::vector<MetricSummary> metrics;
  std::optional<RagasScore> ragas;  // ragas_score(metrics)
  std::int64_t rows_read = 0;      // every row seen, good or bad
  std::int64_t rows_rejected = 0;  // rows that could not be read or converted
};

// Called after each batch with the number of rows seen so far. May be empty.
using ProgressCallback = std::function<void(std::int64_t rows_seen)>;

// Scores every row of `reader` (the file name is used in error messages). Each
// rejected row goes to sink.on_rejected and the run goes on, unless options.strict,
// where the first one ends the run with InvalidArgument. Returns the summary, or the
// first error the sink returned.
StatusOr<EvalSummary> evaluate(RowReader& reader, const std::string& file_name,
                               const EvalOptions& options, ResultSink& sink,
                               const ProgressCallback& progress = {});

// Scores one sample with every requested metric (no I/O). Thread-safe.
std::vector<MetricResult> score_sample(const Sample& sample, const EvalOptions& options);

}  // namespace ragmeter
