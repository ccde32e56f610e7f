// `ragmeter run QUESTIONS --target ... --out answers.jsonl`: ask the user's RAG system
// every question and write a dataset `ragmeter eval` reads as it is.
#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>

#include <fmt/format.h>

#include "commands.h"
#include "eval_flags.h"
#include "exit_codes.h"
#include "progress.h"
#include "ragmeter/dataset.h"
#include "ragmeter/llm.h"
#include "ragmeter/results.h"
#include "ragmeter/run.h"
#include "ragmeter/sentence_embedder.h"
#include "stop_signal.h"

namespace ragmeter::cli {
namespace {

struct RunArgs {
  std::string questions;
  std::string out;
  std::string summary;
  std::string target;
  std::string target_cmd;
  std::string method = "POST";
  std::string body;
  std::vector<std::string> query, headers, header_env;
  ReplySelectors selectors;
  int concurrency = 8;
  double timeout = 60;
  int max_attempts = 4;
  double rpm = 0;
  int processes = 0;
  std::string target_stderr;
  std::string record;
  bool no_record = false;
  bool fresh = false;
  std::string question_field, id_field = "id";
  std::int64_t limit = 0;
  int give_up_after = 10;
  int max_user_turns = 10;  // a simulated user's messages per conversation
  bool allow_failures = false;
  bool quiet = false;
  // --target baseline
  std::string docs, llm_url, llm_model, llm_key_env = "OPENAI_API_KEY";
  std::size_t top_k = 4, chunk_size = 1000, chunk_overlap = 100;
  int llm_max_tokens = 256;
  // --eval METRICS and the eval flags (eval_flags.h)
  EvalFlags eval;
  std::string eval_out, eval_summary;
  std::string report;  // --report: the HTML report of the scored run (needs --eval)
};

StatusOr<std::unique_ptr<Target>> make_baseline(const RunArgs& args) {
  if (args.docs.empty() || args.llm_url.empty() || args.llm_model.empty()) {
    return invalid_argument("--target baseline needs --docs DIR, --llm-url URL and --llm-model NAME");
  }
  llm::ClientOptions client;
  client.endpoint.base_url = args.llm_url;
  client.endpoint.model = args.llm_model;
  client.endpoint.api_key_env = args.llm_key_env;
  client.endpoint.timeout_seconds = args.timeout;
  client.limits.max_in_flight = args.concurrency;
  client.retry.max_attempts = args.max_attempts;
  client.cache.mode = llm::CacheMode::kOff;  // the run's record keeps the answers
  client.keep_traces = false;
  RAGMETER_ASSIGN_OR_RETURN(std::unique_ptr<llm::Client> chat, llm::make_client(client));
  BaselineTargetOptions options;
  options.docs = args.docs;
  options.chunk_size = args.chunk_size;
  options.chunk_overlap = args.chunk_overlap;
  options.top_k = args.top_k;
  options.chat = std::move(chat);
  options.model = args.llm_model;
  options.endpoint = args.llm_url;
  options.max_tokens = args.llm_max_tokens;
  options.workers = args.concurrency;
  // The same --embedder as --eval's similarity: auto (the default) is the local model when
  // installed; offline, openai or no model: hashed vectors for retrieval.
  RAGMETER_ASSIGN_OR_RETURN(options.embedder,
                            load_embedder_choice(args.eval.judge_flags.embedder.value_or("auto"),
                                                 args.eval.judge_flags.embedder_model_path.value_or("")));
  return make_baseline_target(options);
}

// Splits "NAME=VALUE" (or "NAME: VALUE" when `colon`) at the first separator.
StatusOr<std::pair<std::string, std::string>> split_pair(const std::string& spec, char separator,
                                                         const std::string& flag) {
  auto at = spec.find(separator);
  if (at == std::string::npos || at == 0) {
    return invalid_argument(flag + " expects NAME" + separator + "VALUE, got '" + spec + "'");
  }
  std::string value = spec.substr(at + 1);
  while (!value.empty() && value.front() == ' ') value.erase(value.begin());
  return std::make_pair(spec.substr(0, at), value);
}

StatusOr<std::unique_ptr<Target>> make_target(const RunArgs& args) {
  if (args.target == "baseline") return make_baseline(args);
  if (!args.target_cmd.empty()) {
    CommandTargetOptions options;
    options.command = args.target_cmd;
    options.processes = args.processes > 0 ? args.processes : args.concurrency;
    options.selectors = args.selectors;
    options.timeout_seconds = args.timeout;
    options.stderr_path = args.target_stderr.empty() ? args.out + ".stderr.log" : args.target_stderr;
    return make_command_target(options);
  }
  HttpTargetOptions options;
  options.url = args.target;
  options.method = args.method;
  if (!args.body.empty()) options.body_template = args.body;
  for (const auto& spec : args.query) {
    RAGMETER_ASSIGN_OR_RETURN(auto pair, split_pair(spec, '=', "--query"));
    options.query.push_back(std::move(pair));
  }
  for (const auto& spec : args.headers) {
    RAGMETER_ASSIGN_OR_RETURN(auto pair, split_pair(spec, ':', "--header"));
    options.headers.push_back(std::move(pair));
  }
  for (const auto& spec : args.header_env) {
    RAGMETER_ASSIGN_OR_RETURN(auto pair, split_pair(spec, '=', "--header-env"));
    options.header_env.push_back(std::move(pair));
  }
  options.selectors = args.selectors;
  options.timeout_seconds = args.timeout;
  options.max_connections = std::max(64, args.concurrency);
  return make_http_target(options);
}

class JsonlRunWriter : public RunSink {
 public:
  // `then` (may be null) receives each row after it is written: the evaluation.
  JsonlRunWriter(std::ostream& out, RunSink* then) : out_(out), then_(then) {}
  Status on_row(const RunRow& row) override {
    out_ << run_row_json(row).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    const std::string& kind = row.outcome.failure.kind;
    const bool reported = kind != "not_asked" && kind != "interrupted";
    if (!row.outcome.ok() && reported && ++reported_ <= kMaxReported) {
      std::cerr << fmt::format("ragmeter: row {} (line {}): {}: {}\n", row.index + 1, row.line,
                               row.outcome.failure.kind, row.outcome.failure.message);
      if (reported_ == kMaxReported) {
        std::cerr << "ragmeter: further rows without an answer are only marked in --out (run_error)\n";
      }
    }
    if (!out_) return unavailable("cannot write the output");
    return then_ != nullptr ? then_->on_row(row) : ok_status();
  }

