// The vector index against an exact cosine ranking computed here, independently, on
// seeded random vectors: the scan path (<= 2,000 vectors) must match it exactly, the
// hnswlib path (3,000 vectors) closely; exclusion, zero vectors, the file round trip and
// its errors.
#include "ragmeter/vector_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace ragmeter {
namespace {

namespace fs = std::filesystem;

using Vectors = std::vector<std::vector<float>>;

Vectors random_vectors(std::size_t n, int dimensions, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  Vectors out(n, std::vector<float>(static_cast<std::size_t>(dimensions)));
  for (auto& v : out) {
    for (float& x : v) x = normal(rng);
  }
  return out;
}

double exact_cosine(const std::vector<float>& a, const std::vector<float>& b) {
  double ab = 0, aa = 0, bb = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    ab += double(a[i]) * b[i];
    aa += double(a[i]) * a[i];
    bb += double(b[i]) * b[i];
  }
  return aa == 0 || bb == 0 ? 0.0 : ab / std::sqrt(aa * bb);
}

// The k ids most similar to `query`, best first, ties by lower id, without `exclude`.
std::vector<std::size_t> exact_top(const Vectors& stored, const std::vector<float>& query,
                                   std::size_t k, const std::vector<std::size_t>& exclude = {}) {
  std::vector<std::pair<double, std::size_t>> scored;
  for (std::size_t id = 0; id < stored.size(); ++id) {
    if (std::find(exclude.begin(), exclude.end(), id) == exclude.end()) {
      scored.emplace_back(-exact_cosine(stored[id], query), id);
    }
  }
  std::sort(scored.begin(), scored.end());
  std::vector<std::size_t> ids;
  for (std::size_t i = 0; i < std::min(k, scored.size()); ++i) ids.push_back(scored[i].second);
  return ids;
}

std::vector<std::size_t> ids_of(const std::vector<VectorHit>& hits) {
  std::vector<std::size_t> ids;
  for (const VectorHit& hit : hits) ids.push_back(hit.id);
  return ids;
}

VectorIndex build(const Vectors& vectors, int dimensions) {
  StatusOr<VectorIndex> index = VectorIndex::create(dimensions);
  EXPECT_TRUE(index.ok()) << index.status().to_string();
  for (std::size_t i = 0; i < vectors.size(); ++i) {
    StatusOr<std::size_t> id = index->add(vectors[i]);
    EXPECT_TRUE(id.ok()) << id.status().to_string();
    EXPECT_EQ(*id, i);
  }
  return std::move(index).value();
}

std::string temp_path(const std::string& name) {
  const fs::path dir = fs::path(::testing::TempDir()) / "ragmeter_vector_index_test";
  fs::create_directories(dir);
  return (dir / name).string();
}

// Every similarity is the exact cosine of its vector, and hits are best first.
void expect_exact_scores(const std::vector<VectorHit>& hits, const Vectors& stored,
                         const std::vector<float>& query) {
  for (std::size_t i = 0; i < hits.size(); ++i) {
    EXPECT_NEAR(hits[i].similarity, exact_cosine(stored[hits[i].id], query), 1e-5);
    if (i > 0) {
      EXPECT_GE(hits[i - 1].similarity, hits[i].similarity);
    }
  }
}

constexpr int kSmallDimensions = 48;
constexpr int kLargeDimensions = 32;
constexpr std::size_t kLargeCount = 3000;
static_assert(kLargeCount > kVectorIndexExactLimit);

// The 3,000-vector index is built once: the graph build is the slowest thing here.
class VectorIndexGraphTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    stored_ = new Vectors(random_vectors(kLargeCount, kLargeDimensions, 7));
    index_ = new VectorIndex(build(*stored_, kLargeDimensions));
  }
  static void TearDownTestSuite() {
    delete index_;
    delete stored_;
  }
  static Vectors* stored_;
  static VectorIndex* index_;
};
Vectors* VectorIndexGraphTest::stored_ = nullptr;
VectorIndex* VectorIndexGraphTest::index_ = nullptr;

TEST(VectorIndexTest, ScanMatchesExactCosineRanking) {
  const Vectors stored = random_vectors(kVectorIndexExactLimit, kSmallDimensions, 1);
  const VectorIndex index = build(stored, kSmallDimensions);
  ASSERT_EQ(index.size(), kVectorIndexExactLimit);
  for (const std::vector<float>& query : random_vectors(20, kSmallDimensions, 2)) {
    const std::vector<VectorHit> hits = index.search(query, 10);
    EXPECT_EQ(ids_of(hits), exact_top(stored, query, 10));
    expect_exact_scores(hits, stored, query);
  }
}

