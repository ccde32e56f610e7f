// A value per key computed once per process, however many threads ask for it at the
// same time: the first asker computes it, later askers wait for its result. Internal to
// src/judge/ (the claim store and the verdict store keep the judge's answers in one).
#pragma once

#include <cstddef>
#include <future>
#include <iterator>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace ragmeter {

template <class V>
class OnceMap {
 public:
  // At most about `max_finished` finished entries are kept: when a new key would pass it,
  // every finished entry is forgotten (those being computed stay), so a run over millions
  // of distinct texts holds a bounded map. A forgotten key is computed again by its next
  // asker (the claim and verdict stores read it back from their cache file first).
  explicit OnceMap(std::size_t max_finished = 250000) : max_finished_(max_finished) {}

  // The entry of `key`, ready or being computed by another caller (wait on the future),
  // or nullopt: then the caller computes it and must call finish(key, ...) exactly once,
  // or the callers waiting for it wait forever.
  std::optional<std::shared_future<V>> find_or_start(const std::string& key) {
    std::lock_guard<std::mutex> lock(mutex_);
    return find_or_start_locked(key);
  }

  // find_or_start for every key of `keys` under one lock, so that two callers asking for
  // the same set at the same time never split it between them (one starts them all, the
  // other waits for them all). Element i answers keys[i].
  std::vector<std::optional<std::shared_future<V>>> find_or_start_all(const std::vector<std::string>& keys) {
    std::vector<std::optional<std::shared_future<V>>> out;
    out.reserve(keys.size());
    std::lock_guard<std::mutex> lock(mutex_);
    for (const std::string& key : keys) out.push_back(find_or_start_locked(key));
    return out;
  }

  // Publishes the value of a key this caller started. `keep` false (a failure, a reply
  // that said nothing) forgets the entry once its waiters have it, so the next caller
  // computes it again. A key not started (or finished already) is ignored.
  void finish(const std::string& key, V value, bool keep) {
    std::promise<V> promise;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = promises_.find(key);
      if (it == promises_.end()) return;
      promise = std::move(it->second);
      promises_.erase(it);
      if (!keep) entries_.erase(key);
    }
    promise.set_value(std::move(value));
  }

 private:
  std::optional<std::shared_future<V>> find_or_start_locked(const std::string& key) {
    auto it = entries_.find(key);
    if (it != entries_.end()) return it->second;
    if (entries_.size() - promises_.size() >= max_finished_) forget_finished_locked();
    std::promise<V> promise;
    entries_.emplace(key, promise.get_future().share());
    promises_.emplace(key, std::move(promise));
    return std::nullopt;
  }

  void forget_finished_locked() {
    for (auto it = entries_.begin(); it != entries_.end();) {
      it = promises_.count(it->first) ? std::next(it) : entries_.erase(it);
    }
  }

  std::size_t max_finished_;
  std::mutex mutex_;
  std::map<std::string, std::shared_future<V>> entries_;
  std::map<std::string, std::promise<V>> promises_;
};

}  // namespace ragmeter
