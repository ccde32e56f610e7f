// Making a judge from settings (judge_factory.h): the precedence of config file,
// environment and options, and what make_judge builds. Sends no request.
#include "ragmeter/judge_factory.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>

#include "ragmeter/results.h"
#include "tests/unit/test_paths.h"

namespace ragmeter {
namespace {

std::string fixture(const std::string& name) {
  return std::string(RAGMETER_SOURCE_DIR) + "/tests/data/config/" + name;
}

llm::EnvLookup fake_environment(std::map<std::string, std::string> variables) {
  return [variables](const std::string& name) -> std::optional<std::string> {
    auto found = variables.find(name);
    if (found == variables.end()) return std::nullopt;
    return found->second;
  };
}

TEST(JudgeFactoryTest, OptionsOverrideTheConfigWhichOverridesTheEnvironment) {
  JudgeOptions options;
  options.config_path = fixture("url_only.toml");  // judge_url, judge_model, embedder_model
  options.model = "qwen2.5";
  options.key_env = "MY_KEY";
  auto settings = resolve_judge_settings(
      options, fake_environment({{"OPENAI_BASE_URL", "http://env.example/v1"}}));
  ASSERT_TRUE(settings.ok()) << settings.status().message();
  EXPECT_EQ(settings->judge, "openai");                        // the config gives a URL
  EXPECT_EQ(settings->judge_url, "http://localhost:11434/v1");  // config beats environment
  EXPECT_EQ(settings->judge_model, "qwen2.5");                  // option beats config
  EXPECT_EQ(settings->judge_key_env, "MY_KEY");
  EXPECT_EQ(settings->embedder, "openai");  // the config names an embedding model
  EXPECT_EQ(settings->embedder_model, "nomic-embed-text");
}

TEST(JudgeFactoryTest, AUrlOrModelAsksForAnLlmJudgeUnlessTheKindIsGiven) {
  JudgeOptions options;
  options.url = "http://127.0.0.1:9/v1";
  auto settings = resolve_judge_settings(options, fake_environment({}));
  ASSERT_TRUE(settings.ok());
  EXPECT_EQ(settings->judge, "openai");
  options.kind = "offline";
  settings = resolve_judge_settings(options, fake_environment({}));
  ASSERT_TRUE(settings.ok());
  EXPECT_EQ(settings->judge, "offline");
  // The environment alone never turns on a paid judge.
  settings = resolve_judge_settings(JudgeOptions{},
                                    fake_environment({{"OPENAI_BASE_URL", "http://e/v1"}}));
  ASSERT_TRUE(settings.ok());
  EXPECT_EQ(settings->judge, "offline");
}

TEST(JudgeFactoryTest, TheOfflineJudgeWithOfflineVectorsIsNullWithNoClientsAndNoUsage) {
  JudgeOptions options;
  options.kind = "offline";
  options.embedder = "offline";
  auto judge = make_judge(options);
  ASSERT_TRUE(judge.ok()) << judge.status().message();
  EXPECT_EQ(judge->judge, nullptr);
  EXPECT_EQ(judge->chat, nullptr);
  EXPECT_FALSE(judge->local_embedder);
  EXPECT_FALSE(judge->llm());
  EXPECT_TRUE(judge->description().starts_with("offline"));
  EXPECT_EQ(judge->usage().requests, 0);
  EXPECT_FALSE(judge->usage().adaptive);
  EXPECT_TRUE(judge->usage_by_call().is_null());
}

TEST(JudgeFactoryTest, RunInfoNamesTheDatasetItsHashTheJudgeAndThePlan) {
  JudgeOptions options;
  options.embedder = "offline";
  options.plan = "ragas";
  auto judge = make_judge(options);
  ASSERT_TRUE(judge.ok()) << judge.status().message();
  // An empty file: its SHA-256 is the well-known hash of no bytes.
  const std::string path = std::string(RAGMETER_BINARY_DIR) + "/judge_factory_empty.jsonl";
  { std::ofstream(path, std::ios::binary | std::ios::trunc); }
  const RunInfo info = make_run_info(*judge, path);
  EXPECT_EQ(info.judge, judge->description());
  EXPECT_EQ(info.dataset, path);
  EXPECT_EQ(info.run["dataset"], path);
  EXPECT_EQ(info.run["dataset_sha256"],
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");  // of ""
  EXPECT_EQ(info.run["judge"], judge->description());
  EXPECT_EQ(info.run["model"], "");  // the offline judge has none
  EXPECT_EQ(info.run["plan"], "ragas");
  EXPECT_EQ(info.run["ragmeter_version"], RAGMETER_VERSION);
  EXPECT_TRUE(std::regex_match(info.run["date"].get<std::string>(),
                               std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")));
  // Rows held in memory: no dataset, no hash.
  const RunInfo memory = make_run_info(*judge, "");
  EXPECT_TRUE(memory.run["dataset"].is_null());
  EXPECT_TRUE(memory.run["dataset_sha256"].is_null());
}

TEST(JudgeFactoryTest, EmbedderAutoWithoutTheModelsIsTheOfflineVectorsAndLocalIsAnError) {
  const std::string empty_dir = std::string(RAGMETER_BINARY_DIR) + "/judge_factory_no_model";
  std::filesystem::create_directories(empty_dir);
  const char* saved = std::getenv(std::string(kMultilingualEmbedderModelEnv).c_str());
  const std::string saved_value = saved != nullptr ? saved : "";
  ASSERT_EQ(setenv(std::string(kMultilingualEmbedderModelEnv).c_str(), empty_dir.c_str(), 1), 0);
  JudgeOptions options;
  options.embedder_model_path = empty_dir;  // embedder unset: "auto"
  auto judge = make_judge(options);
  if (saved != nullptr) {
    setenv(std::string(kMultilingualEmbedderModelEnv).c_str(), saved_value.c_str(), 1);
  } else {
    unsetenv(std::string(kMultilingualEmbedderModelEnv).c_str());
  }
  ASSERT_TRUE(judge.ok()) << judge.status().message();
  EXPECT_EQ(judge->settings.embedder, "auto");
  EXPECT_FALSE(judge->local_embedder);
  EXPECT_EQ(judge->judge, nullptr);
  options.embedder = "local";
  EXPECT_FALSE(make_judge(options).ok());
  options.embedder = "local-multilingual";
  auto missing = make_judge(options);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("e5-small-q4.bin"), std::string::npos) << missing.status().message();
}

TEST(JudgeFactoryTest, EmbedderAutoLoadsTheInstalledModelIntoTheOfflineAndTheLlmJudge) {
  if (!std::filesystem::exists(default_embedder_model_path() + "/model.safetensors")) {
    GTEST_SKIP() << "no model at " << default_embedder_model_path()
                 << ": run scripts/setup_embedder.sh";
  }
  auto offline = make_judge(JudgeOptions{});
  ASSERT_TRUE(offline.ok()) << offline.status().message();
  ASSERT_NE(offline->local_embedder.english, nullptr);
  ASSERT_NE(offline->judge, nullptr);  // the offline judge with the model's similarity
  EXPECT_FALSE(offline->llm());
  EXPECT_NE(offline->description(), make_offline_judge()->description());
  auto similarity = offline->judge->similarity("a cat sat", "a dog ran", nullptr);
  ASSERT_TRUE(similarity.ok());
  EXPECT_NEAR(*similarity, offline->local_embedder.english->similarity("a cat sat", "a dog ran"), 1e-6);

  JudgeOptions llm_options;
  llm_options.url = "http://127.0.0.1:9/v1";
  llm_options.model = "tiny";
  llm_options.cache_mode = llm::CacheMode::kOff;
  auto llm_judge = make_judge(llm_options);
  ASSERT_TRUE(llm_judge.ok()) << llm_judge.status().message();
  EXPECT_TRUE(llm_judge->local_embedder);
  EXPECT_EQ(llm_judge->embedder, nullptr);
  EXPECT_TRUE(llm_judge->llm());
}

TEST(JudgeFactoryTest, ApplyJudgeDropsLlmOnlyMetricsOnlyFromTheOfflineJudgesDefaultList) {
  auto all = parse_metric_list("all");
  ASSERT_TRUE(all.ok());
  auto has = [](const EvalOptions& o, const std::string& name) {
    return std::any_of(o.metrics.begin(), o.metrics.end(),
                       [&](const MetricRequest& r) { return r.name == name; });
  };
  JudgeOptions offline_options;
  offline_options.embedder = "offline";
  auto offline = make_judge(offline_options);
  ASSERT_TRUE(offline.ok());
  EvalOptions by_default;
  by_default.metrics = *all;
  apply_judge(*offline, /*metrics_given=*/false, &by_default);
  EXPECT_FALSE(has(by_default, "harmfulness"));  // an aspect critic needs an LLM
  EXPECT_TRUE(has(by_default, "faithfulness"));
  EXPECT_EQ(by_default.threads, 1);
  EvalOptions named;
  named.metrics = *all;
  apply_judge(*offline, /*metrics_given=*/true, &named);
  EXPECT_TRUE(has(named, "harmfulness"));  // asked for: kept, and skipped with a reason

  JudgeOptions llm_options;
  llm_options.url = "http://127.0.0.1:9/v1";
  llm_options.model = "tiny";
  llm_options.embedder = "offline";
  llm_options.cache_mode = llm::CacheMode::kOff;
  llm_options.concurrency = 5;
  auto llm_judge = make_judge(llm_options);
  ASSERT_TRUE(llm_judge.ok());
  EvalOptions with_llm;
  with_llm.metrics = *all;
  with_llm.threads = 2;
  apply_judge(*llm_judge, /*metrics_given=*/false, &with_llm);
  EXPECT_TRUE(has(with_llm, "harmfulness"));
  EXPECT_EQ(with_llm.threads, 5);
  EXPECT_EQ(with_llm.judge, llm_judge->judge);
  const RunInfo info = make_run_info(*llm_judge, "");
  EXPECT_EQ(info.run["model"], "tiny");
  EXPECT_TRUE(info.usage.adaptive);
  EXPECT_EQ(info.usage.concurrency_ceiling, 5);
}

TEST(JudgeFactoryTest, AnLlmJudgeIsMadeWithoutSendingAnything) {
  JudgeOptions options;
  options.url = "http://127.0.0.1:9/v1";  // the discard port: nothing may be sent
  options.model = "tiny";
  options.cache_mode = llm::CacheMode::kOff;
  options.embedder = "offline";
  options.concurrency = 3;
  options.plan = "ragas";
  auto judge = make_judge(options);
  ASSERT_TRUE(judge.ok()) << judge.status().message();
  ASSERT_NE(judge->judge, nullptr);
  EXPECT_NE(judge->chat, nullptr);
  EXPECT_EQ(judge->embedder, nullptr);
  EXPECT_EQ(judge->concurrency, 3);
  EXPECT_EQ(judge->description(),
            "llm tiny at http://127.0.0.1:9/v1 (prompts llm-v14, ragas plan)");
  EXPECT_EQ(judge->usage().requests, 0);
  EXPECT_TRUE(judge->traces().empty());
}

TEST(JudgeFactoryTest, BadSettingsAreInvalidArguments) {
  JudgeOptions no_model;
  no_model.kind = "openai";
  no_model.url = "http://127.0.0.1:9/v1";
  EXPECT_EQ(make_judge(no_model).status().code(), StatusCode::kInvalidArgument);

  JudgeOptions embedder_no_url;  // an embeddings endpoint for the offline judge, no URL
  embedder_no_url.kind = "offline";
  embedder_no_url.embedder = "openai";
  embedder_no_url.embedder_model = "e";
  const Status no_url = make_judge(embedder_no_url).status();
  EXPECT_EQ(no_url.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(no_url.message().find("the embedder needs a URL"), std::string::npos) << no_url.message();

  JudgeOptions bad_plan;
  bad_plan.plan = "cheap";
  EXPECT_EQ(make_judge(bad_plan).status().message(),
            "unknown plan 'cheap' (expected compact or ragas)");

  JudgeOptions missing_config;
  missing_config.config_path = fixture("does_not_exist.toml");
  EXPECT_EQ(make_judge(missing_config).status().code(), StatusCode::kNotFound);
}

TEST(JudgeFactoryTest, AnEmbeddingsServerAloneServesTheOfflineJudge) {
  JudgeOptions options;  // no chat model: the metrics that only embed need none
  options.kind = "offline";
  options.embedder_url = "http://127.0.0.1:9/v1";
  options.embedder_model = "e";
  options.cache_mode = llm::CacheMode::kOff;
  options.concurrency = 4;
  StatusOr<ConfiguredJudge> judge = make_judge(options);
  ASSERT_TRUE(judge.ok()) << judge.status().message();
  EXPECT_FALSE(judge->llm());
  EXPECT_TRUE(judge->makes_calls());
  EXPECT_NE(judge->judge, nullptr);
  EXPECT_EQ(judge->usage().requests, 0);  // made, not called
  EvalOptions eval;
  apply_judge(*judge, /*metrics_given=*/true, &eval);
  EXPECT_EQ(eval.threads, 4);  // each sample waits on its embeddings requests
}

}  // namespace
}  // namespace ragmeter