TEST(VectorIndexTest, ScanExcludesIds) {
  const Vectors stored = random_vectors(300, kSmallDimensions, 3);
  const VectorIndex index = build(stored, kSmallDimensions);
  const std::vector<float>& query = stored[17];
  std::vector<std::size_t> exclude = exact_top(stored, query, 3);  // 17 and its two nearest
  ASSERT_EQ(exclude[0], 17u);
  exclude.push_back(99999);  // not stored: ignored
  const std::vector<VectorHit> hits = index.search(query, 5, exclude);
  EXPECT_EQ(ids_of(hits), exact_top(stored, query, 5, exclude));
  for (const VectorHit& hit : hits) {
    EXPECT_EQ(std::count(exclude.begin(), exclude.end(), hit.id), 0) << hit.id;
  }
}

TEST(VectorIndexTest, FewerVectorsThanK) {
  const Vectors stored = random_vectors(4, kSmallDimensions, 4);
  const VectorIndex index = build(stored, kSmallDimensions);
  EXPECT_EQ(index.search(stored[0], 10).size(), 4u);
  EXPECT_EQ(index.search(stored[0], 10, {0, 1}).size(), 2u);
  EXPECT_TRUE(index.search(stored[0], 0).empty());
  StatusOr<VectorIndex> empty = VectorIndex::create(kSmallDimensions);
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->search(stored[0], 3).empty());
}

TEST(VectorIndexTest, TiesGoToTheLowerId) {
  StatusOr<VectorIndex> index = VectorIndex::create(3);
  ASSERT_TRUE(index.ok());
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(index->add({0.0f, 2.0f, 0.0f}).ok());
  ASSERT_TRUE(index->add({1.0f, 0.0f, 0.0f}).ok());
  const std::vector<VectorHit> hits = index->search({0.0f, 1.0f, 0.0f}, 4);
  EXPECT_EQ(ids_of(hits), (std::vector<std::size_t>{0, 1, 2, 3}));
  EXPECT_FLOAT_EQ(hits[0].similarity, 1.0f);  // {0, 2, 0} was scaled to unit length
  EXPECT_EQ(index->vector(0), (std::vector<float>{0.0f, 1.0f, 0.0f}));
  EXPECT_FLOAT_EQ(hits[3].similarity, 0.0f);
}

TEST(VectorIndexTest, ZeroVectorsNeverMatchAboveZero) {
  StatusOr<VectorIndex> index = VectorIndex::create(2);
  ASSERT_TRUE(index.ok());
  ASSERT_TRUE(index->add({0.0f, 0.0f}).ok());   // 0: zero
  ASSERT_TRUE(index->add({1.0f, 0.0f}).ok());   // 1
  ASSERT_TRUE(index->add({-1.0f, 0.0f}).ok());  // 2: opposite
  const std::vector<VectorHit> hits = index->search({3.0f, 0.0f}, 3);
  EXPECT_EQ(ids_of(hits), (std::vector<std::size_t>{1, 0, 2}));
  EXPECT_FLOAT_EQ(hits[0].similarity, 1.0f);
  EXPECT_EQ(hits[1].similarity, 0.0f);
  EXPECT_FLOAT_EQ(hits[2].similarity, -1.0f);
  // A zero query scores 0 against everything: ids in order.
  const std::vector<VectorHit> zero = index->search({0.0f, 0.0f}, 3);
  EXPECT_EQ(ids_of(zero), (std::vector<std::size_t>{0, 1, 2}));
  for (const VectorHit& hit : zero) EXPECT_EQ(hit.similarity, 0.0f);
}

