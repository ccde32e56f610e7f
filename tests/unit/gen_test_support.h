// What the unit tests of `gen`'s generators share (testset_test.cc, scenarios_test.cc): an
// index of hashed vectors, the hashed embedder, and a client over the FAKE LLM server
// (tests/fakes/fake_llm_server.cc) scripted with one reply per request.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "../fakes/fake_llm_server_process.h"
#include "ragmeter/chunker.h"
#include "ragmeter/hashed_embedding.h"
#include "ragmeter/llm.h"
#include "ragmeter/vector_index.h"
#include "tests/unit/fake_llm_judge.h"

namespace ragmeter::gen_testing {

// A chunk of `path` (its title `title`, PDF page `page`, 0 for none).
inline DocumentChunk chunk_of(std::string id, std::string text, std::string path,
                              std::string title, int page = 0) {
  DocumentChunk c;
  c.id = std::move(id);
  c.text = std::move(text);
  c.source_path = std::move(path);
  c.title = std::move(title);
  c.page = page;
  return c;
}

// The chunks' hashed vectors, under their positions.
inline VectorIndex index_of(const std::vector<DocumentChunk>& chunks) {
  auto index = VectorIndex::create(kHashedEmbeddingDimensions);
  EXPECT_TRUE(index.ok());
  for (const DocumentChunk& c : chunks) EXPECT_TRUE(index->add(hashed_embedding(c.text)).ok());
  return std::move(index).value();
}

// The hashed embedder, as an EmbedTexts.
inline StatusOr<std::vector<std::vector<float>>> hashed(const std::vector<std::string>& texts) {
  std::vector<std::vector<float>> out;
  for (const std::string& text : texts) out.push_back(hashed_embedding(text));
  return out;
}

// A test with a client whose requests the FAKE server answers by a script.
class ScriptedServerTest : public ::testing::Test {
 protected:
  // Starts the fake server with `steps` (one reply per request, in order).
  void start(const nlohmann::json& steps) {
    ASSERT_TRUE(test_judges::fake_llm_server_built());
    script_ = std::filesystem::temp_directory_path() /
              ("ragmeter-gen-script-" + std::to_string(::getpid()) + ".json");
    std::ofstream(script_) << nlohmann::json({{"steps", steps}}).dump();
    ASSERT_TRUE(server_.start(test_judges::fake_llm_server_path(), {"--script", script_.string()}));
    llm::ClientOptions options;
    options.endpoint.base_url = server_.base_url();
    options.endpoint.model = "fake-model";
    options.endpoint.timeout_seconds = 5.0;
    options.cache.mode = llm::CacheMode::kOff;
    auto client = llm::make_client(options);
    ASSERT_TRUE(client.ok()) << client.status().to_string();
    client_ = std::move(client).value();
  }
  void TearDown() override { std::filesystem::remove(script_); }

  fakes::FakeLlmServerProcess server_;
  std::filesystem::path script_;
  std::unique_ptr<llm::Client> client_;
};

// Runs `generate` (with options.cancel = `stop`) while another thread sets `stop` after
// half a second; its result, and in `seconds` how long it took.
template <typename Generate>
auto run_stopped_after_half_a_second(std::atomic<bool>* stop, double* seconds, Generate generate) {
  std::thread stopper([stop] {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    stop->store(true);
  });
  const auto started = std::chrono::steady_clock::now();
  auto result = generate();
  *seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  stopper.join();
  return result;
}

// A client whose every request fails at once (nothing listens on port 9): for inputs
// refused before any call.
inline std::unique_ptr<llm::Client> unreachable_client() {
  llm::ClientOptions options;
  options.endpoint.base_url = "http://127.0.0.1:9/v1";
  options.endpoint.model = "m";
  options.cache.mode = llm::CacheMode::kOff;
  auto client = llm::make_client(options);
  EXPECT_TRUE(client.ok());
  return client.ok() ? std::move(client).value() : nullptr;
}

}  // namespace ragmeter::gen_testing
