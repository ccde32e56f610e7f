// What one judge call told the judge is stored together (ReplyStore::put_all): a process
// killed after any of its writes to the shared store, then run again over what it left,
// scores as an uninterrupted run. Before put_all a table's verdict cells were written one
// by one; a worker killed between them left a part, and the rerun asked a smaller table
// for the rest, whose verdicts differed (seen in tests/ray's killed-worker test). Over
// the FAKE server (fixed replies), not a model.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "../fakes/fake_llm_server_process.h"
#include "llm/response_cache.h"
#include "ragmeter/evaluate.h"
#include "ragmeter/judge_hooks.h"
#include "ragmeter/llm_judge.h"
#include "tests/unit/fake_llm_judge.h"
#include "tests/unit/memory_reply_store.h"

namespace ragmeter {
namespace {

using test_stores::MemoryReplyStore;

// An LLM judge over the fake at `base_url` keeping replies, verdicts and claims in
// `store` (as a Ray worker's judge does).
std::shared_ptr<Judge> judge_keeping_in(const std::string& base_url,
                                        std::shared_ptr<llm::ReplyStore> store) {
  llm::ClientOptions client_options;
  client_options.endpoint.base_url = base_url;
  client_options.endpoint.model = "fake-model";
  client_options.endpoint.api_key_env = "";
  client_options.cache.mode = llm::CacheMode::kReadWrite;
  client_options.cache.path = "/nonexistent/never-opened.sqlite";  // the store replaces it
  auto client = llm::make_client(client_options, llm::ClientHooks{nullptr, store});
  EXPECT_TRUE(client.ok()) << client.status().to_string();
  LlmJudgeOptions options;
  options.chat = std::move(client).value();
  options.model = "fake-model";
  options.endpoint_options = client_options.endpoint;
  options.verdict_cache = client_options.cache;
  options.verdict_store = std::move(store);
  auto judge = make_llm_judge(std::move(options));
  EXPECT_TRUE(judge.ok()) << judge.status().to_string();
  return *judge;
}

// The fake's one reply: a claim for every sentence label, and every cell of a verdict
// table entailed with evidence quoted from the first chunk only ("Paris has tower 7."),
// as tests/ray's. So a table that does not show that chunk has no cell entailed: which
// cells are asked together decides the verdicts.
std::string fixed_reply() {
  nlohmann::json reply;
  for (int n = 1; n <= 9; ++n) reply["S" + std::to_string(n)] = {"The tower is in Paris."};
  for (int c = 1; c <= 4; ++c) {
    reply["Evidence " + std::to_string(c)] = "Paris has tower";
    reply["reason " + std::to_string(c)] = "";
    for (int p = 1; p <= 6; ++p) {
      reply["P" + std::to_string(p) + ": claim " + std::to_string(c)] = "Entailment";
    }
  }
  return reply.dump();
}

Sample tower_row() {
  Sample sample;
  sample.user_input = "Where is tower 7?";
  // Sentences whose numbers and names the fake's one claim keeps (llm_claims.h,
  // claims_keep_facts), so that claim stands for each of them.
  sample.response = "The tower is in Paris. The tower is tall.";
  sample.set_references({"The tower stands in Paris. It is old."});
  sample.retrieved_contexts = {"Paris has tower 7.", "Tower 7 opened in 1807."};
  return sample;
}

const std::vector<std::string> kMetrics = {"faithfulness", "context_recall",
                                           "factual_correctness"};

std::vector<MetricResult> score(const std::shared_ptr<Judge>& judge) {
  EvalOptions options;
  for (const std::string& name : kMetrics) {
    options.metrics.push_back({find_metric(name), 0, name});
  }
  options.judge = judge;
  return score_sample(tower_row(), options);
}

class StoredTogetherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(test_judges::fake_llm_server_built());
    ASSERT_TRUE(fake_.start(test_judges::fake_llm_server_path(), {"--content", fixed_reply()}));
  }
  fakes::FakeLlmServerProcess fake_;
};

TEST_F(StoredTogetherTest, ATableCellsAndACallsClaimsAreOneWriteEach) {
  auto store = std::make_shared<MemoryReplyStore>();
  std::vector<MetricResult> results = score(judge_keeping_in(fake_.base_url(), store));
  for (const MetricResult& r : results) EXPECT_EQ(r.outcome, Outcome::kOk) << r.reason;
  // More than one cell and more than one sentence's claims were stored, each kind in
  // as many writes as calls made it (one claims call, one verdict table for this row).
  EXPECT_GT(store->entries_of_kind("verdict"), 1u);
  EXPECT_EQ(store->writes_of_kind("verdict"), 1u);
  EXPECT_GT(store->entries_of_kind("claims"), 1u);
  EXPECT_EQ(store->writes_of_kind("claims"), 1u);
}

