// The judge flags shared by `ragmeter eval` and `ragmeter gen`: which server and model,
// the key's variable, the embedder, the cache, concurrency, budget and timeout. Each flag
// overrides --config, which overrides the environment.
#pragma once

#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "ragmeter/judge_factory.h"
#include "ragmeter/llm_config.h"
#include "ragmeter/status.h"

namespace ragmeter::cli {

struct JudgeFlags {
  std::string judge = "offline";
  bool judge_given = false;
  std::string config;
  std::optional<std::string> judge_url, judge_model, judge_key_env, embedder, embedder_url,
      embedder_model, embedder_model_path, cache, cache_mode;
  std::optional<int> concurrency;
  std::optional<double> max_cost, timeout, deadline;
};

// Registers the flags on `cmd`. `judge_help` and `embedder_help` say what the judge and
// the embedder are used for in this command.
// `run`: the judge's --concurrency and --timeout are registered as --judge-concurrency and
// --judge-timeout (`ragmeter run --eval`, whose own flags of those names are the target's).
void add_judge_flags(CLI::App* cmd, JudgeFlags* flags, bool run, const std::string& judge_help,
                     const std::string& embedder_help);

// Settings from --config, the environment and the flags, in that order of precedence
// (resolve_judge_settings over the flags as JudgeOptions).
StatusOr<llm::JudgeSettings> judge_settings(const JudgeFlags& flags);
// The JudgeOptions the flags set (the library resolves the rest: judge_factory.h).
// InvalidArgument for an unknown --cache-mode.
StatusOr<JudgeOptions> judge_options_from_flags(const JudgeFlags& flags);

}  // namespace ragmeter::cli
