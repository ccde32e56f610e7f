// The evaluation loop: read a batch, convert rows to samples, score them on a few
// threads, hand the results to the sink in input order, accumulate the summaries.
#include "ragmeter/evaluate.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

namespace ragmeter {
namespace {

struct PendingRow {
  Row row;
  Sample sample;
  std::vector<MetricResult> results;
  // Set for a row that could not be read or converted; it keeps its place in the batch so
  // the sink sees every row in input order.
  std::optional<RowError> rejected;
  bool scored = false;  // results are in (false for a sample a cancelled run never started)
};

// Accumulates one metric's outcomes across batches.
struct MetricAccumulator {
  std::vector<double> scores;
  std::int64_t skipped = 0;
  std::int64_t failed = 0;
  std::vector<double> corpus_stats;
  // Reasons of skips and failures with their counts, for the terminal's "most common
  // reason". At most kMaxReasons distinct ones are counted (failure messages can be
  // many); later new ones are not.
  static constexpr std::size_t kMaxReasons = 256;
  std::map<std::string, std::int64_t> skip_reasons, failure_reasons;

  static void count(std::map<std::string, std::int64_t>* reasons, const std::string& reason) {
    auto it = reasons->find(reason);
    if (it != reasons->end()) {
      ++it->second;
    } else if (reasons->size() < kMaxReasons) {
      reasons->emplace(reason, 1);
    }
  }
  static std::string most_common(const std::map<std::string, std::int64_t>& reasons) {
    const std::pair<const std::string, std::int64_t>* best = nullptr;
    for (const auto& entry : reasons) {
      if (best == nullptr || entry.second > best->second) best = &entry;
    }
    return best ? best->first : std::string();
  }

  void add(const MetricResult& result) {
    switch (result.outcome) {
      case Outcome::kOk:
        scores.push_back(result.score);
        if (!result.corpus_stats.empty()) {
          if (corpus_stats.empty()) corpus_stats.assign(result.corpus_stats.size(), 0.0);
          for (std::size_t i = 0; i < corpus_stats.size() && i < result.corpus_stats.size(); ++i) {
            corpus_stats[i] += result.corpus_stats[i];
          }
        }
        break;
      case Outcome::kSkipped:
        ++skipped;
        count(&skip_reasons, result.reason);
        break;
      case Outcome::kFailed:
        ++failed;
        count(&failure_reasons, result.reason);
        break;
    }
  }
};

// Splits sample_from_json's "field 'name': message" into the RowError's field and
// message, so RowError::to_string names the field once.
RowError conversion_error(const std::string& file, const Row& row, const Status& status) {
  RowError error;
  error.file = file;
  error.line = row.line;
  error.index = row.index;
  error.message = status.message();
  const std::string prefix = "field '";
  const std::string& message = status.message();
  auto end = message.starts_with(prefix) ? message.find("': ", prefix.size()) : std::string::npos;
  if (end != std::string::npos) {
    error.field = message.substr(prefix.size(), end - prefix.size());
    error.message = message.substr(end + 3);
  }
  return error;
}

bool cancelled(const EvalOptions& options) {
  return options.cancel != nullptr && options.cancel->load(std::memory_order_relaxed);
}

// How often a progress callback is called while a batch is scored.
constexpr std::chrono::milliseconds kProgressInterval{100};

// Scores the batch's accepted rows on options.threads threads, marking each `scored`.
// Without a progress callback the calling thread is one of them; with one it waits for
// them instead, calling `progress` about every kProgressInterval, so a caller (a Python
// binding checking for Ctrl-C) hears from the run even while a slow sample is judged.
void score_batch(std::vector<PendingRow>& batch, const EvalOptions& options,
                 const ProgressCallback& progress, std::int64_t rows_before) {
  const bool judged = std::any_of(options.metrics.begin(), options.metrics.end(),
                                  [](const MetricRequest& r) { return r.info->judged != nullptr; });
  if (options.judge && judged) {
    std::vector<const Sample*> samples;
    for (const PendingRow& row : batch) {
      if (!row.rejected) samples.push_back(&row.sample);
    }
    options.judge->prepare_batch(samples);
  }
  std::atomic<std::size_t> next{0};
  std::atomic<std::int64_t> finished{0};
  for (const PendingRow& pending : batch) finished += pending.rejected ? 1 : 0;
  auto work = [&] {
    for (std::size_t i = next++; i < batch.size(); i = next++) {
      if (batch[i].rejected) continue;
      if (cancelled(options)) return;
      batch[i].results = score_sample(batch[i].sample, options);
      if (!options.keep_evidence) {
        for (MetricResult& result : batch[i].results) result.evidence = nullptr;
      }
      batch[i].scored = true;
      finished.fetch_add(1, std::memory_order_relaxed);
    }
  };
  int threads = std::max(1, std::min<int>(options.threads, static_cast<int>(batch.size())));
  std::vector<std::thread> pool;
  if (!progress) {
    for (int t = 1; t < threads; ++t) pool.emplace_back(work);
    work();
    for (auto& thread : pool) thread.join();
    return;
  }
  std::mutex mutex;
  std::condition_variable all_done;
  int running = threads;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      work();
      std::lock_guard<std::mutex> lock(mutex);
      if (--running == 0) all_done.notify_one();
    });
  }
  std::unique_lock<std::mutex> lock(mutex);
  while (!all_done.wait_for(lock, kProgressInterval, [&] { return running == 0; })) {
    lock.unlock();
    progress(rows_before + finished.load(std::memory_order_relaxed));
    lock.lock();
  }
  lock.unlock();
  for (auto& thread : pool) thread.join();
}

