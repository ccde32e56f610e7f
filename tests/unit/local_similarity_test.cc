// The local embedder's similarity over an evaluation batch (src/judge/local_similarity.h): the
// batch embedded piece by piece gives, for every pair of texts in it or outside it, the
// similarity the embedder gives the two texts alone, from any number of threads. Needs the
// model (scripts/setup_embedder.sh).
#include "judge/local_similarity.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <thread>
#include <vector>

namespace ragmeter {
namespace {

std::vector<Sample> long_samples(int n) {
  std::vector<Sample> samples(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    const std::string k = std::to_string(i);
    samples[i].user_input = "What does harbour " + k + " hold?";
    std::string response = "Harbour " + k + " holds";
    std::string reference = "The harbour numbered " + k + " keeps";
    for (int w = 0; w < 20; ++w) {  // about 45 ids each: ten texts a piece, several pieces
      response += " boat" + std::to_string((i * 7 + w) % 13);
      reference += " ship" + std::to_string((i * 5 + w) % 11);
    }
    samples[i].response = response + ".";
    samples[i].set_reference(reference + ".");
  }
  return samples;
}

TEST(LocalSimilarityTest, ABatchEmbeddedPieceByPieceGivesTheEmbeddersOwnSimilarities) {
  if (!std::filesystem::exists(default_embedder_model_path() + "/model.safetensors")) {
    GTEST_SKIP() << "no model at " << default_embedder_model_path()
                 << ": run scripts/setup_embedder.sh";
  }
  auto embedder = SentenceEmbedder::load(SentenceEmbedderOptions{});
  ASSERT_TRUE(embedder.ok()) << embedder.status().to_string();
  // 72 texts, about 2,400 ids: 5 pieces or more.
  const std::vector<Sample> samples = long_samples(24);
  std::vector<const Sample*> batch;
  for (const Sample& s : samples) batch.push_back(&s);
  LocalSimilarity local(LocalEmbedders{*embedder, nullptr});
  local.prepare_batch(batch);
  std::vector<double> got(samples.size()), outside(samples.size());
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) {  // rows taken out of order by several threads, as evaluate does
    threads.emplace_back([&, t] {
      for (std::size_t i = static_cast<std::size_t>(t); i < samples.size(); i += 3) {
        const std::size_t row = samples.size() - 1 - i;
        got[row] = local.similarity(*samples[row].response, *samples[row].reference()).value();
        outside[row] = local.similarities(*samples[row].user_input, {"a text of no row"}).value()[0];
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  // The embedder's own vectors of every text, in one call, and their dot products.
  std::vector<std::string> texts{"a text of no row"};
  for (const Sample& s : samples) {
    texts.insert(texts.end(), {*s.user_input, *s.response, std::string(*s.reference())});
  }
  const auto vectors = (*embedder)->embed(texts);
  auto cosine = [&](std::size_t a, std::size_t b) {
    double sum = 0;
    for (std::size_t k = 0; k < vectors[a].size(); ++k) {
      sum += static_cast<double>(vectors[a][k]) * vectors[b][k];
    }
    return sum;
  };
  for (std::size_t i = 0; i < samples.size(); ++i) {
    EXPECT_NEAR(got[i], cosine(2 + 3 * i, 3 + 3 * i), 1e-6) << i;
    EXPECT_NEAR(outside[i], cosine(1 + 3 * i, 0), 1e-6) << i;
  }
}

}  // namespace
}  // namespace ragmeter
