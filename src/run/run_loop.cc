// run_target(): the loop that asks the target every row.
//
// One thread (the caller's) owns all the state: the window of rows from the oldest
// unfinished one to the newest read, the retry timers and the admission limiter (the
// judge client's AIMD limiter, src/llm/rate_limiter.h). Targets report attempts from
// their own threads into an inbox; the loop drains it, decides retries (the judge
// client's backoff, src/llm/retry_policy.h), stores answers in the record and hands
// finished rows to the sink in input order. The window is capped, so memory stays
// bounded however long the question set is, even behind one slow row.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <queue>
#include <random>
#include <thread>
#include <vector>

#include "llm/rate_limiter.h"
#include "llm/response_cache.h"
#include "llm/retry_policy.h"
#include "ragmeter/run.h"
#include "run/answer_record.h"
#include "run/conversation_run.h"

namespace ragmeter {
namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::ordered_json;

struct Slot {
  RunRow row;
  TargetRequest request;
  std::string key;  // the record key; empty when there is no record
  bool done = false;
  bool opened = false;   // counted in open_rows_ (asked, or its simulated user called)
  int turn_attempts = 0; // attempts at the current request (a conversation: its turn)
  std::uint64_t ticket = 0;
  Clock::time_point started;
  std::optional<run::ConversationRun> conversation;  // a conversation row
};

struct Completion {
  Slot* slot;
  TargetOutcome outcome;
  Clock::time_point ended;
  // The simulated user's step instead of a target's attempt.
  std::optional<StatusOr<SimulatedUserTurn>> user_turn;
};

// Where targets' threads leave finished attempts. Shared with their callbacks, so an
// attempt ending after the loop has returned (an error path) touches nothing freed.
struct Inbox {
  std::mutex mutex;
  std::condition_variable ready;
  std::vector<Completion> completions;
};

struct RetryTimer {
  double due;
  Slot* slot;
  bool operator>(const RetryTimer& other) const { return due > other.due; }
};

// Where the record keeps an unfinished conversation's progress (ConversationRun::progress).
std::string progress_key(const std::string& key) { return key + "/progress"; }

ordered_json record_value(const RunRow& row) {
  const TargetAnswer& answer = *row.outcome.answer;
  ordered_json value = {{"response", answer.response}, {"latency_ms", row.latency_ms}};
  if (answer.contexts) value["retrieved_contexts"] = retrieved_contexts_json(answer);
  if (answer.context_ids) value["retrieved_context_ids"] = *answer.context_ids;
  if (answer.prompt_tokens) value["prompt_tokens"] = *answer.prompt_tokens;
  if (answer.completion_tokens) value["completion_tokens"] = *answer.completion_tokens;
  if (answer.conversation) value["conversation"] = *answer.conversation;
  if (!answer.simulation.is_null()) value["simulation"] = answer.simulation;
  return value;
}

// The recorded answer, or nullopt when the stored value does not read as one.
std::optional<TargetAnswer> answer_from_record(const std::string& text, double* latency_ms) {
  ordered_json value = ordered_json::parse(text, nullptr, false);
  if (!value.is_object() || !value.contains("response") || !value["response"].is_string()) {
    return std::nullopt;
  }
  try {
    TargetAnswer answer;
    answer.response = value["response"].get<std::string>();
    if (value.contains("retrieved_contexts")) {
      answer.contexts.emplace();
      for (const ordered_json& item : value["retrieved_contexts"]) {
        if (item.is_object()) answer.image_contexts.push_back(answer.contexts->size());
        answer.contexts->push_back(item.is_object() ? item.dump() : item.get<std::string>());
      }
    }
    if (value.contains("retrieved_context_ids")) {
      answer.context_ids = value["retrieved_context_ids"].get<std::vector<std::string>>();
    }
    if (value.contains("prompt_tokens")) answer.prompt_tokens = value["prompt_tokens"].get<std::int64_t>();
    if (value.contains("completion_tokens")) {
      answer.completion_tokens = value["completion_tokens"].get<std::int64_t>();
    }
    if (value.contains("conversation")) answer.conversation = value["conversation"];
    if (value.contains("simulation")) answer.simulation = value["simulation"];
    *latency_ms = value.value("latency_ms", 0.0);
    return answer;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::string row_id(const ordered_json& fields, const std::string& id_field, std::int64_t index) {
  auto it = fields.find(id_field);
  if (it == fields.end() || it->is_null()) return std::to_string(index);
  return it->is_string() ? it->get<std::string>() : it->dump();
}

std::optional<std::string> row_question(const ordered_json& fields, const std::string& field) {
  for (const std::string& name :
       field.empty() ? std::vector<std::string>{"user_input", "question"} : std::vector<std::string>{field}) {
    auto it = fields.find(name);
    if (it != fields.end() && it->is_string()) return it->get<std::string>();
  }
  return std::nullopt;
}

// The value at quantile q (0..1) of sorted values, by linear interpolation between the
// closest ranks (numpy's default).
double quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0.0;
  double position = q * static_cast<double>(sorted.size() - 1);
  auto below = static_cast<std::size_t>(position);
  std::size_t above = std::min(below + 1, sorted.size() - 1);
  double fraction = position - static_cast<double>(below);
  return sorted[below] + (sorted[above] - sorted[below]) * fraction;
}

class RunLoop {
 public:
  RunLoop(RowReader& reader, Target& target, const RunOptions& options, RunSink& sink,
          const RunProgress& progress, run::AnswerRecord* record)
      : reader_(reader),
        target_(target),
        options_(options),
        sink_(sink),
        progress_(progress),
        record_(record),
        identity_(target.identity()),
        limiter_(llm::RateLimitOptions{.max_in_flight = std::max(1, options.concurrency),
                                       .requests_per_minute = options.requests_per_minute}),
        random_(std::random_device{}()),
        inbox_(std::make_shared<Inbox>()),
        start_(Clock::now()),
        max_window_(std::max<std::size_t>(1024, 16 * static_cast<std::size_t>(
                                                          std::max(1, options.concurrency)))) {}

  StatusOr<RunSummary> run();

 private:
  static constexpr double kHeartbeatSeconds = 0.1;  // with options.cancel: the longest wait

  bool cancelled() const { return options_.cancel != nullptr && options_.cancel->load(); }
  void interrupt();
  double seconds(Clock::time_point t) const { return std::chrono::duration<double>(t - start_).count(); }
  double now() const { return seconds(Clock::now()); }

  Status pump(std::optional<double>* wake_at);
  Status read_row(Slot** started);
  void start(Slot* slot, std::uint64_t ticket);
  void ask_simulated_user(Slot* slot);
  Status on_completion(Completion completion);
  Status on_user_turn(Slot* slot, StatusOr<SimulatedUserTurn> turn);
  Status on_turn_answered(Slot* slot, TargetOutcome outcome);
  Status continue_conversation(Slot* slot);
  Status finish_answered(Slot* slot, TargetOutcome outcome);
  void finish(Slot* slot, TargetOutcome outcome);
  Status flush();
  void give_up_if_hopeless(const TargetFailure& failure);

  RowReader& reader_;
  Target& target_;
  const RunOptions& options_;
  RunSink& sink_;
  const RunProgress& progress_;
  run::AnswerRecord* record_;
  std::string identity_;
  llm::RateLimiter limiter_;
  std::mt19937_64 random_;
  std::shared_ptr<Inbox> inbox_;
  Clock::time_point start_;
  std::size_t max_window_;

  std::deque<std::unique_ptr<Slot>> window_;  // input order
  std::deque<Slot*> ready_;                   // to ask (retries first), waiting for admission
  std::priority_queue<RetryTimer, std::vector<RetryTimer>, std::greater<>> retries_;
  bool input_end_ = false;
  std::int64_t rows_read_ = 0;
  std::int64_t in_flight_ = 0;
  std::int64_t simulating_ = 0;  // simulated-user calls running
  // Rows asked at least once and not finished (in flight or waiting for a retry). New
  // rows start only below `concurrency`, so rows waiting for retries hold their place
  // and a failing target is not handed the whole question set in the meantime.
  int open_rows_ = 0;
  bool stopping_ = false;
  std::int64_t asked_answered_ = 0, asked_failed_ = 0, emitted_ = 0;
  std::vector<double> latencies_;
  RunSummary summary_;
};

Status RunLoop::read_row(Slot** started) {
  *started = nullptr;
  if (options_.limit > 0 && rows_read_ >= options_.limit) {
    input_end_ = true;
    return ok_status();
  }
  Row row;
  RowError error;
  RowReader::Result result = reader_.next(&row, &error);
  if (result == RowReader::Result::kEnd) {
    input_end_ = true;
    return ok_status();
  }
  auto slot = std::make_unique<Slot>();
  Slot* s = slot.get();
  window_.push_back(std::move(slot));
  s->row.index = rows_read_++;
  if (result == RowReader::Result::kError) {
    s->row.line = error.line;
    s->row.fields = ordered_json::object();
    finish(s, target_failure("bad_row", error.to_string()));
    return ok_status();
  }
  s->row.line = row.line;
  s->request.index = s->row.index;
  s->request.id = row_id(row.fields, options_.id_field, s->row.index);
  std::optional<std::string> question = row_question(row.fields, options_.question_field);
  StatusOr<std::optional<run::ConversationRun>> conversation = run::ConversationRun::from_row(row.fields);
  s->row.fields = std::move(row.fields);
  if (!conversation.ok()) {
    finish(s, target_failure("bad_row", conversation.status().message()));
    return ok_status();
  }
  // A scenario beside a question is a single-turn row's extra field, not a simulation.
  if (*conversation && (*conversation)->simulated() && question) conversation->reset();
  if (!*conversation && !question) {
    finish(s, target_failure("bad_row", "no question: no text field '" +
                                            (options_.question_field.empty() ? std::string("user_input' or 'question")
                                                                             : options_.question_field) + "'"));
    return ok_status();
  }
  if (stopping_) {
    finish(s, target_failure("not_asked", "not asked: the run stopped early"));
    return ok_status();
  }
  s->request.row = std::make_shared<const ordered_json>(s->row.fields);
  if (*conversation) {
    s->conversation = std::move(**conversation);
    ++summary_.conversations;
    if (s->conversation->simulated() && options_.user_simulator == nullptr) {
      finish(s, target_failure("simulated_user",
                               "the row has a scenario and no conversation: a simulated user plays it, which "
                               "needs a chat model (`ragmeter run --judge-url URL --judge-model NAME`; in Python "
                               "`ragmeter.run(..., simulated_user=ragmeter.OpenAIJudge(URL, NAME))`)"));
      return ok_status();
    }
  } else {
    s->request.question = std::move(*question);
  }
  if (record_ != nullptr) {
    std::string simulated_by = s->conversation && s->conversation->simulated()
                                   ? options_.user_simulator->identity() + "\n"
                                   : std::string();
    s->key = llm::content_address(identity_ + "\n" + simulated_by + s->row.fields.dump());
    if (!options_.fresh) {
      RAGMETER_ASSIGN_OR_RETURN(std::optional<std::string> stored, record_->get(s->key));
      double latency_ms = 0;
      if (stored) {
        if (auto answer = answer_from_record(*stored, &latency_ms)) {
          s->row.from_record = true;
          s->row.latency_ms = latency_ms;
          TargetOutcome outcome;
          outcome.answer = std::move(*answer);
          finish(s, std::move(outcome));
          return ok_status();
        }
      }
      // An unfinished conversation goes on from its last answered turn.
      if (s->conversation) {
        RAGMETER_ASSIGN_OR_RETURN(std::optional<std::string> progress, record_->get(progress_key(s->key)));
        if (progress && s->conversation->resume(ordered_json::parse(*progress, nullptr, false))) {
          summary_.conversation_turns_from_record += s->conversation->replies();
          return continue_conversation(s);
        }
      }
    }
  }
  if (s->conversation && s->conversation->simulated()) {
    ask_simulated_user(s);  // the opening message first
    return ok_status();
  }
  if (s->conversation) {
    s->conversation->add_next_scripted_user();
    s->request = s->conversation->request(s->request);
  }
  *started = s;
  return ok_status();
}

void RunLoop::start(Slot* slot, std::uint64_t ticket) {
  slot->ticket = ticket;
  slot->started = Clock::now();
  if (!slot->opened) {
    slot->opened = true;
    ++open_rows_;
  }
  ++slot->row.attempts;
  ++slot->turn_attempts;
  ++summary_.requests;
  ++in_flight_;
  std::shared_ptr<Inbox> inbox = inbox_;
  target_.ask(slot->request, [inbox, slot](TargetOutcome outcome) {
    Completion completion{slot, std::move(outcome), Clock::now()};
    {
      std::lock_guard<std::mutex> lock(inbox->mutex);
      inbox->completions.push_back(std::move(completion));
    }
    inbox->ready.notify_one();
  });
}

// Starts what may start now; sets `wake_at` when the limiter or a retry timer asks to
// be looked at again at a given time.
Status RunLoop::pump(std::optional<double>* wake_at) {
  double t = now();
  while (!retries_.empty() && retries_.top().due <= t) {
    ready_.push_front(retries_.top().slot);
    retries_.pop();
  }
  while (true) {
    if (stopping_) {  // rows waiting to be asked end with their last failure
      for (Slot* slot : ready_) {
        if (slot->row.attempts == 0) finish(slot, target_failure("not_asked", "not asked: the run stopped early"));
        else finish(slot, std::move(slot->row.outcome));
      }
      ready_.clear();
    }
    Slot* next = nullptr;
    if (!ready_.empty()) {
      next = ready_.front();
    } else if (!input_end_ && window_.size() < max_window_ && open_rows_ < options_.concurrency) {
      RAGMETER_RETURN_IF_ERROR(read_row(&next));
      RAGMETER_RETURN_IF_ERROR(flush());
      if (next == nullptr) continue;
      ready_.push_front(next);
    } else {
      break;
    }
    llm::RateLimiter::Admission admission = limiter_.try_acquire(0, t);
    if (!admission.admitted) {
      if (admission.wait_seconds > 0) *wake_at = t + admission.wait_seconds;
      break;
    }
    ready_.pop_front();
    start(next, admission.ticket);
  }
  if (!retries_.empty()) {
    double due = retries_.top().due;
    *wake_at = wake_at->has_value() ? std::min(**wake_at, due) : due;
  }
  return ok_status();
}

// Calls the simulated user on a thread of its own (the call blocks on the model); its
// step comes back through the inbox as a Completion with user_turn set.
void RunLoop::ask_simulated_user(Slot* slot) {
  if (!slot->opened) {
    slot->opened = true;
    ++open_rows_;
  }
  ++simulating_;
  ++summary_.simulated_user_calls;
  std::shared_ptr<Inbox> inbox = inbox_;
  std::shared_ptr<const UserSimulator> simulator = options_.user_simulator;
  std::thread([inbox, simulator, slot, scenario = slot->conversation->scenario(),
               messages = slot->conversation->messages()] {
    Completion completion{slot, TargetOutcome(), Clock::now(), simulator->next(scenario, messages)};
    completion.ended = Clock::now();
    {
      std::lock_guard<std::mutex> lock(inbox->mutex);
      inbox->completions.push_back(std::move(completion));
    }
    inbox->ready.notify_one();
  }).detach();
}

void RunLoop::finish(Slot* slot, TargetOutcome outcome) {
  if (slot->opened) --open_rows_;
  slot->done = true;
  if (!outcome.ok() && slot->conversation && slot->conversation->replies() > 0) {
    slot->row.partial_conversation = slot->conversation->messages();  // what was answered is kept
  }
  slot->row.outcome = std::move(outcome);
}

void RunLoop::give_up_if_hopeless(const TargetFailure& failure) {
  if (stopping_ || options_.give_up_after <= 0 || asked_answered_ > 0 ||
      asked_failed_ < options_.give_up_after) {
    return;
  }
  stopping_ = true;
  summary_.stopped_early = true;
  summary_.stop_reason = "the target failed every one of the first " + std::to_string(asked_failed_) +
                         " questions it was asked (the last: " + failure.kind + ": " + failure.message +
                         "); the run stopped instead of asking the rest";
  std::vector<Slot*> waiting;
  while (!retries_.empty()) {
    waiting.push_back(retries_.top().slot);
    retries_.pop();
  }
  for (Slot* slot : waiting) finish(slot, std::move(slot->row.outcome));
}

Status RunLoop::finish_answered(Slot* slot, TargetOutcome outcome) {
  ++asked_answered_;
  finish(slot, std::move(outcome));
  if (record_ != nullptr) {
    RAGMETER_RETURN_IF_ERROR(record_->put(slot->key, record_value(slot->row).dump()));
  }
  return ok_status();
}

// The conversation's row as answered: the whole conversation is its answer.
TargetOutcome conversation_outcome(Slot* slot) {
  TargetOutcome outcome;
  outcome.answer = slot->conversation->result();
  slot->row.latency_ms = slot->conversation->latency_ms();
  return outcome;
}

// A conversation's turn answered: the next user message (scripted, or the simulated
// user's), or the end of the row.
Status RunLoop::on_turn_answered(Slot* slot, TargetOutcome outcome) {
  run::ConversationRun& conversation = *slot->conversation;
  conversation.add_reply(*outcome.answer,
                         std::chrono::duration<double, std::milli>(Clock::now() - slot->started).count());
  slot->turn_attempts = 0;
  ++summary_.conversation_turns;
  if (record_ != nullptr) {  // a run killed after this turn resumes from it
    RAGMETER_RETURN_IF_ERROR(record_->put(progress_key(slot->key), conversation.progress().dump()));
  }
  return continue_conversation(slot);
}

// After a reply: the next user message (scripted, or the simulated user's), or the end
// of the row.
Status RunLoop::continue_conversation(Slot* slot) {
  run::ConversationRun& conversation = *slot->conversation;
  bool more = false;
  if (!conversation.simulated()) {
    more = conversation.add_next_scripted_user();
  } else if (conversation.user_turns() < options_.max_user_turns) {
    ask_simulated_user(slot);
    return ok_status();
  } else {
    conversation.end_simulation("turn_limit", "the conversation reached the limit of " +
                                                  std::to_string(options_.max_user_turns) + " user turns");
  }
  if (more) {
    slot->request = conversation.request(slot->request);
    slot->row.outcome = target_failure("not_asked", "turn " + std::to_string(conversation.user_turns()) +
                                                        " not asked: the run stopped early");
    ready_.push_front(slot);
    return ok_status();
  }
  return finish_answered(slot, conversation_outcome(slot));
}

Status RunLoop::on_user_turn(Slot* slot, StatusOr<SimulatedUserTurn> turn) {
  // Stopped: the call was abandoned by the stop (or raced it); interrupt() ends the row.
  if (slot->done || cancelled()) return ok_status();
  run::ConversationRun& conversation = *slot->conversation;
  const std::string which = "user turn " + std::to_string(conversation.user_turns() + 1);
  if (!turn.ok()) {
    finish(slot, target_failure("simulated_user",
                                which + ": the simulated user's model failed: " + turn.status().message()));
    return ok_status();
  }
  summary_.simulated_user_prompt_tokens += turn->prompt_tokens;
  summary_.simulated_user_completion_tokens += turn->completion_tokens;
  if (turn->complete) {
    conversation.end_simulation("expected_outcome", turn->reason);
    return finish_answered(slot, conversation_outcome(slot));
  }
  if (stopping_) {
    finish(slot, target_failure("not_asked", which + " not asked: the run stopped early"));
    return ok_status();
  }
  conversation.add_user(std::move(turn->message));
  slot->request = conversation.request(slot->request);
  ready_.push_front(slot);
  return ok_status();
}

Status RunLoop::on_completion(Completion completion) {
  Slot* slot = completion.slot;
  if (completion.user_turn) {
    --simulating_;
    return on_user_turn(slot, std::move(*completion.user_turn));
  }
  --in_flight_;
  limiter_.release();
  double t = seconds(completion.ended);
  if (completion.outcome.ok()) {
    limiter_.on_success();
    double latency_ms = std::chrono::duration<double, std::milli>(completion.ended - slot->started).count();
    latencies_.push_back(latency_ms);
    const TargetAnswer& answer = *completion.outcome.answer;
    summary_.prompt_tokens += answer.prompt_tokens.value_or(0);
    summary_.completion_tokens += answer.completion_tokens.value_or(0);
    if (slot->conversation) return on_turn_answered(slot, std::move(completion.outcome));
    slot->row.latency_ms = latency_ms;
    return finish_answered(slot, std::move(completion.outcome));
  }
  TargetFailure& failure = completion.outcome.failure;
  if (failure.kind == "http_429") {
    limiter_.on_throttled(slot->ticket);
    if (failure.retry_after_seconds) limiter_.pause_until(t + *failure.retry_after_seconds);
  }
  if (failure.retryable && !stopping_ && slot->turn_attempts < options_.retry.max_attempts) {
    double delay = failure.retry_after_seconds
                       ? std::min(*failure.retry_after_seconds, 4 * options_.retry.max_backoff_seconds)
                       : llm::backoff_seconds(slot->turn_attempts - 1, options_.retry, random_);
    slot->row.outcome = std::move(completion.outcome);
    retries_.push({t + delay, slot});
    ++summary_.retries;
    return ok_status();
  }
  ++asked_failed_;
  if (slot->conversation) {  // name the turn that failed
    failure.message = "turn " + std::to_string(slot->conversation->user_turns()) + ": " + failure.message;
  }
  TargetFailure last = failure;
  finish(slot, std::move(completion.outcome));
  give_up_if_hopeless(last);
  return ok_status();
}

// Ends every row read and not finished as "interrupted" (its attempt in flight, if any,
// is abandoned: a late answer is neither recorded nor used; the target is told to end it)
// and reads no further rows.
void RunLoop::interrupt() {
  summary_.cancelled = true;
  input_end_ = true;
  target_.cancel();
  for (auto& slot : window_) {
    if (!slot->done) {
      finish(slot.get(), target_failure("interrupted", "not answered: the run was interrupted"));
    }
  }
  ready_.clear();
  while (!retries_.empty()) retries_.pop();
}

Status RunLoop::flush() {
  while (!window_.empty() && window_.front()->done) {
    RunRow& row = window_.front()->row;
    if (row.outcome.ok()) {
      ++summary_.answered;
      if (row.from_record) ++summary_.from_record;
    } else {
      ++summary_.failed;
      ++summary_.errors_by_kind[row.outcome.failure.kind];
    }
    RAGMETER_RETURN_IF_ERROR(sink_.on_row(row));
    window_.pop_front();
    ++emitted_;
    if (progress_) progress_(emitted_, summary_.failed);
  }
  return ok_status();
}

StatusOr<RunSummary> RunLoop::run() {
  while (true) {
    std::optional<double> wake_at;
    RAGMETER_RETURN_IF_ERROR(pump(&wake_at));
    RAGMETER_RETURN_IF_ERROR(flush());
    if (window_.empty() && input_end_) break;
    std::vector<Completion> completions;
    {
      std::unique_lock<std::mutex> lock(inbox_->mutex);
      auto has_work = [&] { return !inbox_->completions.empty(); };
      if (options_.cancel != nullptr) {  // a cancel is heard within kHeartbeat
        double until = now() + kHeartbeatSeconds;
        wake_at = wake_at ? std::min(*wake_at, until) : until;
      }
      if (wake_at) {
        inbox_->ready.wait_until(lock, start_ + std::chrono::duration_cast<Clock::duration>(
                                                    std::chrono::duration<double>(*wake_at)),
                                 has_work);
      } else if (in_flight_ > 0 || simulating_ > 0) {
        inbox_->ready.wait(lock, has_work);
      }
      completions.swap(inbox_->completions);
    }
    for (Completion& completion : completions) {
      RAGMETER_RETURN_IF_ERROR(on_completion(std::move(completion)));
    }
    if (cancelled()) {
      interrupt();
      RAGMETER_RETURN_IF_ERROR(flush());
      break;
    }
    if (options_.cancel != nullptr && progress_) progress_(emitted_, summary_.failed);  // the heartbeat
  }
  // The record's writer commits on its own thread (answer_record.h); wait for the last.
  if (record_ != nullptr) RAGMETER_RETURN_IF_ERROR(record_->flush());
  summary_.rows = rows_read_;
  summary_.wall_seconds = now();
  std::sort(latencies_.begin(), latencies_.end());
  summary_.latency_n = static_cast<std::int64_t>(latencies_.size());
  if (!latencies_.empty()) {
    summary_.latency_p50_ms = quantile(latencies_, 0.5);
    summary_.latency_p95_ms = quantile(latencies_, 0.95);
    summary_.latency_max_ms = latencies_.back();
    double total = 0;
    for (double l : latencies_) total += l;
    summary_.latency_mean_ms = total / static_cast<double>(latencies_.size());
  }
  summary_.target = target_.diagnostics();
  return summary_;
}

}  // namespace

StatusOr<RunSummary> run_target(RowReader& reader, Target& target, const RunOptions& options,
                                RunSink& sink, const RunProgress& progress) {
  std::unique_ptr<run::AnswerRecord> record;
  if (!options.record_path.empty()) {
    RAGMETER_ASSIGN_OR_RETURN(record, run::AnswerRecord::open(options.record_path));
  }
  RunLoop loop(reader, target, options, sink, progress, record.get());
  return loop.run();
}

}  // namespace ragmeter
