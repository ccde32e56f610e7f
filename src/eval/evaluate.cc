// The evaluation loop: read a batch, convert rows to samples, score them on a few
// threads, hand the results to the sink in input order, accumulate the summaries.
#include "ragmeter/evaluate.h"

#include "ragmeter/offline_judge.h"
#include "ragmeter/language.h"
#include "ragmeter/repeats.h"
#include "ragmeter/summary_builder.h"

#include "core/row_turns.h"
#include "eval/turn_results.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
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

// Gives the row's sample its language and writes it into the row's fields, where every
// sink finds it next to the row's own columns.
void assign_language(PendingRow& pending, const EvalOptions& options) {
  assign_sample_language(&pending.sample, options.language);
  nlohmann::ordered_json& fields = pending.row.fields;
  fields["language"] = pending.sample.language;
  if (!pending.sample.field_languages.empty()) {
    fields["languages"] = pending.sample.field_languages;
  } else if (fields.contains("languages")) {
    fields.erase("languages");
  }
}

bool cancelled(const EvalOptions& options) {
  return options.cancel != nullptr && options.cancel->load(std::memory_order_relaxed);
}

// How often a progress callback is called while a batch is scored.
constexpr std::chrono::milliseconds kProgressInterval{100};

// A batch's rows as the scoring threads finish them.
class BatchState {
 public:
  enum : unsigned char { kPending, kReady, kDropped };

  explicit BatchState(std::size_t rows)
      : state_(std::make_unique<std::atomic<unsigned char>[]>(rows)) {}

  unsigned char state(std::size_t i) const { return state_[i].load(); }
  // Marks row i and wakes the delivering thread if it waits.
  void mark(std::size_t i, unsigned char value) {
    state_[i].store(value);
    if (waiting_.load()) {
      std::lock_guard<std::mutex> lock(mutex_);
      changed_.notify_one();
    }
  }
  // Waits until row i is no longer pending or no scoring thread is left: true, or
  // until `interval` has passed: false.
  bool wait(std::size_t i, const std::atomic<int>& running, std::chrono::milliseconds interval) {
    std::unique_lock<std::mutex> lock(mutex_);
    waiting_.store(true);
    const bool settled = changed_.wait_for(lock, interval, [&] {
      return state_[i].load() != kPending || running.load() == 0;
    });
    waiting_.store(false);
    return settled;
  }
  void wake() {
    std::lock_guard<std::mutex> lock(mutex_);
    changed_.notify_one();
  }

 private:
  std::unique_ptr<std::atomic<unsigned char>[]> state_;
  std::atomic<bool> waiting_{false};
  std::mutex mutex_;
  std::condition_variable changed_;
};

