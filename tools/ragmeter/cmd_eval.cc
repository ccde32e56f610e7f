// `ragmeter eval DATASET`: score a dataset, write per-sample results and a summary.
#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <map>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "commands.h"
#include "eval_flags.h"
#include "exit_codes.h"
#include "output_stream.h"
#include "progress.h"
#include "ragmeter/dataset.h"
#include "ragmeter/evaluate.h"
#include "ragmeter/llm_config.h"
#include "ragmeter/llm_judge.h"
#include "ragmeter/results.h"
#include "stop_signal.h"

namespace ragmeter::cli {
namespace {

struct EvalArgs {
  std::string dataset;
  std::string format = "auto";
  std::string rows_path;  // --rows-path: the rows' array inside a JSON document
  std::string out;
  std::string out_format = "auto";
  std::string summary;
  std::string report;
  std::int64_t limit = 0;
  bool strict = false;
  bool allow_failures = false;
  bool quiet = false;
  bool dry_run = false;
  std::string judge_speed;   // --judge-speed PROMPT,GENERATION tokens per second
  bool judge_probe = false;  // --judge-probe: measure the speed with one request
  int judge_parallel = 0;    // --judge-parallel: requests the server serves at once
  EvalFlags eval;  // --metrics, --judge, ... (eval_flags.h)
};

// Rejected rows go to stderr as they happen: the user sees each with file and line.
// So are a row's warnings (a repeated key or column).
class RejectReporter : public ResultSink {
 public:
  explicit RejectReporter(std::string file) : file_(std::move(file)) {}
  Status on_row(const Row& row, const std::vector<MetricResult>&) override {
    for (const std::string& warning : row.warnings) {
      std::cerr << "ragmeter: warning: " << file_ << ":" << row.line << ": " << warning << "\n";
    }
    return ok_status();
  }
  Status on_rejected(const RowError& error) override {
    std::cerr << "ragmeter: rejected row: " << error.to_string() << "\n";
    return ok_status();
  }

