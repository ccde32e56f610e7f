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
#include "ragmeter/eval_spec.h"
#include "ragmeter/evaluate.h"
#include "ragmeter/gates.h"
#include "ragmeter/llm.h"
#include "ragmeter/ocr.h"
#include "ragmeter/results.h"

namespace ragmeter::cli {

// The evaluation's flags: the library's EvalSpec (eval_spec.h), which the flags fill field
// for field and the library checks, and what only the command line has.
struct EvalFlags : EvalSpec {
  EvalFlags() { threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }
  std::vector<std::string> column_mappings;  // --column-map COLUMN=FIELD, into column_map
  JudgeFlags judge_flags;  // --judge, --judge-url, ... (judge_flags.h), into judge
  int judge_context_tokens = 0;
  std::string plan = "compact";
  std::string traces;
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
// The spec the flags give: EvalSpec's fields, the column renames and the judge's
// settings (judge_flags.h: flags over the config file over the environment).
StatusOr<EvalSpec> eval_spec(const EvalFlags& flags, bool keep_evidence);

// Everything an evaluation needs: options with their judge (LLM-only metrics dropped
// when the offline judge runs the default metric list; threads raised to keep the
// judge's concurrency busy) and the --fail-under thresholds, read by --pass-k, whose
// values are the pass marks of repeated metrics (EvalOptions::pass_marks). With --repeat
// N > 1 and a deterministic judge, says on standard error that each sample is judged
// once. Errors are usage errors.
StatusOr<PreparedEval> prepare_eval(const EvalFlags& flags, bool keep_evidence);

// Writes --traces and the summary file (when the paths are not empty) and, unless quiet,
// prints the table and the judge's usage. `source` names the scored dataset. Returns the
// exit code so far, or the error of a file that could not be written: kExitOk, kExitInterrupted
// (summary.cancelled: thresholds are not checked), kExitUnavailable (a judge client halted:
// never reached, its key refused, its budget spent), kExitBelowThreshold or kExitPartial
// (rejected rows or failed scores, unless allow_failures).
// `report_path` (not empty): also writes the HTML report of the run from `report_rows`,
// the rows as the objects --out writes as lines (make_json_rows_collector); they are
// moved from. A path "-" is standard output. `text_out`:
// where the table and the judge's lines go (null: standard output).
CommandOutcome report_eval(const EvalFlags& flags, const PreparedEval& eval,
                           const EvalSummary& summary, const std::string& source,
                           const std::string& summary_path, bool quiet, bool allow_failures,
                           const std::string& report_path = {},
                           std::vector<nlohmann::ordered_json>* report_rows = nullptr,
                           std::ostream* text_out = nullptr);

}  // namespace ragmeter::cli
