// The judge cache in SQLite: one table, one connection per cache object, WAL journal.
//
// Why these settings: WAL lets readers in other processes proceed while one writes;
// synchronous=NORMAL in WAL mode keeps every committed transaction across a crash of
// the process (the WAL write has reached the OS), which is the failure that matters
// here; only a power loss may drop the last few entries, never corrupt the file.
#include "llm/response_cache.h"

#include "ragmeter/judge_hooks.h"

#include <sqlite3.h>

#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <mutex>
#include <utility>

namespace ragmeter::llm {
namespace {

constexpr int kBusyTimeoutMs = 10000;

Status sqlite_error(sqlite3* db, const std::string& path, const std::string& what) {
  std::string detail = db != nullptr ? sqlite3_errmsg(db) : "out of memory";
  return unavailable("judge cache " + path + ": " + what + ": " + detail);
}

// Runs `sql` (no results wanted).
Status exec(sqlite3* db, const std::string& path, const char* sql) {
  char* message = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &message) == SQLITE_OK) return ok_status();
  std::string detail = message != nullptr ? message : "unknown error";
  sqlite3_free(message);
  return unavailable("judge cache " + path + ": " + detail);
}

// Owns a connection and its prepared statements.
struct Connection {
  Connection() = default;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  ~Connection() {
    sqlite3_finalize(get_statement);
    sqlite3_finalize(put_statement);
    sqlite3_close(db);
  }

  sqlite3* db = nullptr;
  sqlite3_stmt* get_statement = nullptr;
  sqlite3_stmt* put_statement = nullptr;  // null in read-only modes
};

class NullCache : public ResponseCache {
 public:
  StatusOr<std::optional<std::string>> get(const std::string&) override {
    return std::optional<std::string>();
  }
  Status put(const std::string&, const std::string&, const std::string&) override {
    return ok_status();
  }
  Status put_all(const std::vector<StoreEntry>&) override { return ok_status(); }
  CacheMode mode() const override { return CacheMode::kOff; }
};

// Replies kept in a ReplyStore outside the client (judge_hooks.h), with the cache mode's
// rules applied here: nothing is stored unless kReadWrite.
class StoreCache : public ResponseCache {
 public:
  StoreCache(std::shared_ptr<ReplyStore> store, CacheMode mode)
      : store_(std::move(store)), mode_(mode) {}
  StatusOr<std::optional<std::string>> get(const std::string& key) override {
    return store_->get(key);
  }
  Status put(const std::string& key, const std::string& kind, const std::string& value) override {
    if (mode_ != CacheMode::kReadWrite) return ok_status();
    return store_->put(key, kind, value);
  }
  Status put_all(const std::vector<StoreEntry>& entries) override {
    if (mode_ != CacheMode::kReadWrite || entries.empty()) return ok_status();
    return store_->put_all(entries);
  }
  CacheMode mode() const override { return mode_; }

 private:
  std::shared_ptr<ReplyStore> store_;
  CacheMode mode_;
};

class SqliteCache : public ResponseCache {
 public:
  SqliteCache(std::string path, CacheMode mode, std::unique_ptr<Connection> connection)
      : path_(std::move(path)), mode_(mode), connection_(std::move(connection)) {}

  StatusOr<std::optional<std::string>> get(const std::string& key) override {
    std::lock_guard<std::mutex> lock(mutex_);
    sqlite3_stmt* statement = connection_->get_statement;
    sqlite3_reset(statement);
    sqlite3_bind_text(statement, 1, key.data(), static_cast<int>(key.size()), SQLITE_TRANSIENT);
    int rc = sqlite3_step(statement);
    if (rc == SQLITE_DONE) return std::optional<std::string>();
    if (rc != SQLITE_ROW) return sqlite_error(connection_->db, path_, "read");
    const char* text = reinterpret_cast<const char*>(sqlite3_column_text(statement, 0));
    std::string value(text != nullptr ? text : "", sqlite3_column_bytes(statement, 0));
    sqlite3_reset(statement);
    return std::optional<std::string>(std::move(value));
  }

  Status put(const std::string& key, const std::string& kind, const std::string& value) override {
    if (mode_ != CacheMode::kReadWrite) return ok_status();
    std::lock_guard<std::mutex> lock(mutex_);
    // Outside an explicit transaction the statement is its own transaction: committed
    // whole, or (after a kill) not at all.
    return insert(key, kind, value);
  }

  Status put_all(const std::vector<StoreEntry>& entries) override {
    if (mode_ != CacheMode::kReadWrite || entries.empty()) return ok_status();
    std::lock_guard<std::mutex> lock(mutex_);
    // IMMEDIATE takes the write lock at once (waiting up to the busy timeout), so the
    // inserts cannot fail half-way for a lock another process holds.
    RAGMETER_RETURN_IF_ERROR(exec(connection_->db, path_, "BEGIN IMMEDIATE"));
    for (const StoreEntry& entry : entries) {
      Status inserted = insert(entry.key, entry.kind, entry.value);
      if (!inserted.ok()) {
        (void)exec(connection_->db, path_, "ROLLBACK");
        return inserted;
      }
    }
    Status committed = exec(connection_->db, path_, "COMMIT");
    if (!committed.ok()) (void)exec(connection_->db, path_, "ROLLBACK");
    return committed;
  }