TEST_F(StoredTogetherTest, ARunKilledAfterAnyWriteScoresAsAnUninterruptedRunWhenRunAgain) {
  auto full = std::make_shared<MemoryReplyStore>();
  std::vector<MetricResult> want = score(judge_keeping_in(fake_.base_url(), full));
  ASSERT_EQ(want.size(), 3u);
  // The row as the fake's reply makes it: every claim is in the first chunk.
  for (std::size_t m = 0; m < want.size(); ++m) {
    ASSERT_EQ(want[m].outcome, Outcome::kOk) << kMetrics[m] << ": " << want[m].reason;
    EXPECT_EQ(want[m].score, 1.0) << kMetrics[m];
  }
  ASSERT_GE(full->writes(), 3u);  // chat replies, claims, verdict cells
  for (std::size_t n = 0; n <= full->writes(); ++n) {
    std::vector<MetricResult> got = score(judge_keeping_in(fake_.base_url(), full->first_writes(n)));
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t m = 0; m < want.size(); ++m) {
      EXPECT_EQ(got[m].outcome, want[m].outcome) << kMetrics[m] << " after " << n << " writes";
      EXPECT_EQ(got[m].score, want[m].score) << kMetrics[m] << " after " << n << " writes";
    }
  }
}

// The cache file's put_all: every entry in, readable by another connection; nothing in a
// read-only cache.
TEST(ResponseCachePutAll, StoresEveryEntryInTheFile) {
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("put_all_" + std::to_string(getpid()) + ".sqlite");
  std::filesystem::remove(path);
  llm::CacheOptions options;
  options.path = path.string();
  options.mode = llm::CacheMode::kReadWrite;
  auto writer = llm::open_reply_store(options);
  ASSERT_TRUE(writer.ok()) << writer.status().to_string();
  std::vector<llm::StoreEntry> entries;
  for (int i = 0; i < 50; ++i) {
    entries.push_back({"key" + std::to_string(i), "verdict", "value " + std::to_string(i)});
  }
  ASSERT_TRUE((*writer)->put_all(entries).ok());
  options.mode = llm::CacheMode::kReadOnly;
  auto reader = llm::open_reply_store(options);
  ASSERT_TRUE(reader.ok()) << reader.status().to_string();
  for (const llm::StoreEntry& entry : entries) {
    auto value = (*reader)->get(entry.key);
    ASSERT_TRUE(value.ok() && value->has_value()) << entry.key;
    EXPECT_EQ(**value, entry.value);
  }
  EXPECT_TRUE((*reader)->put_all({{"new", "verdict", "x"}}).ok());  // a no-op
  auto missing = (*reader)->get("new");
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(missing->has_value());
  writer->reset();  // closed before the files go
  reader->reset();
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path.string() + suffix);
}

// A writer killed (SIGKILL) while it stores batches leaves each batch whole or absent in
// the file: put_all is one transaction. (With one transaction per entry, the kill lands
// inside a batch and leaves a part.)
TEST(ResponseCachePutAll, AWriterKilledMidRunLeavesEachBatchWholeOrAbsent) {
  const std::filesystem::path path = std::filesystem::temp_directory_path() /
                                     ("put_all_kill_" + std::to_string(getpid()) + ".sqlite");
  std::filesystem::remove(path);
  llm::CacheOptions options;
  options.path = path.string();
  options.mode = llm::CacheMode::kReadWrite;
  constexpr int kBatch = 20, kBatches = 1000000;
  auto key = [](int batch, int i) { return "b" + std::to_string(batch) + "-" + std::to_string(i); };
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto store = llm::open_reply_store(options);
    if (!store.ok()) _exit(2);
    for (int batch = 0; batch < kBatches; ++batch) {
      std::vector<llm::StoreEntry> entries;
      for (int i = 0; i < kBatch; ++i) entries.push_back({key(batch, i), "verdict", "v"});
      if (!(*store)->put_all(entries).ok()) _exit(3);
    }
    _exit(0);
  }
  // Kill it once it has stored a few batches (or after 10 s, whatever it did).
  options.mode = llm::CacheMode::kReadOnly;
  for (int waited = 0; waited < 1000; ++waited) {
    usleep(10000);
    if (!std::filesystem::exists(path)) continue;
    auto peek = llm::open_reply_store(options);
    if (!peek.ok()) continue;
    auto got = (*peek)->get(key(5, 0));
    if (got.ok() && got->has_value()) break;
  }
  usleep(50000);
  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the writer ended before the kill, status " << status;
  auto reader = llm::open_reply_store(options);
  ASSERT_TRUE(reader.ok()) << reader.status().to_string();
  int whole = 0;
  for (int batch = 0;; ++batch) {
    int present = 0;
    for (int i = 0; i < kBatch; ++i) {
      auto got = (*reader)->get(key(batch, i));
      ASSERT_TRUE(got.ok());
      present += got->has_value() ? 1 : 0;
    }
    ASSERT_TRUE(present == 0 || present == kBatch) << "batch " << batch << ": " << present;
    if (present == 0) break;
    ++whole;
  }
  EXPECT_GE(whole, 6);  // it had stored batches 0 to 5 at least
  reader->reset();  // closed before the files go
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path.string() + suffix);
}

}  // namespace
}  // namespace ragmeter