 private:
  std::string file_;
};

bool is_csv_output(const EvalArgs& args) {
  if (args.out_format != "auto") return args.out_format == "csv";
  std::string extension = std::filesystem::path(args.out).extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return extension == ".csv";  // o.CSV too
}

// The progress display's total: the dataset's rows (at most --limit), counted before
// the run starts for a file under kCountAtOnceBytes (a few milliseconds), else while it
// runs.
constexpr std::uintmax_t kCountAtOnceBytes = 64u << 20;

void count_progress_total(const EvalArgs& args, DatasetFormat format, Progress* progress) {
  std::error_code error;
  const std::uintmax_t bytes = std::filesystem::file_size(args.dataset, error);
  const bool now = !error && bytes < kCountAtOnceBytes;
  progress->count_total(
      [&args, format](const std::atomic<bool>& stop) -> std::optional<std::int64_t> {
        auto rows = count_dataset_rows(args.dataset, format, args.rows_path, &stop);
        if (rows && args.limit > 0) rows = std::min(*rows, args.limit);
        return rows;
      },
      now);
}

// "H h M min" or "M min S s".
std::string duration_text(double seconds) {
  long total = std::lround(seconds);
  if (total >= 3600) return fmt::format("{} h {:02} min", total / 3600, (total % 3600) / 60);
  return fmt::format("{} min {:02} s", total / 60, total % 60);
}

// The wall-time lines of --dry-run: at --judge-speed, or at the speed --judge-probe measures.
CommandOutcome print_wall_estimate(const EvalArgs& args, const llm::ClientOptions& client,
                        const PlannedCalls& plan) {
  llm::ServerSpeed speed;
  std::string source;
  if (!args.judge_speed.empty()) {
    double prompt = 0, generation = 0;
    char comma = 0;
    std::istringstream text(args.judge_speed);
    if (!(text >> prompt >> comma >> generation) || comma != ',' || prompt <= 0 || generation <= 0) {
      return invalid_argument(
          "--judge-speed expects PROMPT,GENERATION tokens per second (e.g. 60,8), got '" +
          args.judge_speed + "'");
    }
    speed.prompt_tokens_per_second = prompt;
    speed.completion_tokens_per_second = generation;
    source = "given";
  } else if (args.judge_probe) {
    auto measured = llm::measure_server_speed(client);
    if (!measured.ok()) {
      return prefixed("--judge-probe: ", measured.status());
    }
    speed = *measured;
    source = fmt::format("measured by one request of {} prompt and {} generated tokens",
                         speed.prompt_tokens, speed.completion_tokens);
  } else {
    std::cout << "estimated wall time: give --judge-speed PROMPT,GENERATION (tokens per second) "
                 "or --judge-probe (one request) to know\n";
    return kExitOk;
  }
  int parallel = args.judge_parallel > 0 ? args.judge_parallel : speed.slots > 0 ? speed.slots : 1;
  int in_flight = std::min(parallel, client.limits.max_in_flight);
  double seconds = llm::estimated_server_seconds(speed, plan.prompt_tokens, plan.completion_tokens,
                                                 in_flight);
  std::cout << fmt::format(
      "estimated wall time: {} at {:.1f} prompt and {:.1f} generated tokens per second ({}), {} "
      "request{} at a time{}; calls already in the cache take none\n",
      duration_text(seconds), speed.prompt_tokens_per_second, speed.completion_tokens_per_second,
      source, in_flight, in_flight == 1 ? "" : "s",
      args.judge_parallel > 0 ? "" : speed.slots > 0 ? " (the server's slots)"
                                                       : " (--judge-parallel N if it serves more)");
  return kExitOk;
}

// --dry-run: reads the dataset, prints the judge calls the run would make and an
// estimate of their tokens and cost, and sends nothing.
CommandOutcome run_dry(const EvalArgs& args, const EvalSpec& spec, RowReader& reader) {
  auto planned = plan_eval(spec, reader);
  if (!planned.ok()) {
    return planned.status();
  }
  const EvalPlan& dry = *planned;
  const bool llm_judge = dry.llm_judge, embedder_only = dry.embedder_only;
  const llm::JudgeSettings* settings = &dry.settings;
  const PlannedCalls& plan = dry.calls;
  std::optional<llm::ClientOptions> client;
  if (llm_judge) {
    auto made = llm::to_client_options(*settings);
    if (!made.ok()) {
      return prefixed("judge: ", made.status());
    }
    client = *made;
  }
  const std::int64_t rows = dry.rows, rejected = dry.rejected;
  std::cout << fmt::format("dry run: {} rows ({} rejected), {} metrics; {}\n", rows, rejected,
                           dry.metrics,
                           args.judge_probe && llm_judge ? "one speed probe is sent"
                                                         : "nothing was sent");
  if (embedder_only) {
    const auto found = plan.calls.find("embeddings");
    const std::int64_t embeddings = found != plan.calls.end() ? found->second : 0;
    std::cout << fmt::format("judge: offline, with embeddings from {} at {}: planned calls: {} "
                             "(embeddings {}); calls already in the cache will be free\n",
                             settings->embedder_model,
                             settings->embedder_url, embeddings, embeddings);
    return kExitOk;
  }
  if (!llm_judge) {
    std::cout << "judge: offline: no judge calls, no cost\n";
    return kExitOk;
  }
  std::cout << fmt::format("judge: {} at {}\n", client->endpoint.model, client->endpoint.base_url);
  if (args.eval.plan != "compact") std::cout << "plan: " << args.eval.plan << "\n";
  std::cout << fmt::format("planned calls: {}", plan.total_calls());
  std::string sep = " (";
  for (const auto& [kind, n] : plan.calls) {
    std::cout << sep << kind << " " << n;
    sep = ", ";
  }
  std::cout << (plan.calls.empty() ? "" : ")") << "; calls already in the cache will be free\n";
  std::cout << fmt::format("estimated tokens: {} prompt, {} completion\n", plan.prompt_tokens,
                           plan.completion_tokens);
  if (dry.cost_usd) {
    std::cout << fmt::format("estimated cost: ${:.4f} (prices of {}, docs/judges.md)\n", *dry.cost_usd,
                             llm::price_table_date());
  } else {
    std::cout << "estimated cost: unknown price for this model (a local model costs 0; set "
                 "[prices] in --config)\n";
  }
  return print_wall_estimate(args, *client, plan);
}


CommandOutcome run_eval(const EvalArgs& args) {
  if (args.dry_run) {
    auto spec = eval_spec(args.eval, false);
    if (!spec.ok()) {
      return spec.status();
    }
    spec->limit = args.limit;
    auto format = parse_dataset_format(args.format);
    auto reader = format.ok() ? open_dataset(args.dataset, *format, args.rows_path)
                              : StatusOr<std::unique_ptr<RowReader>>(format.status());
    if (!reader.ok()) {
      return reader.status();
    }
    return run_dry(args, *spec, **reader);
  }
  install_stop_handlers(StopMode::kGraceful);  // before the judge and the embedder are loaded
  // Every output is checked before anything is sent: an unwritable --summary must not be
  // found after the judge has been paid. "-" is standard output, for one of them.
  const std::pair<std::string, const char*> outputs[] = {
      {args.out, "--out"}, {args.summary, "--summary"}, {args.eval.traces, "--traces"},
      {args.report, "--report"}};
  if (std::count_if(std::begin(outputs), std::end(outputs),
                    [](const auto& o) { return is_standard_output(o.first); }) > 1) {
    return invalid_argument(
        "only one of --out, --summary, --traces and --report can be - (standard output)");
  }
  for (const auto& [path, flag] : outputs) {
    if (path.empty() || is_standard_output(path)) continue;
    RAGMETER_RETURN_IF_ERROR(check_output_path(path, flag));
  }
  // Evidence is kept for a JSONL --out and for the --report.
  auto eval = prepare_eval(args.eval, (!args.out.empty() && !is_csv_output(args)) || !args.report.empty());
  if (!eval.ok()) {
    return eval.status();
  }
  EvalOptions& options = eval->options;
  options.limit = args.limit;
  options.strict = args.strict;
  auto format = parse_dataset_format(args.format);
  if (!format.ok()) {
    return format.status();
  }
  auto reader = open_dataset(args.dataset, *format, args.rows_path);
  if (!reader.ok()) {
    return reader.status();
  }

  FanOutSink sinks;
  RejectReporter reporter(args.dataset);
  sinks.add(&reporter);
  std::ofstream out_file;
  std::ostream* out = nullptr;  // --out: the file, or standard output for "-"
  std::unique_ptr<ResultSink> writer;
  if (!args.out.empty()) {
    out = open_output(args.out, &out_file);
    if (out == nullptr) {
      return invalid_argument("cannot write --out " + args.out);
    }
    writer = is_csv_output(args) ? make_csv_result_writer(*out, options.metrics)
                                 : make_jsonl_result_writer(*out, options.metrics);
    sinks.add(writer.get());
  }

  options.cancel = &stop_flag();
  Progress progress(args.quiet);
  count_progress_total(args, *format, &progress);
  // The report reads the rows as the objects --out writes as lines.
  std::vector<nlohmann::ordered_json> report_rows;
  std::unique_ptr<ResultSink> report_writer;
  if (!args.report.empty()) {
    report_writer = make_json_rows_collector(&report_rows, options.metrics);
    sinks.add(report_writer.get());
  }
  ClientCanceller canceller{eval->judge.chat.get(), eval->judge.embedder.get()};
  auto summary = evaluate(**reader, args.dataset, options, sinks, [&](std::int64_t rows) {
    progress.update(rows);
    // Rows reach the writer as they finish; at most every 100 ms they reach the file too,
    // so a run killed outright loses at most that much.
    if (out != nullptr) out->flush();
    canceller.poll();  // stopped: the judge calls in flight are abandoned, not waited for
  });
  progress.finish();
  if (!summary.ok()) {
    return summary.status();
  }
  if (out != nullptr) {
    out->flush();  // every finished row is on disk first
    // A write that failed (a full disk, a closed pipe) must not end as a success.
    if (!*out) return unavailable("could not write every row to --out " + args.out);
  }
  // With data on standard output, the table goes to standard error.
  const bool data_on_stdout =
      std::any_of(std::begin(outputs), std::end(outputs),
                  [](const auto& o) { return is_standard_output(o.first); });
  RAGMETER_ASSIGN_OR_RETURN(
      const int code, report_eval(args.eval, *eval, *summary, args.dataset, args.summary,
                                  args.quiet, args.allow_failures, args.report, &report_rows,
                                  data_on_stdout ? &std::cerr : &std::cout));
  if (code == kExitInterrupted) {
    std::cerr << fmt::format(
        "ragmeter: interrupted: the {} rows finished before the stop are written{}, and the "
        "summary covers them (\"cancelled\": true); exit code 130\n",
        summary->rows_read,
        args.out.empty()                  ? ""
        : is_standard_output(args.out) ? " to standard output"
                                          : " to " + args.out);
    return kExitInterrupted;
  }
  return code;
}

}  // namespace

CommandRun add_eval_command(CLI::App& parent) {
  auto args = std::make_shared<EvalArgs>();
  CLI::App* cmd = parent.add_subcommand(
      "eval", "Score a dataset (JSONL, JSON array or CSV) with the chosen metrics.");
  cmd->footer(
      "Each row is a sample: user_input, response, retrieved_contexts, reference,\n"
      "reference_contexts, retrieved_context_ids, reference_context_ids (ragas names;\n"
      "question/answer/contexts/ground_truth(s) also accepted). Every (sample, metric)\n"
      "ends as a score, 'skipped' (a field is missing) or 'failed', with the reason.\n\n"
      "Examples:\n"
      "  ragmeter eval data.jsonl --metrics token_f1,rouge_l,bleu --out results.jsonl\n"
      "  ragmeter eval data.csv --metrics precision@5,ndcg@10 --summary summary.json\n"
      "  ragmeter eval data.jsonl --metrics token_f1 --fail-under token_f1=0.6   (for CI)\n"
      "  ragmeter eval data.jsonl --metrics ragas                  (offline judge: no key)\n"
      "  ragmeter eval data.jsonl --metrics ragas,answer_correctness \\\n"
      "      --judge-url http://localhost:8080/v1 --judge-model qwen2.5 --dry-run\n"
      "      (drop --dry-run to send; the key comes from OPENAI_API_KEY)\n\n"
      "Exit codes: 0 ok; 1 a --fail-under/--fail-over threshold not met; 2 bad usage or unusable input;\n"
      "3 rows rejected or scores failed while the run completed (--allow-failures: 0);\n"
      "4 the world failed (a judge server never reached, its key refused, the --max-cost budget\n"
      "spent; a write that failed): what was scored is still written.");
  cmd->add_option("dataset", args->dataset, "Dataset file (.jsonl, .json, .csv) or - for stdin")
      ->required();
  cmd->add_option("--format", args->format, "Input format: auto (by extension), jsonl, json, csv")
      ->check(CLI::IsMember({"auto", "jsonl", "json", "csv"}));
  cmd->add_option("--rows-path", args->rows_path,
                  "JSON only: the array of rows inside the top-level object, by its dotted keys "
                  "(data for {\"data\": [...]})");
  cmd->add_option("--out,-o", args->out,
                  "Per-sample results: .jsonl (default) or .csv; - for standard output (the "
                  "table then goes to standard error)");
  cmd->add_option("--out-format", args->out_format, "auto (by --out extension), jsonl or csv")
      ->check(CLI::IsMember({"auto", "jsonl", "csv"}));
  cmd->add_option("--summary", args->summary, "Summary JSON (means, std, 95% CI, counts)");
  cmd->add_option("--report", args->report,
                  "Write a self-contained HTML report of the run (docs/report.md)");
  cmd->add_option("--limit", args->limit, "Score only the first N rows")->check(CLI::NonNegativeNumber);
  cmd->add_flag("--strict", args->strict, "Stop at the first malformed row instead of skipping it");
  cmd->add_flag("--allow-failures", args->allow_failures,
                "Exit 0 even when rows were rejected or scores failed");
  cmd->add_flag("--quiet,-q", args->quiet, "No table and no progress display");
  cmd->add_flag("--dry-run", args->dry_run,
                "Print the judge calls the run would make and their estimated tokens and cost; "
                "send nothing");
  cmd->add_option("--judge-speed", args->judge_speed,
                  "With --dry-run: the judge server's speed, PROMPT,GENERATION tokens per second "
                  "(e.g. 60,8), for a wall-time estimate");
  cmd->add_flag("--judge-probe", args->judge_probe,
                "With --dry-run: measure the judge server's speed with one request (and its "
                "slots from /props) for a wall-time estimate");
  cmd->add_option("--judge-parallel", args->judge_parallel,
                  "With --dry-run: requests the judge server serves at once (default: its /props "
                  "slots, else 1)")
      ->check(CLI::PositiveNumber);
  add_eval_flags(cmd, &args->eval, /*run=*/false);
  return [args] { return run_eval(*args); };
}

}  // namespace ragmeter::cli
