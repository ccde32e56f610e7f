// An LLM judge over the FAKE LLM server (tests/fakes/fake_llm_server.cc), for unit tests
// of what the judge does with fixed replies. Not a stand-in for the real server: the
// end-to-end tests against llama.cpp's server are in tests/llm/.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "ragmeter/judge.h"
#include "ragmeter/llm.h"
#include "ragmeter/llm_judge.h"
#include "ragmeter/status.h"
#include "tests/unit/test_paths.h"

namespace ragmeter::test_judges {

// The fake server's program: $RAGMETER_FAKE_LLM_SERVER, else the build's fakes/.
inline std::string fake_llm_server_path() {
  if (const char* path = std::getenv("RAGMETER_FAKE_LLM_SERVER")) return path;
  return std::string(RAGMETER_BINARY_DIR) + "/fakes/fake_llm_server";
}

// Whether the fake server's program is there. Tests assert it: a fixture that cannot
// start is a failure, never a skip, or a broken build would show its tests as green.
inline ::testing::AssertionResult fake_llm_server_built() {
  const std::string path = fake_llm_server_path();
  if (std::filesystem::exists(path)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "the fake LLM server is not built at " << path
         << " (scripts/build.sh fake_llm_server; $RAGMETER_FAKE_LLM_SERVER names another)";
}

// An LLM judge (no embedder, no cache) whose chat calls go to `base_url`.
inline StatusOr<std::shared_ptr<Judge>> llm_judge_over(const std::string& base_url) {
  llm::ClientOptions client_options;
  client_options.endpoint.base_url = base_url;
  client_options.endpoint.model = "fake-model";
  client_options.endpoint.api_key_env = "";
  client_options.cache.mode = llm::CacheMode::kOff;
  auto client = llm::make_client(client_options);
  if (!client.ok()) return client.status();
  LlmJudgeOptions judge_options;
  judge_options.chat = std::move(client).value();
  judge_options.model = "fake-model";
  judge_options.endpoint_options = client_options.endpoint;
  return make_llm_judge(std::move(judge_options));
}

}  // namespace ragmeter::test_judges
