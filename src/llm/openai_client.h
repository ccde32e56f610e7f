// The judge client behind make_client(): it wires the parts that do the work.
//
// A call starts on the caller's thread (cache lookup, replay and budget checks) and
// continues on the transport's loop thread: admission (admission.h: the queue, the rate
// limiter, shared permits), the send and the attempt's watchdog (in_flight.h: signs of
// life, the stall limit), the response (retry, fail, or the call's on_reply: chat_call.h,
// embedding_call.h), and the fulfilment of the future. No thread sleeps: waits are timers
// on the loop. Totals, traces and the halt are kept in usage_ledger.h; the status each
// failure ends with is built in call_errors.h.
#pragma once

#include <chrono>
#include <future>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "llm/admission.h"
#include "llm/call.h"
#include "llm/chat_call.h"
#include "llm/http_transport.h"
#include "llm/in_flight.h"
#include "llm/response_cache.h"
#include "llm/usage_ledger.h"
#include "ragmeter/judge_hooks.h"
#include "ragmeter/llm.h"

namespace ragmeter::llm {

class OpenAIClient final : public Client {
 public:
  // `permits` null: no limits shared with other clients.
  OpenAIClient(const ClientOptions& options, std::unique_ptr<ResponseCache> cache,
               std::unique_ptr<HttpTransport> transport, std::shared_ptr<PermitSource> permits);
  // Stops the loop first: calls still running end with Unavailable as their last
  // holders (queue, timers, transfers) let go of them.
  ~OpenAIClient() override;

  std::future<StatusOr<ChatResponse>> chat(ChatRequest request) override;
  std::future<StatusOr<EmbeddingResponse>> embed(EmbeddingRequest request) override;
  UsageTotals totals() const override { return ledger_.totals(); }
  std::vector<CallTrace> traces() const override { return ledger_.traces(); }
  Status halted() const override { return ledger_.halted(); }
  void cancel() override;

  // For the calls.
  const ClientOptions& options() const { return options_; }
  // Whether calls need their cache key: for the cache or for traces.
  bool needs_keys() const { return cache_->mode() != CacheMode::kOff || options_.keep_traces; }
  ResponseCache& cache() { return *cache_; }
  ServerFormats& formats() { return formats_; }
  // Queues `call` for (re)sending its current body. Loop thread only.
  void enqueue(std::shared_ptr<Call> call);
  // Books a reply's tokens and their cost. Any thread.
  void add_usage(const TokenUsage& usage, const std::string& model) {
    ledger_.add_usage(usage, model);
  }
  void note_estimated_usage() { ledger_.count_estimated_usage(); }
  // Records how a call ended. Any thread.
  void record(const Call& call, const Status& status, bool from_cache) {
    ledger_.record(call, status, from_cache);
  }
  Status redacted(const Status& status) const;
  std::string redact(std::string text) const;

 private:
  void start(const std::shared_ptr<Call>& call);
  // Sends what admission lets go, and fails what it refuses.
  void pump();
  void wake_after(double seconds);
  void send(std::shared_ptr<Call> call);
  void on_data(const std::shared_ptr<Call>& call, std::string_view bytes);
  // Abandons the attempt when the server has shown no sign of life for too long.
  void watch(const std::shared_ptr<Call>& call, std::uint64_t serial, double at);

  void on_response(const std::shared_ptr<Call>& call, HttpResponse response);
  // Ends the attempt's book-keeping and keeps its response, without the key.
  void take_response(Call& call, HttpResponse response);
  void on_success(const std::shared_ptr<Call>& call);
  void on_failure(const std::shared_ptr<Call>& call);
  // Retries `call` after the backoff, or fails it with `why` when its attempts or its
  // deadline are spent.
  void retry_or_fail(const std::shared_ptr<Call>& call, double delay_seconds, const Status& why);
  void retry_later(std::shared_ptr<Call> call, double delay_seconds);
  // Fails `call` for good with `why`; halts the client when the server was never reached.
  void give_up(const std::shared_ptr<Call>& call, const Status& why);
  // The server refused the key, or was never reached: every call waiting or started
  // later fails with `why` and nothing more is sent.
  void halt(const Status& why) { ledger_.halt(why); }
  Status final_status(const Call& call) const;
  // Seconds left of the call's total deadline (infinite before its first attempt or
  // without a deadline).
  double seconds_left(const Call& call) const;

  // Asks llama.cpp's GET /props how many requests the server serves at once; calls wait
  // for the answer (at most kSlotsWaitSeconds) so the first burst already fits it.
  void ask_server_slots();
  void publish_limits() { ledger_.publish_limits(admission_.limiter().adaptive()); }
  double now() const;

  const ClientOptions options_;
  std::unique_ptr<ResponseCache> cache_;
  ServerFormats formats_;
  const std::chrono::steady_clock::time_point origin_ = std::chrono::steady_clock::now();
  UsageLedger ledger_;

  // Loop thread only.
  Admission admission_;
  InFlightAttempts in_flight_;
  std::mt19937_64 random_;
  bool server_answered_ = false;  // an attempt got an HTTP response (any status) in this run

  std::unique_ptr<HttpTransport> transport_;  // last: stopped before the rest goes
};

}  // namespace ragmeter::llm