 private:
  static constexpr int kMaxReported = 20;  // rows whose failure is printed
  std::ostream& out_;
  RunSink* then_;
  int reported_ = 0;
};

void print_summary(const RunSummary& s) {
  std::cout << fmt::format("run: {} rows: {} answered ({} from the record), {} failed; {} requests, "
                           "{} retries; {:.1f} s\n",
                           s.rows, s.answered, s.from_record, s.failed, s.requests, s.retries,
                           s.wall_seconds);
  if (s.latency_n > 0) {
    std::cout << fmt::format("latency ms: p50 {:.1f}  p95 {:.1f}  max {:.1f}  (n={})\n", s.latency_p50_ms,
                             s.latency_p95_ms, s.latency_max_ms, s.latency_n);
  }
  if (!s.errors_by_kind.empty()) {
    std::string line;
    for (const auto& [kind, n] : s.errors_by_kind) line += fmt::format("{}{} {}", line.empty() ? "" : ", ", kind, n);
    std::cout << "errors: " << line << "\n";
  }
  if (s.prompt_tokens + s.completion_tokens > 0) {
    std::cout << fmt::format("tokens reported: {} prompt, {} completion\n", s.prompt_tokens,
                             s.completion_tokens);
  }
}

// Keeps a stream's rows on disk as they come: a flush at most every 100 ms.
class PeriodicFlush {
 public:
  explicit PeriodicFlush(std::ostream& out) : out_(out) {}
  void poll() {
    const auto now = std::chrono::steady_clock::now();
    if (now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    out_.flush();
  }

 private:
  std::ostream& out_;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

// The simulated user for rows with a scenario: the judge's model (--judge-url and
// --judge-model, or --config); none with the offline judge.
StatusOr<ConfiguredUserSimulator> make_user_simulator(const RunArgs& args) {
  auto settings = judge_settings(args.eval.judge_flags);
  if (!settings.ok()) return settings.status();
  return ragmeter::make_user_simulator(*settings);
}

CommandOutcome run_run(const RunArgs& args) {
  install_stop_handlers(StopMode::kGraceful);
  if (args.target.empty() == args.target_cmd.empty()) {
    return invalid_argument("give one target: --target URL or --target-cmd COMMAND");
  }
  auto target = make_target(args);
  if (!target.ok()) {
    return prefixed("target: ", target.status());
  }
  if (!args.report.empty() && !args.eval.metrics_given) {
    return invalid_argument("--report needs --eval METRICS (the report shows the scores)");
  }
  auto reader = open_dataset(args.questions);
  if (!reader.ok()) {
    return reader.status();
  }
  std::ofstream out(args.out, std::ios::binary);
  if (!out) {
    return invalid_argument("cannot write --out " + args.out);
  }
  RunOptions options;
  options.concurrency = args.concurrency;
  options.requests_per_minute = args.rpm;
  options.retry.max_attempts = args.max_attempts;
  options.record_path = args.no_record ? "" : (args.record.empty() ? args.out + ".record" : args.record);
  options.fresh = args.fresh;
  options.question_field = args.question_field;
  options.id_field = args.id_field;
  options.limit = args.limit;
  options.give_up_after = args.give_up_after;
  options.max_user_turns = args.max_user_turns;
  // Rows with a scenario are played by the judge's model as the user (--judge-url).
  auto simulator = make_user_simulator(args);
  if (!simulator.ok()) {
    return prefixed("simulated user: ", simulator.status());
  }
  options.user_simulator = simulator->simulator;
  ClientCanceller user_canceller({simulator->chat.get()});
  // Ctrl-C, SIGTERM: no question is asked after it, the attempts in flight are abandoned,
  // and the rows read so far are written (the unanswered ones as "interrupted").
  options.cancel = &stop_flag();
  // --eval: rows are scored on another thread as they are written.
  std::optional<PreparedEval> eval;
  std::ofstream eval_file;
  std::unique_ptr<ResultSink> eval_writer;
  FanOutSink eval_sinks;
  std::unique_ptr<RunEvaluation> evaluation;
  // The report reads the scored rows as the objects --eval-out writes as lines.
  std::vector<nlohmann::ordered_json> report_rows;
  std::unique_ptr<ResultSink> report_writer;
  std::unique_ptr<ClientCanceller> judge_canceller;
  if (args.eval.metrics_given) {
    const bool csv = args.eval_out.ends_with(".csv");
    auto prepared = prepare_eval(args.eval, (!args.eval_out.empty() && !csv) || !args.report.empty());
    if (!prepared.ok()) {
      return prefixed("--eval: ", prepared.status());
    }
    eval = std::move(*prepared);
    if (!args.eval_out.empty()) {
      eval_file.open(args.eval_out, std::ios::binary);
      if (!eval_file) {
        return invalid_argument("cannot write --eval-out " + args.eval_out);
      }
      eval_writer = csv ? make_csv_result_writer(eval_file, eval->options.metrics)
                        : make_jsonl_result_writer(eval_file, eval->options.metrics);
      eval_sinks.add(eval_writer.get());
    }
    if (!args.report.empty()) {
      report_writer = make_json_rows_collector(&report_rows, eval->options.metrics);
      eval_sinks.add(report_writer.get());
    }
    EvalOptions options_for_run = eval->options;
    // Small batches: scores follow answers instead of waiting for thousands of them.
    options_for_run.batch_rows = static_cast<std::size_t>(std::max(32, options_for_run.threads));
    options_for_run.cancel = &stop_flag();  // stopped with the run: what was scored is kept
    judge_canceller = std::make_unique<ClientCanceller>(
        std::initializer_list<llm::Client*>{eval->judge.chat.get(), eval->judge.embedder.get()});
    evaluation = RunEvaluation::start(std::move(options_for_run), eval_sinks, args.out,
                                      [&eval_file, &judge_canceller](std::int64_t) {
                                        if (eval_file.is_open()) eval_file.flush();
                                        judge_canceller->poll();
                                      });
  }
  JsonlRunWriter writer(out, evaluation.get());
  Progress progress(args.quiet, "asking");
  PeriodicFlush out_flush(out);  // answers reach the file as they finish, in input order
  auto summary = run_target(**reader, **target, options, writer,
                            [&](std::int64_t done, std::int64_t failed) {
                              progress.update(done, failed);
                              out_flush.poll();
                              if (judge_canceller) judge_canceller->poll();
                              user_canceller.poll();
                            });
  progress.finish();
  out.close();
  std::optional<StatusOr<EvalSummary>> scores;
  if (evaluation) scores = evaluation->finish();
  if (!summary.ok()) {
    return summary.status();
  }
  if (scores && !scores->ok()) {
    return prefixed("--eval: ", scores->status());
  }
  if (!args.summary.empty()) {
    std::ofstream file(args.summary);
    if (!file.is_open()) return invalid_argument("cannot write --summary " + args.summary);
    file << run_summary_json(*summary).dump(2) << "\n";
    file.flush();
    if (!file) return unavailable("could not write --summary " + args.summary);
  }
  if (!args.quiet) {
    print_summary(*summary);
    if (summary->from_record > 0) {
      std::cout << fmt::format("{} answers came from the record {} (--fresh asks again)\n",
                               summary->from_record, options.record_path);
    }
  }
  if (summary->stopped_early) {
    return failed_precondition(summary->stop_reason);  // the target failed every question
  }
  int eval_code = kExitOk;
  if (scores) {
    // Rows without an answer are rejected rows of the evaluation: its exit code covers them.
    RAGMETER_ASSIGN_OR_RETURN(
        eval_code, report_eval(args.eval, *eval, **scores, args.out, args.eval_summary,
                               args.quiet, args.allow_failures, args.report, &report_rows));
  }
  if (summary->cancelled) {
    const std::int64_t interrupted = summary->errors_by_kind.count("interrupted") > 0
                                         ? summary->errors_by_kind.at("interrupted") : 0;
    std::cerr << fmt::format(
        "ragmeter: interrupted: the {} rows read are written to {} in input order ({} answered; {} "
        "asked and not answered, marked run_error \"interrupted\"){}; the summaries say "
        "\"cancelled\": true; exit code 130\n",
        summary->rows, args.out, summary->answered, interrupted,
        scores ? fmt::format(", {} of them scored", (*scores)->rows_read) : "");
    return kExitInterrupted;
  }
  if (scores) return eval_code;
  if (summary->failed > 0 && !args.allow_failures) {
    std::cerr << "ragmeter: some rows have no answer (run_error in --out; exit code 3, "
                 "--allow-failures makes this 0)\n";
    return kExitPartial;
  }
  return kExitOk;
}

}  // namespace

CommandRun add_run_command(CLI::App& parent) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* cmd = parent.add_subcommand(
      "run", "Ask your RAG system every question of a test set; write its answers and contexts.");
  cmd->footer(
      "The output is a dataset `ragmeter eval` reads as it is: each input row with \"response\",\n"
      "\"retrieved_contexts\" (and ids), \"latency_ms\", token counts when reported, or \"run_error\".\n"
      "Answers are recorded as they arrive (--record): a killed run started again asks only the\n"
      "questions without an answer, and a rerun is served from the record (--fresh asks again).\n\n"
      "Examples:\n"
      "  ragmeter run testset.jsonl --target http://localhost:8000/ask --out answers.jsonl\n"
      "  ragmeter run testset.jsonl --target http://localhost:8000/query \\\n"
      "      --body '{\"query\": \"{{question}}\", \"k\": 5}' --answer data.answer \\\n"
      "      --contexts data.sources --context-text content --header-env 'Authorization=MY_TOKEN'\n"
      "  ragmeter run testset.jsonl --target-cmd 'python my_rag.py' --concurrency 4 --out a.jsonl\n"
      "  ragmeter run testset.jsonl --target baseline --docs docs/ --llm-url http://localhost:8080/v1 \\\n"
      "      --llm-model qwen2.5 --top-k 4 --out baseline.jsonl\n"
      "  ragmeter run testset.jsonl --target URL --out a.jsonl --eval ragas,token_f1 \\\n"
      "      --eval-out scores.jsonl --eval-summary summary.json   (score as answers arrive)\n"
      "See docs/run.md.\n\n"
      "Exit codes: 0 every row answered; 2 bad usage, or the target failed every question\n"
      "(the run stops early); 3 some rows have run_error (--allow-failures: 0). With --eval,\n"
      "as `ragmeter eval`: 1 a --fail-under threshold not met; 3 also when scores failed.\n"
      "130: interrupted (Ctrl-C, SIGTERM): the rows read so far are written, the unanswered ones\n"
      "with run_error \"interrupted\", and the summaries say \"cancelled\" (docs/run.md).");
  cmd->add_option("questions", args->questions, "Question set (.jsonl, .json, .csv), e.g. from `ragmeter gen`")
      ->required();
  cmd->add_option("--out,-o", args->out, "Answers (JSONL), in input order")->required();
  cmd->add_option("--summary", args->summary, "Run summary JSON (latency, errors by kind, requests)");
  cmd->add_option("--target", args->target,
                  "The RAG system's HTTP endpoint (http:// or https://), or 'baseline' for ragmeter's "
                  "own (--docs, --llm-url, --llm-model)");
  cmd->add_option("--target-cmd", args->target_cmd,
                  "A command answering JSON lines on stdin/stdout, e.g. \"python my_rag.py\"");
  cmd->add_option("--method", args->method, "HTTP method: POST (body) or GET (query parameters)")
      ->check(CLI::IsMember({"GET", "POST", "PUT"}))
      ->capture_default_str();
  cmd->add_option("--body", args->body,
                  "JSON body template; {{question}}, {{id}}, {{index}}, {{FIELD}} for any row field "
                  "(default {\"question\": \"{{question}}\"})");
  cmd->add_option("--query", args->query, "Query parameter NAME=TEMPLATE (GET default: question={{question}}); repeatable");
  cmd->add_option("--header", args->headers, "Header 'Name: value' sent as is; repeatable");
  cmd->add_option("--header-env", args->header_env,
                  "Header NAME=VAR whose value is the environment variable VAR (for keys: never "
                  "logged, recorded or reported); repeatable");
  cmd->add_option("--answer", args->selectors.answer,
                  "Selector of the answer in the reply: JSON Pointer (/data/answer) or dotted path "
                  "(data.answer); default answer, else response, else choices.0.message.content");
  cmd->add_option("--contexts", args->selectors.contexts,
                  "Selector of the retrieved contexts (a list of strings or of objects); default "
                  "contexts, else retrieved_contexts, else none");
  cmd->add_option("--tool-calls", args->selectors.tool_calls,
                  "Selector of the tools the target called (default tool_calls, else choices.0.message.tool_calls)");
  cmd->add_option("--context-text", args->selectors.context_text, "In a context object: the text")
      ->capture_default_str();
  cmd->add_option("--context-id", args->selectors.context_id, "In a context object: the id")
      ->capture_default_str();
  cmd->add_option("--concurrency,-c", args->concurrency, "Questions in flight")
      ->capture_default_str()
      ->check(CLI::Range(1, 4096));
  cmd->add_option("--timeout", args->timeout, "Seconds per attempt")->capture_default_str()->check(CLI::PositiveNumber);
  cmd->add_option("--max-attempts", args->max_attempts,
                  "Attempts per question (retries on timeouts, refused connections, 429, 5xx)")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));
  cmd->add_option("--rpm", args->rpm, "At most this many requests per minute (0: no cap)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--processes", args->processes, "--target-cmd: processes (default --concurrency)")
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--target-stderr", args->target_stderr,
                  "--target-cmd: where the processes' stderr goes (default OUT.stderr.log)");
  cmd->add_option("--record", args->record, "Answer record, SQLite (default OUT.record)");
  cmd->add_flag("--no-record", args->no_record, "Keep no record (a killed run starts over)");
  cmd->add_flag("--fresh", args->fresh, "Ask every question again, even those in the record");
  cmd->add_option("--question-field", args->question_field, "The question's field (default user_input, else question)");
  cmd->add_option("--id-field", args->id_field, "The row id's field ({{id}}; default the row number)")
      ->capture_default_str();
  cmd->add_option("--limit", args->limit, "Ask only the first N rows")->check(CLI::NonNegativeNumber);
  cmd->add_option("--give-up-after", args->give_up_after,
                  "Stop when the first N questions asked all failed (0: never)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--max-user-turns", args->max_user_turns,
                  "Conversations with a scenario: the simulated user's messages at most")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--docs", args->docs, "--target baseline: the folder of documents it retrieves from");
  cmd->add_option("--llm-url", args->llm_url, "--target baseline: OpenAI-compatible base URL (ending in /v1)");
  cmd->add_option("--llm-model", args->llm_model, "--target baseline: the chat model answering");
  cmd->add_option("--llm-key-env", args->llm_key_env, "--target baseline: the key's environment variable")
      ->capture_default_str();
  cmd->add_option("--llm-max-tokens", args->llm_max_tokens, "--target baseline: tokens per answer")
      ->capture_default_str()
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--top-k", args->top_k, "--target baseline: chunks retrieved per question")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--chunk-size", args->chunk_size, "--target baseline: characters per chunk")
      ->capture_default_str();
  cmd->add_option("--chunk-overlap", args->chunk_overlap, "--target baseline: characters of overlap")
      ->capture_default_str();
  cmd->add_flag("--allow-failures", args->allow_failures,
                "Exit 0 even when rows have run_error (or, with --eval, scores failed)");
  cmd->add_option("--eval-out", args->eval_out,
                  "--eval: per-sample scores, .jsonl (with evidence) or .csv, as `eval --out`");
  cmd->add_option("--eval-summary", args->eval_summary, "--eval: the summary JSON, as `eval --summary`");
  cmd->add_option("--report", args->report,
                  "--eval: a self-contained HTML report of the scored run, as `eval --report` (docs/report.md)");
  add_eval_flags(cmd, &args->eval, /*run=*/true);
  cmd->add_flag("--quiet,-q", args->quiet, "No summary and no progress display");
  return [args] { return run_run(*args); };
}

}  // namespace ragmeter::cli