TEST(VectorIndexTest, RejectsWrongSizesAndNonFiniteValues) {
  EXPECT_EQ(VectorIndex::create(0).status().code(), StatusCode::kInvalidArgument);
  StatusOr<VectorIndex> index = VectorIndex::create(4);
  ASSERT_TRUE(index.ok());
  EXPECT_EQ(index->dimensions(), 4);
  StatusOr<std::size_t> short_vector = index->add({1.0f, 2.0f, 3.0f});
  EXPECT_EQ(short_vector.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(short_vector.status().message().find("3 dimensions"), std::string::npos)
      << short_vector.status().message();
  EXPECT_EQ(index->add({1.0f, NAN, 0.0f, 0.0f}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(index->add({1.0f, INFINITY, 0.0f, 0.0f}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(index->size(), 0u);
  ASSERT_TRUE(index->add({1.0f, 0.0f, 0.0f, 0.0f}).ok());
  EXPECT_TRUE(index->search({1.0f, 0.0f}, 1).empty());
  EXPECT_TRUE(index->search({NAN, 0.0f, 0.0f, 0.0f}, 1).empty());
}

TEST_F(VectorIndexGraphTest, RecallAgainstExactRanking) {
  const Vectors queries = random_vectors(100, kLargeDimensions, 8);
  std::size_t found = 0;
  for (const std::vector<float>& query : queries) {
    const std::vector<VectorHit> hits = index_->search(query, 10);
    ASSERT_EQ(hits.size(), 10u);
    expect_exact_scores(hits, *stored_, query);
    const std::vector<std::size_t> exact = exact_top(*stored_, query, 10);
    for (const VectorHit& hit : hits) found += std::count(exact.begin(), exact.end(), hit.id);
  }
  const double recall = double(found) / (10.0 * queries.size());
  EXPECT_GE(recall, 0.95);
  RecordProperty("recall_at_10", std::to_string(recall));
}

TEST_F(VectorIndexGraphTest, StoredVectorsFindThemselvesFirst) {
  for (std::size_t id = 0; id < kLargeCount; id += 30) {
    const std::vector<VectorHit> hits = index_->search((*stored_)[id], 1);
    ASSERT_EQ(hits.size(), 1u);
    EXPECT_EQ(hits[0].id, id);
    EXPECT_NEAR(hits[0].similarity, 1.0, 1e-6);
  }
}

TEST_F(VectorIndexGraphTest, ExcludesIds) {
  for (std::size_t id = 5; id < kLargeCount; id += 300) {
    const std::vector<float>& query = (*stored_)[id];
    const std::vector<std::size_t> exclude = exact_top(*stored_, query, 4);  // id and 3 nearest
    const std::vector<VectorHit> hits = index_->search(query, 5, exclude);
    ASSERT_EQ(hits.size(), 5u);
    for (const VectorHit& hit : hits) {
      EXPECT_EQ(std::count(exclude.begin(), exclude.end(), hit.id), 0) << hit.id;
    }
    EXPECT_EQ(hits[0].id, exact_top(*stored_, query, 1, exclude)[0]);
  }
}

// A loaded index rebuilds the graph from the saved vectors and seed: same results.
TEST_F(VectorIndexGraphTest, SaveLoadRoundTrip) {
  const std::string path = temp_path("large.vectors");
  ASSERT_TRUE(index_->save(path).ok());
  StatusOr<VectorIndex> loaded = VectorIndex::load(path, kLargeDimensions);
  ASSERT_TRUE(loaded.ok()) << loaded.status().to_string();
  EXPECT_EQ(loaded->size(), kLargeCount);
  for (const std::vector<float>& query : random_vectors(20, kLargeDimensions, 9)) {
    const std::vector<VectorHit> a = index_->search(query, 10, {3});
    const std::vector<VectorHit> b = loaded->search(query, 10, {3});
    ASSERT_EQ(ids_of(a), ids_of(b));
    for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].similarity, b[i].similarity);
  }
  // The temporary file was renamed, not left behind.
  for (const auto& entry : fs::directory_iterator(fs::path(path).parent_path())) {
    EXPECT_FALSE(entry.path().filename().string().starts_with("large.vectors.tmp"));
  }
  fs::remove(path);
}

TEST(VectorIndexTest, SaveLoadRoundTripSmallAndAppendAfterLoad) {
  const Vectors stored = random_vectors(50, kSmallDimensions, 10);
  const std::string path = temp_path("small.vectors");
  const VectorIndex index = build(stored, kSmallDimensions);
  ASSERT_TRUE(index.save(path).ok());
  ASSERT_TRUE(index.save(path).ok());  // overwriting is fine
  StatusOr<VectorIndex> loaded = VectorIndex::load(path, kSmallDimensions);
  ASSERT_TRUE(loaded.ok()) << loaded.status().to_string();
  EXPECT_EQ(std::filesystem::file_size(path), 19u + 4 + 8 + 8 + 50u * kSmallDimensions * 4);
  for (const std::vector<float>& query : random_vectors(5, kSmallDimensions, 11)) {
    const std::vector<VectorHit> a = index.search(query, 7);
    const std::vector<VectorHit> b = loaded->search(query, 7);
    ASSERT_EQ(ids_of(a), ids_of(b));
    for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].similarity, b[i].similarity);
  }
  EXPECT_EQ(loaded->vector(49), index.vector(49));
  EXPECT_TRUE(loaded->vector(50).empty());
  StatusOr<std::size_t> next = loaded->add(stored[0]);
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(*next, 50u);
  fs::remove(path);
}

TEST(VectorIndexTest, SaveToMissingDirectoryIsUnavailable) {
  StatusOr<VectorIndex> index = VectorIndex::create(2);
  ASSERT_TRUE(index.ok());
  const std::string path = temp_path("no/such/dir/x.vectors");
  const Status status = index->save(path);
  EXPECT_EQ(status.code(), StatusCode::kUnavailable);
  EXPECT_NE(status.message().find(path), std::string::npos) << status.message();
}

TEST(VectorIndexTest, LoadErrorsNameTheProblem) {
  const std::string missing = temp_path("missing.vectors");
  EXPECT_EQ(VectorIndex::load(missing, 8).status().code(), StatusCode::kNotFound);

  const std::string garbage = temp_path("garbage.vectors");
  std::ofstream(garbage) << "{\"this\": \"is json, not vectors\"}\n";
  const Status not_index = VectorIndex::load(garbage, 8).status();
  EXPECT_EQ(not_index.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(not_index.message().find(garbage), std::string::npos) << not_index.message();

  const std::string empty = temp_path("empty.vectors");
  std::ofstream{empty};
  EXPECT_EQ(VectorIndex::load(empty, 8).status().code(), StatusCode::kInvalidArgument);

  const std::string saved = temp_path("eight.vectors");
  {
    StatusOr<VectorIndex> index = VectorIndex::create(8);
    ASSERT_TRUE(index.ok());
    for (const auto& v : random_vectors(3, 8, 12)) ASSERT_TRUE(index->add(v).ok());
    ASSERT_TRUE(index->save(saved).ok());
  }
  const Status wrong_dimensions = VectorIndex::load(saved, 16).status();
  EXPECT_EQ(wrong_dimensions.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(wrong_dimensions.message().find(saved), std::string::npos);
  EXPECT_NE(wrong_dimensions.message().find("8 dimensions"), std::string::npos)
      << wrong_dimensions.message();

  fs::resize_file(saved, fs::file_size(saved) - 4);  // truncated: the last float cut off
  const Status truncated = VectorIndex::load(saved, 8).status();
  EXPECT_EQ(truncated.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(truncated.message().find(saved), std::string::npos);

  for (const std::string& path : {garbage, empty, saved}) fs::remove(path);
}

// Searches from several threads on an index whose graph is not built yet: one of them
// builds it, all get the answers a single thread gets afterwards.
TEST(VectorIndexTest, ConcurrentSearchesAgree) {
  const Vectors stored = random_vectors(kVectorIndexExactLimit + 100, 8, 13);
  const VectorIndex index = build(stored, 8);
  const Vectors queries = random_vectors(40, 8, 14);
  std::vector<std::vector<std::vector<std::size_t>>> seen(4);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < seen.size(); ++t) {
    threads.emplace_back([&, t] {
      for (const auto& query : queries) seen[t].push_back(ids_of(index.search(query, 5)));
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (std::size_t q = 0; q < queries.size(); ++q) {
    const std::vector<std::size_t> expected = ids_of(index.search(queries[q], 5));
    EXPECT_EQ(expected.size(), 5u);
    for (const auto& thread_seen : seen) EXPECT_EQ(thread_seen[q], expected);
  }
}

TEST(VectorIndexTest, MovedIndexKeepsItsVectors) {
  StatusOr<VectorIndex> index = VectorIndex::create(2);
  ASSERT_TRUE(index.ok());
  ASSERT_TRUE(index->add({1.0f, 1.0f}).ok());
  VectorIndex moved = std::move(index).value();
  VectorIndex assigned = std::move(VectorIndex::create(2).value());
  assigned = std::move(moved);
  EXPECT_EQ(assigned.size(), 1u);
  EXPECT_EQ(assigned.search({1.0f, 1.0f}, 1)[0].id, 0u);
}

}  // namespace
}  // namespace ragmeter
