// The judge cache: modes, concurrency, a kill in the middle of writing, no secrets.
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "llm/response_cache.h"
#include "ragmeter/llm.h"

namespace ragmeter::llm {
namespace {

namespace fs = std::filesystem;

// A fresh directory per test, removed afterwards.
class ResponseCacheTest : public testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "ragmeter-cache-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name = "judge.sqlite") const {
    return (dir_ / name).string();
  }

  std::unique_ptr<ResponseCache> open(CacheMode mode, const std::string& file) {
    StatusOr<std::unique_ptr<ResponseCache>> cache = open_response_cache({file, mode});
    EXPECT_TRUE(cache.ok()) << cache.status().to_string();
    return cache.ok() ? std::move(cache).value() : nullptr;
  }

  fs::path dir_;
};

std::optional<std::string> get_or_die(ResponseCache* cache, const std::string& key) {
  StatusOr<std::optional<std::string>> value = cache->get(key);
  EXPECT_TRUE(value.ok()) << value.status().to_string();
  return value.ok() ? *value : std::nullopt;
}

// A value large enough to span several SQLite pages, derived from its key.
std::string value_for(const std::string& key) {
  std::string value = key + ":";
  while (value.size() < 9000) value += key + "|" + std::to_string(value.size()) + ";";
  return value;
}

// prefix + a + "-" + b, appended (`"t" + std::to_string(..)` trips g++ 12's -Wrestrict).
std::string entry_key(const std::string& prefix, int a, int b) {
  std::string key = prefix;
  key += std::to_string(a);
  key += '-';
  key += std::to_string(b);
  return key;
}

