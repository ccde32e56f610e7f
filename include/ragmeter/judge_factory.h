// Making the judge and the embedder of a run from plain settings: what `ragmeter eval
// --judge... --embedder... --config...` does, for any library caller (the Python
// package's OfflineJudge / OpenAIJudge objects fill JudgeOptions).
//
//   JudgeOptions options;
//   options.url = "http://127.0.0.1:8080/v1";
//   options.model = "qwen2.5";
//   options.key_env = "MY_KEY";  // the variable's NAME; the client reads it per request
//   StatusOr<ConfiguredJudge> judge = make_judge(options);
//   EvalOptions eval;
//   apply_judge(*judge, /*metrics_given=*/true, &eval);  // evaluate.h: eval.judge, eval.threads
//   ... evaluate ...; make_run_info(*judge, path) for the summary (results.h)
//
// No key ever passes through these types: settings name the environment variable, and
// the HTTP client reads it when it sends a request.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ragmeter/judge.h"
#include "ragmeter/judge_hooks.h"
#include "ragmeter/llm.h"
#include "ragmeter/llm_config.h"
#include "ragmeter/sentence_embedder.h"
#include "ragmeter/status.h"
#include "ragmeter/user_simulator.h"

namespace ragmeter {

// What the caller asks for. Each field left unset (an empty string, nullopt) comes from
// the config file (config_path), then from the environment (OPENAI_BASE_URL,
// AZURE_OPENAI_*), then from llm::JudgeSettings' defaults: the CLI flags' precedence.
struct JudgeOptions {
  std::string config_path;     // a TOML file (examples/judge.toml); empty: none
  // "offline" or "openai". Unset: the config's choice, else "openai" when url or model
  // is set here, else "offline".
  std::string kind;
  std::string url;             // base URL ending in /v1
  std::string model;           // model name (Azure: the deployment)
  std::string key_env;         // NAME of the variable holding the key (default OPENAI_API_KEY)
  // "auto", "offline", "local", "local-multilingual" or "openai"
  // (llm::JudgeSettings::embedder). Unset: the config's, else "openai" when embedder_url
  // or embedder_model is set here, else "auto" (the local models that are installed, the
  // multilingual one for text that is not English, else bag-of-stems vectors). "openai"
  // needs an LLM judge.
  std::string embedder;
  std::string embedder_url;    // unset: the judge's URL
  std::string embedder_model;
  // The local model's directory; unset: default_embedder_model_path().
  std::string embedder_model_path;
  std::string cache_path;      // the judge cache (SQLite); unset: the default
  std::optional<llm::CacheMode> cache_mode; // unset: read-write
  std::optional<int> concurrency;           // requests in flight; unset: 16
  std::optional<double> max_cost_usd;       // budget; 0: none
  std::optional<double> timeout_seconds;    // per HTTP attempt; unset: 120
  std::optional<double> deadline_seconds;   // per call, retries included; unset: 300; 0: none
  // Not in the config file:
  std::string plan = "compact";  // or "ragas": ragas's call structure, several times the calls
  // The judge model's context window in tokens; 0: unknown, calls are never split
  // (LlmJudgeOptions::context_tokens).
  int context_tokens = 0;
  // Images (LlmJudgeOptions): shown to the model (true) or read by OCR; the image_url
  // detail; the server's limits per request.
  bool vision = true;
  std::string image_detail = "auto";
  int max_images_per_request = 16;
  std::size_t max_image_bytes = 20 * 1024 * 1024;
  // Keep every call's request and raw reply (ConfiguredJudge::traces): memory grows with
  // the calls.
  bool keep_traces = false;
  // What the clients share with other processes (judge_hooks.h; the workers of a Ray
  // run). With `permits`, the rate limit (requests and tokens per minute) and the
  // budget are the permit source's: the clients' own (rpm, tpm, max_cost from these
  // options or the config) are not applied, so they cannot differ between workers.
  // With `store`, replies, verdicts and claims are kept there under the cache mode, and
  // the cache file (cache_path) is not opened here. Both clients (chat and embeddings)
  // use them. Empty (the default): nothing is shared.
  llm::ClientHooks hooks;
};

// The settings `options` resolve to: config file, then environment, then the fields
// set in `options`. NotFound or InvalidArgument from the config file (naming file, line
// and key); InvalidArgument for an unknown cache mode. Does not check that an "openai"
// judge has a URL and a model (make_judge does). Thread-safe if `environment` is.
StatusOr<llm::JudgeSettings> resolve_judge_settings(
    const JudgeOptions& options, const llm::EnvLookup& environment = llm::process_environment());

// Judge calls of a run, for the summary's "usage" (all zero for the offline judge).
struct JudgeUsage {
  std::int64_t requests = 0;       // HTTP requests sent, retries included
  std::int64_t cache_hits = 0;     // calls served from the judge cache
  std::int64_t failed_calls = 0;
  std::int64_t prompt_tokens = 0;
  std::int64_t completion_tokens = 0;
  std::int64_t cached_tokens = 0;
  double cost_usd = 0.0;
  // How the judge's client adapted to the server (llm::UsageTotals says more); for the
  // chat client when there is one.
  bool adaptive = false;               // the fields below are filled
  int concurrency_ceiling = 0;         // --concurrency
  int concurrency_settled = 0;         // requests allowed in flight at the end
  int concurrency_lowest = 0;
  int server_parallelism = 0;          // requests the server was seen serving at once; 0: unknown
  std::int64_t timed_out_attempts = 0;  // abandoned for no sign of life, then retried
  double abandoned_server_seconds = 0.0;  // estimated; 0 is the goal
  std::int64_t estimated_usage_calls = 0;  // replies whose tokens were estimated
  // Replies read with the key's value replaced by "[redacted]" (llm::UsageTotals): a
  // short key that is also a word of the replies; 0 is the goal.
  std::int64_t key_redacted_replies = 0;
  // Images sent to a vision judge and their estimated prompt tokens (llm::UsageTotals).
  std::int64_t images = 0;
  std::int64_t image_tokens = 0;
};

// A judge made from JudgeOptions, with the clients behind it, so a run can report its
// usage and traces. Copies share the judge, the clients and the local model. Thread-safe
// (the judge and clients are); usage() and traces() may be read while a run is going on.
struct ConfiguredJudge {
  // Null for the offline judge with bag-of-stems vectors: EvalOptions::judge's convention
  // (evaluate() then uses make_offline_judge()). The offline judge with the local model
  // is not null, so "is this an LLM judge" is llm(), not judge != nullptr.
  std::shared_ptr<Judge> judge;
  std::shared_ptr<llm::Client> chat;      // null for the offline judge
  std::shared_ptr<llm::Client> embedder;  // an embeddings endpoint ("openai"); else null
  // The local sentence models ("auto": those installed; "local": the English one;
  // "local-multilingual": the multilingual one); none otherwise.
  LocalEmbedders local_embedder;
  // Requests the chat client keeps in flight: a run should score at least this many
  // samples at once (EvalOptions::threads), since each waits on its calls.
  int concurrency = 1;
  std::string plan = "compact";  // JudgeOptions::plan
  llm::JudgeSettings settings;  // what the options resolved to

