// One evaluation as a value, checked once (eval_spec.h).
#include "ragmeter/eval_spec.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <thread>

#include "ragmeter/bleu.h"
#include "ragmeter/language.h"
#include "ragmeter/ocr.h"
#include "ragmeter/sample.h"

namespace ragmeter {
namespace {

// The flags whose name is not the field's with dashes.
const std::map<std::string_view, std::string_view>& flag_exceptions() {
  static const std::map<std::string_view, std::string_view> names = {
      {"critics", "--critic"},
      {"media_networks", "--allow-media-network"},
      {"metrics", "--metrics"},
  };
  return names;
}

Status add_critics(const EvalSpec& spec, SpecNaming naming, EvalOptions* options) {
  for (const auto& text : spec.critics) {
    RAGMETER_ASSIGN_OR_RETURN(MetricRequest critic, parse_critic(text));
    bool taken = std::any_of(options->metrics.begin(), options->metrics.end(),
                             [&](const MetricRequest& r) { return r.name == critic.name; });
    if (taken) return invalid_argument(spec_field_name("critics", naming) + " " + critic.name + " is given twice");
    options->metrics.push_back(std::move(critic));
  }
  if (spec.critic_votes < 1 || spec.critic_votes % 2 == 0) {
    return invalid_argument(spec_field_name("critic_votes", naming) +
                            " must be odd (1, 3, 5, ...) so a majority exists");
  }
  options->scoring.critic_votes = spec.critic_votes;
  return ok_status();
}

Status set_deepeval_tool_params(const EvalSpec& spec, SpecNaming naming, ScoringOptions* scoring) {
  for (const std::string& param : spec.deepeval_tool_params) {
    if (param == "input_parameters") {
      scoring->deepeval_tools.input_parameters = true;
    } else if (param == "output") {
      scoring->deepeval_tools.output = true;
    } else {
      return invalid_argument(spec_field_name("deepeval_tool_params", naming) + ": '" + param +
                              "' is not one of input_parameters, output");
    }
  }
  return ok_status();
}

template <typename T>
StatusOr<T> named_choice(const std::map<std::string, T>& choices, const std::string& value,
                         std::string_view field, SpecNaming naming) {
  if (auto it = choices.find(value); it != choices.end()) return it->second;
  std::string known;
  for (const auto& [name, unused] : choices) known += (known.empty() ? "" : ", ") + name;
  return invalid_argument(spec_field_name(field, naming) + ": '" + value + "' is not one of " + known);
}

Status set_text_scoring(const EvalSpec& spec, SpecNaming naming, ScoringOptions* scoring) {
  scoring->rouge.use_stemmer = spec.rouge_stem;
  RAGMETER_ASSIGN_OR_RETURN(scoring->rouge.tokenizer,
                            named_choice<RougeTokenizer>({{"default", RougeTokenizer::kDefault},
                                                          {"unicode", RougeTokenizer::kUnicode}},
                                                         spec.rouge_tokenizer, "rouge_tokenizer", naming));
  RAGMETER_ASSIGN_OR_RETURN(scoring->bleu.smoothing,
                            named_choice<BleuSmoothing>({{"exp", BleuSmoothing::kExp},
                                                         {"floor", BleuSmoothing::kFloor},
                                                         {"add-k", BleuSmoothing::kAddK},
                                                         {"none", BleuSmoothing::kNone}},
                                                        spec.bleu_smoothing, "bleu_smoothing", naming));
  auto tokenizer = parse_bleu_tokenizer(spec.bleu_tokenize);
  if (!tokenizer.ok()) {
    return invalid_argument(spec_field_name("bleu_tokenize", naming) + ": " + tokenizer.status().message());
  }
  scoring->bleu.tokenizer = *tokenizer;
  // ja-mecab and ko-mecab need MeCab's dictionary: a missing one is an error now, not a
  // `failed` on every row.
  RAGMETER_RETURN_IF_ERROR(prepare_bleu_tokenizer(scoring->bleu.tokenizer));
  if (!(spec.context_match_threshold >= 0.0 && spec.context_match_threshold <= 1.0)) {
    return invalid_argument(spec_field_name("context_match_threshold", naming) + " must be within 0..1");
  }
  scoring->context_match_threshold = spec.context_match_threshold;
  return ok_status();
}

Status check_counts(const EvalSpec& spec, SpecNaming naming) {
  auto bad = [&](std::string_view field, const char* rule) {
    return invalid_argument(spec_field_name(field, naming) + " " + rule);
  };
  if (spec.threads < 0) return bad("threads", "must not be negative (0: one per core)");
  if (spec.limit < 0) return bad("limit", "must not be negative");
  if (spec.bootstrap_resamples < 0) return bad("bootstrap_resamples", "must not be negative");
  if (spec.repeat < 1) return bad("repeat", "must be at least 1");
  if (!(spec.repeat_temperature >= 0.0 && spec.repeat_temperature <= 2.0)) {
    return bad("repeat_temperature", "must be within 0..2");
  }
  return ok_status();
}

// Where images may be read from, and how their text is read (docs/images.md).
Status set_media(const EvalSpec& spec, SpecNaming naming, EvalOptions* options) {
  options->media.media_root = spec.media_root;
  options->media.allow_urls = spec.allow_media_urls;
  options->media.allowed_networks = spec.media_networks;
  options->media.max_bytes = spec.max_image_bytes;
  if (!spec.media_root.empty() && !std::filesystem::is_directory(spec.media_root)) {
    return invalid_argument(spec_field_name("media_root", naming) + " '" + spec.media_root +
                            "' is not a directory");
  }
  RAGMETER_RETURN_IF_ERROR(address_in_networks("::1", spec.media_networks).status());
  OcrOptions ocr;
  ocr.language = spec.ocr_language;
  ocr.cache.path = spec.ocr_cache;
  ocr.cache.mode = spec.judge.cache_mode.value_or(llm::CacheMode::kReadWrite);
  options->ocr = make_tesseract_reader(ocr);
  return ok_status();
}

Status set_language(const EvalSpec& spec, SpecNaming naming, EvalOptions* options) {
  if (spec.language != "auto") options->language = spec.language;
  if (!options->language.empty() && !is_supported_language(options->language)) {
    return invalid_argument(unknown_language_message(options->language, spec_field_name("language", naming)));
  }
  return ok_status();
}

Status add_gates(const std::vector<std::string>& texts, GateBound bound, std::string_view field,
                 SpecNaming naming, const std::vector<MetricRequest>& metrics, std::vector<ThresholdGate>* gates) {
  const std::string name = spec_field_name(field, naming);
  for (const auto& text : texts) {
    RAGMETER_ASSIGN_OR_RETURN(auto parsed, parse_metric_value(text, name));
    ThresholdGate gate{parsed.first, parsed.second, bound};
    auto request = std::find_if(metrics.begin(), metrics.end(),
                                [&](const MetricRequest& r) { return r.name == gate.metric; });
    if (request == metrics.end()) {
      return invalid_argument(name + ": metric '" + gate.metric + "' is not among " +
                              spec_field_name("metrics", naming));
    }
    RAGMETER_RETURN_IF_ERROR(check_gate_fits(gate, *request));
    std::erase_if(*gates, [&](const ThresholdGate& g) { return g.metric == gate.metric; });
    gates->push_back(std::move(gate));
  }
  return ok_status();
}

}  // namespace

std::string spec_field_name(std::string_view field, SpecNaming naming) {
  if (naming == SpecNaming::kKeywords) return std::string(field);
  if (auto it = flag_exceptions().find(field); it != flag_exceptions().end()) return std::string(it->second);
  std::string flag = "--" + std::string(field);
  std::replace(flag.begin(), flag.end(), '_', '-');
  return flag;
}

StatusOr<EvalOptions> make_eval_options(const EvalSpec& spec, SpecNaming naming) {
  EvalOptions options;
  RAGMETER_ASSIGN_OR_RETURN(options.metrics, parse_metric_list(spec.metrics));
  RAGMETER_RETURN_IF_ERROR(add_critics(spec, naming, &options));
  RAGMETER_RETURN_IF_ERROR(set_deepeval_tool_params(spec, naming, &options.scoring));
  RAGMETER_RETURN_IF_ERROR(check_counts(spec, naming));
  options.column_map = spec.column_map;
  RAGMETER_RETURN_IF_ERROR(set_text_scoring(spec, naming, &options.scoring));
  RAGMETER_RETURN_IF_ERROR(set_language(spec, naming, &options));
  options.threads = spec.threads > 0 ? spec.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  options.limit = spec.limit;
  options.strict = spec.strict;
  options.keep_evidence = spec.keep_evidence;
  options.bootstrap.seed = spec.seed;
  options.bootstrap.resamples = spec.bootstrap_resamples;
  options.offline_score_withdrawn = spec.offline_score_withdrawn;
  options.repeat = spec.repeat;
  options.repeat_temperature = spec.repeat_temperature;
  RAGMETER_RETURN_IF_ERROR(set_media(spec, naming, &options));
  return options;
}

StatusOr<std::vector<ThresholdGate>> make_thresholds(const EvalSpec& spec, const std::vector<MetricRequest>& metrics,
                                                     SpecNaming naming) {
  std::vector<ThresholdGate> gates;
  RAGMETER_RETURN_IF_ERROR(add_gates(spec.fail_under, GateBound::kAtLeast, "fail_under", naming, metrics, &gates));
  RAGMETER_RETURN_IF_ERROR(add_gates(spec.fail_over, GateBound::kAtMost, "fail_over", naming, metrics, &gates));
  RAGMETER_ASSIGN_OR_RETURN(const PassK pass_k, parse_pass_k(spec.pass_k));
  for (ThresholdGate& gate : gates) gate.pass_k = pass_k;
  return gates;
}

StatusOr<PreparedEval> prepare_eval(const EvalSpec& spec, EvalOptions options, const ConfiguredJudge& judge,
                                    SpecNaming naming) {
  PreparedEval eval;
  eval.options = std::move(options);
  eval.judge = judge;
  // The default metric list without the LLM-only metrics for the offline judge; enough
  // scoring threads to keep the judge's requests busy for an LLM judge.
  apply_judge(eval.judge, spec.metrics_given, &eval.options);
  RAGMETER_ASSIGN_OR_RETURN(eval.thresholds, make_thresholds(spec, eval.options.metrics, naming));
  for (const ThresholdGate& gate : eval.thresholds) eval.options.pass_marks[gate.metric] = gate.value;
  return eval;
}

StatusOr<PreparedEval> prepare_eval(const EvalSpec& spec, const ConfiguredJudge& judge, SpecNaming naming) {
  RAGMETER_ASSIGN_OR_RETURN(EvalOptions options, make_eval_options(spec, naming));
  return prepare_eval(spec, std::move(options), judge, naming);
}

StatusOr<PreparedEval> prepare_eval(const EvalSpec& spec, SpecNaming naming) {
  // The options first: a bad option is reported before a judge's model is loaded.
  RAGMETER_ASSIGN_OR_RETURN(EvalOptions options, make_eval_options(spec, naming));
  auto judge = make_judge(spec.judge);
  if (!judge.ok()) return Status(judge.status().code(), "judge: " + judge.status().message());
  return prepare_eval(spec, std::move(options), *judge, naming);
}

}  // namespace ragmeter
