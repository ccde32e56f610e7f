// The answer record of `ragmeter run`: answers by (target identity, row), in SQLite.
//
// Answers are written in batches: put() adds to the open transaction and commit() ends
// it. The run loop commits once per wake-up, after the answers that woke it, so at low
// rates every answer is its own transaction and at thousands of answers a second one
// commit carries many (a commit per answer would cap the loop near 3,000 answers a
// second). A kill loses at most the answers of the batch being written, which are then
// asked again. WAL journal, synchronous=NORMAL: a committed batch survives a crash of
// the process. Not thread-safe: the run loop's thread only.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "ragmeter/status.h"

namespace ragmeter::run {

class AnswerRecord {
 public:
  // Opens or creates the file (and its table "answers": key TEXT PRIMARY KEY, value TEXT).
  // Unavailable naming the path when it cannot.
  static StatusOr<std::unique_ptr<AnswerRecord>> open(const std::string& path);
  virtual ~AnswerRecord() = default;
  // The stored value, or nullopt.
  virtual StatusOr<std::optional<std::string>> get(const std::string& key) = 0;
  // Stores `value` under `key` (replacing), in the batch being written.
  virtual Status put(const std::string& key, const std::string& value) = 0;
  // Commits the batch; a no-op when nothing was put since the last commit.
  virtual Status commit() = 0;
};

}  // namespace ragmeter::run