// Scores the batch's accepted rows on options.threads threads and hands each row to
// `deliver` in input order as soon as it and every row before it are done: rows reach
// the sink as they finish, so a run stopped part-way has written every row before the
// first unfinished one. The calling thread delivers and, while it waits, calls
// `progress` about every kProgressInterval (a Python binding checking for Ctrl-C hears
// from the run even while a slow sample is judged). After a cancel no sample starts, and
// a sample that finishes after it is dropped (its judge calls may have been cut short):
// returns false when rows were dropped or never scored, true when all were delivered.
StatusOr<bool> score_and_deliver(std::vector<PendingRow>& batch, const EvalOptions& options,
                                 const ProgressCallback& progress, std::int64_t rows_before,
                                 const std::function<Status(PendingRow&)>& deliver) {
  const bool judged = std::any_of(options.metrics.begin(), options.metrics.end(),
                                  [](const MetricRequest& r) { return r.info->judged != nullptr; });
  if (options.judge && judged) {  // e.g. the local embedder encodes the batch's texts at once
    std::vector<const Sample*> samples;
    for (const PendingRow& row : batch) {
      if (!row.rejected) samples.push_back(&row.sample);
    }
    options.judge->prepare_batch(samples);
  }
  BatchState states(batch.size());
  std::atomic<std::size_t> next{0};
  std::atomic<std::int64_t> finished{0};
  std::atomic<bool> stop{false};  // the sink failed: no point scoring more
  const int threads = std::max(1, std::min<int>(options.threads, static_cast<int>(batch.size())));
  std::atomic<int> running{threads};
  // Rows sharing a judge's stored work take turns in input order (core/row_turns.h).
  RowTurns turns(batch.size());
  auto work = [&] {
    for (std::size_t i = next++; i < batch.size(); i = next++) {
      ScopedRow row(turns, i, batch[i].rejected ? nullptr : &batch[i].sample);
      if (!batch[i].rejected) {
        if (cancelled(options) || stop.load()) break;
        assign_language(batch[i], options);
        batch[i].results = score_sample(batch[i].sample, options);
        if (!options.keep_evidence) {
          for (MetricResult& result : batch[i].results) {
            result.evidence = nullptr;
            result.repeat_evidence = nullptr;
          }
        }
        if (cancelled(options)) {
          states.mark(i, BatchState::kDropped);
          break;
        }
        batch[i].scored = true;
      }
      finished.fetch_add(1, std::memory_order_relaxed);
      states.mark(i, BatchState::kReady);
    }
    if (--running == 0) states.wake();
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back(work);
  Status status;
  bool complete = true;
  for (std::size_t i = 0; i < batch.size() && status.ok(); ++i) {
    while (!states.wait(i, running, kProgressInterval)) {
      if (progress) progress(rows_before + finished.load(std::memory_order_relaxed));
    }
    if (states.state(i) != BatchState::kReady) {
      complete = false;
      break;
    }
    status = deliver(batch[i]);
  }
  stop.store(true);
  for (auto& thread : pool) thread.join();
  if (!status.ok()) return status;
  return complete;
}

MetricResult guarded_score(const MetricRequest& request, const Sample& sample,
                           const EvalOptions& options, std::optional<SampleJudgement>& judgement,
                           Judge& judge) {
  // A field the metric needs and the sample lacks: skipped before anything is asked.
  if (auto skip = missing_required_field(sample, request.info->needs)) return std::move(*skip);
  try {
    if (request.info->judged != nullptr) {
      if (!judgement) judgement.emplace(sample, judge, ImageAccess{&options.media, options.ocr.get()});
      return request.info->judged(*judgement, request, options.scoring);
    }
    return request.info->score(sample, request, options.scoring);
  } catch (const std::exception& e) {
    return MetricResult::failed(std::string("internal error: ") + e.what());
  }
}

// A --column-map entry that names a column no row has is a typo or a wrong path, not
// a field to leave empty: it is an error before anything is scored (or paid for). The
// check reads the first batch (the whole file when it is smaller than a batch).
Status check_mapped_columns(const std::vector<PendingRow>& batch, const ColumnMap& column_map,
                            bool whole_file) {
  for (const auto& [column, field] : column_map) {
    bool found = std::any_of(batch.begin(), batch.end(), [&column](const PendingRow& pending) {
      return row_has_column(pending.row.fields, column);
    });
    if (found || batch.empty()) continue;
    return invalid_argument("--column-map " + column + "=" + field + ": no row" +
                            (whole_file ? std::string()
                                        : " of the first " + std::to_string(batch.size())) +
                            " has a column '" + column + "' (a nested field is named by its "
                            "dotted path, e.g. meta.question)");
  }
  return ok_status();
}

Judge& offline_judge() {
  static const std::shared_ptr<Judge> judge = make_offline_judge();
  return *judge;
}

// The judges of repeats 1..options.repeat (Judge::for_repeat); empty when the sample is
// judged once (repeat 1, or a deterministic judge).
std::vector<std::shared_ptr<Judge>> repeat_judges(Judge& judge, const EvalOptions& options) {
  std::vector<std::shared_ptr<Judge>> judges;
  for (int r = 1; options.repeat > 1 && r <= options.repeat; ++r) {
    std::shared_ptr<Judge> repeat = judge.for_repeat(r, options.repeat_temperature);
    if (!repeat) return {};
    judges.push_back(std::move(repeat));
  }
  return judges;
}

// Scores the judged metrics `repeated` (indices into options.metrics) once per repeat judge,
// each repeat with a SampleJudgement of its own, and puts each metric's combined result
// (combine_repeats) at its index of `results`.
void score_repeats(const Sample& sample, const EvalOptions& options,
                   const std::vector<std::shared_ptr<Judge>>& judges,
                   const std::vector<std::size_t>& repeated, std::vector<MetricResult>* results) {
  std::vector<std::vector<MetricResult>> per_metric(repeated.size());
  for (const std::shared_ptr<Judge>& judge : judges) {
    std::optional<SampleJudgement> judgement;
    for (std::size_t i = 0; i < repeated.size(); ++i) {
      per_metric[i].push_back(guarded_score(options.metrics[repeated[i]], sample, options,
                                            judgement, *judge));
    }
  }
  for (std::size_t i = 0; i < repeated.size(); ++i) {
    const MetricRequest& request = options.metrics[repeated[i]];
    auto mark = options.pass_marks.find(request.name);
    (*results)[repeated[i]] = combine_repeats(
        std::move(per_metric[i]),
        mark == options.pass_marks.end() ? std::nullopt : std::optional<double>(mark->second),
        request.info->higher_is_better);
  }
}

// Why a metric that compares a turn's answer with a reference skips conversations.
constexpr const char* kNoTurnReference =
    " (a conversation's `reference` is its expected outcome, not a reference answer of a turn)";

// True when `request`'s metric was skipped on the turns for want of a reference: it reads
// one, the turns have none, and they have every other field it reads (missing_required_field
// checks the fields before anything else).
bool skipped_for_turn_reference(const MetricRequest& request, const std::vector<ConversationTurn>& turns) {
  const unsigned needs = request.info->needs;
  if ((needs & sample_fields::kReference) == 0) return false;
  for (const ConversationTurn& turn : turns) {
    if (!missing_required_field(turn.sample, sample_fields::kReference)) return false;
    if (missing_required_field(turn.sample, needs & ~sample_fields::kReference)) return false;
  }
  return true;
}

// A conversation's results: the conversation metrics on the whole of it, every other metric
// turn by turn (conversation_turns.h), each turn scored as a single-turn row is.
std::vector<MetricResult> score_conversation(const Sample& sample, const EvalOptions& options) {
  EvalOptions turn_options = options;
  turn_options.metrics.clear();
  for (const MetricRequest& request : options.metrics) {
    if (request.info->family != MetricFamily::kConversation) turn_options.metrics.push_back(request);
  }
  const std::vector<ConversationTurn> turns =
      turn_options.metrics.empty() ? std::vector<ConversationTurn>() : conversation_turns(sample);
  // per_turn[t][m]: turn t's result of turn_options.metrics[m].
  std::vector<std::vector<MetricResult>> per_turn;
  for (const ConversationTurn& turn : turns) per_turn.push_back(score_sample(turn.sample, turn_options));
  std::vector<MetricResult> results;
  results.reserve(options.metrics.size());
  std::optional<SampleJudgement> judgement;  // the conversation metrics' (none asks yet)
  Judge& judge = options.judge ? *options.judge : offline_judge();
  std::size_t m = 0;  // index into turn_options.metrics
  for (const MetricRequest& request : options.metrics) {
    if (request.info->family == MetricFamily::kConversation) {
      results.push_back(guarded_score(request, sample, options, judgement, judge));
      continue;
    }
    if (turns.empty()) {
      results.push_back(MetricResult::skipped(
          "a single-turn metric on a conversation is scored turn by turn, and no assistant "
          "message of this one has text (docs/agents.md)"));
    } else {
      std::vector<MetricResult> of_metric;
      for (std::vector<MetricResult>& turn : per_turn) of_metric.push_back(std::move(turn[m]));
      auto mark = options.pass_marks.find(request.name);
      MetricResult result = combine_turns(
          std::move(of_metric), turns,
          mark == options.pass_marks.end() ? std::nullopt : std::optional<double>(mark->second),
          request.info->higher_is_better);
      if (result.outcome == Outcome::kSkipped && skipped_for_turn_reference(request, turns)) {
        result.reason += kNoTurnReference;
      }
      results.push_back(std::move(result));
    }
    ++m;
  }
  return results;
}

}  // namespace