  CacheMode mode() const override { return mode_; }

 private:
  // One INSERT OR REPLACE; the caller holds mutex_.
  Status insert(const std::string& key, const std::string& kind, const std::string& value) {
    sqlite3_stmt* statement = connection_->put_statement;
    sqlite3_reset(statement);
    sqlite3_bind_text(statement, 1, key.data(), static_cast<int>(key.size()), SQLITE_TRANSIENT);
    sqlite3_bind_text(statement, 2, kind.data(), static_cast<int>(kind.size()), SQLITE_TRANSIENT);
    sqlite3_bind_text(statement, 3, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT);
    sqlite3_bind_int64(statement, 4, static_cast<sqlite3_int64>(std::time(nullptr)));
    int rc = sqlite3_step(statement);
    sqlite3_reset(statement);
    if (rc != SQLITE_DONE) return sqlite_error(connection_->db, path_, "write");
    return ok_status();
  }

  const std::string path_;
  const CacheMode mode_;
  std::mutex mutex_;  // guards connection_ and its statements
  std::unique_ptr<Connection> connection_;
};

Status create_parent_directories(const std::string& path) {
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (parent.empty()) return ok_status();
  std::error_code error;
  std::filesystem::create_directories(parent, error);
  if (error) {
    return unavailable("judge cache " + path + ": cannot create directory " + parent.string() +
                       ": " + error.message());
  }
  return ok_status();
}

Status prepare(Connection* connection, const std::string& path, const char* sql,
               sqlite3_stmt** statement) {
  if (sqlite3_prepare_v2(connection->db, sql, -1, statement, nullptr) == SQLITE_OK) {
    return ok_status();
  }
  return sqlite_error(connection->db, path, "prepare");
}

Status create_schema(sqlite3* db, const std::string& path) {
  RAGMETER_RETURN_IF_ERROR(exec(db, path, "PRAGMA journal_mode=WAL"));
  RAGMETER_RETURN_IF_ERROR(exec(db, path, "PRAGMA synchronous=NORMAL"));
  return exec(db, path,
              "CREATE TABLE IF NOT EXISTS responses ("
              "key TEXT PRIMARY KEY, kind TEXT NOT NULL, value TEXT NOT NULL, "
              "created_at INTEGER NOT NULL)");
}

StatusOr<std::unique_ptr<Connection>> open_connection(const std::string& path, CacheMode mode) {
  bool writable = mode == CacheMode::kReadWrite;
  if (writable) {
    RAGMETER_RETURN_IF_ERROR(create_parent_directories(path));
  } else if (std::error_code error; !std::filesystem::exists(path, error)) {
    return not_found("judge cache " + path + " does not exist (cache mode " +
                     (mode == CacheMode::kReplay ? "replay" : "ro") + " never creates it)");
  }
  auto connection = std::make_unique<Connection>();
  int flags = writable ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY;
  if (sqlite3_open_v2(path.c_str(), &connection->db, flags | SQLITE_OPEN_NOMUTEX, nullptr) !=
      SQLITE_OK) {
    return sqlite_error(connection->db, path, "open");
  }
  sqlite3_busy_timeout(connection->db, kBusyTimeoutMs);
  if (writable) RAGMETER_RETURN_IF_ERROR(create_schema(connection->db, path));
  RAGMETER_RETURN_IF_ERROR(prepare(connection.get(), path,
                                   "SELECT value FROM responses WHERE key = ?1",
                                   &connection->get_statement));
  if (writable) {
    RAGMETER_RETURN_IF_ERROR(
        prepare(connection.get(), path,
                "INSERT OR REPLACE INTO responses (key, kind, value, created_at) "
                "VALUES (?1, ?2, ?3, ?4)",
                &connection->put_statement));
  }
  return connection;
}

}  // namespace

StatusOr<std::unique_ptr<ResponseCache>> open_response_cache(const CacheOptions& options) {
  if (options.mode == CacheMode::kOff) return std::unique_ptr<ResponseCache>(new NullCache());
  std::string path = options.path.empty() ? default_cache_path() : options.path;
  RAGMETER_ASSIGN_OR_RETURN(std::unique_ptr<Connection> connection,
                            open_connection(path, options.mode));
  return std::unique_ptr<ResponseCache>(
      new SqliteCache(std::move(path), options.mode, std::move(connection)));
}

std::unique_ptr<ResponseCache> make_store_cache(std::shared_ptr<ReplyStore> store, CacheMode mode) {
  if (mode == CacheMode::kOff) return std::unique_ptr<ResponseCache>(new NullCache());
  return std::unique_ptr<ResponseCache>(new StoreCache(std::move(store), mode));
}

std::string default_cache_path() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  // The XDG spec says a relative XDG_CACHE_HOME is invalid and must be ignored.
  if (xdg != nullptr && xdg[0] == '/') return std::string(xdg) + "/ragmeter/judge.sqlite";
  const char* home = std::getenv("HOME");
  if (home != nullptr && home[0] != '\0')
    return std::string(home) + "/.cache/ragmeter/judge.sqlite";
  return ".cache/ragmeter/judge.sqlite";
}

}  // namespace ragmeter::llm
