// Making a run's judge and embedder from settings (judge_factory.h).
#include "ragmeter/judge_factory.h"

#include "ragmeter/llm_judge.h"

namespace ragmeter {

namespace {

// A client for `options` sharing what `hooks` shares (JudgeOptions::hooks).
StatusOr<std::unique_ptr<llm::Client>> make_hooked_client(llm::ClientOptions options,
                                                          const llm::ClientHooks& hooks) {
  if (hooks.permits) {  // the permit source holds the limits and the budget
    options.limits.requests_per_minute = 0;
    options.limits.tokens_per_minute = 0;
    options.max_cost_usd = 0;
  }
  return llm::make_client(options, hooks);
}

}  // namespace

StatusOr<llm::JudgeSettings> resolve_judge_settings(const JudgeOptions& options,
                                                    const llm::EnvLookup& environment) {
  llm::JudgeSettings settings;
  if (!options.config_path.empty()) {
    RAGMETER_ASSIGN_OR_RETURN(settings, llm::load_judge_config(options.config_path));
  }
  llm::apply_environment(&settings, environment);
  auto set = [](const std::string& value, std::string* field) {
    if (!value.empty()) *field = value;
  };
  set(options.kind, &settings.judge);
  set(options.url, &settings.judge_url);
  set(options.model, &settings.judge_model);
  // A URL or model given here asks for that judge.
  if (options.kind.empty() && (!options.url.empty() || !options.model.empty())) {
    settings.judge = "openai";
  }
  set(options.key_env, &settings.judge_key_env);
  set(options.embedder, &settings.embedder);
  set(options.embedder_url, &settings.embedder_url);
  set(options.embedder_model, &settings.embedder_model);
  set(options.embedder_model_path, &settings.embedder_model_path);
  if (options.embedder.empty() &&
      (!options.embedder_url.empty() || !options.embedder_model.empty())) {
    settings.embedder = "openai";
  }
  set(options.cache_path, &settings.cache_path);
  if (options.cache_mode) settings.cache_mode = *options.cache_mode;
  if (options.concurrency) settings.concurrency = *options.concurrency;
  if (options.max_cost_usd) settings.max_cost_usd = *options.max_cost_usd;
  if (options.timeout_seconds) settings.timeout_seconds = *options.timeout_seconds;
  if (options.deadline_seconds) settings.deadline_seconds = *options.deadline_seconds;
  return settings;
}

StatusOr<ConfiguredJudge> make_judge(const llm::JudgeSettings& settings,
                                     const JudgeOptions& options) {
  ConfiguredJudge out;
  out.settings = settings;
  out.plan = options.plan;
  // "auto" (the default): the local models that are installed (the multilingual one for
  // text that is not English), else the offline vectors.
  RAGMETER_ASSIGN_OR_RETURN(out.local_embedder,
                            load_local_embedders(settings.embedder, settings.embedder_model_path));
  if (settings.judge == "offline" && settings.embedder == "openai") {
    // An embeddings server alone is enough for the metrics that only embed.
    RAGMETER_ASSIGN_OR_RETURN(llm::ClientOptions embed_options,
                              llm::to_embedder_client_options(settings));
    embed_options.keep_traces = options.keep_traces;
    RAGMETER_ASSIGN_OR_RETURN(std::unique_ptr<llm::Client> embedder,
                              make_hooked_client(embed_options, options.hooks));
    out.embedder = std::move(embedder);
    out.concurrency = settings.concurrency;
    out.judge = make_offline_judge_with_embedder(out.embedder, embed_options.endpoint);
    return out;
  }
  if (settings.judge == "offline") {
    // The offline judge, with the local model's similarity when there is one.
    if (out.local_embedder) out.judge = make_offline_judge(out.local_embedder);
    return out;
  }
  RAGMETER_ASSIGN_OR_RETURN(llm::ClientOptions chat_options, llm::to_client_options(settings));
  chat_options.keep_traces = options.keep_traces;
  RAGMETER_ASSIGN_OR_RETURN(std::unique_ptr<llm::Client> chat,
                            make_hooked_client(chat_options, options.hooks));
  out.chat = std::move(chat);
  out.concurrency = settings.concurrency;
  LlmJudgeOptions judge;
  judge.chat = out.chat;
  judge.model = chat_options.endpoint.model;
  judge.endpoint = chat_options.endpoint.base_url;
  judge.endpoint_options = chat_options.endpoint;
  judge.context_tokens = options.context_tokens;
  judge.ragas_plan = options.plan == "ragas";
  judge.vision = options.vision;
  judge.image_detail = options.image_detail;
  judge.max_images_per_request = options.max_images_per_request;
  judge.max_image_bytes = options.max_image_bytes;
  judge.verdict_cache = chat_options.cache;
  judge.verdict_store = options.hooks.store;
  judge.local_embedder = out.local_embedder;
  if (settings.embedder == "openai") {
    RAGMETER_ASSIGN_OR_RETURN(llm::ClientOptions embed_options,
                              llm::to_embedder_client_options(settings));
    embed_options.keep_traces = options.keep_traces;
    RAGMETER_ASSIGN_OR_RETURN(std::unique_ptr<llm::Client> embedder,
                              make_hooked_client(embed_options, options.hooks));
    judge.embedder_endpoint_options = embed_options.endpoint;
    out.embedder = std::move(embedder);
    judge.embedder = out.embedder;
  }
  RAGMETER_ASSIGN_OR_RETURN(out.judge, make_llm_judge(std::move(judge)));
  return out;
}

StatusOr<ConfiguredJudge> make_judge(const JudgeOptions& options) {
  if (options.plan != "compact" && options.plan != "ragas") {
    return invalid_argument("unknown plan '" + options.plan + "' (expected compact or ragas)");
  }
  if (options.context_tokens < 0) return invalid_argument("context_tokens must be >= 0");
  RAGMETER_ASSIGN_OR_RETURN(llm::JudgeSettings settings, resolve_judge_settings(options));
  return make_judge(settings, options);
}

std::string ConfiguredJudge::description() const {
  return judge ? judge->description() : make_offline_judge()->description();
}

JudgeUsage ConfiguredJudge::usage() const {
  JudgeUsage usage;
  for (const llm::Client* client : {chat.get(), embedder.get()}) {
    if (client == nullptr) continue;
    const llm::UsageTotals totals = client->totals();
    usage.requests += totals.requests;
    usage.cache_hits += totals.cache_hits;
    usage.failed_calls += totals.failed_calls;
    usage.prompt_tokens += totals.tokens.prompt_tokens;
    usage.completion_tokens += totals.tokens.completion_tokens;
    usage.cached_tokens += totals.tokens.cached_tokens;
    usage.cost_usd += totals.cost_usd;
    usage.timed_out_attempts += totals.timed_out_attempts;
    usage.abandoned_server_seconds += totals.abandoned_server_seconds;
    usage.estimated_usage_calls += totals.estimated_usage_calls;
    usage.key_redacted_replies += totals.key_redacted_replies;
    usage.images += totals.images;
    usage.image_tokens += totals.image_tokens;
  }
  if (chat != nullptr) {
    const llm::UsageTotals totals = chat->totals();
    usage.adaptive = true;
    usage.concurrency_ceiling = concurrency;
    usage.concurrency_settled = totals.concurrency_limit;
    usage.concurrency_lowest = totals.concurrency_lowest;
    usage.server_parallelism = totals.server_parallelism;
  }
  return usage;
}

nlohmann::ordered_json ConfiguredJudge::usage_by_call() const {
  return judge ? judge->usage_by_call() : nlohmann::ordered_json();
}

nlohmann::ordered_json ConfiguredJudge::judged_languages() const {
  return judge ? judge->judged_languages() : nlohmann::ordered_json();
}

std::vector<llm::CallTrace> ConfiguredJudge::traces() const {
  std::vector<llm::CallTrace> out;
  for (const llm::Client* client : {chat.get(), embedder.get()}) {
    if (client == nullptr) continue;
    std::vector<llm::CallTrace> calls = client->traces();
    out.insert(out.end(), std::make_move_iterator(calls.begin()),
               std::make_move_iterator(calls.end()));
  }
  return out;
}

StatusOr<ConfiguredUserSimulator> make_user_simulator(const llm::JudgeSettings& settings) {
  ConfiguredUserSimulator out;
  if (settings.judge == "offline") return out;
  RAGMETER_ASSIGN_OR_RETURN(llm::ClientOptions chat_options, llm::to_client_options(settings));
  chat_options.keep_traces = false;
  RAGMETER_ASSIGN_OR_RETURN(out.chat, llm::make_client(chat_options));
  RAGMETER_ASSIGN_OR_RETURN(out.simulator, UserSimulator::make({.chat = out.chat,
                                                               .model = chat_options.endpoint.model,
                                                               .endpoint = chat_options.endpoint.base_url}));
  return out;
}

StatusOr<ConfiguredUserSimulator> make_user_simulator(const JudgeOptions& options) {
  RAGMETER_ASSIGN_OR_RETURN(llm::JudgeSettings settings, resolve_judge_settings(options));
  return make_user_simulator(settings);
}

}  // namespace ragmeter
