// The answer record of `ragmeter run`: answers by (target identity, row), in SQLite.
//
// Writes happen on a thread of the record's own, never on the run loop's: put() only
// queues the answer and returns. The writer commits what is queued in one transaction
// as soon as the previous commit has ended and at least min_commit_interval has passed
// since it, so at low rates every answer is committed within a moment of arriving, and
// at thousands of answers a second one commit carries many. (Before, the loop committed
// once per wake-up on its own thread: at 256 requests in flight those SQLite commits
// held the loop between answers and cost 6 points of throughput, docs/performance.md.)
// A kill loses at most the answers queued and not yet committed, which are then asked
// again. WAL journal, synchronous=NORMAL: a committed batch survives a crash of the
// process. get() reads through a second connection of the calling thread's; an answer
// still queued is not seen by it.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "ragmeter/status.h"

namespace ragmeter::run {

struct AnswerRecordOptions {
  // The shortest time between two commits of the writer. Higher: fewer transactions
  // under load, more answers lost by a kill; 0 commits whenever anything is queued.
  double min_commit_interval_seconds = 0.01;
};

class AnswerRecord {
 public:
  // Opens or creates the file (and its table "answers": key TEXT PRIMARY KEY, value TEXT)
  // and starts the writer. Unavailable naming the path when it cannot.
  static StatusOr<std::unique_ptr<AnswerRecord>> open(const std::string& path,
                                                      const AnswerRecordOptions& options = {});
  // Commits what is queued, then stops the writer.
  virtual ~AnswerRecord() = default;
  // The stored value, or nullopt. Not thread-safe: one thread calls get().
  virtual StatusOr<std::optional<std::string>> get(const std::string& key) = 0;
  // Queues `value` under `key` (replacing) for the writer. The writer's first error, when
  // it has stopped on one. Thread-safe.
  virtual Status put(std::string key, std::string value) = 0;
  // Waits until everything queued so far is committed; the writer's error otherwise.
  // Thread-safe.
  virtual Status flush() = 0;
};

}  // namespace ragmeter::run
