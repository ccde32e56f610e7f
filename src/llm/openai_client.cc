#include "llm/openai_client.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <utility>

#include "llm/call_errors.h"
#include "llm/embedding_call.h"
#include "llm/openai_protocol.h"
#include "llm/retry_policy.h"

namespace ragmeter::llm {
OpenAIClient::OpenAIClient(const ClientOptions& options, std::unique_ptr<ResponseCache> cache,
                           std::unique_ptr<HttpTransport> transport,
                           std::shared_ptr<PermitSource> permits)
    : options_(options),
      cache_(std::move(cache)),
      ledger_(options_, permits),
      admission_(options.limits, std::move(permits)),
      in_flight_(options.endpoint.timeout_seconds, admission_.limiter().adaptive()),
      random_(std::random_device{}()),
      transport_(std::move(transport)) {
  publish_limits();
  ask_server_slots();
}

OpenAIClient::~OpenAIClient() {
  transport_.reset();
  admission_.clear();
}

std::future<StatusOr<ChatResponse>> OpenAIClient::chat(ChatRequest request) {
  auto call = std::make_shared<ChatCall>(this, std::move(request));
  auto future = call->future();
  start(call);
  return future;
}

std::future<StatusOr<EmbeddingResponse>> OpenAIClient::embed(EmbeddingRequest request) {
  if (request.inputs.empty()) {
    std::promise<StatusOr<EmbeddingResponse>> nothing_to_do;
    nothing_to_do.set_value(EmbeddingResponse{});
    return nothing_to_do.get_future();
  }
  auto call = std::make_shared<EmbeddingCall>(this, std::move(request));
  auto future = call->future();
  start(call);
  return future;
}

void OpenAIClient::cancel() {
  halt(unavailable("the run was interrupted before the judge answered"));
  transport_->schedule(0, [this] {
    // Each cancelled attempt ends in on_response, which fails its call; pump() fails
    // the calls still queued.
    for (std::uint64_t exchange : in_flight_.exchanges()) transport_->cancel(exchange);
    pump();
  });
}

// On the caller's thread: the cache, replay mode, a halt and the budget are settled here.
void OpenAIClient::start(const std::shared_ptr<Call>& call) {
  call->prepare();
  StatusOr<std::optional<std::string>> hit = std::optional<std::string>();
  if (cache_->mode() != CacheMode::kOff) hit = cache_->get(call->key_);
  if (hit.ok() && hit->has_value() && call->serve_from_cache(**hit)) return;
  if (cache_->mode() == CacheMode::kReplay) {
    return call->fail(hit.ok() ? not_found("replay mode: no cached reply for this request")
                               : hit.status());
  }
  if (ledger_.over_budget()) halt(budget_spent_status(options_.max_cost_usd));  // once: the first wins
  if (ledger_.is_halted()) return call->fail(halted());
  transport_->schedule(0, [this, call] { enqueue(call); });
}

void OpenAIClient::enqueue(std::shared_ptr<Call> call) {
  admission_.push_back(std::move(call));
  pump();
}

void OpenAIClient::pump() {
  using Kind = Admission::Step::Kind;
  for (;;) {
    Admission::Step step = admission_.next(now(), ledger_.is_halted());
    switch (step.kind) {
      case Kind::kSend:
        send(std::move(step.call));
        break;
      case Kind::kHalted:
        step.call->fail(halted());
        break;
      case Kind::kRefused:
        step.call->fail(resource_exhausted(step.refusal));
        break;
      case Kind::kWake:
        wake_after(step.wait_seconds);
        return;
      case Kind::kIdle:
        return;
    }
  }
}

void OpenAIClient::wake_after(double seconds) {
  transport_->schedule(seconds, [this] {
    admission_.on_wake();
    pump();
  });
}

void OpenAIClient::send(std::shared_ptr<Call> call) {
  call->before_send();
  admission_.on_send(*call);
  ++call->attempts_;
  ++call->exchange_attempts_;
  ledger_.count_request();
  if (call->first_sent_ < 0) call->first_sent_ = now();
  // No transport timeout: watch() abandons an attempt when the server shows no sign of
  // life, which an attempt waiting behind our own earlier requests does not count as.
  HttpRequest request{
      "POST",           call->url_, request_headers(options_.endpoint),
      call->body_text_, 0.0,        [this, call](std::string_view bytes) { on_data(call, bytes); }};
  double at = now();
  std::uint64_t serial = in_flight_.begin(*call, at);
  call->exchange_ = transport_->send(std::move(request), [this, call](HttpResponse response) {
    on_response(call, std::move(response));
  });
  watch(call, serial, std::min(at + in_flight_.stall_limit(), at + seconds_left(*call)));
}

void OpenAIClient::on_data(const std::shared_ptr<Call>& call, std::string_view bytes) {
  in_flight_.on_data(*call, bytes, now());
}

// The attempt is abandoned when neither it nor any other attempt of this client has
// received anything for the stall limit (then retried), or when its call's deadline has
// passed (then the call fails), whatever signs of life the server gives.
void OpenAIClient::watch(const std::shared_ptr<Call>& call, std::uint64_t serial, double at) {
  transport_->schedule(std::max(0.0, at - now()), [this, call, serial] {
    if (!call->in_flight_ || call->serial_ != serial) return;
    const double left = seconds_left(*call);
    const double due = in_flight_.stall_due(*call);
    if (left > 0 && now() < due) {
      // The deadline's clock stands while the attempt waits behind our own: now + left
      // is the earliest it can run out.
      return watch(call, serial, std::min(due, now() + left));
    }
    call->abandoned_ = true;
    call->past_deadline_ = left <= 0;
    transport_->cancel(call->exchange_);
  });
}

void OpenAIClient::on_response(const std::shared_ptr<Call>& call, HttpResponse response) {
  // cancel() ends an attempt the watchdog did not abandon: its call fails, not retried.
  const bool stopped = response.cancelled && !call->abandoned_;
  take_response(*call, std::move(response));
  if (stopped) {
    Status why = halted();
    call->fail(why.ok() ? unavailable("the attempt was cancelled") : why);
    return pump();
  }
  if (call->past_deadline_) {  // not retried: the call's time is spent
    call->fail(deadline_abandoned_status(*call, options_.retry.deadline_seconds));
    return pump();
  }
  const int status = call->last_.status;
  if (status >= 200 && status < 300) {
    on_success(call);
  } else {
    on_failure(call);
  }
  pump();
}

void OpenAIClient::take_response(Call& call, HttpResponse response) {
  admission_.release_slot();
  if (std::optional<AbandonedAttempt> abandoned = in_flight_.end(call, response, now())) {
    ledger_.count_abandoned_attempt(abandoned->timed_out, abandoned->server_seconds);
  }
  if (response.cancelled) response.timed_out = true;
  if (response.status != 0) server_answered_ = true;
  admission_.end_probe(call);
  if (auto pause = quota_pause_seconds(response.headers, call.tokens_)) {
    admission_.limiter().pause_until(now() + *pause);
  }
  call.last_ = std::move(response);
  // Everything downstream (replies, evidence, errors, traces, the cache) starts from this
  // body: a server that echoes the key loses it here. A short key is also taken out where
  // a reply uses it as a plain word ("none", "test"): counted, so the run can say so. Only
  // a 200's body is read as a reply; an error page that quotes the key is a failed attempt.
  std::string scrubbed = redact_secrets(redact(call.last_.body));
  if (call.last_.status == 200 && scrubbed != call.last_.body) ledger_.count_redacted_reply();
  call.last_.body = std::move(scrubbed);
}

void OpenAIClient::on_success(const std::shared_ptr<Call>& call) {
  admission_.limiter().on_success();
  in_flight_.note_speed(*call, call->prompt_tokens_);
  publish_limits();
  // A 2xx whose body is not a JSON object (empty, an HTML page from a proxy, cut
  // short) is a server fault like a 5xx: retried within the budget, and the reason
  // says what came back. An event stream (a streamed chat reply) is not one JSON
  // object; its chunks are checked when the stream is parsed.
  auto type = call->last_.headers.find("content-type");
  bool streamed = is_event_stream(type == call->last_.headers.end() ? std::string() : type->second,
                                  call->last_.body);
  Status envelope = streamed ? ok_status() : check_reply_envelope(call->last_.body);
  if (envelope.ok()) return call->on_reply(call->last_.body);
  retry_or_fail(call, backoff_seconds(call->exchange_attempts_ - 1, options_.retry, random_),
                bad_envelope_status(*call, envelope));
}

void OpenAIClient::on_failure(const std::shared_ptr<Call>& call) {
  const int status = call->last_.status;
  if (status == 401 || status == 403) {
    // A refused key refuses every call: stop at the first refusal.
    Status why = final_status(*call);
    halt(why);
    return call->fail(why);
  }
  if (format_rejected(*call)) {
    // The weaker format at once (no retry budget spent), or, with no weaker format left,
    // a failure: retrying cannot help.
    if (call->on_rejected()) return admission_.push_front(call);
    return call->fail(final_status(*call));
  }
  // A 429, or an attempt the server never answered: fewer requests at once.
  if (status == 429 || call->last_.timed_out) admission_.limiter().on_throttled(call->ticket_);
  publish_limits();
  RetryDecision decision = decide_retry(call->last_, call->exchange_attempts_, options_.retry,
                                        random_, std::chrono::system_clock::now());
  if (!decision.retry) return give_up(call, final_status(*call));
  // A server that named a wait gets it from every request, not just this one.
  if (status == 429 &&
      retry_after_seconds(call->last_.headers, options_.retry, std::chrono::system_clock::now())) {
    admission_.limiter().pause_until(now() + decision.delay_seconds);
  }
  retry_or_fail(call, decision.delay_seconds, final_status(*call));
}

void OpenAIClient::retry_or_fail(const std::shared_ptr<Call>& call, double delay_seconds,
                                 const Status& why) {
  if (call->exchange_attempts_ >= options_.retry.max_attempts) return give_up(call, why);
  if (delay_seconds >= seconds_left(*call)) {
    return give_up(call, deadline_status(*call, options_.retry.deadline_seconds, why));
  }
  retry_later(call, delay_seconds);
}

void OpenAIClient::give_up(const std::shared_ptr<Call>& call, const Status& why) {
  // A server never reached in this run (a wrong URL, nothing listening): the other calls
  // would spend their retries the same way, so they fail now. One that answered before
  // and then could not be reached (a restart) is still retried call by call.
  if (call->last_.unreachable && !server_answered_) halt(why);
  call->fail(why);
}

void OpenAIClient::retry_later(std::shared_ptr<Call> call, double delay_seconds) {
  transport_->schedule(delay_seconds, [this, call = std::move(call)]() mutable {
    admission_.push_front(std::move(call));  // retries go before calls not yet started
    pump();
  });
}

Status OpenAIClient::final_status(const Call& call) const {
  return last_attempt_status(call, in_flight_.stall_limit(), options_.endpoint.api_key_env);
}

double OpenAIClient::seconds_left(const Call& call) const {
  return call.seconds_left(options_.retry.deadline_seconds, now());
}

void OpenAIClient::ask_server_slots() {
  if (options_.endpoint.flavor != ApiFlavor::kOpenAI) return;
  constexpr double kSlotsWaitSeconds = 2.0;
  admission_.wait_for_server_slots();
  auto done = std::make_shared<bool>(false);
  auto settle = [this, done](int slots) {
    if (*done) return;
    *done = true;
    admission_.server_slots_known(slots);
    publish_limits();
    pump();
  };
  HttpRequest request{"GET", props_url(options_.endpoint), request_headers(options_.endpoint), "",
                      kSlotsWaitSeconds};
  transport_->send(std::move(request), [settle](HttpResponse response) {
    settle(props_total_slots(response.status, response.body));
  });
  transport_->schedule(kSlotsWaitSeconds, [settle] { settle(0); });
}

double OpenAIClient::now() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - origin_).count();
}

std::string OpenAIClient::redact(std::string text) const {
  return redact_key(std::move(text), options_.endpoint);
}

Status OpenAIClient::redacted(const Status& status) const {
  return Status(status.code(), redact_key(status.message(), options_.endpoint));
}

}  // namespace ragmeter::llm
