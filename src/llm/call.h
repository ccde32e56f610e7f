// One chat() or embed() call of the judge client from start to end, across retries,
// format fallbacks and the repair attempt: what it sends, the state of its attempt in
// flight, and the promise its end fulfils (PromisedCall).
//
// A call is owned by shared pointers held by whatever runs next (the client's queue, a
// timer, a transfer), so it lives exactly as long as something can resume it. Its fields
// are the client's to read and write: on the caller's thread until it is queued, then on
// the transport's loop thread only.
#pragma once

#include <cstdint>
#include <future>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "llm/chat_stream.h"
#include "llm/http_transport.h"
#include "ragmeter/llm.h"

namespace ragmeter::llm {

class OpenAIClient;

class Call : public std::enable_shared_from_this<Call> {
 public:
  Call(OpenAIClient* client, const char* kind) : client_(client), kind_(kind) {}
  virtual ~Call() = default;

  // Fills key_, url_, body_ and tokens_ (on the caller's thread).
  virtual void prepare() = 0;
  // Serves a cached value; false when it cannot be read (then treated as a miss).
  virtual bool serve_from_cache(const std::string& value) = 0;
  // The server answered 2xx to body_ with `body`.
  virtual void on_reply(const std::string& body) = 0;
  // Just before each send: a call that waited in the queue may rebuild body_ for what
  // the client has learnt since it was prepared (the response format).
  virtual void before_send() {}
  // True while the call would send a response format the server has not yet accepted
  // from this client: such calls go one at a time until one is answered.
  virtual bool probes_format() const { return false; }
  // The server rejected the response_format of body_ (is_format_rejection()): true when
  // the call changed body_ to a weaker format and wants to send again.
  virtual bool on_rejected() { return false; }
  // Ends the call with a non-OK status.
  virtual void fail(Status status) = 0;

  // Adds a reply's tokens to this call and to the client's totals (priced by `model`,
  // or the configured model when the reply names none).
  void book_usage(const TokenUsage& usage, const std::string& model);

  // Makes `body` the body of the next exchange (asking for an event stream when the call
  // streams); the exchange's retry budget starts again.
  void set_body(nlohmann::json body);

  // The call's time against its deadline at `now`: from its first attempt, less the time
  // its attempts waited behind the client's own earlier attempts. 0 before the first.
  double charged_seconds(double now) const;
  // Seconds left of a total deadline of `deadline_seconds` at `now`; infinite before the
  // first attempt or without a deadline (<= 0).
  double seconds_left(double deadline_seconds, double now) const;

  OpenAIClient* client_;
  const char* kind_;     // "chat" or "embeddings"
  std::string purpose_;  // the request's purpose, for its trace
  std::string key_;
  std::string url_;
  nlohmann::json body_;        // the body of the current exchange
  std::string body_text_;      // body_ as sent
  double tokens_ = 0;          // estimated, for the tokens-per-minute bucket
  int attempts_ = 0;           // HTTP attempts in all
  double first_sent_ = -1;     // client time of the first attempt (-1: not sent yet)
  int exchange_attempts_ = 0;  // attempts at the current body: the retry budget
  std::uint64_t ticket_ = 0;
  bool probing_ = false;           // sent as the client's format probe (loop thread only)
  HttpResponse last_;              // the last response received
  TokenUsage usage_;               // summed over every reply, repairs included
  double prompt_tokens_ = 0;       // estimated prompt size (characters / 4)
  std::int64_t images_ = 0;        // image parts in the request (vision calls)
  std::int64_t image_tokens_ = 0;  // their estimated prompt tokens

  // The attempt in flight (loop thread only).
  bool streams_ = false;        // chat replies are asked for as event streams
  std::uint64_t exchange_ = 0;  // the transport's id of the attempt
  std::uint64_t serial_ = 0;    // attempts sent; a watchdog of an older attempt does nothing
  bool in_flight_ = false;
  bool abandoned_ = false;        // the watchdog cancelled it
  bool past_deadline_ = false;    // ... because the call's deadline had passed
  std::uint64_t send_order_ = 0;  // the client's count of attempts sent, at this one
  // When the attempt stopped waiting behind this client's own earlier attempts (none of
  // them still in flight, or its first byte); -1 while it still waits behind them.
  double behind_until_ = -1;
  double queued_seconds_ = 0;  // waiting behind our own, over the call's ended attempts
  double sent_at_ = 0;
  double last_byte_at_ = 0;
  double first_data_at_ = -1;  // first streamed chunk, -1 before
  double service_start_ = 0;   // when the server could have started it
  bool generating_ = false;    // counted as generating by the adaptive limit
  bool waiting_ = false;       // counted as waiting by the adaptive limit
  StreamProgress progress_;

 protected:
  // The client's side of ending a call: `status` without the key, recorded (trace,
  // totals); the status to end with.
  Status record_failure(Status status);
  void record_success(bool from_cache);
  // Whether the cache takes writes; stores `value` (without the key) under key_.
  bool cache_takes_writes() const;
  void put_in_cache(const std::string& value);
};

// A call whose end fulfils a promise of StatusOr<Response>.
template <typename Response>
class PromisedCall : public Call {
 public:
  using Call::Call;
  ~PromisedCall() override {
    if (!ended_) promise_.set_value(unavailable("the judge client was destroyed first"));
  }

  std::future<StatusOr<Response>> future() { return promise_.get_future(); }

  void fail(Status status) override { end(record_failure(std::move(status))); }

 protected:
  void succeed(Response response, bool from_cache) {
    response.from_cache = from_cache;
    response.attempts = attempts_;
    record_success(from_cache);
    end(std::move(response));
  }

  bool serve_cached(StatusOr<Response> cached) {
    if (!cached.ok()) return false;
    succeed(std::move(cached).value(), true);
    return true;
  }

  // Stores make_value() when the cache takes writes (it is not even made otherwise).
  template <typename MakeValue>
  void store(MakeValue make_value) {
    if (cache_takes_writes()) put_in_cache(make_value());
  }

 private:
  void end(StatusOr<Response> result) {
    ended_ = true;
    promise_.set_value(std::move(result));
  }

  std::promise<StatusOr<Response>> promise_;
  bool ended_ = false;
};

}  // namespace ragmeter::llm