std::string file_bytes(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

TEST_F(ResponseCacheTest, ReadWriteServesWhatItStored) {
  auto cache = open(CacheMode::kReadWrite, path());
  ASSERT_NE(cache, nullptr);
  EXPECT_EQ(get_or_die(cache.get(), "k"), std::nullopt);
  ASSERT_TRUE(cache->put("k", "chat", "first").ok());
  EXPECT_EQ(get_or_die(cache.get(), "k"), "first");
  ASSERT_TRUE(cache->put("k", "chat", "second").ok());
  EXPECT_EQ(get_or_die(cache.get(), "k"), "second");
  std::string binary("a\0b", 3);
  ASSERT_TRUE(cache->put("bytes", "embeddings", binary).ok());
  EXPECT_EQ(get_or_die(cache.get(), "bytes"), binary);
  EXPECT_EQ(cache->mode(), CacheMode::kReadWrite);
}

TEST_F(ResponseCacheTest, ReadWriteCreatesParentDirectories) {
  std::string nested = path("a/b/c/judge.sqlite");
  auto cache = open(CacheMode::kReadWrite, nested);
  ASSERT_NE(cache, nullptr);
  ASSERT_TRUE(cache->put("k", "chat", "v").ok());
  EXPECT_TRUE(fs::exists(nested));
}

TEST_F(ResponseCacheTest, ReadOnlyAndReplayServeHitsAndNeverWrite) {
  {
    auto writer = open(CacheMode::kReadWrite, path());
    ASSERT_NE(writer, nullptr);
    ASSERT_TRUE(writer->put("old", "chat", "stored").ok());
  }
  for (CacheMode mode : {CacheMode::kReadOnly, CacheMode::kReplay}) {
    auto cache = open(mode, path());
    ASSERT_NE(cache, nullptr);
    EXPECT_EQ(cache->mode(), mode);
    EXPECT_EQ(get_or_die(cache.get(), "old"), "stored");
    EXPECT_EQ(get_or_die(cache.get(), "new"), std::nullopt);
    EXPECT_TRUE(cache->put("new", "chat", "value").ok());  // accepted, not stored
    EXPECT_EQ(get_or_die(cache.get(), "new"), std::nullopt);
  }
  auto reader = open(CacheMode::kReadWrite, path());
  ASSERT_NE(reader, nullptr);
  EXPECT_EQ(get_or_die(reader.get(), "new"), std::nullopt);
}

TEST_F(ResponseCacheTest, MissingFileInReadOnlyOrReplayIsNotFoundNamingThePath) {
  for (CacheMode mode : {CacheMode::kReadOnly, CacheMode::kReplay}) {
    StatusOr<std::unique_ptr<ResponseCache>> cache =
        open_response_cache({path("absent.sqlite"), mode});
    ASSERT_FALSE(cache.ok());
    EXPECT_EQ(cache.status().code(), StatusCode::kNotFound);
    EXPECT_NE(cache.status().message().find(path("absent.sqlite")), std::string::npos)
        << cache.status().message();
  }
  EXPECT_FALSE(fs::exists(path("absent.sqlite")));
}

TEST_F(ResponseCacheTest, OffOpensNothing) {
  std::string file = path("never/judge.sqlite");
  auto cache = open(CacheMode::kOff, file);
  ASSERT_NE(cache, nullptr);
  EXPECT_EQ(cache->mode(), CacheMode::kOff);
  EXPECT_TRUE(cache->put("k", "chat", "v").ok());
  EXPECT_EQ(get_or_die(cache.get(), "k"), std::nullopt);
  EXPECT_FALSE(fs::exists(path("never")));
}

TEST_F(ResponseCacheTest, AFileThatIsNotACacheIsUnavailable) {
  std::ofstream(path("notes.txt"))
      << "this is not a database, just some text that is long enough\n";
  StatusOr<std::unique_ptr<ResponseCache>> cache =
      open_response_cache({path("notes.txt"), CacheMode::kReadOnly});
  ASSERT_FALSE(cache.ok());
  EXPECT_EQ(cache.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(cache.status().message().find("notes.txt"), std::string::npos);
}

// Restores an environment variable when it goes out of scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value != nullptr)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      setenv(name_, old_->c_str(), 1);
    else
      unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST_F(ResponseCacheTest, DefaultPathFollowsXdgCacheHomeThenHome) {
  {
    ScopedEnv xdg("XDG_CACHE_HOME", "/xdg/cache");
    EXPECT_EQ(default_cache_path(), "/xdg/cache/ragmeter/judge.sqlite");
  }
  ScopedEnv relative_xdg("XDG_CACHE_HOME", "relative");  // ignored, as the XDG spec says
  ScopedEnv home("HOME", "/home/someone");
  EXPECT_EQ(default_cache_path(), "/home/someone/.cache/ragmeter/judge.sqlite");
}

TEST_F(ResponseCacheTest, EmptyPathOpensTheDefaultLocation) {
  ScopedEnv xdg("XDG_CACHE_HOME", dir_.c_str());
  auto cache = open(CacheMode::kReadWrite, "");
  ASSERT_NE(cache, nullptr);
  ASSERT_TRUE(cache->put("k", "chat", "v").ok());
  EXPECT_TRUE(fs::exists(dir_ / "ragmeter" / "judge.sqlite"));
}

// Eight threads over two cache objects on one file: the mutex serialises each object,
// WAL and the busy timeout serialise the two connections.
TEST_F(ResponseCacheTest, EightThreadsWriteAndReadConcurrently) {
  auto first = open(CacheMode::kReadWrite, path());
  auto second = open(CacheMode::kReadWrite, path());
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  constexpr int kThreads = 8;
  constexpr int kPerThread = 40;
  std::vector<int> failures(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      ResponseCache* cache = t % 2 == 0 ? first.get() : second.get();
      for (int i = 0; i < kPerThread; ++i) {
        std::string key = entry_key("t", t, i);
        if (!cache->put(key, "chat", value_for(key)).ok()) ++failures[t];
        StatusOr<std::optional<std::string>> back = cache->get(key);
        if (!back.ok() || *back != value_for(key)) ++failures[t];
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], 0) << "thread " << t;
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < kPerThread; ++i) {
      std::string key = entry_key("t", t, i);
      EXPECT_EQ(get_or_die(first.get(), key), value_for(key));
    }
  }
}