int judgements_per_sample(const EvalOptions& options) {
  if (options.repeat <= 1) return 1;
  Judge& judge = options.judge ? *options.judge : offline_judge();
  return judge.for_repeat(1, options.repeat_temperature) ? options.repeat : 1;
}

std::string judged_once_reason(const EvalOptions& options) {
  if (options.repeat <= 1 || judgements_per_sample(options) > 1) return {};
  if (!options.judge || options.judge->is_offline()) return "the offline judge is deterministic";
  return "the judge is deterministic (" + options.judge->description() + ")";
}

std::vector<MetricResult> score_sample(const Sample& sample, const EvalOptions& options) {
  const bool forced_other = !options.language.empty() && sample.language != options.language;
  if (sample.language.empty() || forced_other) {
    Sample with_language = sample;
    assign_sample_language(&with_language, options.language);
    return score_sample(with_language, options);
  }
  if (sample.conversation) return score_conversation(sample, options);
  std::vector<MetricResult> results;
  results.reserve(options.metrics.size());
  Judge& judge = options.judge ? *options.judge : offline_judge();
  const std::vector<std::shared_ptr<Judge>> repeats = repeat_judges(judge, options);
  std::vector<std::size_t> repeated;  // judged metrics scored once per repeat, below
  std::optional<SampleJudgement> judgement;  // asked for by the first judged metric
  std::optional<std::string> language;  // the judge's reading of it, found once
  for (const auto& request : options.metrics) {
    // A language the judge has no rules for (the offline judge's: offline_judge_gap).
    if (request.info->judged != nullptr) {
      if (!language) language = offline_sample_language(sample);
      std::string gap = judge.language_gap(*language, request.info->calls);
      if (!gap.empty()) {
        results.push_back(MetricResult::skipped(std::move(gap)));
        continue;
      }
    }
    if (!options.offline_score_withdrawn && judge.is_offline() &&
        request.info->judged != nullptr && !request.info->offline_withdrawn.empty()) {
      results.push_back(MetricResult::skipped(offline_withdrawn_reason(*request.info)));
      continue;
    }
    if (!repeats.empty() && request.info->judged != nullptr) {
      repeated.push_back(results.size());
      results.emplace_back();
      continue;
    }
    results.push_back(guarded_score(request, sample, options, judgement, judge));
  }
  if (!repeated.empty()) score_repeats(sample, options, repeats, repeated, &results);
  return results;
}

