// ragmeter._core.run_function: `ragmeter run` with a Python function as the target. The
// library's run loop does the work (concurrency, retries with backoff, the per-attempt
// time limit, the answer record and resume, rows in input order, latency); Python only
// supplies the function, behind the library's target interface (include/ragmeter/run.h):
//   - a sync function: a BlockingTarget on a pool of `concurrency` threads, each taking
//     the GIL only to call it;
//   - an async one: a Target whose ask() hands the request to `submit`, which schedules
//     the coroutine on an event loop and calls back with its result.
// The loop runs with the GIL released; its heartbeat (every 100 ms) takes the GIL to
// hear Ctrl-C and run the progress callback.
#include <atomic>
#include <fstream>

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include "bindings.h"
#include "progress_hook.h"
#include "data_source.h"
#include "eval_args.h"
#include "py_json.h"
#include "ragmeter/judge_factory.h"
#include "ragmeter/run.h"
#include "status_errors.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace ragmeter::python {
namespace {

constexpr std::size_t kShown = 200;  // bytes of a value shown in a message

std::string truncated(std::string text) {
  if (text.size() > kShown) {
    std::size_t cut = kShown;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // UTF-8
    text.resize(cut);
    text += "...";
  }
  return text;
}

// Needs the GIL.
nb::dict request_dict(const TargetRequest& request) {
  nb::dict d;
  d["id"] = request.id;
  d["index"] = request.index;
  d["question"] = request.question;
  d["row"] = from_json(*request.row);
  if (request.messages != nullptr) d["messages"] = from_json(*request.messages);
  return d;
}

// What the function's exception means for the row: kind "exception" with the type and
// message; retried when it is an instance of `retry_on` (a tuple of types). Needs the GIL.
TargetOutcome exception_outcome(PyObject* exception, PyObject* retry_on) {
  std::string type = Py_TYPE(exception)->tp_name;
  std::string message;
  try {
    message = nb::str(nb::handle(exception)).c_str();
  } catch (const nb::python_error&) {
    message = "(its message could not be read)";
  }
  bool retryable = retry_on != nullptr && PyObject_IsInstance(exception, retry_on) == 1;
  PyErr_Clear();
  return target_failure("exception", truncated(type + ": " + message), retryable);
}

// The function's return value as an answer: a str is the response (no contexts); a dict
// is read as a target's JSON reply (answer_from_reply), so "response" or "answer",
// "retrieved_contexts" or "contexts" (strings, or {"text", "id"} objects),
// "retrieved_context_ids", "prompt_tokens" and "completion_tokens". Needs the GIL.
TargetOutcome reply_outcome(nb::handle reply, const ReplySelectors& selectors) {
  if (nb::isinstance<nb::str>(reply)) {
    TargetOutcome outcome;
    outcome.answer.emplace().response = nb::cast<std::string>(reply);
    return outcome;
  }
  if (!PyMapping_Check(reply.ptr()) || nb::isinstance<nb::list>(reply) || nb::isinstance<nb::tuple>(reply)) {
    std::string shown;
    try {
      shown = nb::repr(reply).c_str();
    } catch (const nb::python_error&) {
    }
    return target_failure("bad_reply", truncated(std::string("the function returned a ") + Py_TYPE(reply.ptr())->tp_name +
                                                 ", not a dict or a str: " + shown));
  }
  nlohmann::ordered_json value;
  if (auto problem = to_json(reply.ptr(), &value)) {
    return target_failure("bad_reply", "the function's dict cannot be read: " + *problem);
  }
  return answer_from_reply(value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), selectors);
}

ReplySelectors function_selectors() {
  ReplySelectors selectors;
  selectors.prompt_tokens = "prompt_tokens";  // top-level, as the run's output names them
  selectors.completion_tokens = "completion_tokens";
  return selectors;
}

