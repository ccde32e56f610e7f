// Judge settings from a TOML file (toml++) and the environment.
//
// Every key of the file has one entry in kSetters below; an entry checks the value's
// type and range and stores it. Errors carry "FILE:LINE: KEY: what".
#include <toml++/toml.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "ragmeter/llm_config.h"

namespace ragmeter::llm {
namespace {

using Setter = std::function<Status(const toml::node&, JudgeSettings*)>;

Setter text(std::string JudgeSettings::*field) {
  return [field](const toml::node& node, JudgeSettings* settings) {
    std::optional<std::string> value = node.value_exact<std::string>();
    if (!value) return invalid_argument("expected a string");
    settings->*field = *value;
    return ok_status();
  };
}

Setter choice(std::string JudgeSettings::*field, std::vector<std::string> allowed) {
  return [field, allowed](const toml::node& node, JudgeSettings* settings) {
    std::optional<std::string> value = node.value_exact<std::string>();
    std::string names;
    for (const std::string& name : allowed) {
      if (value == name) {
        settings->*field = name;
        return ok_status();
      }
      names += (names.empty() ? "\"" : ", \"") + name + "\"";
    }
    return invalid_argument("expected one of " + names);
  };
}

Setter integer(int JudgeSettings::*field, int low, int high) {
  return [field, low, high](const toml::node& node, JudgeSettings* settings) {
    std::optional<std::int64_t> value = node.value_exact<std::int64_t>();
    if (!value || *value < low || *value > high) {
      return invalid_argument("expected an integer from " + std::to_string(low) + " to " +
                              std::to_string(high));
    }
    settings->*field = static_cast<int>(*value);
    return ok_status();
  };
}

// A number >= 0 (> 0 when `positive`); integers are accepted too.
Setter number(double JudgeSettings::*field, bool positive) {
  return [field, positive](const toml::node& node, JudgeSettings* settings) {
    std::optional<double> value;
    if (node.is_integer() || node.is_floating_point()) value = node.value<double>();
    if (!value || !(positive ? *value > 0 : *value >= 0)) {
      return invalid_argument(positive ? "expected a number above 0" : "expected a number >= 0");
    }
    settings->*field = *value;
    return ok_status();
  };
}

Status set_flavor(const toml::node& node, JudgeSettings* settings) {
  std::optional<std::string> value = node.value_exact<std::string>();
  if (value == "openai")
    settings->flavor = ApiFlavor::kOpenAI;
  else if (value == "azure")
    settings->flavor = ApiFlavor::kAzure;
  else
    return invalid_argument("expected \"openai\" or \"azure\"");
  return ok_status();
}

Status set_cache_mode(const toml::node& node, JudgeSettings* settings) {
  std::optional<std::string> value = node.value_exact<std::string>();
  if (!value) return invalid_argument("expected a string");
  RAGMETER_ASSIGN_OR_RETURN(settings->cache_mode, parse_cache_mode(*value));
  return ok_status();
}

Status set_key_env(const toml::node& node, JudgeSettings* settings) {
  std::optional<std::string> value = node.value_exact<std::string>();
  if (!value || !is_environment_variable_name(*value)) {
    return invalid_argument(
        "expected the name of an environment variable (e.g. OPENAI_API_KEY), "
        "not a key");
  }
  settings->judge_key_env = *value;
  return ok_status();
}

const std::map<std::string, Setter, std::less<>>& setters() {
  static const auto* table = new std::map<std::string, Setter, std::less<>>{
      {"judge", choice(&JudgeSettings::judge, {"offline", "openai"})},
      {"judge_url", text(&JudgeSettings::judge_url)},
      {"judge_model", text(&JudgeSettings::judge_model)},
      {"judge_key_env", set_key_env},
      {"embedder", choice(&JudgeSettings::embedder, {"auto", "offline", "local", "local-multilingual", "openai"})},
      {"embedder_model_path", text(&JudgeSettings::embedder_model_path)},
      {"embedder_url", text(&JudgeSettings::embedder_url)},
      {"embedder_model", text(&JudgeSettings::embedder_model)},
      {"flavor", set_flavor},
      {"api_version", text(&JudgeSettings::api_version)},
      {"concurrency", integer(&JudgeSettings::concurrency, 1, 4096)},
      {"timeout", number(&JudgeSettings::timeout_seconds, /*positive=*/true)},
      {"max_attempts", integer(&JudgeSettings::max_attempts, 1, 100)},
      {"deadline", number(&JudgeSettings::deadline_seconds, false)},
      {"rpm", number(&JudgeSettings::requests_per_minute, false)},
      {"tpm", number(&JudgeSettings::tokens_per_minute, false)},
      {"cache", text(&JudgeSettings::cache_path)},
      {"cache_mode", set_cache_mode},
      {"max_cost", number(&JudgeSettings::max_cost_usd, false)},
  };
  return *table;
}

std::string location(const std::string& file, const toml::source_region& source) {
  return file + ":" + std::to_string(source.begin.line);
}

Status error_at(const std::string& file, const toml::source_region& source, std::string_view key,
                const std::string& what) {
  return invalid_argument(location(file, source) + ": " + std::string(key) + ": " + what);
}

Status unknown_key(const std::string& file, const toml::key& key) {
  std::string name(key.str());
  bool looks_secret = name.find("key") != std::string::npos ||
                      name.find("secret") != std::string::npos ||
                      name.find("password") != std::string::npos;
  if (looks_secret) {
    return error_at(file, key.source(), name,
                    "keys are not read from config files: put the key in an environment "
                    "variable and name the variable with judge_key_env");
  }
  return error_at(file, key.source(), name, "unknown key (docs/judges.md lists the keys)");
}

StatusOr<double> price_field(const std::string& file, const toml::key& key,
                             const toml::node& node) {
  std::optional<double> value;
  if (node.is_integer() || node.is_floating_point()) value = node.value<double>();
  if (!value || *value < 0)
    return error_at(file, key.source(), key.str(), "expected a number >= 0");
  return *value;
}

// [prices."MODEL"] prompt = .., completion = .., cached_prompt = ..
StatusOr<ModelPrice> read_price(const std::string& file, const toml::key& model,
                                const toml::node& node) {
  const toml::table* table = node.as_table();
  if (table == nullptr) {
    return error_at(file, model.source(), model.str(),
                    "expected a table of prompt, completion, "
                    "cached_prompt");
  }
  ModelPrice price;
  std::optional<double> cached;
  for (auto&& [key, value] : *table) {
    RAGMETER_ASSIGN_OR_RETURN(double usd, price_field(file, key, value));
    if (key.str() == "prompt")
      price.prompt_per_million = usd;
    else if (key.str() == "completion")
      price.completion_per_million = usd;
    else if (key.str() == "cached_prompt")
      cached = usd;
    else
      return error_at(file, key.source(), key.str(), "unknown price field");
  }
  price.cached_prompt_per_million = cached.value_or(price.prompt_per_million);
  return price;
}

Status read_prices(const std::string& file, const toml::key& key, const toml::node& node,
                   JudgeSettings* settings) {
  const toml::table* models = node.as_table();
  if (models == nullptr)
    return error_at(file, key.source(), key.str(), "expected [prices.\"MODEL\"] tables");
  for (auto&& [model, price_node] : *models) {
    RAGMETER_ASSIGN_OR_RETURN(settings->prices[std::string(model.str())],
                              read_price(file, model, price_node));
  }
  return ok_status();
}

// "~/x" is $HOME/x; a relative path is relative to the config file's directory.
std::string resolve_cache_path(const std::string& path, const std::string& config_file) {
  const char* home = std::getenv("HOME");
  if (path.starts_with("~/") && home != nullptr) return std::string(home) + path.substr(1);
  std::filesystem::path resolved(path);
  if (resolved.is_absolute() || path.empty()) return path;
  return (std::filesystem::path(config_file).parent_path() / resolved).lexically_normal().string();
}

StatusOr<toml::table> parse_toml(std::string_view text, const std::string& path) {
  try {
    return toml::parse(text, path);
  } catch (const toml::parse_error& parse_error) {
    return invalid_argument(location(path, parse_error.source()) + ": " +
                            std::string(parse_error.description()));
  }
}

}  // namespace

StatusOr<JudgeSettings> load_judge_config(const std::string& toml_path) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(toml_path, error)) {
    return not_found("judge config " + toml_path + " does not exist or is not a file");
  }
  std::ifstream in(toml_path, std::ios::binary);
  if (!in) return not_found("cannot open judge config " + toml_path);
  std::ostringstream text;
  text << in.rdbuf();
  return parse_judge_config(text.str(), toml_path);
}

