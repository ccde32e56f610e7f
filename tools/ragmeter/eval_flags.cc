// The evaluation flags shared by `ragmeter eval` and `ragmeter run --eval` (eval_flags.h).
#include "eval_flags.h"

#include <filesystem>
#include <fstream>
#include <iostream>

#include <fmt/format.h>

#include "exit_codes.h"
#include "output_stream.h"
#include "ragmeter/gates.h"
#include "ragmeter/evaluate.h"
#include "ragmeter/judge_factory.h"
#include "ragmeter/language.h"
#include "ragmeter/llm_config.h"
#include "ragmeter/ocr.h"
#include "ragmeter/report.h"

namespace ragmeter::cli {

std::shared_ptr<OcrReader> make_cli_ocr_reader(const std::string& language,
                                               const std::string& cache, const JudgeFlags& judge) {
  OcrOptions ocr;
  ocr.language = language;
  ocr.cache.path = cache;
  const std::string mode = judge.cache_mode.value_or("rw");
  ocr.cache.mode = mode == "off" ? llm::CacheMode::kOff
                   : mode == "rw" ? llm::CacheMode::kReadWrite
                                  : llm::CacheMode::kReadOnly;
  return make_tesseract_reader(ocr);
}

StatusOr<EvalSpec> eval_spec(const EvalFlags& flags, bool keep_evidence) {
  EvalSpec spec = flags;
  spec.keep_evidence = keep_evidence;
  for (const auto& mapping : flags.column_mappings) {
    RAGMETER_RETURN_IF_ERROR(parse_column_mapping(mapping, &spec.column_map));
  }
  auto judge = judge_options_from_flags(flags.judge_flags);
  if (!judge.ok()) return invalid_argument("judge: " + judge.status().message());
  spec.judge = std::move(judge).value();
  spec.judge.plan = flags.plan;
  spec.judge.context_tokens = flags.judge_context_tokens;
  spec.judge.keep_traces = !flags.traces.empty();
  spec.judge.vision = flags.judge_images == "vision";
  spec.judge.image_detail = flags.judge_image_detail == "none" ? "" : flags.judge_image_detail;
  spec.judge.max_images_per_request = flags.judge_max_images;
  spec.judge.max_image_bytes = flags.judge_max_image_bytes;
  return spec;
}

// Every judge call as one JSON line: {"kind", "call" (claims, verdicts, ...), "cache_key",
// "request", "raw_reply", "attempts", "from_cache", "error"}. The evidence's
// "judge_calls" name them by cache_key.
static Status write_traces(const std::string& path, const ConfiguredJudge& judge) {
  std::ofstream file;
  std::ostream* opened = open_output(path, &file);
  if (opened == nullptr) return invalid_argument("cannot write --traces " + path);
  std::ostream& out = *opened;
  for (const llm::CallTrace& trace : judge.traces()) {
    nlohmann::ordered_json line = {{"kind", trace.kind},
                                   {"call", trace.purpose},
                                   {"cache_key", trace.cache_key},
                                   {"request", trace.request},
                                   {"raw_reply", trace.raw_reply},
                                   {"attempts", trace.attempts},
                                   {"from_cache", trace.from_cache},
                                   {"error", trace.error}};
    out << line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  }
  out.flush();
  if (!out) return unavailable("could not write --traces " + path);
  return ok_status();
}

// Checks --fail-under and --fail-over (gates.h, rule 2); prints each miss. Returns true
// when every gate passed.
static bool thresholds_met(const EvalSummary& summary, const std::vector<ThresholdGate>& gates) {
  bool met = true;
  for (const ThresholdGate& gate : gates) {
    auto metric = std::find_if(summary.metrics.begin(), summary.metrics.end(),
                               [&](const MetricSummary& m) { return m.name == gate.metric; });
    const GateVerdict verdict =
        check_threshold(gate, metric == summary.metrics.end() ? nullptr : &*metric);
    if (verdict.passed) continue;
    std::cerr << "ragmeter: "
              << (gate.bound == GateBound::kAtLeast ? "--fail-under" : "--fail-over")
              << " not met: " << verdict.message << "\n";
    met = false;
  }
  return met;
}

static bool any_failed(const EvalSummary& summary) {
  return std::any_of(summary.metrics.begin(), summary.metrics.end(),
                     [](const MetricSummary& m) { return m.failed > 0; });
}

StatusOr<PreparedEval> prepare_eval(const EvalFlags& flags, bool keep_evidence) {
  RAGMETER_ASSIGN_OR_RETURN(EvalSpec spec, eval_spec(flags, keep_evidence));
  // The options are checked first; a judge that cannot be made is a usage error here.
  RAGMETER_ASSIGN_OR_RETURN(EvalOptions options, make_eval_options(spec));
  auto judge = make_judge(spec.judge);
  if (!judge.ok()) return invalid_argument("judge: " + judge.status().message());
  RAGMETER_ASSIGN_OR_RETURN(PreparedEval eval, ragmeter::prepare_eval(spec, std::move(options), *judge));
  if (const std::string why = judged_once_reason(eval.options); !why.empty()) {
    std::cerr << "ragmeter: " << why << ": --repeat " << flags.repeat
              << " would give the same scores each time, so each sample is judged once\n";
  }
  return eval;
}

CommandOutcome report_eval(const EvalFlags& flags, const PreparedEval& eval,
                           const EvalSummary& summary, const std::string& source,
                           const std::string& summary_path, bool quiet, bool allow_failures,
                           const std::string& report_path, std::vector<nlohmann::ordered_json>* report_rows,
                           std::ostream* text_out) {
  std::ostream& text = text_out != nullptr ? *text_out : std::cout;
  const RunInfo info = make_run_info(eval.judge, source);
  if (!flags.traces.empty()) {
    RAGMETER_RETURN_IF_ERROR(write_traces(flags.traces, eval.judge));
  }
  if (!summary_path.empty()) {
    std::ofstream file;
    std::ostream* summary_file = open_output(summary_path, &file);
    if (summary_file != nullptr) {
      *summary_file << summary_json_text(summary, info);
      summary_file->flush();
    }
    if (summary_file == nullptr) return invalid_argument("cannot write the summary " + summary_path);
    if (!*summary_file) return unavailable("could not write the summary " + summary_path);
  }
  if (!report_path.empty() && report_rows != nullptr) {
    ReportInput input;
    input.summary = summary_to_json(summary, info);
    input.rows = std::move(*report_rows);
    if (is_standard_output(report_path)) {
      std::cout << render_report(input);
      std::cout.flush();
    } else RAGMETER_RETURN_IF_ERROR(write_report(report_path, input));
  }
  if (info.usage.key_redacted_replies > 0) {  // even with -q: it concerns the scores
    std::cerr << fmt::format(
        "ragmeter: warning: {} judge replies held the API key's value and were read with it "
        "replaced by \"[redacted]\", so scores from them may differ from what the server said. "
        "A key shorter than 16 characters is taken out wherever it stands as a word: a server "
        "that needs no key needs no key variable; otherwise use a longer key (docs/judges.md)\n",
        info.usage.key_redacted_replies);
  }
  if (!quiet) {
    text << format_summary_table(summary);
    text << "judge: " << info.judge << "\n";
    if (eval.judge.makes_calls()) {  // an LLM judge or an embeddings server (the local model makes none)
      const JudgeUsage& u = info.usage;
      text << fmt::format(
          "judge calls: {} requests, {} from the cache, {} failed; tokens: {} prompt ({} cached), "
          "{} completion; cost ${:.4f}\n",
          u.requests, u.cache_hits, u.failed_calls, u.prompt_tokens, u.cached_tokens,
          u.completion_tokens, u.cost_usd);
    }
    if (eval.judge.llm()) {
      const JudgeUsage& u = info.usage;
      text << fmt::format(
          "judge concurrency: settled at {} of {} (lowest {}; server seen serving {}); {} attempts "
          "timed out, ~{:.0f} server seconds spent on abandoned attempts\n",
          u.concurrency_settled, u.concurrency_ceiling, u.concurrency_lowest,
          u.server_parallelism > 0 ? std::to_string(u.server_parallelism) : std::string("?"),
          u.timed_out_attempts, u.abandoned_server_seconds);
    } else if (!eval.judge.makes_calls()) {
      text << "For an LLM judge: --judge-url http://HOST/v1 --judge-model NAME (key from "
              "OPENAI_API_KEY), or --config judge.toml; see docs/judges.md\n";
    }
  }
  // An interrupted run's summary covers part of the data: no threshold speaks for it.
  if (summary.cancelled) return kExitInterrupted;
  // A judge that stopped (never reached, the key refused, the budget spent) left its metrics
  // unscored for a reason outside the data: exit 4, whatever the thresholds say.
  for (const auto* client : {eval.judge.chat.get(), eval.judge.embedder.get()}) {
    if (client == nullptr || client->halted().ok()) continue;
    std::cerr << "ragmeter: the judge stopped before the run ended (" << client->halted().message()
              << "): what was scored is written, the judged metrics failed (exit code 4)\n";
    return kExitUnavailable;
  }
  if (!thresholds_met(summary, eval.thresholds)) return kExitBelowThreshold;
  bool partial = summary.rows_rejected > 0 || any_failed(summary);
  if (partial && !allow_failures) {
    std::cerr << "ragmeter: the run completed with rejected rows or failed scores (exit code 3; "
                 "--allow-failures makes this 0)\n";
    return kExitPartial;
  }
  return kExitOk;
}

void add_eval_flags(CLI::App* cmd, EvalFlags* flags, bool run) {
  std::string groups;
  for (const MetricGroup& group : metric_group_list()) {
    groups += (groups.empty() ? "'" : ", '") + std::string(group.name) + "' (" +
              std::string(group.description) + ")";
  }
  cmd->add_option(run ? "--eval" : "--metrics,-m", flags->metrics,
                  "Comma-separated metric names (`ragmeter metrics` lists them), with @k for "
                  "cutoffs (ndcg@10), or a group: " + groups + ". Default: all (with the offline "
                  "judge, all but the metrics that need an LLM and the metrics withdrawn from it, "
                  "see --offline-score-withdrawn)")
      ->capture_default_str()
      ->each([flags](const std::string&) { flags->metrics_given = true; });
  cmd->add_option("--critic", flags->critics,
                  "A user-defined aspect critic NAME=DEFINITION (1 when the response meets it); "
                  "needs an LLM judge; repeatable");
  cmd->add_flag("--offline-score-withdrawn", flags->offline_score_withdrawn,
                "Let the offline judge score the metrics withdrawn from it (they did not beat "
                "chance on held-out human labels, or were not measured: docs/judges.md); by "
                "default they are skipped with that reason");
  cmd->add_option("--deepeval-tool-params", flags->deepeval_tool_params,
                  "What DeepEval's tool correctness compares besides the tool's name: "
                  "input_parameters, output, or both comma-separated (its evaluation_params; "
                  "default: the name only, as DeepEval)")
      ->delimiter(',');
  cmd->add_option("--critic-votes", flags->critic_votes,
                  "Judgements per aspect critic verdict, majority wins (odd)")
      ->capture_default_str();
  cmd->add_option("--column-map", flags->column_mappings,
                  "Rename a column: COLUMN=FIELD (e.g. query=user_input; a nested field by its "
                  "dotted path, meta.question=user_input); repeatable. A column no row has is "
                  "an error");
  cmd->add_option("--language", flags->language,
                  "The language of every sample, an ISO 639-1 code (zh, ja, de, ...), over a "
                  "`language` column; default auto: each row's column, else detected from its "
                  "text (docs/languages.md)");
  cmd->add_option("--threads,-j", flags->threads, "CPU threads for scoring")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--fail-under", flags->fail_under,
                  "METRIC=VALUE: exit with code 1 when the mean of METRIC (higher is better) is "
                  "below VALUE, or when no sample was scored for it; repeatable");
  cmd->add_option("--fail-over", flags->fail_over,
                  "METRIC=VALUE: exit with code 1 when the mean of METRIC (lower is better, e.g. "
                  "ragchecker_hallucination) is above VALUE, or when no sample was scored for it; "
                  "repeatable");
  cmd->add_option("--repeat", flags->repeat,
                  "Judge each (sample, judged metric) N times, at --repeat-temperature with seeds "
                  "1..N (each repeat cached apart): the rows get each repeat's score and their "
                  "spread, the summary the judge's share of the variance. The offline judge is "
                  "deterministic and judges once")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--repeat-temperature", flags->repeat_temperature,
                  "Sampling temperature of the repeats (at 0 a seed changes nothing on most "
                  "servers)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 2.0));
  cmd->add_option("--pass-k", flags->pass_k,
                  "How --fail-under/--fail-over read a repeated sample: mean (of its repeats), "
                  "all (pass^k: its worst repeat, so a sample passes only when every repeat "
                  "does) or any (pass@k: its best repeat); docs/output.md")
      ->capture_default_str()
      ->check(CLI::IsMember({"mean", "all", "any"}));
  add_judge_flags(cmd, &flags->judge_flags, run,
                  "Judge of the judged metrics: offline (the default: no model, no network) or "
                  "openai (any OpenAI-compatible server: --judge-url, --judge-model)",
                  "Embeddings for semantic similarity and answer_relevancy: auto (default: the "
                  "local models that are installed, multilingual-e5-small for text that is not "
                  "English, else offline), offline (bag of stems), local (all-MiniLM-L6-v2 "
                  "in-process), local-multilingual (multilingual-e5-small in-process) or openai");
  cmd->add_option("--judge-context-tokens", flags->judge_context_tokens,
                  "The judge model's context window; verdict calls that would not fit are split "
                  "(premise pieces x claim groups), never truncated. 0: unknown, no splitting")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--plan", flags->plan,
                  "compact (default: one claim ledger per sample, shared by every metric) or "
                  "ragas (ragas's call structure, one set of calls per metric, for comparison)")
      ->check(CLI::IsMember({"compact", "ragas"}));
  cmd->add_option("--traces", flags->traces,
                  "Write every judge call (request, raw reply, attempts, error) as JSON lines; "
                  "the evidence's judge_calls name them by cache_key");
  cmd->add_option("--seed", flags->seed, "Seed of the bootstrap confidence intervals")
      ->capture_default_str();
  cmd->add_option("--bootstrap-resamples", flags->bootstrap_resamples, "Bootstrap resamples for the 95% CI")
      ->capture_default_str()
      ->check(CLI::Range(0, 1000000));
  cmd->add_flag("--rouge-stem", flags->rouge_stem, "ROUGE with the Porter stemmer (rouge-score's use_stemmer)");
  cmd->add_option("--rouge-tokenizer", flags->rouge_tokenizer,
                  "default (rouge-score: ASCII only) or unicode (every script)")
      ->check(CLI::IsMember({"default", "unicode"}));
  cmd->add_option("--bleu-smoothing", flags->bleu_smoothing, "exp (sacreBLEU default), floor, add-k, none")
      ->check(CLI::IsMember({"exp", "floor", "add-k", "none"}));
  cmd->add_option("--bleu-tokenize", flags->bleu_tokenize,
                  "sacreBLEU's tokenizer: 13a (default; a CJK sentence stays one token), zh, "
                  "ja-mecab, ko-mecab, intl, char or none (docs/languages.md)")
      ->check(CLI::IsMember({"13a", "none", "zh", "intl", "char", "ja-mecab", "ko-mecab"}));
  cmd->add_option("--context-match-threshold", flags->context_match_threshold,
                  "Levenshtein similarity at which a retrieved text matches a reference context")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--media-root", flags->media_root,
                  "Image contexts given as file paths are read from under DIR only (none without "
                  "it; docs/images.md)");
  cmd->add_flag("--allow-media-urls", flags->allow_media_urls,
                "Fetch image contexts given as http(s) URLs (public addresses only, checked after "
                "DNS and on every redirect)");
  cmd->add_option("--allow-media-network", flags->media_networks,
                  "A network (CIDR or address) images may also be fetched from, e.g. an intranet "
                  "image server (repeatable)");
  cmd->add_option("--max-image-bytes", flags->max_image_bytes,
                  "The largest image read, from any source")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 30));
  add_ocr_flags(cmd, &flags->ocr_language, &flags->ocr_cache, "the sample's language");
  cmd->add_option("--judge-images", flags->judge_images,
                  "How an LLM judge reads image contexts: vision (sent to the model as image_url "
                  "parts) or ocr (their text, judged as text)")
      ->capture_default_str()
      ->check(CLI::IsMember({"vision", "ocr"}));
  cmd->add_option("--judge-image-detail", flags->judge_image_detail,
                  "The image_url detail sent to a vision judge: low, high, auto or none")
      ->capture_default_str()
      ->check(CLI::IsMember({"low", "high", "auto", "none"}));
  cmd->add_option("--judge-max-images", flags->judge_max_images,
                  "Images the judge server takes in one request (a call that needs more fails)")
      ->capture_default_str()
      ->check(CLI::Range(1, 10000));
  cmd->add_option("--judge-max-image-bytes", flags->judge_max_image_bytes,
                  "Bytes of one image the judge server takes (a larger one fails its metric)")
      ->capture_default_str();
}

void add_ocr_flags(CLI::App* cmd, std::string* language, std::string* cache,
                   std::string_view default_language) {
  cmd->add_option("--ocr-language", *language,
                  "Tesseract language(s) for the text in images, e.g. eng or deu+eng (default: " +
                      std::string(default_language) + ")");
  cmd->add_option("--ocr-cache", *cache,
                  "SQLite file of OCR results (default ~/.cache/ragmeter/ocr.sqlite; follows "
                  "--cache-mode)");
}

}  // namespace ragmeter::cli
