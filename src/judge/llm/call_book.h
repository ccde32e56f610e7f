// The LLM judge's call book: sends chat calls through the client, counts them per kind
// of call (for the summary's usage.by_call) and names each in the caller's CallLog by its
// cache key. Internal to src/judge/.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

#include "judge/llm/repeat_draw.h"
#include "ragmeter/judge.h"
#include "ragmeter/llm.h"

namespace ragmeter {

// Counts a judge's calls per kind and records their cache keys in the caller's CallLog.
// Under a repeat (RepeatDraw) every chat request is drawn before it is keyed and sent.
class CallBook {
 public:
  explicit CallBook(llm::EndpointOptions endpoint)
      : endpoint_(std::move(endpoint)), tallies_(std::make_shared<Tallies>()) {}

  // The book of one repeat: requests drawn by `draw`, counted with this book's counts.
  CallBook for_repeat(RepeatDraw draw) const {
    CallBook book(*this);
    book.draw_ = draw;
    return book;
  }
  const RepeatDraw& draw() const { return draw_; }

  // The request as it is sent (drawn), and its cache key: name a call by it.
  llm::ChatRequest drawn(llm::ChatRequest request) const {
    draw_.apply(&request);
    return request;
  }
  std::string key(const llm::ChatRequest& request) const {
    return llm::chat_cache_key(endpoint_, drawn(request));
  }

  // The chat reply's parsed JSON, or why there is none.
  StatusOr<nlohmann::json> chat(llm::Client& client, llm::ChatRequest request,
                                const std::string& kind, CallLog* calls) {
    draw_.apply(&request);
    if (calls) calls->push_back(llm::chat_cache_key(endpoint_, request));
    request.purpose = kind;  // named in --traces
    auto response = client.chat(std::move(request)).get();
    record(kind, response.ok() ? &response->usage : nullptr,
           response.ok() && response->from_cache);
    if (!response.ok()) return response.status();
    if (response->choices.empty() || !response->choices.front().json) {
      return invalid_argument("the judge's reply holds no JSON");
    }
    return *response->choices.front().json;
  }

  // Counts one call of `kind`: failed when `usage` is null, else its tokens, and a cache
  // hit when it was served without a request.
  void record(const std::string& kind, const llm::TokenUsage* usage, bool from_cache) {
    std::lock_guard<std::mutex> lock(tallies_->mutex);
    Tally& tally = tallies_->by_kind[kind];
    ++tally.calls;
    if (usage == nullptr) {
      ++tally.failed;
      return;
    }
    // Tokens are counted as the top-level usage counts them: those of replies paid for
    // now, not those a cached reply was once paid with.
    if (from_cache) {
      ++tally.cache_hits;
      return;
    }
    tally.prompt_tokens += usage->prompt_tokens;
    tally.completion_tokens += usage->completion_tokens;
  }

  // Counts a call of `kind` that the claim or verdict store made unnecessary: no request and no
  // request-cache hit (it is reported apart, so that the kinds' cache_hits add up to the
  // client's).
  void record_store_hit(const std::string& kind) {
    std::lock_guard<std::mutex> lock(tallies_->mutex);
    Tally& tally = tallies_->by_kind[kind];
    ++tally.calls;
    ++tally.store_hits;
  }

  // Counts a call of `kind` asked again because its reply was in another script than the
  // sample's language (judge_language.h); `still_wrong` when the second reply was too.
  void record_language(const std::string& kind, bool still_wrong) {
    std::lock_guard<std::mutex> lock(tallies_->mutex);
    Tally& tally = tallies_->by_kind[kind];
    ++tally.asked_again_for_language;
    if (still_wrong) ++tally.wrong_language;
  }

  nlohmann::ordered_json report() const {
    std::lock_guard<std::mutex> lock(tallies_->mutex);
    nlohmann::ordered_json out = nlohmann::ordered_json::object();
    for (const auto& [kind, t] : tallies_->by_kind) {
      out[kind] = {{"calls", t.calls},
                   {"cache_hits", t.cache_hits},
                   {"failed", t.failed},
                   {"prompt_tokens", t.prompt_tokens},
                   {"completion_tokens", t.completion_tokens}};
      if (t.store_hits > 0) out[kind]["store_hits"] = t.store_hits;
      if (t.asked_again_for_language > 0) {
        out[kind]["asked_again_for_language"] = t.asked_again_for_language;
        out[kind]["wrong_language"] = t.wrong_language;
      }
    }
    return out;
  }

  const llm::EndpointOptions& endpoint() const { return endpoint_; }

 private:
  struct Tally {
    std::int64_t calls = 0, cache_hits = 0, failed = 0, prompt_tokens = 0, completion_tokens = 0,
                 store_hits = 0, asked_again_for_language = 0, wrong_language = 0;
  };
  // Shared by a book and its repeats' books (for_repeat).
  struct Tallies {
    std::mutex mutex;
    std::map<std::string, Tally> by_kind;
  };
  llm::EndpointOptions endpoint_;
  RepeatDraw draw_;
  std::shared_ptr<Tallies> tallies_;
};

}  // namespace ragmeter
