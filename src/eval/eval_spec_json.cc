// EvalSpec and JudgeOptions from JSON objects of their field names (eval_spec.h): how the
// Python package hands an evaluation to the library, field for field.
#include <functional>
#include <map>

#include "ragmeter/eval_spec.h"

namespace ragmeter {
namespace {

using Json = nlohmann::json;

const char* type_name(const Json& value) { return value.type_name(); }

Status wrong_type(const std::string& path, const char* expected, const Json& value) {
  return invalid_argument("evaluation field '" + path + "': expected " + expected + ", got " + type_name(value));
}

Status read(const std::string& path, const Json& value, std::string* out) {
  if (!value.is_string()) return wrong_type(path, "a string", value);
  *out = value.get<std::string>();
  return ok_status();
}

Status read(const std::string& path, const Json& value, bool* out) {
  if (!value.is_boolean()) return wrong_type(path, "true or false", value);
  *out = value.get<bool>();
  return ok_status();
}

template <typename Integer>
  requires std::is_integral_v<Integer>
Status read(const std::string& path, const Json& value, Integer* out) {
  if (!value.is_number_integer()) return wrong_type(path, "a whole number", value);
  if (std::is_unsigned_v<Integer> && !value.is_number_unsigned() && value.get<std::int64_t>() < 0) {
    return invalid_argument("evaluation field '" + path + "': must not be negative");
  }
  *out = value.get<Integer>();
  return ok_status();
}

Status read(const std::string& path, const Json& value, double* out) {
  if (!value.is_number()) return wrong_type(path, "a number", value);
  *out = value.get<double>();
  return ok_status();
}

template <typename T>
Status read(const std::string& path, const Json& value, std::optional<T>* out) {
  if (value.is_null()) return ok_status();  // unset: the config file's, or the default
  T read_value{};
  RAGMETER_RETURN_IF_ERROR(read(path, value, &read_value));
  *out = read_value;
  return ok_status();
}

Status read(const std::string& path, const Json& value, std::vector<std::string>* out) {
  if (!value.is_array()) return wrong_type(path, "a list of strings", value);
  out->clear();
  for (const Json& item : value) {
    if (!item.is_string()) return wrong_type(path + "[]", "a string", item);
    out->push_back(item.get<std::string>());
  }
  return ok_status();
}

Status read(const std::string& path, const Json& value, std::map<std::string, std::string>* out) {
  if (!value.is_object()) return wrong_type(path, "an object of strings", value);
  out->clear();
  for (const auto& [key, item] : value.items()) {
    if (!item.is_string()) return wrong_type(path + "." + key, "a string", item);
    (*out)[key] = item.get<std::string>();
  }
  return ok_status();
}

Status read(const std::string& path, const Json& value, std::optional<llm::CacheMode>* out) {
  if (value.is_null()) return ok_status();
  if (!value.is_string()) return wrong_type(path, "a string", value);
  RAGMETER_ASSIGN_OR_RETURN(*out, llm::parse_cache_mode(value.get<std::string>()));
  return ok_status();
}

template <typename Target>
using FieldReader = std::function<Status(const std::string&, const Json&, Target*)>;

// A reader of the field at `member`.
template <typename Target, typename Member>
FieldReader<Target> field(Member Target::*member) {
  return [member](const std::string& path, const Json& value, Target* target) {
    return read(path, value, &(target->*member));
  };
}

template <typename Target>
Status read_fields(const Json& fields, const std::map<std::string, FieldReader<Target>>& readers,
                   const std::string& prefix, Target* target) {
  if (!fields.is_object()) return wrong_type(prefix.empty() ? "(the spec)" : prefix, "an object", fields);
  for (const auto& [key, value] : fields.items()) {
    auto reader = readers.find(key);
    if (reader == readers.end()) return invalid_argument("unknown evaluation field '" + prefix + key + "'");
    RAGMETER_RETURN_IF_ERROR(reader->second(prefix + key, value, target));
  }
  return ok_status();
}

const std::map<std::string, FieldReader<JudgeOptions>>& judge_readers() {
  static const std::map<std::string, FieldReader<JudgeOptions>> readers = {
      {"config_path", field(&JudgeOptions::config_path)},
      {"kind", field(&JudgeOptions::kind)},
      {"url", field(&JudgeOptions::url)},
      {"model", field(&JudgeOptions::model)},
      {"key_env", field(&JudgeOptions::key_env)},
      {"embedder", field(&JudgeOptions::embedder)},
      {"embedder_url", field(&JudgeOptions::embedder_url)},
      {"embedder_model", field(&JudgeOptions::embedder_model)},
      {"embedder_model_path", field(&JudgeOptions::embedder_model_path)},
      {"cache_path", field(&JudgeOptions::cache_path)},
      {"cache_mode", field(&JudgeOptions::cache_mode)},
      {"concurrency", field(&JudgeOptions::concurrency)},
      {"max_cost_usd", field(&JudgeOptions::max_cost_usd)},
      {"timeout_seconds", field(&JudgeOptions::timeout_seconds)},
      {"deadline_seconds", field(&JudgeOptions::deadline_seconds)},
      {"plan", field(&JudgeOptions::plan)},
      {"context_tokens", field(&JudgeOptions::context_tokens)},
      {"vision", field(&JudgeOptions::vision)},
      {"image_detail", field(&JudgeOptions::image_detail)},
      {"max_images_per_request", field(&JudgeOptions::max_images_per_request)},
      {"max_image_bytes", field(&JudgeOptions::max_image_bytes)},
      {"keep_traces", field(&JudgeOptions::keep_traces)},
  };
  return readers;
}

const std::map<std::string, FieldReader<EvalSpec>>& spec_readers() {
  static const std::map<std::string, FieldReader<EvalSpec>> readers = {
      {"metrics", field(&EvalSpec::metrics)},
      {"metrics_given", field(&EvalSpec::metrics_given)},
      {"critics", field(&EvalSpec::critics)},
      {"critic_votes", field(&EvalSpec::critic_votes)},
      {"deepeval_tool_params", field(&EvalSpec::deepeval_tool_params)},
      {"column_map", field(&EvalSpec::column_map)},
      {"language", field(&EvalSpec::language)},
      {"threads", field(&EvalSpec::threads)},
      {"limit", field(&EvalSpec::limit)},
      {"strict", field(&EvalSpec::strict)},
      {"seed", field(&EvalSpec::seed)},
      {"bootstrap_resamples", field(&EvalSpec::bootstrap_resamples)},
      {"rouge_stem", field(&EvalSpec::rouge_stem)},
      {"rouge_tokenizer", field(&EvalSpec::rouge_tokenizer)},
      {"bleu_smoothing", field(&EvalSpec::bleu_smoothing)},
      {"bleu_tokenize", field(&EvalSpec::bleu_tokenize)},
      {"context_match_threshold", field(&EvalSpec::context_match_threshold)},
      {"keep_evidence", field(&EvalSpec::keep_evidence)},
      {"offline_score_withdrawn", field(&EvalSpec::offline_score_withdrawn)},
      {"repeat", field(&EvalSpec::repeat)},
      {"repeat_temperature", field(&EvalSpec::repeat_temperature)},
      {"fail_under", field(&EvalSpec::fail_under)},
      {"fail_over", field(&EvalSpec::fail_over)},
      {"pass_k", field(&EvalSpec::pass_k)},
      {"media_root", field(&EvalSpec::media_root)},
      {"allow_media_urls", field(&EvalSpec::allow_media_urls)},
      {"media_networks", field(&EvalSpec::media_networks)},
      {"max_image_bytes", field(&EvalSpec::max_image_bytes)},
      {"ocr_language", field(&EvalSpec::ocr_language)},
      {"ocr_cache", field(&EvalSpec::ocr_cache)},
      {"judge", [](const std::string& path, const Json& value, EvalSpec* spec) {
         return read_fields(value, judge_readers(), path + ".", &spec->judge);
       }},
  };
  return readers;
}

}  // namespace

StatusOr<JudgeOptions> judge_options_from_json(const nlohmann::json& fields) {
  JudgeOptions options;
  RAGMETER_RETURN_IF_ERROR(read_fields(fields, judge_readers(), "judge.", &options));
  return options;
}

StatusOr<EvalSpec> eval_spec_from_json(const nlohmann::json& fields) {
  EvalSpec spec;
  RAGMETER_RETURN_IF_ERROR(read_fields(fields, spec_readers(), "", &spec));
  return spec;
}

}  // namespace ragmeter