MetricResult guarded_score(const MetricRequest& request, const Sample& sample,
                           const ScoringOptions& scoring, std::optional<SampleJudgement>& judgement,
                           Judge& judge) {
  try {
    if (request.info->judged != nullptr) {
      if (!judgement) judgement.emplace(sample, judge);
      return request.info->judged(*judgement, request, scoring);
    }
    return request.info->score(sample, request, scoring);
  } catch (const std::exception& e) {
    return MetricResult::failed(std::string("internal error: ") + e.what());
  }
}

Judge& offline_judge() {
  static const std::shared_ptr<Judge> judge = make_offline_judge();
  return *judge;
}

}  // namespace

std::vector<MetricResult> score_sample(const Sample& sample, const EvalOptions& options) {
  std::vector<MetricResult> results;
  results.reserve(options.metrics.size());
  Judge& judge = options.judge ? *options.judge : offline_judge();
  std::optional<SampleJudgement> judgement;  // asked for by the first judged metric
  for (const auto& request : options.metrics) {
    if (!options.offline_score_withdrawn && judge.is_offline() &&
        request.info->judged != nullptr && !request.info->offline_withdrawn.empty()) {
      results.push_back(MetricResult::skipped(offline_withdrawn_reason(*request.info)));
      continue;
    }
    results.push_back(guarded_score(request, sample, options.scoring, judgement, judge));
  }
  return results;
}

std::optional<RagasScore> ragas_score(const std::vector<MetricSummary>& metrics) {
  static constexpr std::string_view kParts[] = {"faithfulness", "answer_relevancy",
                                                "context_precision", "context_recall"};
  RagasScore score;
  double inverse_sum = 0.0;
  bool zero = false;
  for (const MetricSummary& metric : metrics) {
    if (std::find(std::begin(kParts), std::end(kParts), metric.name) == std::end(kParts)) continue;
    if (metric.stats.n == 0) continue;
    score.of.push_back(metric.name);
    if (metric.stats.mean <= 0.0) {
      zero = true;
    } else {
      inverse_sum += 1.0 / metric.stats.mean;
    }
  }
  if (score.of.size() < 2) return std::nullopt;
  score.value = zero ? 0.0 : static_cast<double>(score.of.size()) / inverse_sum;
  return score;
}

StatusOr<EvalSummary> evaluate(RowReader& reader, const std::string& file_name,
                               const EvalOptions& options, ResultSink& sink,
                               const ProgressCallback& progress) {
  EvalSummary summary;
  std::vector<MetricAccumulator> accumulators(options.metrics.size());
  std::vector<PendingRow> batch;
  bool at_end = false;
  std::int64_t accepted = 0;
  const std::size_t metric_count = std::max<std::size_t>(1, options.metrics.size());
  const std::size_t rows_per_batch = std::max<std::size_t>(
      1, std::min(options.batch_rows, std::max<std::size_t>(64, kMaxBatchResults / metric_count)));
  while (!at_end) {
    if (cancelled(options)) {
      summary.cancelled = true;
      break;
    }
    batch.clear();
    while (batch.size() < rows_per_batch) {
      if (options.limit > 0 && accepted >= options.limit) {
        at_end = true;
        break;
      }
      PendingRow pending;
      RowError error;
      RowReader::Result result = reader.next(&pending.row, &error);
      if (result == RowReader::Result::kEnd) {
        at_end = true;
        break;
      }
      if (result == RowReader::Result::kRow) {
        auto sample = sample_from_json(pending.row.fields, options.column_map);
        if (sample.ok()) {
          pending.sample = std::move(sample).value();
          batch.push_back(std::move(pending));
          ++accepted;
          continue;
        }
        error = conversion_error(file_name, pending.row, sample.status());
      }
      if (options.strict) return invalid_argument(error.to_string());
      pending.rejected = std::move(error);
      batch.push_back(std::move(pending));
    }
    score_batch(batch, options, progress, summary.rows_read);
    // Rows are counted as the sink sees them, so a cancelled run's summary describes
    // exactly the rows it delivered.
    for (auto& pending : batch) {
      if (pending.rejected) {
        ++summary.rows_read;
        ++summary.rows_rejected;
        RAGMETER_RETURN_IF_ERROR(sink.on_rejected(*pending.rejected));
        continue;
      }
      if (!pending.scored) {  // cancelled: the rows from here on are dropped
        summary.cancelled = true;
        at_end = true;
        break;
      }
      ++summary.rows_read;
      for (std::size_t m = 0; m < accumulators.size(); ++m) accumulators[m].add(pending.results[m]);
      RAGMETER_RETURN_IF_ERROR(sink.take_row(std::move(pending.row), std::move(pending.results)));
    }
    if (progress) progress(summary.rows_read);
  }

  BootstrapOptions bootstrap = options.bootstrap;
  bootstrap.threads = options.threads;
  for (std::size_t m = 0; m < options.metrics.size(); ++m) {
    const MetricRequest& request = options.metrics[m];
    MetricAccumulator& acc = accumulators[m];
    MetricSummary metric;
    metric.name = request.name;
    metric.stats = summarize(acc.scores, bootstrap);
    metric.skipped = acc.skipped;
    metric.failed = acc.failed;
    metric.higher_is_better = request.info->higher_is_better;
    metric.fields = std::string(request.info->fields);
    metric.top_skip_reason = MetricAccumulator::most_common(acc.skip_reasons);
    metric.top_failure_reason = MetricAccumulator::most_common(acc.failure_reasons);
    if (request.info->corpus != nullptr && !acc.scores.empty()) {
      metric.corpus = request.info->corpus(acc.corpus_stats, request, options.scoring);
    }
    summary.metrics.push_back(std::move(metric));
  }
  summary.ragas = ragas_score(summary.metrics);
  return summary;
}

}  // namespace ragmeter
