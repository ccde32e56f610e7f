#include "run/answer_record.h"

#include <sqlite3.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace ragmeter::run {
namespace {

using Clock = std::chrono::steady_clock;

// One SQLite connection to the record file, used by one thread.
class Connection {
 public:
  explicit Connection(std::string path) : path_(std::move(path)) {}
  ~Connection() {
    sqlite3_finalize(get_);
    sqlite3_finalize(put_);
    if (db_ != nullptr) sqlite3_close(db_);
  }

  Status open() {
    if (sqlite3_open_v2(path_.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                        nullptr) != SQLITE_OK) {
      return error("open");
    }
    sqlite3_busy_timeout(db_, 10000);
    for (const char* sql : {"PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL",
                            "CREATE TABLE IF NOT EXISTS answers (key TEXT PRIMARY KEY, value TEXT NOT NULL)"}) {
      if (sqlite3_exec(db_, sql, nullptr, nullptr, nullptr) != SQLITE_OK) return error("set up");
    }
    if (sqlite3_prepare_v2(db_, "SELECT value FROM answers WHERE key = ?1", -1, &get_, nullptr) != SQLITE_OK ||
        sqlite3_prepare_v2(db_, "INSERT OR REPLACE INTO answers (key, value) VALUES (?1, ?2)", -1, &put_,
                           nullptr) != SQLITE_OK) {
      return error("prepare");
    }
    return ok_status();
  }

  StatusOr<std::optional<std::string>> get(const std::string& key) {
    sqlite3_bind_text(get_, 1, key.data(), static_cast<int>(key.size()), SQLITE_STATIC);
    int step = sqlite3_step(get_);
    std::optional<std::string> value;
    if (step == SQLITE_ROW) {
      value.emplace(reinterpret_cast<const char*>(sqlite3_column_text(get_, 0)),
                    static_cast<std::size_t>(sqlite3_column_bytes(get_, 0)));
    }
    sqlite3_reset(get_);
    if (step != SQLITE_ROW && step != SQLITE_DONE) return error("read");
    return value;
  }

  // Stores every pair in one transaction.
  Status put_all(const std::vector<std::pair<std::string, std::string>>& pairs) {
    if (sqlite3_exec(db_, "BEGIN", nullptr, nullptr, nullptr) != SQLITE_OK) return error("begin");
    for (const auto& [key, value] : pairs) {
      sqlite3_bind_text(put_, 1, key.data(), static_cast<int>(key.size()), SQLITE_STATIC);
      sqlite3_bind_text(put_, 2, value.data(), static_cast<int>(value.size()), SQLITE_STATIC);
      int step = sqlite3_step(put_);
      sqlite3_reset(put_);
      if (step != SQLITE_DONE) {
        Status status = error("write");
        sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
        return status;
      }
    }
    if (sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr) != SQLITE_OK) return error("commit");
    return ok_status();
  }

 private:
  Status error(const char* what) const {
    return unavailable("answer record " + path_ + ": cannot " + what + ": " +
                       (db_ != nullptr ? sqlite3_errmsg(db_) : "out of memory"));
  }

  std::string path_;
  sqlite3* db_ = nullptr;
  sqlite3_stmt* get_ = nullptr;
  sqlite3_stmt* put_ = nullptr;
};

class SqliteRecord final : public AnswerRecord {
 public:
  SqliteRecord(const std::string& path, const AnswerRecordOptions& options)
      : reader_(path), writer_(path), interval_(std::chrono::duration_cast<Clock::duration>(
                                          std::chrono::duration<double>(options.min_commit_interval_seconds))) {}

  ~SqliteRecord() override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    changed_.notify_all();
    if (thread_.joinable()) thread_.join();  // the writer commits what is queued first
  }

  Status init(const std::string& path) {
    std::filesystem::path parent = std::filesystem::path(path).parent_path();
    std::error_code ignored;
    if (!parent.empty()) std::filesystem::create_directories(parent, ignored);
    RAGMETER_RETURN_IF_ERROR(writer_.open());
    RAGMETER_RETURN_IF_ERROR(reader_.open());
    thread_ = std::thread([this] { write_loop(); });
    return ok_status();
  }

  StatusOr<std::optional<std::string>> get(const std::string& key) override { return reader_.get(key); }

  Status put(std::string key, std::string value) override {
    bool first;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!error_.ok()) return error_;
      first = queue_.empty();
      queue_.emplace_back(std::move(key), std::move(value));
      ++queued_;
    }
    // Only the first answer of a batch wakes the writer: later ones join the batch while
    // it waits out the interval, without a wake-up (a context switch) each.
    if (first) changed_.notify_all();
    return ok_status();
  }

  Status flush() override {
    std::unique_lock<std::mutex> lock(mutex_);
    const std::uint64_t target = queued_;
    flush_wanted_ = true;
    changed_.notify_all();
    changed_.wait(lock, [&] { return committed_ >= target || !error_.ok(); });
    return error_;
  }

 private:
  void write_loop() {
    Clock::time_point last_commit = Clock::now() - interval_;
    std::vector<std::pair<std::string, std::string>> batch;
    std::unique_lock<std::mutex> lock(mutex_);
    while (true) {
      changed_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, nothing left
      // Let a batch gather for what is left of the interval, unless someone waits for it.
      Clock::time_point due = last_commit + interval_;
      if (!stopping_ && !flush_wanted_) {
        changed_.wait_until(lock, due, [&] { return stopping_ || flush_wanted_; });
      }
      batch.swap(queue_);
      flush_wanted_ = false;
      lock.unlock();
      Status status = writer_.put_all(batch);
      last_commit = Clock::now();
      const std::uint64_t written = batch.size();
      batch.clear();
      lock.lock();
      committed_ += written;
      if (!status.ok() && error_.ok()) error_ = status;
      changed_.notify_all();
      if (!error_.ok()) {  // stop writing; put() and flush() report the error
        committed_ = queued_;
        queue_.clear();
        changed_.notify_all();
        changed_.wait(lock, [&] { return stopping_; });
        return;
      }
    }
  }

  Connection reader_;
  Connection writer_;
  Clock::duration interval_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::pair<std::string, std::string>> queue_;
  std::uint64_t queued_ = 0, committed_ = 0;
  bool flush_wanted_ = false;
  bool stopping_ = false;
  Status error_;
  std::thread thread_;
};

}  // namespace

StatusOr<std::unique_ptr<AnswerRecord>> AnswerRecord::open(const std::string& path,
                                                          const AnswerRecordOptions& options) {
  auto record = std::make_unique<SqliteRecord>(path, options);
  RAGMETER_RETURN_IF_ERROR(record->init(path));
  return std::unique_ptr<AnswerRecord>(std::move(record));
}

}  // namespace ragmeter::run
