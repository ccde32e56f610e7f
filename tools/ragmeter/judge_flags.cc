// The judge flags shared by `ragmeter eval` and `ragmeter gen` (judge_flags.h).
#include "judge_flags.h"

namespace ragmeter::cli {

void add_judge_flags(CLI::App* cmd, JudgeFlags* flags, bool run, const std::string& judge_help,
                     const std::string& embedder_help) {
  cmd->add_option("--judge", flags->judge, judge_help)
      ->check(CLI::IsMember({"offline", "openai"}))
      ->each([flags](const std::string&) { flags->judge_given = true; });
  cmd->add_option("--config", flags->config,
                  "Judge configuration (TOML; examples/judge.toml shows every key)");
  cmd->add_option("--judge-url", flags->judge_url,
                  "Base URL of an OpenAI-compatible server, ending in /v1 (default: "
                  "OPENAI_BASE_URL)");
  cmd->add_option("--judge-model", flags->judge_model, "Judge model name (Azure: the deployment)");
  cmd->add_option("--judge-key-env", flags->judge_key_env,
                  "Name of the environment variable holding the key (default OPENAI_API_KEY)");
  cmd->add_option("--embedder", flags->embedder, embedder_help)
      ->check(CLI::IsMember({"auto", "offline", "local", "local-multilingual", "openai"}));
  cmd->add_option("--embedder-model-path", flags->embedder_model_path,
                  "Directory of the local embedding model (default: RAGMETER_EMBEDDER_MODEL, else "
                  "~/.cache/ragmeter/models/all-MiniLM-L6-v2; with --embedder local-multilingual "
                  "RAGMETER_MULTILINGUAL_EMBEDDER_MODEL, else ~/.cache/ragmeter/models/multilingual-e5-small-q4; "
                  "installed by scripts/setup_embedder.sh)");
  cmd->add_option("--embedder-url", flags->embedder_url, "Embeddings server (default: --judge-url)");
  cmd->add_option("--embedder-model", flags->embedder_model, "Embedding model name");
  cmd->add_option(run ? "--judge-concurrency" : "--concurrency", flags->concurrency, "Judge requests in flight (default 16)")
      ->check(CLI::Range(1, 4096));
  cmd->add_option("--cache", flags->cache,
                  "Judge cache file (default ${XDG_CACHE_HOME:-~/.cache}/ragmeter/judge.sqlite)");
  cmd->add_option("--cache-mode", flags->cache_mode,
                  "rw (default), ro, off, or replay (a cache miss is an error: offline reruns)")
      ->check(CLI::IsMember({"rw", "ro", "off", "replay"}));
  cmd->add_option("--max-cost", flags->max_cost, "Stop judge spending at this many USD (0: no budget)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option(run ? "--judge-timeout" : "--timeout", flags->timeout, "Seconds per judge HTTP attempt (default 120)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--deadline", flags->deadline,
                  "Seconds one judge call may take in all, retries and waits included "
                  "(default 300; 0: none)")
      ->check(CLI::NonNegativeNumber);
}

namespace {

// The flags the user gave, as the library's options (unset flags stay unset).
JudgeOptions judge_options(const JudgeFlags& flags) {
  JudgeOptions options;
  options.config_path = flags.config;
  if (flags.judge_given) options.kind = flags.judge;
  options.url = flags.judge_url.value_or("");
  options.model = flags.judge_model.value_or("");
  options.key_env = flags.judge_key_env.value_or("");
  options.embedder = flags.embedder.value_or("");
  options.embedder_url = flags.embedder_url.value_or("");
  options.embedder_model = flags.embedder_model.value_or("");
  options.embedder_model_path = flags.embedder_model_path.value_or("");
  options.cache_path = flags.cache.value_or("");
  options.concurrency = flags.concurrency;
  options.max_cost_usd = flags.max_cost;
  options.timeout_seconds = flags.timeout;
  options.deadline_seconds = flags.deadline;
  return options;
}

}  // namespace

StatusOr<JudgeOptions> judge_options_from_flags(const JudgeFlags& flags) {
  JudgeOptions options = judge_options(flags);
  if (flags.cache_mode) {
    RAGMETER_ASSIGN_OR_RETURN(options.cache_mode, llm::parse_cache_mode(*flags.cache_mode));
  }
  return options;
}

// Settings from --config, the environment and the flags, in that order of precedence.
StatusOr<llm::JudgeSettings> judge_settings(const JudgeFlags& flags) {
  RAGMETER_ASSIGN_OR_RETURN(JudgeOptions options, judge_options_from_flags(flags));
  return resolve_judge_settings(options);
}

}  // namespace ragmeter::cli
