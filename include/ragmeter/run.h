// Running the user's RAG system over a question set (`ragmeter run`): each row's
// question goes to a target (an HTTP endpoint, a long-running command, the built-in
// baseline, or any Target a binding implements), and each row comes back with the
// target's answer and retrieved contexts, or with a `run_error` saying why not.
//
// The loop keeps `concurrency` questions in flight, retries what another attempt may fix
// (timeouts, refused connections, 429 after its Retry-After, 5xx, a command process that
// died), records every answer as it arrives (a SQLite file; a killed run started again
// asks only what has no answer), and hands the rows to a sink in input order.
//
// Secrets: header values taken from environment variables are read when a request is
// sent and never enter a target's identity, the record, errors, results or summaries.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "ragmeter/conversation.h"
#include "ragmeter/dataset.h"
#include "ragmeter/evaluate.h"
#include "ragmeter/llm.h"
#include "ragmeter/status.h"
#include "ragmeter/user_simulator.h"

namespace ragmeter {

class SentenceEmbedder;

// ---- What a target is asked and what it answers -------------------------------

// One question: a row of the question set. Shared, so a target may keep it while an
// attempt is running.
struct TargetRequest {
  std::int64_t index = 0;  // 0-based position of the row in the question set
  std::string id;          // the row's id field, else its index in decimal
  std::string question;    // the question text (RunOptions::question_field)
  std::shared_ptr<const nlohmann::ordered_json> row;  // every field of the row; never null
  // A conversation's turn: the messages so far as OpenAI chat messages ({"role",
  // "content"}, the assistant's earlier replies with their "tool_calls" and
  // "retrieved_contexts"), ending with the user's message, which is also `question`.
  // Null for a single-turn row. (Conversation rows reach a target turn by turn; see
  // run_target.)
  std::shared_ptr<const nlohmann::ordered_json> messages;
};

struct TargetAnswer {
  std::string response;
  std::optional<std::vector<std::string>> contexts;     // retrieved texts, in rank order
  std::optional<std::vector<std::string>> context_ids;  // their ids, when the target gave them
  // The contexts that are images (image.h: an object item such as {"type": "image",
  // "url": ...} in the reply), by index: such a context holds the item's JSON text, and
  // is written back as that object (retrieved_contexts_json).
  std::vector<std::size_t> image_contexts;
  std::optional<std::int64_t> prompt_tokens;            // when the target reported them
  std::optional<std::int64_t> completion_tokens;
  // The tools the target reports having called for this answer (ReplySelectors::tool_calls).
  std::vector<ToolCall> tool_calls;
  // A conversation row's result (run_target): every message of the conversation as OpenAI
  // chat messages, the assistant's with their tool calls and retrieved contexts. Then
  // `response` and `contexts` are the last reply's, and the token counts the sums.
  std::optional<nlohmann::ordered_json> conversation;
  // A simulated conversation's account: {"user_turns", "ended", "reason"}; null otherwise.
  nlohmann::ordered_json simulation;
};

// The answer's contexts as the output writes them: strings, and image items as objects.
// Precondition: answer.contexts is set.
nlohmann::ordered_json retrieved_contexts_json(const TargetAnswer& answer);

// Why one attempt gave no answer.
struct TargetFailure {
  // A short stable name, used to count errors by kind: "timeout", "connection",
  // "http_429", "http_500" (each status its own), "bad_reply" (not JSON), "no_answer"
  // (the answer selector matched nothing), "bad_contexts" (contexts not a list of
  // strings or of objects with the text field), "template" (the request names a field
  // the row does not have), "reply_too_large", "process_died", "target_error" (the
  // target said so), "exception" (a binding's function raised), "lost" (a binding's
  // async function never reported its end: its callback was freed uncalled), "bad_row" (the input
  // row itself), "not_asked" (the run stopped), "interrupted" (RunOptions::cancel).
  std::string kind;
  // For a person: what went wrong and what was received, truncated. Never a secret.
  std::string message;
  bool retryable = false;                    // another attempt may succeed
  std::optional<double> retry_after_seconds; // the target asked for this wait (429)
};

// The end of one attempt: an answer, or a failure.
struct TargetOutcome {
  std::optional<TargetAnswer> answer;
  TargetFailure failure;  // meaningful when !answer
  bool ok() const { return answer.has_value(); }
};

TargetOutcome target_failure(std::string kind, std::string message, bool retryable = false);

// ---- Targets ------------------------------------------------------------------

// The user's RAG system. Implementations: the HTTP, command and baseline targets below;
// a language binding implements BlockingTarget (or Target) around a user function.
class Target {
 public:
  using Done = std::function<void(TargetOutcome)>;
  // Attempts still running are abandoned: their `done` may not be called.
  virtual ~Target() = default;
  // Ends the attempts in flight soon (their `done` is called with a failure, or not at
  // all) instead of letting them run to their timeout: run_target calls it when
  // RunOptions::cancel stops the run, so the target is destroyed without waiting for
  // them. ask() must not be called after it. Thread-safe. Default: nothing (attempts run
  // to their end).
  virtual void cancel() {}
  // Starts one attempt at `request`; `done` runs exactly once, on any thread, when the
  // attempt has ended. Returns quickly (queues the work). Thread-safe.
  virtual void ask(const TargetRequest& request, Done done) = 0;
  // What answers, as text: the answer record is keyed by it with the row, so a change of
  // URL, template, selectors, command or model asks again. Never holds a secret.
  virtual std::string identity() const = 0;
  // Facts for the summary (a command's stderr, say); null when there are none.
  // Thread-safe.
  virtual nlohmann::ordered_json diagnostics() const { return nullptr; }
};

// A target that answers on the calling thread (a process it talks to, a Python
// function). make_pooled_target runs it on a pool of threads.
class BlockingTarget {
 public:
  virtual ~BlockingTarget() = default;
  // Answers `request`. `worker` (0 .. workers-1) names the pool thread calling: no two
  // calls with the same worker run at once, so a worker may own a process or a session.
  virtual TargetOutcome answer(const TargetRequest& request, int worker) = 0;
  virtual std::string identity() const = 0;
  virtual nlohmann::ordered_json diagnostics() const { return nullptr; }
  // As Target::cancel: the calls of answer() running return soon. Thread-safe.
  virtual void cancel() {}
};

// A Target whose ask() queues the request for `workers` threads (at least 1) calling
// `target`. The threads stop when the returned Target is destroyed (after the calls
// running then have returned; queued ones are dropped).
std::unique_ptr<Target> make_pooled_target(std::shared_ptr<BlockingTarget> target, int workers);

// `target` with a time limit on each attempt: an attempt that has not ended
// timeout_seconds after ask() ends as "timeout" (retryable), and its late outcome is
// dropped. The attempt itself is not stopped (a pool thread calling a function that
// hangs stays busy until it returns): for targets that cannot stop one themselves, as a
// binding's function. timeout_seconds <= 0: `target` as it is.
std::unique_ptr<Target> make_deadline_target(std::unique_ptr<Target> target, double timeout_seconds);

// Where the answer and the contexts are in a target's JSON reply. A selector is a JSON
// Pointer ("/data/answer", "/items/0") or a dotted path ("data.answer", "items.0").
struct ReplySelectors {
  // Empty: "answer", else "response", else "choices.0.message.content" (an OpenAI chat
  // completion). A string; a number or boolean is taken as its text; null (an OpenAI
  // message holding only tool calls) is "" when tool calls were read.
  std::string answer;
  // Empty: "contexts", else "retrieved_contexts", and a reply with neither has no
  // contexts. A given selector that matches nothing is a failure ("bad_contexts").
  // The value: a list of strings, or of objects holding context_text (and context_id).
  std::string contexts;
  std::string context_text = "text";  // in a context object: its text (selector)
  std::string context_id = "id";      // in a context object: its id (selector; optional)
  // Token counts, taken when present (a number): usage.prompt_tokens and
  // usage.completion_tokens, as OpenAI-style servers report them.
  // The tools the target called, when it reports them: a list of calls in OpenAI's shape
  // ({"id", "type": "function", "function": {"name", "arguments": "<JSON>"}}), ragas's
  // ({"name", "args"}) or DeepEval's ({"name", "input_parameters"}). Empty: "tool_calls",
  // else "choices.0.message.tool_calls"; absent or null: none. Calls that do not read
  // fail the attempt ("bad_tool_calls").
  std::string tool_calls;
  std::string prompt_tokens = "usage.prompt_tokens";
  std::string completion_tokens = "usage.completion_tokens";
};

// Reads a reply body with `selectors`: an answer, or a failure naming what was wrong
// and showing the start of what was received ("bad_reply" for text that is not JSON,
// "no_answer", "bad_contexts", or "target_error" for a JSON object whose "error" field
// is set while no answer matched). Ids may also come as a list of the same length beside
// the contexts, under ragas's name "retrieved_context_ids". Thread-safe.
TargetOutcome answer_from_reply(std::string_view body, const ReplySelectors& selectors);

struct HttpTargetOptions {
  std::string url;              // the endpoint (http or https)
  std::string method = "POST";  // POST (or PUT): body_template is sent; GET: query only
  // The JSON body, with placeholders: {{question}}, {{id}}, {{index}} and {{FIELD}} for
  // any field of the row (for example {{reference}}). A string that is exactly one
  // placeholder becomes the field's JSON value (a list stays a list); inside a longer
  // string a placeholder becomes the field's text. A row without a named field fails
  // with "template", naming the field and the row. A conversation's turn: {{question}}
  // is the user's message, {{messages}} the history as a list, and a body object without
  // a "messages" field gets it added; {{id}} (the row's) names the conversation.
  std::string body_template = R"({"question": "{{question}}"})";
  // Query parameters, NAME and a template as above (text only), URL-encoded; added to
  // any method. GET with none sends question={{question}}.
  std::vector<std::pair<std::string, std::string>> query;
  // Headers sent as given ("Content-Type: application/json" is added to bodies).
  std::vector<std::pair<std::string, std::string>> headers;
  // Headers whose value is the content of an environment variable: (header, variable).
  // Read when each request is sent; a missing variable fails the target's creation.
  // The values never enter identity(), errors, the record or the results.
  std::vector<std::pair<std::string, std::string>> header_env;
  ReplySelectors selectors;
  double timeout_seconds = 60.0;         // per attempt: connect, send, wait, receive
  std::size_t max_reply_bytes = 16 << 20;  // larger replies fail ("reply_too_large")
  bool verify_tls = true;
  int max_connections = 256;             // kept open for reuse; cover --concurrency
};

// An HTTP target over libcurl (one event loop thread, no thread per request).
// InvalidArgument for a URL that is not http(s), a body template that is not JSON, a
// method other than GET/POST/PUT, or a header_env variable that is not set;
// Unavailable when libcurl cannot start.
StatusOr<std::unique_ptr<Target>> make_http_target(const HttpTargetOptions& options);

struct CommandTargetOptions {
  // Run with /bin/sh -c. The process reads one JSON object per line on stdin:
  //   {"id": ID, "index": N, "question": TEXT, "row": {every field of the row}}
  // and, for a conversation's turn, "messages": the history (TargetRequest::messages),
  // and writes one JSON line per request on stdout, read with `selectors` (for example
  // {"answer": "...", "contexts": ["...", ...]}); {"error": "..."} reports a failure.
  // Anything else it prints must go to stderr.
  std::string command;
  int processes = 1;  // started at once, each answering one question at a time
  ReplySelectors selectors;
  // Per question. A process that does not answer in time is killed and restarted, and
  // the attempt fails as "timeout" (retried).
  double timeout_seconds = 120.0;
  // Every process's stderr is appended to this file (empty: discarded); its last lines
  // go to diagnostics().
  std::string stderr_path;
  std::size_t max_reply_bytes = 16 << 20;
};

// A target of `processes` long-running processes. A process that exits or closes its
// stdout fails the attempt as "process_died" (retried) and is started again for the
// next one. InvalidArgument for an empty command or processes < 1.
StatusOr<std::unique_ptr<Target>> make_command_target(const CommandTargetOptions& options);

struct BaselineTargetOptions {
  std::string docs;  // a folder of documents (txt, md, html, pdf), loaded as `gen` does
  std::size_t chunk_size = 1000;   // characters per chunk, as `gen --chunk-size`
  std::size_t chunk_overlap = 100;
  std::size_t top_k = 4;           // chunks retrieved per question, given to the model
  // The chat model answering from the chunks (llm::make_client: retries, cache, usage).
  std::shared_ptr<llm::Client> chat;
  std::string model;               // its name, for identity()
  std::string endpoint;            // its base URL, for identity()
  int max_tokens = 256;            // per answer
  int workers = 4;                 // questions answered at once
  // Chunk and question vectors: the local sentence embedder (sentence_embedder.h; every
  // chunk embedded in one pass when the target is made); null: hashed embeddings.
  std::shared_ptr<const SentenceEmbedder> embedder;
};

// ragmeter's own RAG system: the chunker and the vector index of `gen` (embeddings as
// BaselineTargetOptions::embedder says) over `docs`, and the chat model answering from the top_k chunks (contexts are
// the chunk texts, context ids the chunk ids). InvalidArgument when no document loads
// or no chat client is given.
StatusOr<std::unique_ptr<Target>> make_baseline_target(const BaselineTargetOptions& options);

// ---- The run ------------------------------------------------------------------

struct RunOptions {
  int concurrency = 8;  // attempts in flight at once (halved on a 429, grown back by one
                        // per success, as the judge client does)
  // Attempts per question (first included) and the backoff between them; a 429's
  // Retry-After is honoured (capped at 4 x max_backoff_seconds).
  double requests_per_minute = 0;  // 0: no cap; else attempts start at most this often
  llm::RetryOptions retry{.max_attempts = 4, .initial_backoff_seconds = 0.5,
                          .max_backoff_seconds = 20.0};
  // The answer record (SQLite). Empty: none. Every answer is stored as it arrives; a row
  // whose (target identity, row) is stored is served from it without asking.
  std::string record_path;
  bool fresh = false;         // ask every row again (answers still stored)
  std::string question_field; // empty: "user_input", else "question"
  std::string id_field = "id";
  std::int64_t limit = 0;     // ask at most this many rows (0: all)
  // Stop when this many rows have been asked and every one failed (0: never): the rows
  // not asked then end as "not_asked", and the run returns FailedPrecondition.
  int give_up_after = 10;
  // Set from any thread to stop the run (Ctrl-C): no attempt starts after it, every row
  // read and not finished ends as "interrupted" (an attempt in flight is abandoned, its
  // late answer neither recorded nor used, and Target::cancel is called), no further
  // row is read, and run_target returns the rows so far with summary.cancelled. While
  // set (non-null), the loop waits at most 100 ms at a time and calls `progress` after
  // each wait: a heartbeat in which the caller can look for a signal. Null: no cancel,
  // no heartbeat.
  const std::atomic<bool>* cancel = nullptr;
  // Conversations. A row holding a conversation (`messages`, `turns`, or a list in
  // `user_input`: conversation.h) is asked turn by turn: its user messages, in order, each
  // with the history of the run so far (its system messages first; the row's own assistant
  // and tool messages are not sent: the target's replies take their place). A row with a
  // `scenario` and no conversation is played by `user_simulator` (user_simulator.h): its
  // opening message, then after each reply the next one, until the expected outcome is
  // reached or `max_user_turns` user messages were sent. Each turn is one attempt with its
  // own retries; a turn that fails ends the row with that failure, the message naming the
  // turn. Concurrency counts rows (conversations), `requests` in the summary attempts.
  std::shared_ptr<const UserSimulator> user_simulator;  // null: scenario rows fail ("simulated_user")
  int max_user_turns = 10;  // DeepEval's max_user_simulations default
};

// One finished row, handed to the sink in input order.
struct RunRow {
  std::int64_t index = 0;
  std::int64_t line = 0;  // where the row starts in the input file
  nlohmann::ordered_json fields;  // the input row (empty object for a bad row)
  TargetOutcome outcome;          // the answer, or the last failure
  double latency_ms = 0.0;        // of the attempt that answered (the recorded one when
                                  // served from the record)
  int attempts = 0;               // made in this run
  bool from_record = false;
  // A conversation row that failed after some of its turns were answered: the messages
  // so far (OpenAI chat messages, ending with the user message that was not answered);
  // null otherwise.
  nlohmann::ordered_json partial_conversation;
};

// The output line for `row`: the input fields, then "response", "retrieved_contexts",
// "retrieved_context_ids" (when given), "latency_ms", "prompt_tokens" and
// "completion_tokens" (when reported); or, for a failure, "run_error": {"kind",
// "message", "attempts"} (and no response or contexts, even if the input had them); a
// conversation that failed after some of its turns were answered adds to it
// "turns_answered" and "messages" (the conversation so far), the row's own fields kept.
// A conversation row's answer is written as "messages" (OpenAI chat messages, the
// assistant's with "tool_calls" and "retrieved_contexts"), in place of the row's own
// `messages`, `turns` or list `user_input`, with "simulation" for a simulated one; no
// top-level "response" or "retrieved_contexts".
// `ragmeter eval` reads such lines as they are.
nlohmann::ordered_json run_row_json(const RunRow& row);

class RunSink {
 public:
  virtual ~RunSink() = default;
  // Called from the run's thread, in input order. An error stops the run.
  virtual Status on_row(const RunRow& row) = 0;
};

struct RunSummary {
  std::int64_t rows = 0;         // rows read
  std::int64_t answered = 0;     // rows with an answer (from_record included)
  std::int64_t from_record = 0;
  std::int64_t failed = 0;       // rows ending with run_error
  std::int64_t requests = 0;     // attempts sent to the target in this run
  std::int64_t retries = 0;
  std::map<std::string, std::int64_t> errors_by_kind;  // rows' final failures
  // Over the rows answered by the target in this run (not from the record), in ms.
  std::int64_t latency_n = 0;
  double latency_p50_ms = 0, latency_p95_ms = 0, latency_max_ms = 0, latency_mean_ms = 0;
  std::int64_t prompt_tokens = 0, completion_tokens = 0;  // as reported, this run
  // Conversation rows read, the turns the target answered for them in this run, the
  // turns of unfinished conversations resumed from the record instead of asked again, and
  // the simulated user's calls and tokens (as its server counted them).
  std::int64_t conversations = 0, conversation_turns = 0, conversation_turns_from_record = 0;
  std::int64_t simulated_user_calls = 0, simulated_user_prompt_tokens = 0, simulated_user_completion_tokens = 0;
  double wall_seconds = 0;
  bool stopped_early = false;  // give_up_after triggered
  bool cancelled = false;      // RunOptions::cancel was set: the rows end at the interruption
  std::string stop_reason;     // then: why, with the first failure's kind and message
  nlohmann::ordered_json target;  // the target's diagnostics()
};

// {"rows", "answered", "from_record", "failed", "requests", "retries", "errors":
// {kind: n}, "latency_ms": {"p50", "p95", "max", "mean", "n"}, "tokens": {"prompt",
// "completion"}, "wall_seconds", "stopped_early", "cancelled", "target": ...}, and
// "conversations": {"rows", "turns", "simulated_user": {"calls", "prompt_tokens",
// "completion_tokens"}} when conversation rows were read. Latency is per request (a turn).
nlohmann::ordered_json run_summary_json(const RunSummary& summary);

// Rows finished so far and how many of them failed; called from the run's thread.
using RunProgress = std::function<void(std::int64_t done, std::int64_t failed)>;

// Asks `target` every row of `reader`, hands each finished row to `sink` in input
// order, and returns the summary. Rows the reader rejects end as "bad_row". Returns the
// summary also when the target failed every question (stopped_early); an error only
// when the record cannot be opened or written, or the sink fails. The reader and the
// sink are used from the calling thread only.
StatusOr<RunSummary> run_target(RowReader& reader, Target& target, const RunOptions& options,
                                RunSink& sink, const RunProgress& progress = {});

// Scoring a run's rows as they are finished, in the same process: a RunSink that feeds
// evaluate() running on its own thread, so scores are computed while the target is still
// answering. Rows reach evaluate() in input order as run_row_json() writes them; a row
// that ends with run_error reaches it as a rejected row, so every metric of that row is
// `failed` with the reason "row rejected: SOURCE:N: field 'run_error': KIND: MESSAGE", N
// the row's line in the run's output (its 1-based position). A row ended "interrupted"
// (RunOptions::cancel) is not passed on: the evaluation covers the rows before the stop.
// With options.cancel set (the same flag as the run's, say), evaluate() stops as it does
// for `ragmeter eval` and the rows after the stop are dropped without an error.
// on_row() is called from one thread (run_target's); `results` and `progress` are called
// from the evaluation's thread.
class RunEvaluation : public RunSink {
 public:
  // Starts evaluate() over the rows this sink will receive. `source_name` names them in
  // messages. Scoring starts once a batch of options.batch_rows rows has arrived: lower
  // it (say, to the judge's concurrency) for scores to follow answers closely.
  static std::unique_ptr<RunEvaluation> start(EvalOptions options, ResultSink& results,
                                              std::string source_name,
                                              ProgressCallback progress = {});
  // Ends the input (when finish() was not called) and waits for the thread.
  virtual ~RunEvaluation() = default;
  // Queues the row; waits while the queue holds many rows (scoring lags the run). The
  // evaluation's error when it has already stopped on one; OK (the row dropped) when it
  // was cancelled.
  Status on_row(const RunRow& row) override = 0;
  // Ends the input and waits for the evaluation: its summary, or its error.
  virtual StatusOr<EvalSummary> finish() = 0;
};

}  // namespace ragmeter