// A sync function on the pool's threads. Holds borrowed references: the caller keeps
// `call` and `retry_on` alive for longer than the target.
class SyncFunctionTarget final : public BlockingTarget {
 public:
  SyncFunctionTarget(PyObject* call, PyObject* retry_on, std::string identity)
      : call_(call), retry_on_(retry_on), identity_(std::move(identity)) {}

  TargetOutcome answer(const TargetRequest& request, int) override {
    nb::gil_scoped_acquire gil;
    try {
      nb::object reply = nb::handle(call_)(request_dict(request));
      return reply_outcome(reply, selectors_);
    } catch (nb::python_error& e) {
      return exception_outcome(exception_object(e).ptr(), retry_on_);
    }
  }

  std::string identity() const override { return identity_; }

 private:
  PyObject* call_;
  PyObject* retry_on_;
  std::string identity_;
  ReplySelectors selectors_ = function_selectors();
};

// One attempt of an async function: calls `done` exactly once. When the Python callback
// holding it is freed without having been called (the event loop closed under the
// coroutine, or the callback raised inside asyncio's future callbacks, which only log),
// the attempt ends as "lost" instead of leaving its row waiting. Used under the GIL.
class AsyncAttempt {
 public:
  explicit AsyncAttempt(Target::Done done) : done_(std::move(done)) {}
  AsyncAttempt(const AsyncAttempt&) = delete;
  AsyncAttempt& operator=(const AsyncAttempt&) = delete;
  ~AsyncAttempt() {
    if (done_) {
      finish(target_failure("lost", "the async function's completion was never reported (its callback was "
                                    "freed uncalled: was the event loop closed?)"));
    }
  }

  // The run loop's side takes no GIL: release it while it runs.
  void finish(TargetOutcome outcome) {
    Target::Done done = std::exchange(done_, nullptr);
    if (!done) return;  // reported twice: the first counts
    nb::gil_scoped_release unlocked;
    done(std::move(outcome));
  }

 private:
  Target::Done done_;
};

// An async function: `submit(request, done)` schedules it and calls done(reply, exception)
// when it ends, on any thread. `done` owns what it needs, so a coroutine ending after the
// run (abandoned on a timeout) touches nothing freed. It never raises: an exception from
// it would be swallowed by the future's callback machinery and the answer lost.
class AsyncFunctionTarget final : public Target {
 public:
  AsyncFunctionTarget(PyObject* submit, PyObject* retry_on, std::string identity)
      : submit_(submit), retry_on_(retry_on), identity_(std::move(identity)) {}

  void ask(const TargetRequest& request, Done done) override {
    nb::gil_scoped_acquire gil;
    auto attempt = std::make_shared<AsyncAttempt>(std::move(done));
    nb::object retry_on = nb::borrow(retry_on_);
    // reply and exception are None in turn: nanobind refuses None for an argument not
    // marked .none(), and that TypeError, raised in the future's done callback, was
    // only logged, so no answer ever arrived.
    nb::object callback = nb::cpp_function(
        [attempt, retry_on](nb::handle reply, nb::handle exception) {
          TargetOutcome outcome;
          try {
            outcome = exception.is_none() ? reply_outcome(reply, function_selectors())
                                          : exception_outcome(exception.ptr(), retry_on.ptr());
          } catch (const std::exception& e) {  // nb::python_error among them
            outcome = target_failure("bad_reply", truncated(std::string("the reply could not be read: ") + e.what()));
          }
          attempt->finish(std::move(outcome));
        },
        nb::arg("reply").none(), nb::arg("exception").none());
    try {
      nb::handle submit(submit_);
      submit(request_dict(request), callback);
    } catch (nb::python_error& e) {
      attempt->finish(exception_outcome(exception_object(e).ptr(), retry_on_));
    }
  }

  std::string identity() const override { return identity_; }

 private:
  PyObject* submit_;
  PyObject* retry_on_;
  std::string identity_;
};

