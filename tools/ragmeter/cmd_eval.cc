// `ragmeter eval DATASET`: score a dataset, write per-sample results and a summary.
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "commands.h"
#include "exit_codes.h"
#include "judge_flags.h"
#include "progress.h"
#include "ragmeter/dataset.h"
#include "ragmeter/evaluate.h"
#include "ragmeter/llm_config.h"
#include "ragmeter/llm_judge.h"
#include "ragmeter/results.h"

namespace ragmeter::cli {
namespace {

struct EvalArgs {
  std::string dataset;
  std::string format = "auto";
  std::string metrics = "all";
  bool metrics_given = false;
  std::vector<std::string> critics;
  int critic_votes = 1;
  std::vector<std::string> column_map;
  std::string out;
  std::string out_format = "auto";
  std::string summary;
  int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::int64_t limit = 0;
  bool strict = false;
  std::vector<std::string> fail_under;
  bool allow_failures = false;
  bool quiet = false;
  JudgeFlags judge;  // --judge, --judge-url, ... (judge_flags.h)
  int judge_context_tokens = 0;
  std::string plan = "compact";
  std::string traces;
  bool dry_run = false;
  std::uint64_t seed = 42;
  int resamples = 1000;
  bool rouge_stem = false;
  std::string rouge_tokenizer = "default";
  std::string bleu_smoothing = "exp";
  std::string bleu_tokenize = "13a";
  double context_match_threshold = 0.5;
};

// Rejected rows go to stderr as they happen: the user sees each with file and line.
class RejectReporter : public ResultSink {
 public:
  Status on_row(const Row&, const std::vector<MetricResult>&) override { return ok_status(); }
  Status on_rejected(const RowError& error) override {
    std::cerr << "ragmeter: rejected row: " << error.to_string() << "\n";
    return ok_status();
  }
};

Status parse_thresholds(const std::vector<std::string>& specs,
                        const std::vector<MetricRequest>& metrics,
                        std::map<std::string, double>* thresholds) {
  for (const auto& spec : specs) {
    auto eq = spec.find('=');
    if (eq == std::string::npos) return invalid_argument("--fail-under expects METRIC=VALUE, got '" + spec + "'");
    std::string name = spec.substr(0, eq);
    bool requested = std::any_of(metrics.begin(), metrics.end(),
                                 [&](const MetricRequest& r) { return r.name == name; });
    if (!requested) return invalid_argument("--fail-under: metric '" + name + "' is not among --metrics");
    try {
      std::size_t used = 0;
      double value = std::stod(spec.substr(eq + 1), &used);
      if (used != spec.size() - eq - 1) throw std::invalid_argument("trailing text");
      (*thresholds)[name] = value;
    } catch (const std::exception&) {
      return invalid_argument("--fail-under: '" + spec.substr(eq + 1) + "' is not a number");
    }
  }
  return ok_status();
}

Status build_scoring_options(const EvalArgs& args, ScoringOptions* scoring) {
  scoring->rouge.use_stemmer = args.rouge_stem;
  scoring->rouge.tokenizer =
      args.rouge_tokenizer == "unicode" ? RougeTokenizer::kUnicode : RougeTokenizer::kDefault;
  static const std::map<std::string, BleuSmoothing> kSmoothing = {
      {"exp", BleuSmoothing::kExp}, {"floor", BleuSmoothing::kFloor},
      {"add-k", BleuSmoothing::kAddK}, {"none", BleuSmoothing::kNone}};
  scoring->bleu.smoothing = kSmoothing.at(args.bleu_smoothing);
  scoring->bleu.tokenizer = args.bleu_tokenize == "none" ? BleuTokenizer::kNone : BleuTokenizer::k13a;
  scoring->context_match_threshold = args.context_match_threshold;
  return ok_status();
}

bool is_csv_output(const EvalArgs& args) {
  if (args.out_format != "auto") return args.out_format == "csv";
  return args.out.ends_with(".csv");
}

StatusOr<EvalOptions> build_options(const EvalArgs& args) {
  EvalOptions options;
  RAGMETER_ASSIGN_OR_RETURN(options.metrics, parse_metric_list(args.metrics));
  for (const auto& spec : args.critics) {
    RAGMETER_ASSIGN_OR_RETURN(MetricRequest critic, parse_critic(spec));
    bool taken = std::any_of(options.metrics.begin(), options.metrics.end(),
                             [&](const MetricRequest& r) { return r.name == critic.name; });
    if (taken) return invalid_argument("--critic " + critic.name + " is given twice");
    options.metrics.push_back(std::move(critic));
  }
  if (args.critic_votes < 1 || args.critic_votes % 2 == 0) {
    return invalid_argument("--critic-votes must be odd (1, 3, 5, ...) so a majority exists");
  }
  options.scoring.critic_votes = args.critic_votes;
  for (const auto& mapping : args.column_map) {
    RAGMETER_RETURN_IF_ERROR(parse_column_mapping(mapping, &options.column_map));
  }
  RAGMETER_RETURN_IF_ERROR(build_scoring_options(args, &options.scoring));
  options.threads = args.threads;
  // Evidence is written only to a JSONL --out.
  options.keep_evidence = !args.out.empty() && !is_csv_output(args);
  options.limit = args.limit;
  options.strict = args.strict;
  options.bootstrap.seed = args.seed;
  options.bootstrap.resamples = args.resamples;
  return options;
}

// The judge clients of a run (none for the offline judge).
struct JudgeClients {
  std::shared_ptr<llm::Client> chat;
  std::shared_ptr<llm::Client> embedder;
  int concurrency = 1;
};


// Makes the judge the flags ask for: null for the offline judge.
StatusOr<std::shared_ptr<Judge>> make_judge(const EvalArgs& args, JudgeClients* clients) {
  RAGMETER_ASSIGN_OR_RETURN(llm::JudgeSettings settings, judge_settings(args.judge));
  if (settings.judge == "offline") {
    if (settings.embedder != "offline") {
      return invalid_argument("--embedder " + settings.embedder +
                              " needs an LLM judge (--judge-url and --judge-model)");
    }
    return std::shared_ptr<Judge>();
  }
  RAGMETER_ASSIGN_OR_RETURN(llm::ClientOptions chat_options, llm::to_client_options(settings));
  chat_options.keep_traces = !args.traces.empty();
  RAGMETER_ASSIGN_OR_RETURN(std::unique_ptr<llm::Client> chat, llm::make_client(chat_options));
  clients->chat = std::move(chat);
  clients->concurrency = settings.concurrency;
  LlmJudgeOptions options;
  options.chat = clients->chat;
  options.model = chat_options.endpoint.model;
  options.endpoint = chat_options.endpoint.base_url;
  options.endpoint_options = chat_options.endpoint;
  options.context_tokens = args.judge_context_tokens;
  options.ragas_plan = args.plan == "ragas";
  options.verdict_cache = chat_options.cache;
  if (settings.embedder != "offline") {
    RAGMETER_ASSIGN_OR_RETURN(llm::ClientOptions embed_options,
                              llm::to_embedder_client_options(settings));
    embed_options.keep_traces = !args.traces.empty();
    RAGMETER_ASSIGN_OR_RETURN(std::unique_ptr<llm::Client> embedder,
                              llm::make_client(embed_options));
    options.embedder_endpoint_options = embed_options.endpoint;
    clients->embedder = std::move(embedder);
    options.embedder = clients->embedder;
  }
  return make_llm_judge(std::move(options));
}

JudgeUsage usage_of(const JudgeClients& clients) {
  JudgeUsage usage;
  for (const auto* client : {clients.chat.get(), clients.embedder.get()}) {
    if (client == nullptr) continue;
    llm::UsageTotals totals = client->totals();
    usage.requests += totals.requests;
    usage.cache_hits += totals.cache_hits;
    usage.failed_calls += totals.failed_calls;
    usage.prompt_tokens += totals.tokens.prompt_tokens;
    usage.completion_tokens += totals.tokens.completion_tokens;
    usage.cached_tokens += totals.tokens.cached_tokens;
    usage.cost_usd += totals.cost_usd;
  }
  return usage;
}

// Every judge call as one JSON line: {"kind", "cache_key", "request", "raw_reply",
// "attempts", "from_cache", "error"}. The evidence's "judge_calls" name them by cache_key.
Status write_traces(const std::string& path, const JudgeClients& clients) {
  std::ofstream out(path, std::ios::binary);
  for (const auto* client : {clients.chat.get(), clients.embedder.get()}) {
    if (client == nullptr) continue;
    for (const llm::CallTrace& trace : client->traces()) {
      nlohmann::ordered_json line = {{"kind", trace.kind},
                                     {"cache_key", trace.cache_key},
                                     {"request", trace.request},
                                     {"raw_reply", trace.raw_reply},
                                     {"attempts", trace.attempts},
                                     {"from_cache", trace.from_cache},
                                     {"error", trace.error}};
      out << line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    }
  }
  if (!out) return invalid_argument("cannot write --traces " + path);
  return ok_status();
}

// --dry-run: reads the dataset, prints the judge calls the run would make and an
// estimate of their tokens and cost, and sends nothing.
int run_dry(const EvalArgs& args, const EvalOptions& options, RowReader& reader) {
  auto settings = judge_settings(args.judge);
  if (!settings.ok()) {
    std::cerr << "ragmeter: judge: " << settings.status().message() << "\n";
    return kExitUsage;
  }
  const bool llm_judge = settings->judge != "offline";
  std::optional<llm::ClientOptions> client;
  if (llm_judge) {
    auto made = llm::to_client_options(*settings);
    if (!made.ok()) {
      std::cerr << "ragmeter: judge: " << made.status().message() << "\n";
      return kExitUsage;
    }
    client = *made;
  }
  PlannedCalls plan;
  std::int64_t rows = 0, rejected = 0;
  Row row;
  RowError error;
  for (RowReader::Result r; (r = reader.next(&row, &error)) != RowReader::Result::kEnd;) {
    if (options.limit > 0 && rows >= options.limit) break;
    auto sample = r == RowReader::Result::kRow ? sample_from_json(row.fields, options.column_map)
                                               : StatusOr<Sample>(invalid_argument("bad row"));
    if (!sample.ok()) {
      ++rejected;
      continue;
    }
    ++rows;
    if (llm_judge) plan += plan_llm_calls(*sample, options.metrics, settings->embedder != "offline",
                                            args.judge_context_tokens);
  }
  std::cout << fmt::format("dry run: {} rows ({} rejected), {} metrics; nothing was sent\n", rows,
                           rejected, options.metrics.size());
  if (!llm_judge) {
    std::cout << "judge: offline: no judge calls, no cost\n";
    return kExitOk;
  }
  std::cout << fmt::format("judge: {} at {}\n", client->endpoint.model, client->endpoint.base_url);
  if (args.plan != "compact") {
    std::cout << "note: the estimate below is for the compact plan; --plan " << args.plan
              << " makes more calls\n";
  }
  std::cout << fmt::format("planned calls: {}", plan.total_calls());
  std::string sep = " (";
  for (const auto& [kind, n] : plan.calls) {
    std::cout << sep << kind << " " << n;
    sep = ", ";
  }
  std::cout << (plan.calls.empty() ? "" : ")") << "; calls already in the cache will be free\n";
  std::cout << fmt::format("estimated tokens: {} prompt, {} completion\n", plan.prompt_tokens,
                           plan.completion_tokens);
  auto price = llm::find_price(client->endpoint.model, client->prices);
  if (price) {
    llm::TokenUsage usage{plan.prompt_tokens, plan.completion_tokens, 0};
    std::cout << fmt::format("estimated cost: ${:.4f} (prices of {}, docs/judges.md)\n",
                             llm::cost_usd(usage, *price), llm::price_table_date());
  } else {
    std::cout << "estimated cost: unknown price for this model (a local model costs 0; set "
                 "[prices] in --config)\n";
  }
  return kExitOk;
}


// Checks --fail-under; prints each miss. Returns true when every threshold is met.
bool thresholds_met(const EvalSummary& summary, const std::map<std::string, double>& thresholds) {
  bool met = true;
  for (const auto& metric : summary.metrics) {
    auto it = thresholds.find(metric.name);
    if (it == thresholds.end()) continue;
    if (metric.stats.n == 0 || metric.stats.mean < it->second) {
      std::cerr << fmt::format("ragmeter: {} mean {} is below --fail-under {}\n", metric.name,
                               metric.stats.n == 0 ? std::string("(none scored)")
                                                   : fmt::format("{:.4f}", metric.stats.mean),
                               it->second);
      met = false;
    }
  }
  return met;
}

bool any_failed(const EvalSummary& summary) {
  return std::any_of(summary.metrics.begin(), summary.metrics.end(),
                     [](const MetricSummary& m) { return m.failed > 0; });
}

int run_eval(const EvalArgs& args) {
  auto options = build_options(args);
  if (!options.ok()) {
    std::cerr << "ragmeter: " << options.status().message() << "\n";
    return kExitUsage;
  }
  if (args.dry_run) {
    auto format = parse_dataset_format(args.format);
    auto reader = format.ok() ? open_dataset(args.dataset, *format)
                              : StatusOr<std::unique_ptr<RowReader>>(format.status());
    if (!reader.ok()) {
      std::cerr << "ragmeter: " << reader.status().message() << "\n";
      return kExitUsage;
    }
    return run_dry(args, *options, **reader);
  }
  JudgeClients clients;
  auto judge = make_judge(args, &clients);
  if (!judge.ok()) {
    std::cerr << "ragmeter: judge: " << judge.status().message() << "\n";
    return kExitUsage;
  }
  options->judge = *judge;
  // Without --metrics, the offline judge scores what it can: metrics that need an LLM
  // (critics, rubrics) would only be skipped.
  if (!args.metrics_given && !options->judge) {
    std::erase_if(options->metrics, [](const MetricRequest& r) {
      return r.info->judged != nullptr && metric_needs_llm(*r.info) && r.definition.empty();
    });
  }
  // Each sample waits on its judge calls: enough samples in flight to keep
  // --concurrency requests busy.
  if (options->judge) options->threads = std::max(options->threads, clients.concurrency);
  std::map<std::string, double> thresholds;
  if (Status s = parse_thresholds(args.fail_under, options->metrics, &thresholds); !s.ok()) {
    std::cerr << "ragmeter: " << s.message() << "\n";
    return kExitUsage;
  }
  auto format = parse_dataset_format(args.format);
  if (!format.ok()) {
    std::cerr << "ragmeter: " << format.status().message() << "\n";
    return kExitUsage;
  }
  auto reader = open_dataset(args.dataset, *format);
  if (!reader.ok()) {
    std::cerr << "ragmeter: " << reader.status().message() << "\n";
    return kExitUsage;
  }

  FanOutSink sinks;
  RejectReporter reporter;
  sinks.add(&reporter);
  std::ofstream out_file;
  std::unique_ptr<ResultSink> writer;
  if (!args.out.empty()) {
    out_file.open(args.out, std::ios::binary);
    if (!out_file) {
      std::cerr << "ragmeter: cannot write --out " << args.out << "\n";
      return kExitUsage;
    }
    writer = is_csv_output(args) ? make_csv_result_writer(out_file, options->metrics)
                                 : make_jsonl_result_writer(out_file, options->metrics);
    sinks.add(writer.get());
  }

  Progress progress(args.quiet);
  auto summary = evaluate(**reader, args.dataset, *options, sinks,
                          [&](std::int64_t rows) { progress.update(rows); });
  progress.finish();
  if (!summary.ok()) {
    std::cerr << "ragmeter: " << summary.status().message() << "\n";
    return kExitUsage;
  }
  const std::string judge_description =
      options->judge ? options->judge->description() : make_offline_judge()->description();
  RunInfo info{judge_description, args.dataset, usage_of(clients),
               options->judge ? options->judge->usage_by_call() : nlohmann::ordered_json()};
  if (!args.traces.empty()) {
    if (Status s = write_traces(args.traces, clients); !s.ok()) {
      std::cerr << "ragmeter: " << s.message() << "\n";
      return kExitUsage;
    }
  }
  if (!args.summary.empty()) {
    std::ofstream summary_file(args.summary);
    summary_file << summary_json_text(*summary, info);
    if (!summary_file) {
      std::cerr << "ragmeter: cannot write --summary " << args.summary << "\n";
      return kExitUsage;
    }
  }
  if (!args.quiet) {
    std::cout << format_summary_table(*summary);
    std::cout << "judge: " << judge_description << "\n";
    if (options->judge) {
      const JudgeUsage& u = info.usage;
      std::cout << fmt::format(
          "judge calls: {} requests, {} from the cache, {} failed; tokens: {} prompt ({} cached), "
          "{} completion; cost ${:.4f}\n",
          u.requests, u.cache_hits, u.failed_calls, u.prompt_tokens, u.cached_tokens,
          u.completion_tokens, u.cost_usd);
    } else {
      std::cout << "For an LLM judge: --judge-url http://HOST/v1 --judge-model NAME (key from "
                   "OPENAI_API_KEY), or --config judge.toml; see docs/judges.md\n";
    }
  }
  if (!thresholds_met(*summary, thresholds)) return kExitBelowThreshold;
  bool partial = summary->rows_rejected > 0 || any_failed(*summary);
  if (partial && !args.allow_failures) {
    std::cerr << "ragmeter: the run completed with rejected rows or failed scores (exit code 3; "
                 "--allow-failures makes this 0)\n";
    return kExitPartial;
  }
  return kExitOk;
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
      "Exit codes: 0 ok; 1 a --fail-under threshold not met; 2 bad usage or unusable input;\n"
      "3 rows rejected or scores failed while the run completed (--allow-failures: 0).");
  cmd->add_option("dataset", args->dataset, "Dataset file (.jsonl, .json, .csv) or - for stdin")
      ->required();
  cmd->add_option("--format", args->format, "Input format: auto (by extension), jsonl, json, csv")
      ->check(CLI::IsMember({"auto", "jsonl", "json", "csv"}));
  cmd->add_option("--metrics,-m", args->metrics,
                  "Comma-separated metric names (`ragmeter metrics` lists them), with @k for "
                  "cutoffs (ndcg@10); 'all', 'text', 'retrieval', 'judged', 'ragas' (ragas's "
                  "default four) or 'ragchecker' for a group. Default: all (with the offline "
                  "judge, all but the critics and rubric scores, which need an LLM)")
      ->capture_default_str()
      ->each([args](const std::string&) { args->metrics_given = true; });
  cmd->add_option("--critic", args->critics,
                  "A user-defined aspect critic NAME=DEFINITION (1 when the response meets it); "
                  "needs an LLM judge; repeatable");
  cmd->add_option("--critic-votes", args->critic_votes,
                  "Judgements per aspect critic verdict, majority wins (odd)")
      ->capture_default_str();
  cmd->add_option("--column-map", args->column_map,
                  "Rename a column: COLUMN=FIELD (e.g. query=user_input); repeatable");
  cmd->add_option("--out,-o", args->out, "Per-sample results: .jsonl (default) or .csv");
  cmd->add_option("--out-format", args->out_format, "auto (by --out extension), jsonl or csv")
      ->check(CLI::IsMember({"auto", "jsonl", "csv"}));
  cmd->add_option("--summary", args->summary, "Summary JSON (means, std, 95% CI, counts)");
  cmd->add_option("--threads,-j", args->threads, "CPU threads for scoring")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--limit", args->limit, "Score only the first N rows")->check(CLI::NonNegativeNumber);
  cmd->add_flag("--strict", args->strict, "Stop at the first malformed row instead of skipping it");
  cmd->add_option("--fail-under", args->fail_under,
                  "METRIC=VALUE: exit with code 1 when the metric's mean is below VALUE; repeatable");
  cmd->add_flag("--allow-failures", args->allow_failures,
                "Exit 0 even when rows were rejected or scores failed");
  cmd->add_flag("--quiet,-q", args->quiet, "No table and no progress display");
  add_judge_flags(cmd, &args->judge,
                  "Judge of the judged metrics: offline (the default: no model, no network) or "
                  "openai (any OpenAI-compatible server: --judge-url, --judge-model)",
                  "Embeddings for semantic similarity: offline (default) or openai");
  cmd->add_option("--judge-context-tokens", args->judge_context_tokens,
                  "The judge model's context window; verdict calls that would not fit are split "
                  "(premise pieces x claim groups), never truncated. 0: unknown, no splitting")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--plan", args->plan,
                  "compact (default: one claim ledger per sample, shared by every metric) or "
                  "ragas (ragas's call structure, one set of calls per metric, for comparison)")
      ->check(CLI::IsMember({"compact", "ragas"}));
  cmd->add_flag("--dry-run", args->dry_run,
                "Print the judge calls the run would make and their estimated tokens and cost; "
                "send nothing");
  cmd->add_option("--traces", args->traces,
                  "Write every judge call (request, raw reply, attempts, error) as JSON lines; "
                  "the evidence's judge_calls name them by cache_key");
  cmd->add_option("--seed", args->seed, "Seed of the bootstrap confidence intervals")
      ->capture_default_str();
  cmd->add_option("--bootstrap-resamples", args->resamples, "Bootstrap resamples for the 95% CI")
      ->capture_default_str()
      ->check(CLI::Range(0, 1000000));
  cmd->add_flag("--rouge-stem", args->rouge_stem, "ROUGE with the Porter stemmer (rouge-score's use_stemmer)");
  cmd->add_option("--rouge-tokenizer", args->rouge_tokenizer,
                  "default (rouge-score: ASCII only) or unicode (every script)")
      ->check(CLI::IsMember({"default", "unicode"}));
  cmd->add_option("--bleu-smoothing", args->bleu_smoothing, "exp (sacreBLEU default), floor, add-k, none")
      ->check(CLI::IsMember({"exp", "floor", "add-k", "none"}));
  cmd->add_option("--bleu-tokenize", args->bleu_tokenize, "13a (sacreBLEU default) or none")
      ->check(CLI::IsMember({"13a", "none"}));
  cmd->add_option("--context-match-threshold", args->context_match_threshold,
                  "Levenshtein similarity at which a retrieved text matches a reference context")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  return [args] { return run_eval(*args); };
}

}  // namespace ragmeter::cli