std::optional<RagasScore> ragas_score(const std::vector<MetricSummary>& metrics) {
  RagasScore score;
  double inverse_sum = 0.0;
  bool zero = false;
  for (const MetricSummary& metric : metrics) {
    // The parts are the table's "ragas" group (MetricInfo::groups), said there once.
    const MetricInfo* info = find_metric(metric.name);
    if (info == nullptr || (info->groups & metric_groups::kRagas) == 0) continue;
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
  SummaryBuilder summary(options);
  std::int64_t rows_read = 0;  // rows the sink has seen
  bool stopped = false;        // options.cancel stopped the run
  std::vector<PendingRow> batch;
  bool at_end = false;
  bool first_batch = true;
  std::int64_t accepted = 0;
  const std::size_t metric_count = std::max<std::size_t>(1, options.metrics.size());
  const std::size_t rows_per_batch = std::max<std::size_t>(
      1, std::min(options.batch_rows, std::max<std::size_t>(64, kMaxBatchResults / metric_count)));
  while (!at_end) {
    if (cancelled(options)) {
      stopped = true;
      break;
    }
    batch.clear();
    std::optional<Status> strict_error;  // --strict: the first bad row
    while (batch.size() < rows_per_batch) {
      if (cancelled(options)) break;  // reading thousands of rows takes a while too
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
      if (options.strict) {  // the rows before it are still scored and written
        strict_error = invalid_argument(error.to_string());
        at_end = true;
        break;
      }
      pending.rejected = std::move(error);
      batch.push_back(std::move(pending));
    }
    if (cancelled(options)) {  // stopped while the batch was read: none of it is scored
      stopped = true;
      break;
    }
    if (first_batch) {
      first_batch = false;
      RAGMETER_RETURN_IF_ERROR(check_mapped_columns(batch, options.column_map, at_end));
    }
    // Rows are counted as the sink sees them, so a cancelled run's summary describes
    // exactly the rows it delivered.
    auto delivered = score_and_deliver(
        batch, options, progress, rows_read, [&](PendingRow& pending) {
          ++rows_read;
          if (pending.rejected) {
            summary.add_rejected();
            return sink.on_rejected(*pending.rejected);
          }
          if (Status added = summary.add_row(pending.results, pending.sample.language);
              !added.ok()) {
            return Status(added.code(), file_name + ":" + std::to_string(pending.row.line) +
                                            ": " + added.message());
          }
          return sink.take_row(std::move(pending.row), std::move(pending.results));
        });
    if (!delivered.ok()) return delivered.status();
    if (!*delivered) {  // cancelled: the rows from the first unfinished one are dropped
      stopped = true;
      at_end = true;
    }
    if (strict_error) {
      RAGMETER_RETURN_IF_ERROR(sink.finish());
      return *strict_error;
    }
    if (progress) progress(rows_read);
  }

  RAGMETER_RETURN_IF_ERROR(sink.finish());
  if (rows_read == 0 && !stopped) {
    // An empty file, or a CSV with only its header: nothing to score is unusable input,
    // not a successful run of nothing.
    return invalid_argument("dataset " + file_name + " has no rows");
  }
  if (stopped) summary.set_cancelled();
  EvalSummary finished = std::move(summary).finish();
  finished.repeat_requested = std::max(1, options.repeat);
  finished.judgements = judgements_per_sample(options);
  finished.repeat_temperature = options.repeat_temperature;
  finished.judged_once_reason = judged_once_reason(options);
  return finished;
}

}  // namespace ragmeter