// Keeps every finished row (the result), writes each to the output file when there is
// one, and builds the rows an evaluation of the run reads.
class CollectingSink final : public RunSink {
 public:
  CollectingSink(std::string source_name, const std::string& out_path) : source_name_(std::move(source_name)) {
    if (!out_path.empty()) {
      out_.open(out_path, std::ios::binary);
      if (!out_) raise_status(not_found("cannot write out=" + out_path));
    }
  }

  Status on_row(const RunRow& row) override {
    nlohmann::ordered_json line = run_row_json(row);
    if (out_.is_open()) {
      out_ << line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
      if (!out_) return unavailable("cannot write the output file");
    }
    std::optional<RowError> error;
    if (!row.outcome.ok()) {  // as RunEvaluation hands it to evaluate(): a rejected row
      error.emplace();
      error->file = source_name_;
      error->line = row.index + 1;
      error->field = "run_error";
      error->message = row.outcome.failure.kind + ": " + row.outcome.failure.message;
      error->index = row.index;
    }
    rows_.rows.push_back(std::move(line));
    rows_.errors.push_back(std::move(error));
    return ok_status();
  }

  void close() {
    if (out_.is_open()) out_.close();
  }
  PyRows take_rows() {
    rows_.source = source_name_;
    return std::move(rows_);
  }

 private:
  std::string source_name_;
  std::ofstream out_;
  PyRows rows_;
};

// The rows of one run and its summary, for ragmeter.RunResult.
struct RunOutput {
  PyRows rows;
  std::string summary_json;
};

struct FunctionRunArgs {
  bool is_async = false;
  std::string identity;
  int concurrency = 8;
  double timeout = 60;
  int max_attempts = 4;
  double rpm = 0;
  std::string record;
  bool fresh = false;
  std::string question_field, id_field = "id";
  std::int64_t limit = 0;
  int give_up_after = 10;
  std::string out, summary;
  int max_user_turns = 10;
};

nb::tuple run_function(DataSource& data, nb::object function, nb::object retry_on, const FunctionRunArgs& args,
                       const nb::dict& simulated_user, nb::object progress) {
  if (args.concurrency < 1) raise_status(invalid_argument("concurrency must be at least 1"));
  if (args.max_attempts < 1) raise_status(invalid_argument("max_attempts must be at least 1"));
  if (args.limit < 0) raise_status(invalid_argument("limit must not be negative"));
  if (args.max_user_turns < 1) raise_status(invalid_argument("max_user_turns must be at least 1"));
  RunOptions options;
  options.concurrency = args.concurrency;
  options.requests_per_minute = args.rpm;
  options.retry.max_attempts = args.max_attempts;
  options.record_path = args.record;
  options.fresh = args.fresh;
  options.question_field = args.question_field;
  options.id_field = args.id_field;
  options.limit = args.limit;
  options.give_up_after = args.give_up_after;
  options.max_user_turns = args.max_user_turns;
  std::atomic<bool> cancel{false};
  options.cancel = &cancel;
  // Rows with a scenario are played by this judge's model as the user (empty: none).
  ConfiguredUserSimulator user;
  if (nb::len(simulated_user) != 0) user = value_or_raise(make_user_simulator(judge_options_from(simulated_user)));
  options.user_simulator = user.simulator;

  std::unique_ptr<Target> target;
  if (args.is_async) {
    target = std::make_unique<AsyncFunctionTarget>(function.ptr(), retry_on.ptr(), args.identity);
  } else {
    target = make_pooled_target(std::make_shared<SyncFunctionTarget>(function.ptr(), retry_on.ptr(), args.identity),
                                args.concurrency);
  }
  target = make_deadline_target(std::move(target), args.timeout);

  std::unique_ptr<RowReader> reader = data.open();
  CollectingSink sink(args.out.empty() ? data.name() : args.out, args.out);
  // Every 100 ms (the loop's heartbeat, with options.cancel) and per finished row.
  ProgressHook heartbeat(std::move(progress), &cancel);
  bool user_cancelled = false;
  StatusOr<RunSummary> summary = [&] {
    nb::gil_scoped_release unlocked;
    StatusOr<RunSummary> result =
        run_target(*reader, *target, options, sink, [&](std::int64_t done, std::int64_t) {
          heartbeat(done);
          // Stopped: a simulated user's call in flight is abandoned, not waited for.
          if (cancel && user.chat && !user_cancelled) {
            user_cancelled = true;
            user.chat->cancel();
          }
        });
    target.reset();  // joins the pool: a call still running needs the GIL to return
    reader.reset();
    sink.close();
    return result;
  }();
  if (!summary.ok()) raise_status(summary.status());
  std::string summary_text = run_summary_json(*summary).dump(2);
  if (!args.summary.empty()) {
    std::ofstream file(args.summary, std::ios::binary);
    file << summary_text << "\n";
    if (!file) raise_status(not_found("cannot write summary=" + args.summary));
  }
  auto output = std::make_unique<RunOutput>();
  output->rows = sink.take_rows();
  output->summary_json = std::move(summary_text);
  return nb::make_tuple(nb::cast(output.release(), nb::rv_policy::take_ownership), heartbeat.stop_exception());
}

}  // namespace