StatusOr<JudgeSettings> parse_judge_config(std::string_view toml_text,
                                           const std::string& toml_path) {
  RAGMETER_ASSIGN_OR_RETURN(toml::table root, parse_toml(toml_text, toml_path));
  JudgeSettings settings;
  for (auto&& [key, node] : root) {
    if (key.str() == "prices") {
      RAGMETER_RETURN_IF_ERROR(read_prices(toml_path, key, node, &settings));
      continue;
    }
    auto setter = setters().find(key.str());
    if (setter == setters().end()) return unknown_key(toml_path, key);
    Status status = setter->second(node, &settings);
    if (!status.ok()) return error_at(toml_path, node.source(), key.str(), status.message());
  }
  // A judge given by its URL or model is an OpenAI-compatible one.
  if (!root.contains("judge") && (root.contains("judge_url") || root.contains("judge_model"))) {
    settings.judge = "openai";
  }
  if (!root.contains("embedder") &&
      (root.contains("embedder_url") || root.contains("embedder_model"))) {
    settings.embedder = "openai";
  }
  settings.cache_path = resolve_cache_path(settings.cache_path, toml_path);
  settings.embedder_model_path = resolve_cache_path(settings.embedder_model_path, toml_path);
  return settings;
}

bool is_environment_variable_name(std::string_view name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
  for (char c : name) {
    bool ok =
        c == '_' || (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
    if (!ok) return false;
  }
  return true;
}

EnvLookup process_environment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
}

