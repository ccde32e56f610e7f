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

#include "judge_flags.h"
#include "ragmeter/evaluate.h"
#include "ragmeter/gates.h"
#include "ragmeter/llm.h"
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
};

// Registers the flags on `cmd`. `run` (for `ragmeter run`): the metrics flag is --eval and
// the judge's --concurrency and --timeout are --judge-concurrency and --judge-timeout,
// since run's own flags of those names are the target's.
void add_eval_flags(CLI::App* cmd, EvalFlags* flags, bool run);

// The options the flags describe, without the judge. `keep_evidence`: whether results
// keep their evidence (only a JSONL --out writes it).
StatusOr<EvalOptions> build_eval_options(const EvalFlags& flags, bool keep_evidence);

// Makes the judge the flags ask for (judge_factory.h): a null judge for the offline one.
StatusOr<ConfiguredJudge> make_judge(const EvalFlags& flags);

// Everything an evaluation needs: options with their judge (LLM-only metrics dropped
// when the offline judge runs the default metric list; threads raised to keep the
// judge's concurrency busy) and the --fail-under thresholds. Errors are usage errors.
struct PreparedEval {
  EvalOptions options;
  ConfiguredJudge judge;  // options.judge is judge.judge
  std::vector<ThresholdGate> thresholds;  // --fail-under and --fail-over (gates.h)
};
StatusOr<PreparedEval> prepare_eval(const EvalFlags& flags, bool keep_evidence);

// Writes --traces and the summary file (when the paths are not empty) and, unless quiet,
// prints the table and the judge's usage. `source` names the scored dataset. Returns the
// exit code so far: kExitOk, kExitUsage (a file could not be written), kExitInterrupted
// (summary.cancelled: thresholds are not checked), kExitBelowThreshold or kExitPartial
// (rejected rows or failed scores, unless allow_failures).
// `report_path` (not empty): also writes the HTML report of the run from `report_rows`,
// the rows as the JSONL --out writes them. A path "-" is standard output. `text_out`:
// where the table and the judge's lines go (null: standard output).
int report_eval(const EvalFlags& flags, const PreparedEval& eval, const EvalSummary& summary,
                const std::string& source, const std::string& summary_path, bool quiet,
                bool allow_failures, const std::string& report_path = {},
                std::istream* report_rows = nullptr, std::ostream* text_out = nullptr);

}  // namespace ragmeter::cli
