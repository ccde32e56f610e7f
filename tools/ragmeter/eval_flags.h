// The evaluation flags shared by `ragmeter eval` and `ragmeter run --eval`: metrics,
// critics, judge, scoring options, thresholds; and what both do with them (options,
// judge, the report after a run).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>

#include "exit_codes.h"
#include "judge_flags.h"
#include "ragmeter/evaluate.h"
#include "ragmeter/gates.h"
#include "ragmeter/llm.h"
#include "ragmeter/ocr.h"
#include "ragmeter/results.h"

namespace ragmeter::cli {

struct EvalFlags {
  std::string metrics = "all";
  bool metrics_given = false;
  std::vector<std::string> critics;
  int critic_votes = 1;
  // --deepeval-tool-params: what DeepEval's tool correctness compares besides the name.
  std::vector<std::string> deepeval_tool_params;
  std::vector<std::string> column_map;
  std::string language;  // --language: every sample's language; empty or "auto": detected
  int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::string> fail_under;  // higher-is-better metrics: fail when the mean is below
  std::vector<std::string> fail_over;   // lower-is-better metrics: fail when the mean is above
  JudgeFlags judge;  // --judge, --judge-url, ... (judge_flags.h)
  int judge_context_tokens = 0;
  std::string plan = "compact";
  std::string traces;
  std::uint64_t seed = 42;
  int resamples = 1000;
  bool rouge_stem = false;
  std::string rouge_tokenizer = "default";
  std::string bleu_smoothing = "exp";
  std::string bleu_tokenize = "13a";
  double context_match_threshold = 0.5;
  bool offline_score_withdrawn = false;  // --offline-score-withdrawn
  int repeat = 1;                        // --repeat N: judgements per (sample, judged metric)
  double repeat_temperature = 0.7;       // --repeat-temperature
  std::string pass_k = "mean";           // --pass-k mean|all|any: how gates read repeats
  // Images among the retrieved contexts (docs/images.md).
  std::string media_root;                  // --media-root
  bool allow_media_urls = false;           // --allow-media-urls
  std::vector<std::string> media_networks;  // --allow-media-network
  std::size_t max_image_bytes = MediaOptions{}.max_bytes;  // --max-image-bytes
  std::string ocr_language;                // --ocr-language
  std::string ocr_cache;                   // --ocr-cache
  std::string judge_images = "vision";     // --judge-images vision|ocr
  std::string judge_image_detail = "auto";  // --judge-image-detail
  int judge_max_images = 16;               // --judge-max-images
  std::size_t judge_max_image_bytes = 20 * 1024 * 1024;  // --judge-max-image-bytes
};

// Registers the flags on `cmd`. `run` (for `ragmeter run`): the metrics flag is --eval and
// the judge's --concurrency and --timeout are --judge-concurrency and --judge-timeout,
// since run's own flags of those names are the target's.
void add_eval_flags(CLI::App* cmd, EvalFlags* flags, bool run);

// Registers --ocr-language (its help naming `default_language`) and --ocr-cache.
void add_ocr_flags(CLI::App* cmd, std::string* language, std::string* cache,
                   std::string_view default_language);

// The Tesseract reader of a command's --ocr-language and --ocr-cache; its cache follows
// --cache-mode (eval, run --eval and gen's scanned PDF pages; docs/images.md).
std::shared_ptr<OcrReader> make_cli_ocr_reader(const std::string& language,
                                               const std::string& cache, const JudgeFlags& judge);

// The options the flags describe, without the judge. `keep_evidence`: whether results
// keep their evidence (only a JSONL --out writes it).
StatusOr<EvalOptions> build_eval_options(const EvalFlags& flags, bool keep_evidence);

// Makes the judge the flags ask for (judge_factory.h): a null judge for the offline one.
StatusOr<ConfiguredJudge> make_judge(const EvalFlags& flags);

// Everything an evaluation needs: options with their judge (LLM-only metrics dropped
// when the offline judge runs the default metric list; threads raised to keep the
// judge's concurrency busy) and the --fail-under thresholds, read by --pass-k, whose
// values are the pass marks of repeated metrics (EvalOptions::pass_marks). With --repeat
// N > 1 and a deterministic judge, says on standard error that each sample is judged
// once. Errors are usage errors.
struct PreparedEval {
  EvalOptions options;
  ConfiguredJudge judge;  // options.judge is judge.judge
  std::vector<ThresholdGate> thresholds;  // --fail-under and --fail-over (gates.h)
};
StatusOr<PreparedEval> prepare_eval(const EvalFlags& flags, bool keep_evidence);

// Writes --traces and the summary file (when the paths are not empty) and, unless quiet,
// prints the table and the judge's usage. `source` names the scored dataset. Returns the
// exit code so far, or the error of a file that could not be written: kExitOk, kExitInterrupted
// (summary.cancelled: thresholds are not checked), kExitBelowThreshold or kExitPartial
// (rejected rows or failed scores, unless allow_failures).
// `report_path` (not empty): also writes the HTML report of the run from `report_rows`,
// the rows as the JSONL --out writes them. A path "-" is standard output. `text_out`:
// where the table and the judge's lines go (null: standard output).
CommandOutcome report_eval(const EvalFlags& flags, const PreparedEval& eval,
                           const EvalSummary& summary, const std::string& source,
                           const std::string& summary_path, bool quiet, bool allow_failures,
                           const std::string& report_path = {},
                           std::istream* report_rows = nullptr,
                           std::ostream* text_out = nullptr);

}  // namespace ragmeter::cli