// Writes entries "R-0", "R-1", ... until killed; says "ready" through `ready_fd` after
// the first 20 are committed. Never returns.
[[noreturn]] void write_until_killed(const std::string& file, int round, int ready_fd) {
  StatusOr<std::unique_ptr<ResponseCache>> cache =
      open_response_cache({file, CacheMode::kReadWrite});
  if (!cache.ok()) _exit(2);
  for (int i = 0;; ++i) {
    std::string key = entry_key("", round, i);
    if (!(*cache)->put(key, "chat", value_for(key)).ok()) _exit(3);
    if (i == 20 && write(ready_fd, "r", 1) != 1) _exit(4);
  }
}

// Every row reads back whole, and each round's rows are a gapless prefix 0..n-1 (a put
// is committed or absent, never half there). Returns rows per round.
std::vector<int> check_committed_rows(const std::string& file, int rounds) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* check = nullptr;
  sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &check, nullptr);
  EXPECT_EQ(sqlite3_step(check), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(check, 0)), "ok");
  sqlite3_finalize(check);

  std::vector<int> counts(rounds, 0);
  std::vector<std::set<int>> seen(rounds);
  sqlite3_stmt* rows = nullptr;
  sqlite3_prepare_v2(db, "SELECT key, value FROM responses", -1, &rows, nullptr);
  while (sqlite3_step(rows) == SQLITE_ROW) {
    std::string key = reinterpret_cast<const char*>(sqlite3_column_text(rows, 0));
    std::string value(reinterpret_cast<const char*>(sqlite3_column_text(rows, 1)),
                      sqlite3_column_bytes(rows, 1));
    EXPECT_EQ(value, value_for(key)) << key;
    int round = std::stoi(key.substr(0, key.find('-')));
    seen[round].insert(std::stoi(key.substr(key.find('-') + 1)));
    ++counts[round];
  }
  sqlite3_finalize(rows);
  sqlite3_close(db);
  for (int round = 0; round < rounds; ++round) {
    EXPECT_EQ(seen[round].empty() ? -1 : *seen[round].rbegin(), counts[round] - 1) << round;
  }
  return counts;
}

TEST_F(ResponseCacheTest, SurvivesSigkillInTheMiddleOfWriting) {
  constexpr int kRounds = 3;
  for (int round = 0; round < kRounds; ++round) {
    int ready[2];
    ASSERT_EQ(pipe(ready), 0);
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      close(ready[0]);
      write_until_killed(path(), round, ready[1]);
    }
    close(ready[1]);
    char byte = 0;
    ASSERT_EQ(read(ready[0], &byte, 1), 1) << "the writer died before it was ready";
    close(ready[0]);
    usleep(static_cast<useconds_t>(3000 * (round + 1)));  // land at different points
    ASSERT_EQ(kill(child, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  }
  std::vector<int> counts = check_committed_rows(path(), kRounds);
  for (int round = 0; round < kRounds; ++round) EXPECT_GT(counts[round], 20) << round;
  // And the file is still a working cache.
  auto cache = open(CacheMode::kReadWrite, path());
  ASSERT_NE(cache, nullptr);
  EXPECT_EQ(get_or_die(cache.get(), "0-0"), value_for("0-0"));
  EXPECT_TRUE(cache->put("after", "chat", "ok").ok());
}

TEST_F(ResponseCacheTest, TheApiKeyNeverReachesTheFile) {
  ScopedEnv key("OPENAI_API_KEY", "sk-test-SECRET");
  EndpointOptions endpoint;
  endpoint.base_url = "https://api.openai.com/v1";
  endpoint.model = "gpt-4o-mini";
  ChatRequest request;
  request.messages = {{"user", "Is the sky blue?"}};
  std::string cache_key = chat_cache_key(endpoint, request);
  {
    auto cache = open(CacheMode::kReadWrite, path());
    ASSERT_NE(cache, nullptr);
    ASSERT_TRUE(
        cache->put(cache_key, "chat", R"({"choices":[{"message":{"content":"yes"}}]})").ok());
  }
  std::string bytes;
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) bytes += file_bytes(path() + suffix);
  EXPECT_NE(bytes.find(cache_key), std::string::npos) << "the search must see the stored key";
  EXPECT_EQ(bytes.find("sk-test-SECRET"), std::string::npos);
  EXPECT_EQ(bytes.find("SECRET"), std::string::npos);
}

}  // namespace
}  // namespace ragmeter::llm