  // True for an LLM judge (a chat client), false for the offline one.
  bool llm() const { return chat != nullptr; }
  // True when the run sends requests: an LLM judge, or the offline judge with an
  // embeddings server (--embedder openai) for the metrics that only embed.
  bool makes_calls() const { return chat != nullptr || embedder != nullptr; }
  // The judge's description for reports ("offline (...)", "llm MODEL at URL ..."); no key.
  std::string description() const;
  // Both clients' totals so far, and how the chat client adapted its concurrency.
  JudgeUsage usage() const;
  // Judge::usage_by_call(), or null when `judge` is null.
  nlohmann::ordered_json usage_by_call() const;
  // Judge::judged_languages(), or null when `judge` is null.
  nlohmann::ordered_json judged_languages() const;
  // Every call so far (with JudgeOptions::keep_traces): the chat client's, then the
  // embedder's.
  std::vector<llm::CallTrace> traces() const;
};

// Makes the judge and embedder `options` ask for. The offline judge makes no client and
// needs no network; with embedder "auto", "local" or "local-multilingual" it loads the
// local models (load_local_embedders; no network either); with embedder "openai" it makes an embeddings client alone, which
// serves the metrics that only embed. InvalidArgument when an "openai" judge or
// embedder has no URL or model, or for the errors of
// resolve_judge_settings; the local model's load errors ("local" or "local-multilingual"
// without the model, or a
// model that is there but unusable); an error of the HTTP client's setup (the cache file
// cannot be opened: Unavailable). Sends no request. Thread-safe.
StatusOr<ConfiguredJudge> make_judge(const JudgeOptions& options);

// The same from settings already resolved (resolve_judge_settings, or filled by hand):
// `options` gives only plan, context_tokens and keep_traces.
StatusOr<ConfiguredJudge> make_judge(const llm::JudgeSettings& settings, const JudgeOptions& options);

// The simulated user of `ragmeter run` (rows with a scenario), played by the judge's
// chat model: both null for the offline judge. `chat` is the simulator's own client, so
// a run can cancel() its calls on Ctrl-C; it keeps no traces. The errors of
// resolve_judge_settings and of the client's setup. Sends no request.
struct ConfiguredUserSimulator {
  std::shared_ptr<llm::Client> chat;
  std::shared_ptr<const UserSimulator> simulator;
};
StatusOr<ConfiguredUserSimulator> make_user_simulator(const llm::JudgeSettings& settings);
StatusOr<ConfiguredUserSimulator> make_user_simulator(const JudgeOptions& options);

}  // namespace ragmeter
