#include "run/answer_record.h"

#include <sqlite3.h>

#include <filesystem>

namespace ragmeter::run {
namespace {

class SqliteRecord final : public AnswerRecord {
 public:
  explicit SqliteRecord(std::string path) : path_(std::move(path)) {}
  ~SqliteRecord() override {
    if (db_ != nullptr) {
      (void)commit();
      sqlite3_finalize(get_);
      sqlite3_finalize(put_);
      sqlite3_close(db_);
    }
  }

  Status init() {
    std::filesystem::path parent = std::filesystem::path(path_).parent_path();
    std::error_code ignored;
    if (!parent.empty()) std::filesystem::create_directories(parent, ignored);
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

  StatusOr<std::optional<std::string>> get(const std::string& key) override {
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

  Status put(const std::string& key, const std::string& value) override {
    if (!in_batch_) {
      if (sqlite3_exec(db_, "BEGIN", nullptr, nullptr, nullptr) != SQLITE_OK) return error("begin");
      in_batch_ = true;
    }
    sqlite3_bind_text(put_, 1, key.data(), static_cast<int>(key.size()), SQLITE_STATIC);
    sqlite3_bind_text(put_, 2, value.data(), static_cast<int>(value.size()), SQLITE_STATIC);
    int step = sqlite3_step(put_);
    sqlite3_reset(put_);
    if (step != SQLITE_DONE) return error("write");
    return ok_status();
  }

  Status commit() override {
    if (!in_batch_) return ok_status();
    in_batch_ = false;
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
  bool in_batch_ = false;
};

}  // namespace

StatusOr<std::unique_ptr<AnswerRecord>> AnswerRecord::open(const std::string& path) {
  auto record = std::make_unique<SqliteRecord>(path);
  RAGMETER_RETURN_IF_ERROR(record->init());
  return std::unique_ptr<AnswerRecord>(std::move(record));
}

}  // namespace ragmeter::run