void bind_run_function(nb::module_& m) {
  nb::class_<RunOutput>(m, "RunOutput", "The rows and summary of one run (see ragmeter.RunResult).")
      .def("__len__", [](const RunOutput& r) { return r.rows.rows.size(); })
      .def("summary_json", [](const RunOutput& r) { return r.summary_json; },
           "The text `ragmeter run --summary` writes for this run.")
      .def(
          "rows",
          [](const RunOutput& r) {
            nb::list rows;
            for (const auto& row : r.rows.rows) rows.append(from_json(row));
            return rows;
          },
          "Every row as `ragmeter run --out` writes it, in input order.")
      .def(
          "source", [](const RunOutput& r) { return DataSource::from_rows(r.rows); },
          "The rows as evaluation input: a row with run_error is a rejected row, as with "
          "`ragmeter run --eval`.");

  m.def(
      "run_function",
      [](DataSource& data, nb::object function, bool is_async, nb::object retry_on, const std::string& identity,
         int concurrency, double timeout, int max_attempts, double rpm, const std::string& record, bool fresh,
         const std::string& question_field, const std::string& id_field, std::int64_t limit, int give_up_after,
         const std::string& out, const std::string& summary, int max_user_turns, const nb::dict& simulated_user,
         nb::object progress) {
        FunctionRunArgs args{is_async, identity,       concurrency, timeout,       max_attempts, rpm,     record,
                             fresh,    question_field, id_field,    limit,         give_up_after, out,    summary,
                             max_user_turns};
        return run_function(data, std::move(function), std::move(retry_on), args, simulated_user,
                            std::move(progress));
      },
      "data"_a, "function"_a, nb::kw_only(), "is_async"_a = false, "retry_on"_a, "identity"_a,
      "concurrency"_a = 8, "timeout"_a = 60.0, "max_attempts"_a = 4, "rpm"_a = 0.0, "record"_a = "",
      "fresh"_a = false, "question_field"_a = "", "id_field"_a = "id", "limit"_a = 0, "give_up_after"_a = 10,
      "out"_a = "", "summary"_a = "", "max_user_turns"_a = 10, "simulated_user"_a = nb::dict(),
      "progress"_a = nb::none(),
      "Asks `function` every row of `data` (a DataSource) through the library's run loop and returns "
      "(RunOutput, the exception that stopped it or None). Sync: function(request) -> reply, called "
      "on `concurrency` threads. Async: function(request, done) schedules the work and calls "
      "done(reply, exception). request: {id, index, question, row, messages}. simulated_user: JudgeOptions "
      "fields by name (as evaluate's judge) of the model that plays the user of rows with a scenario; "
      "empty: none (such rows end with run_error kind simulated_user).");
}

}  // namespace ragmeter::python
