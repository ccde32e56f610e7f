// One evaluation as a value. `ragmeter eval`'s flags (and `run --eval`'s), the keywords of
// the Python package's ragmeter.evaluate and the arguments of its Ray path all fill this
// one struct; the library alone checks it and turns it into EvalOptions, the judge and the
// CI gates. The defaults are stated here once.
//
//   EvalSpec spec;
//   spec.metrics = "faithfulness,token_f1";
//   spec.metrics_given = true;
//   spec.judge.url = "http://127.0.0.1:8080/v1";  // JudgeOptions (judge_factory.h)
//   spec.judge.model = "qwen2.5";
//   spec.fail_under = {"faithfulness=0.8"};
//   StatusOr<PreparedEval> eval = prepare_eval(spec);
//   ... evaluate(reader, eval->options, sink) ...; thresholds_met(summary, eval->thresholds)
//
// From Python the spec arrives as a dict of these field names (eval_spec_from_json), not
// as strings for C++ to parse again.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ragmeter/evaluate.h"
#include "ragmeter/gates.h"
#include "ragmeter/image.h"
#include "ragmeter/judge_factory.h"
#include "ragmeter/llm_judge.h"
#include "ragmeter/status.h"

namespace ragmeter {

struct EvalSpec {
  // Metric names (`ragmeter metrics`), with @k cutoffs, or groups ("ragas", "all").
  std::string metrics = "all";
  // False: the default list, from which the offline judge leaves out what only an LLM
  // scores (apply_judge).
  bool metrics_given = false;
  std::vector<std::string> critics;  // aspect critics, "NAME=DEFINITION"
  int critic_votes = 1;              // judgements per critic verdict, odd
  // What DeepEval's tool correctness compares besides the name: "input_parameters",
  // "output".
  std::vector<std::string> deepeval_tool_params;
  std::map<std::string, std::string> column_map;  // user column -> sample field
  // Every sample's language (ISO 639-1); empty or "auto": each row's column, else detected.
  std::string language;
  int threads = 0;          // CPU threads scoring; 0: one per core
  std::int64_t limit = 0;   // rows scored at most; 0: all
  bool strict = false;      // stop at the first rejected row
  std::uint64_t seed = 42;  // of the bootstrap intervals
  int bootstrap_resamples = 1000;
  bool rouge_stem = false;
  std::string rouge_tokenizer = "default";  // or "unicode"
  std::string bleu_smoothing = "exp";       // "floor", "add-k", "none"
  std::string bleu_tokenize = "13a";        // sacreBLEU's tokenizers (bleu.h)
  double context_match_threshold = 0.5;
  bool keep_evidence = true;
  bool offline_score_withdrawn = false;
  int repeat = 1;                   // EvalOptions::repeat
  double repeat_temperature = 0.7;  // EvalOptions::repeat_temperature
  // CI gates: "METRIC=VALUE", a minimum of a higher-is-better metric (fail_under) or a
  // maximum of a lower-is-better one (fail_over); how a repeated sample is read
  // ("mean", "all": pass^k, "any": pass@k).
  std::vector<std::string> fail_under, fail_over;
  std::string pass_k = "mean";
  // Images among the contexts (docs/images.md).
  std::string media_root;
  bool allow_media_urls = false;
  std::vector<std::string> media_networks;  // CIDR networks images may also come from
  std::size_t max_image_bytes = MediaOptions{}.max_bytes;
  std::string ocr_language;  // Tesseract's; empty: the sample's language
  std::string ocr_cache;     // SQLite file of OCR results; empty: the default
  // The judge and embedder (its cache mode also governs the OCR cache).
  JudgeOptions judge;
};

// How messages name a field of the spec: as the CLI's flag ("--critic-votes") or as the
// Python keyword ("critic_votes").
enum class SpecNaming { kFlags, kKeywords };
std::string spec_field_name(std::string_view field, SpecNaming naming);

// The options the spec asks for, without the judge (apply_judge, or prepare_eval, adds
// it). InvalidArgument naming the field for a value out of range or unknown (a metric,
// a language, a tokenizer, a column mapping); FailedPrecondition when a tokenizer's
// dictionary is missing (MeCab). Reads no row.
StatusOr<EvalOptions> make_eval_options(const EvalSpec& spec, SpecNaming naming = SpecNaming::kFlags);

// The spec's gates (fail_under, fail_over, pass_k) against `metrics` (EvalOptions::
// metrics): each names a metric of the run and fits its range and direction (gates.h).
StatusOr<std::vector<ThresholdGate>> make_thresholds(const EvalSpec& spec,
                                                     const std::vector<MetricRequest>& metrics,
                                                     SpecNaming naming = SpecNaming::kFlags);

// Everything a run needs: the options with the judge applied (the default metric list
// for the offline judge, threads for the judge's concurrency), the judge, the gates (and
// their marks in options.pass_marks for flaky repeats).
struct PreparedEval {
  EvalOptions options;
  ConfiguredJudge judge;  // options.judge is judge.judge
  std::vector<ThresholdGate> thresholds;
};
// The judge's errors keep their code, their message prefixed "judge: ".
StatusOr<PreparedEval> prepare_eval(const EvalSpec& spec, SpecNaming naming = SpecNaming::kFlags);
// The same from the options make_eval_options(spec) gave, with a judge made already
// (a caller that checks the options before making the judge does not make them twice).
StatusOr<PreparedEval> prepare_eval(const EvalSpec& spec, EvalOptions options, const ConfiguredJudge& judge,
                                    SpecNaming naming = SpecNaming::kFlags);
// The same with a judge made already (one judge shared by many runs: Ray's workers).
StatusOr<PreparedEval> prepare_eval(const EvalSpec& spec, const ConfiguredJudge& judge,
                                    SpecNaming naming = SpecNaming::kFlags);

// What a run of the spec over `reader` would ask of the judge, sending nothing (`eval
// --dry-run`, ragmeter.plan): the rows read and rejected, the judge calls and tokens of
// the judge's plan, compact or ragas (PlannedCalls, llm_judge.h; each repeat makes a
// sample's calls again)
// and, when the price of the model is known, their cost. Nothing is planned for the
// offline judge, and only the embeddings calls for the offline judge with an embeddings
// server. The errors of make_eval_options and of the judge's settings.
struct EvalPlan {
  std::int64_t rows = 0, rejected = 0;
  std::size_t metrics = 0;
  bool llm_judge = false;       // an LLM judge: `calls` are its calls
  bool embedder_only = false;   // the offline judge with an embeddings server
  llm::JudgeSettings settings;  // what the judge options resolved to
  PlannedCalls calls;
  std::optional<double> cost_usd;  // unknown price: none (a local model costs 0)
};
StatusOr<EvalPlan> plan_eval(const EvalSpec& spec, RowReader& reader, SpecNaming naming = SpecNaming::kFlags);

// The spec from a JSON object of its field names (the judge as an object of JudgeOptions'
// field names: "url", "model", "key_env", "cache_path", "cache_mode", "timeout_seconds",
// ...). A field left out keeps its default; an unknown field or a value of the wrong type
// is InvalidArgument naming it.
StatusOr<EvalSpec> eval_spec_from_json(const nlohmann::json& fields);
StatusOr<JudgeOptions> judge_options_from_json(const nlohmann::json& fields);

}  // namespace ragmeter
