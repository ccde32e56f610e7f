// Running metrics over a dataset: rows stream in, results stream out in input order,
// and per-metric summaries are accumulated.
//
// Memory holds one batch of rows (EvalOptions::batch_rows) plus one double per scored
// (sample, metric) for the summary statistics.
//
// Rows held in memory: make_memory_row_reader (dataset.h) reads them as a dataset, and
// evaluate_rows (evaluate_rows.h) returns every row's results with the summary.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ragmeter/dataset.h"
#include "ragmeter/image.h"
#include "ragmeter/judge.h"
#include "ragmeter/metric.h"
#include "ragmeter/ocr.h"
#include "ragmeter/repeats.h"
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
  // The language of every sample (an ISO 639-1 code that is_supported_language accepts;
  // the caller checks it), over any `language` column. Empty: each sample's column, else
  // detected from its text (assign_sample_language, language.h), which costs about a
  // microsecond per KiB of text on one thread (docs/languages.md).
  std::string language;
  // The judge of the judged metrics; null means the offline judge (make_offline_judge).
  std::shared_ptr<Judge> judge;
  // false: under the offline judge (Judge::is_offline), a metric the table withdraws from
  // it (MetricInfo::offline_withdrawn) is `skipped` with that reason. true: the offline
  // judge scores it anyway (the CLI's --offline-score-withdrawn), for users who want the
  // number knowing it did not beat chance on held-out human labels. No effect on an LLM judge.
  bool offline_score_withdrawn = false;
  // Where images among the retrieved contexts may be read from (image.h: data URIs
  // only by default; --media-root, --allow-media-urls), and the reader of their text for
  // the offline judge's multimodal ledgers (null: Tesseract with OcrOptions{}, its
  // cache in ~/.cache/ragmeter/ocr.sqlite).
  MediaOptions media;
  std::shared_ptr<OcrReader> ocr;
  int threads = 1;                     // threads scoring a batch's samples in parallel
  std::int64_t limit = 0;              // score at most this many rows (0: all)
  bool strict = false;                 // stop at the first rejected row (the rows before
                                       // it are scored and reach the sink)
  BootstrapOptions bootstrap;
  // Judgements per (sample, judged metric) (`--repeat N`; repeats.h, docs/output.md): each
  // judged metric of each sample is scored by Judge::for_repeat(r, repeat_temperature)
  // for r = 1..repeat, in turn; its result is their mean with every repeat's score
  // (MetricResult::repeat_scores), and the summary separates the judge's variance from
  // the samples' (MetricSummary::repeats). Costs `repeat` times the judge calls. The
  // metrics that need no judge, and every metric under a deterministic judge (for_repeat
  // null: the offline judge), are scored once (EvalSummary::judgements says so).
  // 1: judged once, as always.
  int repeat = 1;
  // The sampling temperature of repeats (seeds 1..repeat). At 0 most servers decode
  // greedily and a seed changes nothing, so the repeats would only measure the server's
  // own nondeterminism.
  double repeat_temperature = 0.7;
  // Pass marks of repeated metrics (the CI gates' values): metric name as requested ->
  // mark. A repeated result of such a metric says whether its repeats straddle the mark
  // (MetricResult::flaky) and the summary counts them (RepeatSummary::flaky).
  std::map<std::string, double> pass_marks;
  // false: each result's evidence is dropped as soon as its sample is scored (the sink
  // sees none). For runs that write no per-sample evidence: with many judged metrics the
  // evidence of a batch is most of the memory.
  bool keep_evidence = true;
  // Rows read, scored and written together, at most: a batch also holds at most
  // kMaxBatchResults results (rows x metrics, but never fewer than 64 rows), so a run
  // with many metrics and their evidence stays within tens of MB. Larger batches keep
  // threads busier at the cost of memory.
  std::size_t batch_rows = 4096;
  // Stops the run when it becomes true; set it from any thread (a Ctrl-C handler, the
  // progress callback). Checked before each batch and before each sample: no sample
  // starts after it is seen; the samples being scored finish, but one that finishes
  // after it is dropped (its judge calls may have been cut short: llm::Client::cancel);
  // the rows before the first unfinished one are already at the sink and the rest are
  // dropped; evaluate then returns the summary of the rows the sink saw, with
  // EvalSummary::cancelled set. Not owned; must
  // outlive the run. Null: the run cannot be cancelled.
  const std::atomic<bool>* cancel = nullptr;
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
  // on_row for a sink that keeps what it is given: evaluate hands over the row and its
  // results when it no longer needs them, so such a sink moves instead of copying. The
  // default calls on_row.
  virtual Status take_row(Row&& row, std::vector<MetricResult>&& results) {
    return on_row(row, results);
  }
  // After the last row (also when a run is interrupted or stopped by --strict): write
  // whatever is held back.
  virtual Status finish() { return ok_status(); }
};

