// parse_judge_config: the judge config read from text in memory (the fuzz target's
// entry point) gives what load_judge_config gives for the same file.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "ragmeter/llm_config.h"
#include "tests/unit/test_paths.h"

namespace ragmeter::llm {
namespace {

std::string fixture(const std::string& name) {
  return std::string(RAGMETER_SOURCE_DIR) + "/tests/data/config/" + name;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(ParseJudgeConfig, TextGivesTheSameSettingsAsTheFile) {
  const std::string path = fixture("full.toml");
  const StatusOr<JudgeSettings> from_file = load_judge_config(path);
  const StatusOr<JudgeSettings> from_text = parse_judge_config(read_text(path), path);
  ASSERT_TRUE(from_file.ok()) << from_file.status().to_string();
  ASSERT_TRUE(from_text.ok()) << from_text.status().to_string();
  EXPECT_EQ(from_text->judge_url, from_file->judge_url);
  EXPECT_EQ(from_text->judge_model, from_file->judge_model);
  EXPECT_EQ(from_text->concurrency, from_file->concurrency);
  EXPECT_EQ(from_text->cache_path, from_file->cache_path);
}

TEST(ParseJudgeConfig, SyntaxErrorNamesTheGivenPathAndLine) {
  const StatusOr<JudgeSettings> settings = parse_judge_config("judge = \"openai\"\nx = = 1\n",
                                                              "/etc/judge.toml");
  ASSERT_EQ(settings.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(settings.status().message().find("/etc/judge.toml:2"), std::string::npos)
      << settings.status().message();
}

}  // namespace
}  // namespace ragmeter::llm
