// The local sentence embedder (all-MiniLM-L6-v2) against the similarities published in
// sentence-transformers' documentation, and its batching and errors. Needs the model
// (scripts/setup_embedder.sh, run by scripts/setup.sh); the comparison with an independent
// forward pass is tests/oracle/test_sentence_embedder.py.
#include "ragmeter/sentence_embedder.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

namespace ragmeter {
namespace {

std::shared_ptr<const SentenceEmbedder> load_or_skip(int threads = 2) {
  SentenceEmbedderOptions options;
  options.threads = threads;
  if (!std::filesystem::exists(default_embedder_model_path() + "/model.safetensors")) return nullptr;
  auto embedder = SentenceEmbedder::load(options);
  EXPECT_TRUE(embedder.ok()) << embedder.status().to_string();
  return embedder.ok() ? *embedder : nullptr;
}

#define RAGMETER_NEED_MODEL(var, ...)                                                          \
  auto var = load_or_skip(__VA_ARGS__);                                                         \
  if (var == nullptr) GTEST_SKIP() << "no model at " << default_embedder_model_path()          \
                                   << ": run scripts/setup_embedder.sh"

double dot(const std::vector<float>& a, const std::vector<float>& b) {
  double sum = 0;
  for (std::size_t i = 0; i < a.size(); ++i) sum += static_cast<double>(a[i]) * b[i];
  return sum;
}

// sbert.net, "Usage" of Sentence Transformers, model all-MiniLM-L6-v2: model.similarity of
// these three sentences prints tensor([[1.0000, 0.6660, 0.1046], [0.6660, 1.0000, 0.1411],
// [0.1046, 0.1411, 1.0000]]) (four decimals, so within 5e-5 plus float error).
TEST(SentenceEmbedderTest, SimilaritiesPublishedInSentenceTransformersDocs) {
  RAGMETER_NEED_MODEL(embedder);
  const auto v = embedder->embed(std::vector<std::string>{
      "The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium."});
  ASSERT_EQ(v.size(), 3u);
  ASSERT_EQ(v[0].size(), 384u);
  EXPECT_NEAR(dot(v[0], v[0]), 1.0, 1e-5);
  EXPECT_NEAR(dot(v[0], v[1]), 0.6660, 7e-5);
  EXPECT_NEAR(dot(v[0], v[2]), 0.1046, 7e-5);
  EXPECT_NEAR(dot(v[1], v[2]), 0.1411, 7e-5);
}

TEST(SentenceEmbedderTest, BatchWithRepeatsEqualsTextsOneByOne) {
  RAGMETER_NEED_MODEL(embedder);
  const std::vector<std::string> texts = {"a cat sat on the mat", "", "a cat sat on the mat",
                                          "Zwei Männer spielen Schach.", std::string(3000, 'w') + " end"};
  const auto batch = embedder->embed(texts);
  ASSERT_EQ(batch.size(), texts.size());
  EXPECT_EQ(batch[0], batch[2]);
  for (std::size_t i = 0; i < texts.size(); ++i) {
    const auto alone = embedder->embed(std::string_view(texts[i]));
    EXPECT_GT(dot(batch[i], alone), 1 - 1e-6) << i;
  }
}

TEST(SentenceEmbedderTest, OneThreadAndTwoThreadsAgree) {
  RAGMETER_NEED_MODEL(two, 2);
  RAGMETER_NEED_MODEL(one, 1);
  std::vector<std::string> texts;
  for (int i = 0; i < 40; ++i) texts.push_back("sentence number " + std::to_string(i) + " about topic " + std::to_string(i % 7));
  const auto a = two->embed(texts);
  const auto b = one->embed(texts);
  for (std::size_t i = 0; i < texts.size(); ++i) EXPECT_GT(dot(a[i], b[i]), 1 - 1e-6) << i;
}

TEST(SentenceEmbedderTest, MissingModelNamesTheSettings) {
  SentenceEmbedderOptions options;
  options.model_path = "/nonexistent/model-dir";
  auto embedder = SentenceEmbedder::load(options);
  ASSERT_FALSE(embedder.ok());
  EXPECT_EQ(embedder.status().code(), StatusCode::kNotFound);
  const std::string& message = embedder.status().message();
  for (const char* want : {"/nonexistent/model-dir", "model.safetensors", "--embedder-model-path",
                           "embedder_model_path", "RAGMETER_EMBEDDER_MODEL", "scripts/setup_embedder.sh"}) {
    EXPECT_NE(message.find(want), std::string::npos) << want << " not in: " << message;
  }
}

}  // namespace
}  // namespace ragmeter