struct MetricSummary {
  std::string name;
  SummaryStats stats;          // over the scored samples only
  std::int64_t skipped = 0;
  std::int64_t failed = 0;
  std::optional<double> corpus;  // corpus-level value (BLEU, chrF) when the metric has one
  bool higher_is_better = true;
  double min_score = 0.0;          // the metric's declared range (its table entry)
  double max_score = 1.0;
  std::string fields;              // the fields the metric needs (its table entry)
  std::string top_skip_reason;     // the most common reason of its skips; empty if none
  std::string top_failure_reason;  // the most common reason of its failures; empty if none
  std::int64_t noted = 0;          // scored rows whose result carries a note (MetricResult::note)
  std::string top_note;            // the most common note; empty if none
  // A metric judged more than once per sample (EvalOptions::repeat): the judge's noise,
  // over the samples whose every repeat was scored (`stats.n` of them; `stats` is over
  // their means). nullopt when judged once.
  std::optional<RepeatSummary> repeats;
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
  std::int64_t rows_read = 0;      // every row the sink saw, good or bad
  std::int64_t rows_rejected = 0;  // rows that could not be read or converted
  // How many scored rows were in each language (Sample::language: "zh", "en", "und").
  std::map<std::string, std::int64_t> languages;
  // True when EvalOptions::cancel stopped the run: the summary covers the rows the
  // sink saw, which are a prefix of the input.
  bool cancelled = false;
  // EvalOptions::repeat, and the judgements per judged (sample, metric) the run made: 1
  // when the judge is deterministic (judged_once_reason says why) or repeat is 1.
  int repeat_requested = 1;
  int judgements = 1;
  double repeat_temperature = 0.7;
  std::string judged_once_reason;  // "the offline judge is deterministic", or empty
};

// The judgements per judged (sample, metric) a run with `options` makes: options.repeat,
// or 1 when the judge (null: the offline judge) is deterministic (Judge::for_repeat
// null). Thread-safe.
int judgements_per_sample(const EvalOptions& options);
// Why a run with `options` judges each sample once although options.repeat > 1: "the
// offline judge is deterministic" (or "the judge is deterministic (DESCRIPTION)" for another
// deterministic judge); empty when it repeats, or when options.repeat is 1. Thread-safe.
std::string judged_once_reason(const EvalOptions& options);

// Progress of a run: the number of rows finished so far (scored, or rejected). Called
// on the thread that called evaluate, never concurrently: while a batch is scored
// about every 100 ms (the calling thread then waits for the scoring threads instead
// of scoring itself), and after each batch. It may set EvalOptions::cancel. May be
// empty: the calling thread then scores too.
using ProgressCallback = std::function<void(std::int64_t rows_seen)>;

// Scores every row of `reader` (the file name is used in error messages). Each row's
// sample gets its language (EvalOptions::language, its column, or detected), which the
// sink sees in the row's fields: "language" (the code) and, for a sample whose texts are
// in different languages, "languages" (field -> code); both replace columns of those
// names. Each
// rejected row goes to sink.on_rejected and the run goes on, unless options.strict,
// where the first one ends the run with InvalidArgument once the rows before it have
// reached the sink. Rows reach the sink in input order, from the calling thread, as
// soon as they and the rows before them are scored (not a batch at a time), so what a
// stopped run has finished is written. Returns the summary (EvalSummary::cancelled when
// options.cancel stopped it), or the first error the sink returned; InvalidArgument
// when the reader has no rows at all (an empty file, a CSV with only a header).
// Thread-safety: one call uses its reader and sink alone; several calls may run at once
// and share a judge (judges are thread-safe). Metric functions that throw are turned
// into `failed` results; nothing here throws, except std::bad_alloc.
StatusOr<EvalSummary> evaluate(RowReader& reader, const std::string& file_name,
                               const EvalOptions& options, ResultSink& sink,
                               const ProgressCallback& progress = {});

// Scores one sample with every requested metric (no I/O): results[i] belongs to
// options.metrics[i]. A sample without a language (Sample::language empty), or whose
// language differs from options.language when that is set, is scored as a copy with its
// language assigned (assign_sample_language). With the offline judge, every judged metric
// of a sample in a language the judge has no rules for is `skipped` with
// offline_judge_gap's reason ("the offline judge does not cover Korean"; offline_judge.h),
// before the judge is asked. Ignores options.cancel. Thread-safe.
std::vector<MetricResult> score_sample(const Sample& sample, const EvalOptions& options);

struct ConfiguredJudge;  // judge_factory.h: a judge made from settings (make_judge)

// Sets `options` up to run with `judge`, as `ragmeter eval` does: options->judge; at
// least judge.concurrency scoring threads for an LLM judge (each sample waits on its
// calls); and, when the caller did not name the metrics (`metrics_given` false), drops
// the metrics only an LLM can score (critics, rubric scores) for the offline judge,
// which would only skip them. Declared here, not in judge_factory.h, so that the judge
// layer does not include the evaluation's (tests/unit/include_layers_test.cc).
void apply_judge(const ConfiguredJudge& judge, bool metrics_given, EvalOptions* options);

}  // namespace ragmeter