void apply_environment(JudgeSettings* settings, const EnvLookup& lookup) {
  auto get = [&lookup](const char* name) { return lookup(name).value_or(""); };
  std::string openai_url = get("OPENAI_BASE_URL");
  std::string azure_url = get("AZURE_OPENAI_ENDPOINT");
  if (settings->judge_url.empty()) {
    if (!openai_url.empty() && settings->flavor != ApiFlavor::kAzure) {
      settings->judge_url = openai_url;
    } else if (!azure_url.empty() && settings->flavor != ApiFlavor::kOpenAI) {
      settings->judge_url = azure_url;
      settings->flavor = ApiFlavor::kAzure;
    }
  }
  if (settings->api_version.empty()) settings->api_version = get("AZURE_OPENAI_API_VERSION");
}

namespace {

StatusOr<ClientOptions> client_options(const JudgeSettings& settings, const std::string& kind,
                                       const std::string& url, const std::string& model,
                                       const std::string& what) {
  if (kind == "offline" || kind == "auto" || kind == "local" || kind == "local-multilingual") {
    return failed_precondition("the " + what + " is " + kind + ": no client to make");
  }
  if (kind != "openai") {
    return invalid_argument("unknown " + what + " '" + kind + "' (expected " +
                            (what == "embedder" ? "auto, offline, local, local-multilingual" : "offline") + " or openai)");
  }
  if (url.empty()) {
    return invalid_argument("the " + what + " needs a URL: --" + what + "-url, " + what +
                            "_url in the config file, or OPENAI_BASE_URL");
  }
  if (model.empty()) {
    return invalid_argument("the " + what + " needs a model: --" + what + "-model or " + what +
                            "_model in the config file");
  }
  if (!is_environment_variable_name(settings.judge_key_env)) {
    // Never repeat the value: it is most likely the key itself.
    return invalid_argument(
        "the key's variable (--judge-key-env or judge_key_env) must be the name of an "
        "environment variable (e.g. OPENAI_API_KEY), not a key");
  }
  ClientOptions options;
  options.endpoint.base_url = url;
  options.endpoint.model = model;
  options.endpoint.api_key_env = settings.judge_key_env;
  options.endpoint.flavor = settings.flavor.value_or(ApiFlavor::kOpenAI);
  if (!settings.api_version.empty()) options.endpoint.azure_api_version = settings.api_version;
  options.endpoint.timeout_seconds = settings.timeout_seconds;
  options.retry.max_attempts = settings.max_attempts;
  // A call may always take one whole attempt: a --timeout longer than the deadline
  // (a slow local model) raises the deadline to it.
  options.retry.deadline_seconds =
      settings.deadline_seconds > 0 ? std::max(settings.deadline_seconds, settings.timeout_seconds)
                                    : 0.0;
  options.limits.max_in_flight = settings.concurrency;
  options.limits.requests_per_minute = settings.requests_per_minute;
  options.limits.tokens_per_minute = settings.tokens_per_minute;
  options.cache.path = settings.cache_path;
  options.cache.mode = settings.cache_mode;
  options.prices = settings.prices;
  options.max_cost_usd = settings.max_cost_usd;
  return options;
}

}  // namespace

StatusOr<ClientOptions> to_client_options(const JudgeSettings& settings) {
  return client_options(settings, settings.judge, settings.judge_url, settings.judge_model,
                        "judge");
}

StatusOr<ClientOptions> to_embedder_client_options(const JudgeSettings& settings) {
  const std::string& url =
      settings.embedder_url.empty() ? settings.judge_url : settings.embedder_url;
  return client_options(settings, settings.embedder, url, settings.embedder_model, "embedder");
}

StatusOr<CacheMode> parse_cache_mode(std::string_view name) {
  if (name == "rw") return CacheMode::kReadWrite;
  if (name == "ro") return CacheMode::kReadOnly;
  if (name == "off") return CacheMode::kOff;
  if (name == "replay") return CacheMode::kReplay;
  return invalid_argument("unknown cache mode '" + std::string(name) +
                          "' (expected rw, ro, off or replay)");
}

const char* cache_mode_name(CacheMode mode) {
  switch (mode) {
    case CacheMode::kReadWrite:
      return "rw";
    case CacheMode::kReadOnly:
      return "ro";
    case CacheMode::kOff:
      return "off";
    case CacheMode::kReplay:
      return "replay";
  }
  return "rw";
}

}  // namespace ragmeter::llm
