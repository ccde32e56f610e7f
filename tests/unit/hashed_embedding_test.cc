// The model-free dense embedding: determinism, unit length, and how closely its cosine
// follows the exact cosine of the offline judge's term vectors on real texts.
#include "ragmeter/hashed_embedding.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "judge/offline/text_vectors.h"
#include "tests/unit/test_paths.h"

namespace ragmeter {
namespace {

double cosine(const std::vector<float>& a, const std::vector<float>& b) {
  double dot = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) dot += double(a[i]) * b[i];
  return dot;  // both are unit length or zero
}

double length(const std::vector<float>& v) { return std::sqrt(cosine(v, v)); }

struct HaluEvalRow {
  std::string knowledge, question;
};

std::vector<HaluEvalRow> halueval_rows(std::size_t limit) {
  std::ifstream file(std::string(RAGMETER_SOURCE_DIR) + "/tests/data/halueval_qa_one_turn.jsonl");
  std::vector<HaluEvalRow> rows;
  std::string line;
  while (rows.size() < limit && std::getline(file, line)) {
    const nlohmann::json row = nlohmann::json::parse(line);
    rows.push_back({row.at("knowledge").get<std::string>(), row.at("question").get<std::string>()});
  }
  return rows;
}

TEST(HashedEmbeddingTest, SameTextSameVector) {
  const std::string text = "Arthur's Magazine was an American literary periodical.";
  EXPECT_EQ(hashed_embedding(text), hashed_embedding(text));
  EXPECT_EQ(hashed_embedding(text).size(), std::size_t(kHashedEmbeddingDimensions));
  // Pinned so a change of hash function or term keys (which would invalidate every saved
  // index) fails here: "cats" -> the stem "cat" -> one dimension, fixed sign.
  const std::vector<float> cat = hashed_embedding("cats");
  std::vector<float> expected(kHashedEmbeddingDimensions, 0.0f);
  expected[468] = -1.0f;  // FNV-1a 64 + fmix64 of "cat": 468 mod 512, top bit set
  EXPECT_EQ(cat, expected);
}

TEST(HashedEmbeddingTest, UnitLength) {
  for (const HaluEvalRow& row : halueval_rows(20)) {
    EXPECT_NEAR(length(hashed_embedding(row.knowledge)), 1.0, 1e-6) << row.knowledge;
    EXPECT_NEAR(length(hashed_embedding(row.question, 64)), 1.0, 1e-6) << row.question;
  }
}

TEST(HashedEmbeddingTest, NoContentWordGivesZeroVector) {
  for (const char* text : {"the of and", "", "!!"}) {
    EXPECT_EQ(hashed_embedding(text), std::vector<float>(kHashedEmbeddingDimensions, 0.0f)) << text;
  }
}

TEST(HashedEmbeddingTest, DimensionsArgument) {
  EXPECT_EQ(hashed_embedding("rain and snow", 64).size(), 64u);
  EXPECT_EQ(hashed_embedding("rain and snow", 1).size(), 1u);
  EXPECT_TRUE(hashed_embedding("rain and snow", 0).empty());
  EXPECT_TRUE(hashed_embedding("rain and snow", -3).empty());
}

TEST(HashedEmbeddingTest, IdenticalTextsHaveCosineOne) {
  for (const HaluEvalRow& row : halueval_rows(20)) {
    const std::vector<float> v = hashed_embedding(row.knowledge);
    EXPECT_NEAR(cosine(v, hashed_embedding(row.knowledge)), 1.0, 1e-6);
  }
}

// Pairs from HaluEval: each question with its own knowledge paragraph (mostly related),
// with the next row's paragraph (mostly unrelated), and neighbouring paragraphs with
// each other.
TEST(HashedEmbeddingTest, CosineApproximatesOfflineSimilarity) {
  const std::vector<HaluEvalRow> rows = halueval_rows(200);
  ASSERT_EQ(rows.size(), 200u);
  double total_error = 0.0, related_error = 0.0, worst = 0.0;
  int pairs = 0, related = 0;
  auto compare = [&](const std::string& a, const std::string& b) {
    const double exact = offline_similarity(a, b);
    const double error = std::abs(cosine(hashed_embedding(a), hashed_embedding(b)) - exact);
    total_error += error;
    worst = std::max(worst, error);
    ++pairs;
    if (exact > 0.1) {
      related_error += error;
      ++related;
    }
  };
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const HaluEvalRow& next = rows[(i + 1) % rows.size()];
    compare(rows[i].question, rows[i].knowledge);
    compare(rows[i].question, next.knowledge);
    compare(rows[i].knowledge, next.knowledge);
  }
  ASSERT_GT(related, 150);
  // Measured at 512 dimensions: 0.026 over all 600 pairs, 0.020 over the 213 related
  // ones, 0.18 at worst. Deterministic, so the margins guard against regressions only.
  EXPECT_LT(total_error / pairs, 0.05);
  EXPECT_LT(related_error / related, 0.05);
  EXPECT_LT(worst, 0.3);
  RecordProperty("mean_abs_error", std::to_string(total_error / pairs));
}

}  // namespace
}  // namespace ragmeter
