// Judge configuration: the TOML file, the environment, their precedence, client options.
#include "ragmeter/llm_config.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include "tests/unit/test_paths.h"

namespace ragmeter::llm {
namespace {

std::string fixture(const std::string& name) {
  return std::string(RAGMETER_SOURCE_DIR) + "/tests/data/config/" + name;
}

JudgeSettings load_or_die(const std::string& path) {
  StatusOr<JudgeSettings> settings = load_judge_config(path);
  EXPECT_TRUE(settings.ok()) << settings.status().to_string();
  return settings.ok() ? *settings : JudgeSettings{};
}

EnvLookup fake_environment(std::map<std::string, std::string> variables) {
  return [variables](const std::string& name) -> std::optional<std::string> {
    auto found = variables.find(name);
    if (found == variables.end()) return std::nullopt;
    return found->second;
  };
}

// The error of loading `name`, which must fail with InvalidArgument.
std::string load_error(const std::string& name) {
  StatusOr<JudgeSettings> settings = load_judge_config(fixture(name));
  EXPECT_FALSE(settings.ok()) << name;
  if (settings.ok()) return "";
  EXPECT_EQ(settings.status().code(), StatusCode::kInvalidArgument) << name;
  return settings.status().message();
}

TEST(LlmConfigTest, ReadsEveryKey) {
  JudgeSettings settings = load_or_die(fixture("full.toml"));
  EXPECT_EQ(settings.judge, "openai");
  EXPECT_EQ(settings.judge_url, "http://localhost:8000/v1");
  EXPECT_EQ(settings.judge_model, "Qwen/Qwen2.5-7B-Instruct");
  EXPECT_EQ(settings.judge_key_env, "VLLM_API_KEY");
  EXPECT_EQ(settings.embedder, "openai");
  EXPECT_EQ(settings.embedder_url, "http://localhost:8001/v1");
  EXPECT_EQ(settings.embedder_model, "BAAI/bge-small-en-v1.5");
  EXPECT_EQ(settings.flavor, ApiFlavor::kOpenAI);
  EXPECT_EQ(settings.api_version, "2024-06-01");
  EXPECT_EQ(settings.concurrency, 4);
  EXPECT_DOUBLE_EQ(settings.timeout_seconds, 30.5);
  EXPECT_EQ(settings.max_attempts, 3);
  EXPECT_DOUBLE_EQ(settings.requests_per_minute, 600);
  EXPECT_DOUBLE_EQ(settings.tokens_per_minute, 150000);
  EXPECT_EQ(settings.cache_path, "/tmp/ragmeter-test/judge.sqlite");
  EXPECT_EQ(settings.cache_mode, CacheMode::kReplay);
  EXPECT_DOUBLE_EQ(settings.max_cost_usd, 2.5);
  ASSERT_EQ(settings.prices.size(), 2u);
  const ModelPrice& qwen = settings.prices.at("Qwen/Qwen2.5-7B-Instruct");
  EXPECT_DOUBLE_EQ(qwen.prompt_per_million, 0.05);
  EXPECT_DOUBLE_EQ(qwen.completion_per_million, 0.10);
  EXPECT_DOUBLE_EQ(qwen.cached_prompt_per_million, 0.01);
  // cached_prompt defaults to the prompt price.
  EXPECT_DOUBLE_EQ(settings.prices.at("gpt-4o-mini").cached_prompt_per_million, 0.2);
}

TEST(LlmConfigTest, AUrlOrModelMeansAnOpenAICompatibleJudge) {
  JudgeSettings settings = load_or_die(fixture("url_only.toml"));
  EXPECT_EQ(settings.judge, "openai");
  EXPECT_EQ(settings.embedder, "openai");
  EXPECT_FALSE(settings.flavor.has_value());
}

TEST(LlmConfigTest, RelativeCachePathIsRelativeToTheFile) {
  JudgeSettings settings = load_or_die(fixture("url_only.toml"));
  EXPECT_EQ(settings.cache_path, fixture("caches/judge.sqlite"));
}

TEST(LlmConfigTest, ExampleConfigLoads) {
  JudgeSettings settings = load_or_die(std::string(RAGMETER_SOURCE_DIR) + "/examples/judge.toml");
  EXPECT_EQ(settings.judge, "openai");
  EXPECT_EQ(settings.judge_model, "gpt-4o-mini");
  EXPECT_TRUE(to_client_options(settings).ok());
}

TEST(LlmConfigTest, MissingFileIsNotFound) {
  StatusOr<JudgeSettings> settings = load_judge_config(fixture("absent.toml"));
  ASSERT_FALSE(settings.ok());
  EXPECT_EQ(settings.status().code(), StatusCode::kNotFound);
  EXPECT_NE(settings.status().message().find("absent.toml"), std::string::npos);
}

TEST(LlmConfigTest, SyntaxErrorNamesFileAndLine) {
  std::string error = load_error("syntax_error.toml");
  EXPECT_NE(error.find(fixture("syntax_error.toml") + ":3:"), std::string::npos) << error;
}

TEST(LlmConfigTest, WrongTypeNamesFileLineAndKey) {
  EXPECT_EQ(load_error("wrong_type.toml"),
            fixture("wrong_type.toml") + ":4: concurrency: expected an integer from 1 to 4096");
}

TEST(LlmConfigTest, OutOfRangeNamesFileLineAndKey) {
  EXPECT_EQ(load_error("out_of_range.toml"),
            fixture("out_of_range.toml") + ":2: max_attempts: expected an integer from 1 to 100");
}

TEST(LlmConfigTest, UnknownJudgeKindIsRefused) {
  EXPECT_EQ(load_error("bad_choice.toml"),
            fixture("bad_choice.toml") + ":1: judge: expected one of \"offline\", \"openai\"");
}

TEST(LlmConfigTest, UnknownKeyNamesFileLineAndKey) {
  std::string error = load_error("unknown_key.toml");
  EXPECT_EQ(error.rfind(fixture("unknown_key.toml") + ":2: judge_modle: unknown key", 0), 0u)
      << error;
}

TEST(LlmConfigTest, KeysInTheFileAreRefused) {
  std::string error = load_error("secret.toml");
  EXPECT_EQ(error.rfind(fixture("secret.toml") + ":3: api_key: keys are not read", 0), 0u) << error;
  EXPECT_EQ(error.find("sk-test-SECRET"), std::string::npos) << "the message must not echo it";
  error = load_error("key_in_key_env.toml");
  EXPECT_NE(error.find(":2: judge_key_env: expected the name of an environment variable"),
            std::string::npos)
      << error;
  EXPECT_EQ(error.find("sk-test-SECRET"), std::string::npos);
}

TEST(LlmConfigTest, BadPriceNamesTheField) {
  EXPECT_EQ(load_error("bad_price.toml"),
            fixture("bad_price.toml") + ":5: completion: expected a number >= 0");
}

TEST(LlmConfigTest, EnvironmentFillsWhatIsUnset) {
  JudgeSettings settings;
  apply_environment(&settings, fake_environment({{"OPENAI_BASE_URL", "http://proxy/v1"}}));
  EXPECT_EQ(settings.judge_url, "http://proxy/v1");
  EXPECT_EQ(settings.judge, "offline") << "the environment alone never turns on a paid judge";
}

TEST(LlmConfigTest, FileBeatsEnvironment) {
  JudgeSettings settings = load_or_die(fixture("full.toml"));
  apply_environment(&settings, fake_environment({{"OPENAI_BASE_URL", "http://proxy/v1"},
                                                 {"AZURE_OPENAI_API_VERSION", "2099-01-01"}}));
  EXPECT_EQ(settings.judge_url, "http://localhost:8000/v1");
  EXPECT_EQ(settings.api_version, "2024-06-01");
}

TEST(LlmConfigTest, FlagsBeatFileAndEnvironment) {
  // The CLI's order: file, then environment, then the flags the user gave.
  JudgeSettings settings = load_or_die(fixture("url_only.toml"));
  apply_environment(&settings, fake_environment({{"OPENAI_BASE_URL", "http://proxy/v1"}}));
  settings.judge_url = "http://flag/v1";
  StatusOr<ClientOptions> options = to_client_options(settings);
  ASSERT_TRUE(options.ok()) << options.status().to_string();
  EXPECT_EQ(options->endpoint.base_url, "http://flag/v1");
  EXPECT_EQ(options->endpoint.model, "llama3.1:8b");
}

TEST(LlmConfigTest, AzureEndpointFromEnvironmentMeansAzure) {
  JudgeSettings settings;
  apply_environment(&settings,
                    fake_environment({{"AZURE_OPENAI_ENDPOINT", "https://res.openai.azure.com"},
                                      {"AZURE_OPENAI_API_VERSION", "2024-06-01"}}));
  EXPECT_EQ(settings.judge_url, "https://res.openai.azure.com");
  EXPECT_EQ(settings.flavor, ApiFlavor::kAzure);
  settings.judge = "openai";
  settings.judge_model = "my-deployment";
  StatusOr<ClientOptions> options = to_client_options(settings);
  ASSERT_TRUE(options.ok()) << options.status().to_string();
  EXPECT_EQ(options->endpoint.flavor, ApiFlavor::kAzure);
  EXPECT_EQ(options->endpoint.azure_api_version, "2024-06-01");
}

TEST(LlmConfigTest, OpenAIBaseUrlWinsUnlessTheFlavorIsAzure) {
  auto both = fake_environment({{"OPENAI_BASE_URL", "http://proxy/v1"},
                                {"AZURE_OPENAI_ENDPOINT", "https://res.openai.azure.com"}});
  JudgeSettings unset;
  apply_environment(&unset, both);
  EXPECT_EQ(unset.judge_url, "http://proxy/v1");
  EXPECT_FALSE(unset.flavor.has_value());

  JudgeSettings azure;
  azure.flavor = ApiFlavor::kAzure;
  apply_environment(&azure, both);
  EXPECT_EQ(azure.judge_url, "https://res.openai.azure.com");

  JudgeSettings openai;
  openai.flavor = ApiFlavor::kOpenAI;
  apply_environment(&openai,
                    fake_environment({{"AZURE_OPENAI_ENDPOINT", "https://res.openai.azure.com"}}));
  EXPECT_EQ(openai.judge_url, "");
}

TEST(LlmConfigTest, ClientOptionsCarryEverySetting) {
  StatusOr<ClientOptions> options = to_client_options(load_or_die(fixture("full.toml")));
  ASSERT_TRUE(options.ok()) << options.status().to_string();
  EXPECT_EQ(options->endpoint.base_url, "http://localhost:8000/v1");
  EXPECT_EQ(options->endpoint.model, "Qwen/Qwen2.5-7B-Instruct");
  EXPECT_EQ(options->endpoint.api_key_env, "VLLM_API_KEY");
  EXPECT_EQ(options->endpoint.flavor, ApiFlavor::kOpenAI);
  EXPECT_DOUBLE_EQ(options->endpoint.timeout_seconds, 30.5);
  EXPECT_EQ(options->retry.max_attempts, 3);
  EXPECT_EQ(options->limits.max_in_flight, 4);
  EXPECT_DOUBLE_EQ(options->limits.requests_per_minute, 600);
  EXPECT_DOUBLE_EQ(options->limits.tokens_per_minute, 150000);
  EXPECT_EQ(options->cache.path, "/tmp/ragmeter-test/judge.sqlite");
  EXPECT_EQ(options->cache.mode, CacheMode::kReplay);
  EXPECT_DOUBLE_EQ(options->max_cost_usd, 2.5);
  EXPECT_EQ(options->prices.size(), 2u);
}

TEST(LlmConfigTest, OpenAIJudgeWithoutUrlOrModelIsInvalid) {
  JudgeSettings settings;
  settings.judge = "openai";
  settings.judge_model = "gpt-4o-mini";
  StatusOr<ClientOptions> no_url = to_client_options(settings);
  ASSERT_FALSE(no_url.ok());
  EXPECT_EQ(no_url.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(no_url.status().message().find("URL"), std::string::npos);

  settings.judge_url = "https://api.openai.com/v1";
  settings.judge_model.clear();
  StatusOr<ClientOptions> no_model = to_client_options(settings);
  ASSERT_FALSE(no_model.ok());
  EXPECT_EQ(no_model.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(no_model.status().message().find("model"), std::string::npos);
}

TEST(LlmConfigTest, OfflineJudgeHasNoClient) {
  StatusOr<ClientOptions> options = to_client_options(JudgeSettings{});
  ASSERT_FALSE(options.ok());
  EXPECT_EQ(options.status().code(), StatusCode::kFailedPrecondition);
}

TEST(LlmConfigTest, LocalEmbedderPathIsRelativeToTheFileAndNeedsNoClient) {
  JudgeSettings settings = load_or_die(fixture("local_embedder.toml"));
  EXPECT_EQ(settings.embedder, "local");
  EXPECT_EQ(settings.embedder_model_path, fixture("models/minilm"));
  StatusOr<ClientOptions> options = to_embedder_client_options(settings);
  ASSERT_FALSE(options.ok());
  EXPECT_EQ(options.status().code(), StatusCode::kFailedPrecondition);
}

TEST(LlmConfigTest, EmbedderDefaultsToAuto) { EXPECT_EQ(JudgeSettings{}.embedder, "auto"); }

TEST(LlmConfigTest, EmbedderFallsBackToTheJudgeUrl) {
  JudgeSettings settings = load_or_die(fixture("url_only.toml"));
  StatusOr<ClientOptions> options = to_embedder_client_options(settings);
  ASSERT_TRUE(options.ok()) << options.status().to_string();
  EXPECT_EQ(options->endpoint.base_url, "http://localhost:11434/v1");
  EXPECT_EQ(options->endpoint.model, "nomic-embed-text");
}

TEST(LlmConfigTest, CacheModeNamesRoundTrip) {
  for (CacheMode mode :
       {CacheMode::kReadWrite, CacheMode::kReadOnly, CacheMode::kOff, CacheMode::kReplay}) {
    StatusOr<CacheMode> parsed = parse_cache_mode(cache_mode_name(mode));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, mode);
  }
  EXPECT_EQ(parse_cache_mode("write").status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace ragmeter::llm
