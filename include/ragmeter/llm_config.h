// Judge configuration: which judge and embedder to use and how to reach them, from
// command-line flags, a TOML config file and the environment.
//
// Precedence is flags > config file > environment. Callers build it in that order:
//   StatusOr<JudgeSettings> settings = load_judge_config(path);  // or JudgeSettings{}
//   apply_environment(&*settings, process_environment());        // fills only unset fields
//   ... assign the fields whose flags the user gave ...
//   StatusOr<ClientOptions> options = to_client_options(*settings);
//
// API keys never appear here: the settings name the environment variable holding the
// key, and the client reads it when it sends a request. docs/judges.md lists every key.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "ragmeter/llm.h"
#include "ragmeter/status.h"

namespace ragmeter::llm {

struct JudgeSettings {
  // "offline" (no network, the default) or "openai" (any OpenAI-compatible server).
  // A config file that sets judge_url or judge_model without `judge` means "openai".
  std::string judge = "offline";
  std::string judge_url;    // base URL ending in /v1; empty: OPENAI_BASE_URL or none
  std::string judge_model;  // model name (Azure: the deployment)
  std::string judge_key_env = "OPENAI_API_KEY";  // the variable's name, never the key
  // Embeddings (semantic similarity, answer_relevancy; gen's chunk index):
  //   "auto" (the default): the local models that are installed, the multilingual one for
  //     text that is not English (semantic similarity; gen and run's baseline use the
  //     English one), else "offline";
  //   "offline": bag-of-stems vectors (text_vectors.h; gen: hashed_embedding.h), no model;
  //   "local": all-MiniLM-L6-v2 in-process (sentence_embedder.h) for every text, an error
  //     when missing;
  //   "local-multilingual": multilingual-e5-small in-process for every text, an error
  //     when missing;
  //   "openai": an embeddings endpoint (embedder_url, or judge_url when it is empty).
  std::string embedder = "auto";
  std::string embedder_url;
  std::string embedder_model;
  // The local model's directory; empty: default_embedder_model_path() (sentence_embedder.h:
  // RAGMETER_EMBEDDER_MODEL, else ~/.cache/ragmeter/models/all-MiniLM-L6-v2); with
  // "local-multilingual", that model's (default_multilingual_embedder_model_path()).
  std::string embedder_model_path;
  // nullopt: OpenAI, unless the URL came from AZURE_OPENAI_ENDPOINT.
  std::optional<ApiFlavor> flavor;
  std::string api_version;         // Azure api-version; empty: EndpointOptions' default
  int concurrency = 16;            // requests in flight; more is faster until the server throttles
  double timeout_seconds = 120.0;  // per HTTP attempt; too low fails long generations
  int max_attempts = 6;            // per call, the first included
  double deadline_seconds = 300.0; // per call, all attempts and waits, never less than
                                   // timeout_seconds; 0: none
  double requests_per_minute = 0;  // 0: no cap
  double tokens_per_minute = 0;    // 0: no cap
  std::string cache_path;          // empty: default_cache_path() of the client
  CacheMode cache_mode = CacheMode::kReadWrite;
  double max_cost_usd = 0.0;  // 0: no budget
  // Price overrides per model name, joined with the built-in table.
  std::map<std::string, ModelPrice> prices;
};

// Reads the judge settings from the TOML file at `toml_path` over the defaults above.
// Keys (top level): judge, judge_url, judge_model, judge_key_env, embedder ("auto" |
// "offline" | "local" | "openai"), embedder_url, embedder_model, embedder_model_path, flavor ("openai" | "azure"), api_version, concurrency, timeout,
// deadline, max_attempts, rpm, tpm, cache, cache_mode ("rw" | "ro" | "off" | "replay"), max_cost,
// and tables [prices."MODEL"] with prompt, completion, cached_prompt (USD per million
// tokens; cached_prompt defaults to prompt). A relative `cache` or `embedder_model_path`
// is relative to the file's directory and "~/" means $HOME.
// NotFound when the file does not exist; InvalidArgument naming the file, the line and
// the key for a syntax error, an unknown key (a key value in the file, too), a value of
// the wrong type or out of range. Thread-safe.
StatusOr<JudgeSettings> load_judge_config(const std::string& toml_path);
// The same over TOML text already in memory; `toml_path` names it in errors and anchors
// a relative cache path. Never NotFound.
StatusOr<JudgeSettings> parse_judge_config(std::string_view toml_text,
                                           const std::string& toml_path);

// Looks up an environment variable; nullopt when unset.
using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;

// The process environment (getenv). Not safe against a concurrent setenv.
EnvLookup process_environment();

// Fills the fields still unset from the environment: judge_url from OPENAI_BASE_URL
// (unless flavor is Azure), else from AZURE_OPENAI_ENDPOINT (unless flavor is OpenAI),
// which makes the flavor Azure; api_version from AZURE_OPENAI_API_VERSION. Never changes
// `judge` (an environment variable alone does not turn on a paid judge) and never reads
// a key. Set values (from the file or flags) are kept.
void apply_environment(JudgeSettings* settings, const EnvLookup& lookup);

// The client options of the judge. InvalidArgument when judge is "openai" but the URL
// or the model is missing, or a setting is unknown; FailedPrecondition when the judge
// is offline, or (embedder) auto or local (there is no client to make).
StatusOr<ClientOptions> to_client_options(const JudgeSettings& settings);

// The same for the embedder (embedder_url, or judge_url when it is empty).
StatusOr<ClientOptions> to_embedder_client_options(const JudgeSettings& settings);

// "rw", "ro", "off", "replay" <-> CacheMode. InvalidArgument for another name.
StatusOr<CacheMode> parse_cache_mode(std::string_view name);
const char* cache_mode_name(CacheMode mode);

}  // namespace ragmeter::llm
