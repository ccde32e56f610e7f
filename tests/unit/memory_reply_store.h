// A ReplyStore (include/ragmeter/judge_hooks.h) in memory for unit tests: it keeps each
// write call (put or put_all) as one operation, all or none, as a store that overrides
// put_all must, and can give what a process killed after its first n writes left.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "ragmeter/judge_hooks.h"

namespace ragmeter::test_stores {

class MemoryReplyStore : public llm::ReplyStore {
 public:
  StatusOr<std::optional<std::string>> get(const std::string& key) override {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = values_.find(key);
    if (it == values_.end()) return std::optional<std::string>();
    return std::optional<std::string>(it->second);
  }
  Status put(const std::string& key, const std::string& kind, const std::string& value) override {
    return put_all({{key, kind, value}});
  }
  Status put_all(const std::vector<llm::StoreEntry>& entries) override {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const llm::StoreEntry& entry : entries) values_[entry.key] = entry.value;
    writes_.push_back(entries);
    return ok_status();
  }

  // A store holding the first `n` writes of this one: what a process killed after them left.
  std::shared_ptr<MemoryReplyStore> first_writes(std::size_t n) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto left = std::make_shared<MemoryReplyStore>();
    for (std::size_t i = 0; i < n && i < writes_.size(); ++i) (void)left->put_all(writes_[i]);
    return left;
  }
  // Distinct keys stored.
  std::size_t size() {
    std::lock_guard<std::mutex> lock(mutex_);
    return values_.size();
  }
  // Write calls made.
  std::size_t writes() {
    std::lock_guard<std::mutex> lock(mutex_);
    return writes_.size();
  }
  // Entries of `kind` written, and write calls whose entries are of `kind`.
  std::size_t entries_of_kind(const std::string& kind) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::size_t count = 0;
    for (const auto& write : writes_) {
      for (const auto& entry : write) count += entry.kind == kind;
    }
    return count;
  }
  std::size_t writes_of_kind(const std::string& kind) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::size_t count = 0;
    for (const auto& write : writes_) count += !write.empty() && write.front().kind == kind;
    return count;
  }

 private:
  std::mutex mutex_;
  std::map<std::string, std::string> values_;
  std::vector<std::vector<llm::StoreEntry>> writes_;
};

}  // namespace ragmeter::test_stores
