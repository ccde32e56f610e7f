// make_client(): the orchestration of judge calls.
//
// A call starts on the caller's thread (cache lookup, replay and budget checks) and
// continues on the transport's loop thread, which owns the rate limiter and the queue
// of calls waiting for it: admission, send, retry timers, parsing, the one repair
// attempt, the cache write and the fulfilment of the future. No thread sleeps: waits
// are timers on the loop.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <deque>
#include <future>
#include <limits>
#include <mutex>
#include <random>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "llm/chat_stream.h"
#include "llm/http_transport.h"
#include "llm/openai_protocol.h"
#include "llm/pricing.h"
#include "llm/rate_limiter.h"
#include "llm/reply_json.h"
#include "llm/response_cache.h"
#include "llm/retry_policy.h"
#include "ragmeter/llm.h"

namespace ragmeter::llm {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

class OpenAIClient;

Status deadline_exceeded(std::string message) {
  return {StatusCode::kDeadlineExceeded, std::move(message)};
}

Status resource_exhausted(std::string message) {
  return {StatusCode::kResourceExhausted, std::move(message)};
}

std::string number_text(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", value);
  return text;
}

// One chat() or embed() call from start to end, across retries, format fallbacks and
// the repair attempt. Owned by shared pointers held by whatever runs next (the queue,
// a timer, a transfer), so a call lives exactly as long as something can resume it.
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

  void set_body(json body) {
    body_ = std::move(body);
    if (streams_) {
      body_["stream"] = true;
      body_["stream_options"] = {{"include_usage", true}};
    }
    body_text_ = body_.dump();
    exchange_attempts_ = 0;
  }

  OpenAIClient* client_;
  const char* kind_;  // "chat" or "embeddings"
  std::string purpose_;  // the request's purpose, for its trace
  std::string key_;
  std::string url_;
  json body_;               // the body of the current exchange
  std::string body_text_;   // body_ as sent
  double tokens_ = 0;       // estimated, for the tokens-per-minute bucket
  int attempts_ = 0;        // HTTP attempts in all
  double first_sent_ = -1;  // client time of the first attempt (-1: not sent yet)
  int exchange_attempts_ = 0;  // attempts at the current body: the retry budget
  std::uint64_t ticket_ = 0;
  bool probing_ = false;    // sent as the client's format probe (loop thread only)
  HttpResponse last_;       // the last response received
  TokenUsage usage_;        // summed over every reply, repairs included
  double prompt_tokens_ = 0;  // estimated prompt size (characters / 4)
  std::int64_t images_ = 0;        // image parts in the request (vision calls)
  std::int64_t image_tokens_ = 0;  // their estimated prompt tokens

  // The attempt in flight (loop thread only).
  bool streams_ = false;       // chat replies are asked for as event streams
  std::uint64_t exchange_ = 0;  // the transport's id of the attempt
  std::uint64_t serial_ = 0;   // attempts sent; a watchdog of an older attempt does nothing
  bool in_flight_ = false;
  bool abandoned_ = false;     // the watchdog cancelled it
  bool past_deadline_ = false;  // ... because the call's deadline had passed
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
};

class OpenAIClient final : public Client {
 public:
  OpenAIClient(const ClientOptions& options, std::unique_ptr<ResponseCache> cache,
               std::unique_ptr<HttpTransport> transport, std::shared_ptr<PermitSource> permits)
      : options_(options),
        permits_(std::move(permits)),
        cache_(std::move(cache)),
        limiter_(options.limits),
        random_(std::random_device{}()),
        transport_(std::move(transport)) {
    publish_limits();
    ask_server_slots();
  }

  // Stops the loop first: calls still running end with Unavailable as their last
  // holders (queue, timers, transfers) let go of them.
  ~OpenAIClient() override {
    transport_.reset();
    waiting_.clear();
  }

  std::future<StatusOr<ChatResponse>> chat(ChatRequest request) override;
  std::future<StatusOr<EmbeddingResponse>> embed(EmbeddingRequest request) override;

  UsageTotals totals() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    return totals_;
  }

  std::vector<CallTrace> traces() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    return traces_;
  }

  Status halted() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    return halted_;
  }

  void cancel() override {
    halt(unavailable("the run was interrupted before the judge answered"));
    transport_->schedule(0, [this] {
      // Each cancelled attempt ends in on_response, which fails its call; pump() fails
      // the calls still queued.
      std::vector<std::uint64_t> exchanges;
      for (const auto& [order, call] : attempts_in_flight_) exchanges.push_back(call->exchange_);
      for (std::uint64_t exchange : exchanges) transport_->cancel(exchange);
      pump();
    });
  }

  const ClientOptions& options() const { return options_; }
  // Whether calls need their cache key: for the cache or for traces.
  bool needs_keys() const {
    return cache_->mode() != CacheMode::kOff || options_.keep_traces;
  }
  ResponseCache& cache() { return *cache_; }

  // The weakest response format a server accepted after rejecting a stronger one.
  FormatStep format_floor() const { return format_floor_.load(); }
  void accept_format(FormatStep format);
  // Whether a JSON-format chat reply has come back: until then the response format is a
  // guess, and JSON chat calls are sent one at a time (a server that refuses the format
  // then refuses it once, not once per call in flight).
  bool format_settled() const { return format_settled_.load(); }
  void settle_format() { format_settled_.store(true); }

  void start(const std::shared_ptr<Call>& call);
  // Queues `call` for (re)sending its current body. Loop thread only.
  void enqueue(std::shared_ptr<Call> call);
  // Books a reply's tokens and their cost. Any thread.
  void add_usage(const TokenUsage& usage, const std::string& model);
  void note_estimated_usage() {
    std::lock_guard<std::mutex> lock(mutex_);
    ++totals_.estimated_usage_calls;
  }
  // Records how a call ended. Any thread.
  void record(const Call& call, const Status& status, bool from_cache);
  Status redacted(const Status& status) const;
  std::string redact(std::string text) const;

 private:
  void pump();
  void send(std::shared_ptr<Call> call);
  void on_response(const std::shared_ptr<Call>& call, HttpResponse response);
  void retry_later(std::shared_ptr<Call> call, double delay_seconds);
  // Progress of the attempt in flight: bytes arrived, the attempt ended.
  void on_data(const std::shared_ptr<Call>& call, std::string_view bytes);
  void end_attempt(Call& call, const HttpResponse& response);
  // Abandons the attempt when the server has shown no sign of life for too long.
  void watch(const std::shared_ptr<Call>& call, std::uint64_t serial, double at);
  double stall_limit() const;
  void note_speed(const Call& call, double prompt_tokens);
  void publish_limits();
  // Asks llama.cpp's GET /props how many requests the server serves at once; calls wait
  // for the answer (at most kSlotsWaitSeconds) so the first burst already fits it.
  void ask_server_slots();
  // Retries `call` after the backoff, or fails it with `why` when its attempts or its
  // deadline are spent.
  void retry_or_fail(const std::shared_ptr<Call>& call, double delay_seconds,
                     const Status& why);
  // The server refused the key: every call waiting or started later fails with `why`
  // and nothing more is sent.
  void halt(const Status& why);
  // Seconds left of the call's total deadline (infinite before its first attempt or
  // without a deadline).
  double seconds_left(const Call& call) const;
  // The call's time against its deadline so far: from its first attempt to now, less
  // the time its attempts waited behind this client's own earlier attempts.
  double charged_seconds(const Call& call) const;
  Status deadline_status(const Call& call, const Status& last) const;
  static bool format_rejected(const Call& call);
  Status final_status(const Call& call) const;
  double now() const { return std::chrono::duration<double>(Clock::now() - origin_).count(); }
  bool over_budget() const;

  const ClientOptions options_;
  const std::shared_ptr<PermitSource> permits_;  // null: no limits shared with others
  std::unique_ptr<ResponseCache> cache_;
  std::atomic<FormatStep> format_floor_{FormatStep::kJsonSchema};
  std::atomic<bool> format_settled_{false};
  const Clock::time_point origin_ = Clock::now();

  // Loop thread only.
  RateLimiter limiter_;
  std::deque<std::shared_ptr<Call>> waiting_;
  // Attempts sent and not yet ended, by send order (Call::send_order_).
  std::map<std::uint64_t, Call*> attempts_in_flight_;
  std::uint64_t attempts_sent_ = 0;
  int probes_in_flight_ = 0;  // calls sent with probing_ set
  bool pump_timer_set_ = false;
  std::mt19937_64 random_;
  bool slots_pending_ = false;     // GET /props not yet answered
  double last_progress_at_ = 0;    // the last byte or reply from the server, any attempt
  double last_reply_at_ = -1;      // the last attempt that ended with a reply
  double largest_prompt_ = 0;      // estimated tokens, over every attempt sent
  std::deque<double> prompt_speeds_;  // tokens per second, recent streamed replies

  mutable std::mutex mutex_;  // guards totals_, traces_ and halted_
  UsageTotals totals_;
  Status halted_;              // why the client stopped sending (OK: it did not)
  std::atomic<bool> is_halted_{false};
  std::vector<CallTrace> traces_;

  std::unique_ptr<HttpTransport> transport_;  // last: stopped before the rest goes
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

  void fail(Status status) override {
    status = client_->redacted(status);
    client_->record(*this, status, false);
    end(std::move(status));
  }

 protected:
  void succeed(Response response, bool from_cache) {
    response.from_cache = from_cache;
    response.attempts = attempts_;
    client_->record(*this, ok_status(), from_cache);
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
    if (client_->cache().mode() != CacheMode::kReadWrite) return;
    // A failed write costs a later miss, not this call: the reply is good.
    // A reply that echoes the key is stored without it.
    [[maybe_unused]] Status stored =
        client_->cache().put(key_, kind_, redact_secrets(client_->redact(make_value())));
  }

 private:
  void end(StatusOr<Response> result) {
    ended_ = true;
    promise_.set_value(std::move(result));
  }

  std::promise<StatusOr<Response>> promise_;
  bool ended_ = false;
};

// FormatStep declares its steps weakest first.
FormatStep weakest(FormatStep a, FormatStep b) { return a < b ? a : b; }

class ChatCall final : public PromisedCall<ChatResponse> {
 public:
  ChatCall(OpenAIClient* client, ChatRequest request)
      : PromisedCall(client, "chat"), request_(std::move(request)) {}

  void prepare() override {
    purpose_ = request_.purpose;
    if (client_->needs_keys()) key_ = chat_cache_key(client_->options().endpoint, request_);
    url_ = chat_url(client_->options().endpoint);
    tokens_ = estimate_tokens(request_);
    prompt_tokens_ = std::max(0.0, tokens_ - static_cast<double>(request_.max_tokens) *
                                                 std::max(request_.n, 1));
    for (const ChatMessage& message : request_.messages) {
      for (const ContentPart& part : message.parts) {
        if (part.image_url.empty()) continue;
        ++images_;
        image_tokens_ += part.estimated_tokens;
      }
    }
    streams_ = client_->options().endpoint.stream;
    sent_ = weakest(first_format_step(request_), client_->format_floor());
    set_body(chat_request_body(client_->options().endpoint, request_, sent_));
  }

  // A call queued before the client learnt that the server refuses a format would
  // otherwise be sent with it and pay one refusal more (seen with llama-cpp-python: 19 of
  // 103 requests in bench/ragas_side_by_side.sh's first part).
  void before_send() override {
    FormatStep floor = client_->format_floor();
    if (floor < sent_) {
      sent_ = floor;
      set_body(chat_request_body(client_->options().endpoint, request_, sent_));
    }
  }

  bool serve_from_cache(const std::string& value) override {
    last_.body = value;  // the trace of a cache hit shows the stored reply
    return serve_cached(parse_chat_cache_value(value));
  }

  bool probes_format() const override { return wants_json() && !client_->format_settled(); }

  bool on_rejected() override {
    if (repairing_) return false;
    std::optional<FormatStep> weaker = weaker_format_step(sent_, request_);
    if (!weaker) return false;
    sent_ = *weaker;
    set_body(chat_request_body(client_->options().endpoint, request_, sent_));
    return true;
  }

  void on_reply(const std::string& body) override;

 private:
  bool wants_json() const { return request_.format != ReplyFormat::kText; }
  StatusOr<ChatResponse> parse_reply(const std::string& body);
  Status check_json(ChatChoice& choice) const;
  void on_main_reply(ChatResponse reply);
  void on_repair_reply(ChatResponse reply);
  void next_repair_or_finish();

  ChatRequest request_;
  FormatStep sent_ = FormatStep::kText;
  json main_body_;  // the body the repairs follow up on
  ChatResponse response_;  // the main reply, its choices repaired one by one
  std::deque<std::pair<size_t, std::string>> repairs_;  // choice index, what is wrong
  bool repairing_ = false;
};

void ChatCall::on_reply(const std::string& body) {
  StatusOr<ChatResponse> reply = parse_reply(body);
  if (!reply.ok()) return fail(reply.status());
  book_usage(reply->usage, reply->model);
  if (sent_ != first_format_step(request_)) client_->accept_format(sent_);
  if (wants_json()) client_->settle_format();
  for (const ChatChoice& choice : reply->choices) {
    if (wants_json() && choice.finish_reason == "length") {
      return fail(invalid_argument("the JSON reply was cut at max_tokens (" +
                                   std::to_string(request_.max_tokens) +
                                   "): finish_reason \"length\""));
    }
  }
  if (repairing_) return on_repair_reply(std::move(reply).value());
  on_main_reply(std::move(reply).value());
}

// A streamed request may still be answered with one JSON body. A stream without usage
// gets its tokens estimated: the prompt's characters / 4, one token per chunk.
StatusOr<ChatResponse> ChatCall::parse_reply(const std::string& body) {
  auto type = last_.headers.find("content-type");
  if (!is_event_stream(type == last_.headers.end() ? "" : type->second, body)) {
    return parse_chat_reply(body);
  }
  StreamFacts facts;
  StatusOr<ChatResponse> reply = parse_chat_stream(body, &facts);
  if (reply.ok() && !facts.usage_given) {
    reply->usage.prompt_tokens = static_cast<std::int64_t>(prompt_tokens_);
    reply->usage.completion_tokens = facts.content_chunks;
    client_->note_estimated_usage();
  }
  return reply;
}

Status ChatCall::check_json(ChatChoice& choice) const {
  StatusOr<json> parsed = parse_reply_json(choice.content);
  if (!parsed.ok()) return parsed.status();
  if (request_.schema.is_object()) RAGMETER_RETURN_IF_ERROR(check_schema(*parsed, request_.schema));
  choice.json = std::move(parsed).value();
  return ok_status();
}

void ChatCall::on_main_reply(ChatResponse reply) {
  response_ = std::move(reply);
  if (wants_json()) {
    for (size_t i = 0; i < response_.choices.size(); ++i) {
      Status checked = check_json(response_.choices[i]);
      if (!checked.ok()) repairs_.emplace_back(i, checked.message());
    }
  }
  next_repair_or_finish();
}

void ChatCall::on_repair_reply(ChatResponse reply) {
  ChatChoice& repaired = reply.choices.front();
  Status checked = check_json(repaired);
  if (!checked.ok()) {
    return fail(invalid_argument("the reply is not usable JSON after one repair attempt: " +
                                 checked.message()));
  }
  response_.choices[repairs_.front().first] = std::move(repaired);
  repairs_.pop_front();
  next_repair_or_finish();
}

// One repair request per unusable choice, in turn; each choice gets one attempt.
void ChatCall::next_repair_or_finish() {
  if (repairs_.empty()) {
    response_.usage = usage_;
    store([this] { return chat_cache_value(response_); });
    return succeed(std::move(response_), false);
  }
  const auto& [index, problem] = repairs_.front();
  if (!repairing_) main_body_ = body_;
  repairing_ = true;
  set_body(repair_request_body(main_body_, response_.choices[index].content, problem));
  client_->enqueue(shared_from_this());
}

class EmbeddingCall final : public PromisedCall<EmbeddingResponse> {
 public:
  EmbeddingCall(OpenAIClient* client, EmbeddingRequest request)
      : PromisedCall(client, "embeddings"), request_(std::move(request)) {}

  void prepare() override {
    purpose_ = request_.purpose;
    if (client_->needs_keys()) key_ = embedding_cache_key(client_->options().endpoint, request_);
    url_ = embeddings_url(client_->options().endpoint);
    size_t characters = 0;
    for (const std::string& input : request_.inputs) characters += input.size();
    tokens_ = static_cast<double>(characters) / 4.0;
    prompt_tokens_ = tokens_;
    set_body(embedding_request_body(client_->options().endpoint, request_));
  }

  bool serve_from_cache(const std::string& value) override {
    last_.body = value;  // the trace of a cache hit shows the stored reply
    return serve_cached(parse_embedding_cache_value(value));
  }

  void on_reply(const std::string& body) override {
    StatusOr<EmbeddingResponse> reply = parse_embedding_reply(body, request_.inputs.size());
    if (!reply.ok()) return fail(reply.status());
    book_usage(reply->usage, "");
    store([&reply] { return embedding_cache_value(*reply); });
    succeed(std::move(reply).value(), false);
  }

 private:
  EmbeddingRequest request_;
};

// --- OpenAIClient ---------------------------------------------------------------

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

void OpenAIClient::start(const std::shared_ptr<Call>& call) {
  call->prepare();
  StatusOr<std::optional<std::string>> hit = std::optional<std::string>();
  if (cache_->mode() != CacheMode::kOff) hit = cache_->get(call->key_);
  if (hit.ok() && hit->has_value() && call->serve_from_cache(**hit)) return;
  if (cache_->mode() == CacheMode::kReplay) {
    return call->fail(hit.ok() ? not_found("replay mode: no cached reply for this request")
                               : hit.status());
  }
  if (is_halted_.load()) return call->fail(halted());
  if (over_budget()) {
    return call->fail(resource_exhausted("the cost budget of $" +
                                         number_text(options_.max_cost_usd) + " is spent"));
  }
  transport_->schedule(0, [this, call] { enqueue(call); });
}

void OpenAIClient::enqueue(std::shared_ptr<Call> call) {
  waiting_.push_back(std::move(call));
  pump();
}

void OpenAIClient::pump() {
  if (slots_pending_) return;
  while (!waiting_.empty()) {
    if (is_halted_.load()) {
      std::shared_ptr<Call> call = std::move(waiting_.front());
      waiting_.pop_front();
      call->fail(halted());
      continue;
    }
    // A format probe is out: the next JSON call waits for its answer (and its format).
    if (probes_in_flight_ > 0 && waiting_.front()->probes_format()) return;
    RateLimiter::Admission admission = limiter_.try_acquire(waiting_.front()->tokens_, now());
    if (!admission.admitted) {
      if (admission.wait_seconds > 0 && !pump_timer_set_) {
        pump_timer_set_ = true;
        transport_->schedule(admission.wait_seconds, [this] {
          pump_timer_set_ = false;
          pump();
        });
      }
      return;
    }
    if (permits_) {  // one rate limit and budget across clients (judge_hooks.h)
      Permit permit = permits_->acquire(waiting_.front()->tokens_);
      if (permit.kind != Permit::Kind::kGranted) {
        limiter_.release();
        if (permit.kind == Permit::Kind::kRefused) {
          std::shared_ptr<Call> refused = std::move(waiting_.front());
          waiting_.pop_front();
          refused->fail(resource_exhausted(permit.reason));
          continue;
        }
        if (!pump_timer_set_) {
          pump_timer_set_ = true;
          transport_->schedule(std::max(permit.wait_seconds, 0.001), [this] {
            pump_timer_set_ = false;
            pump();
          });
        }
        return;
      }
    }
    std::shared_ptr<Call> call = std::move(waiting_.front());
    waiting_.pop_front();
    call->ticket_ = admission.ticket;
    send(std::move(call));
  }
}


void OpenAIClient::send(std::shared_ptr<Call> call) {
  call->before_send();
  call->probing_ = call->probes_format();
  if (call->probing_) ++probes_in_flight_;
  ++call->attempts_;
  ++call->exchange_attempts_;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++totals_.requests;
  }
  if (call->first_sent_ < 0) call->first_sent_ = now();
  // No transport timeout: watch() abandons an attempt when the server shows no sign of
  // life, which an attempt waiting behind our own earlier requests does not count as.
  HttpRequest request{"POST", call->url_, request_headers(options_.endpoint), call->body_text_,
                      0.0, [this, call](std::string_view bytes) { on_data(call, bytes); }};
  double at = now();
  call->in_flight_ = true;
  // An attempt sent while none of ours is in flight waits behind nothing of ours.
  call->behind_until_ = attempts_in_flight_.empty() ? at : -1;
  call->send_order_ = ++attempts_sent_;
  attempts_in_flight_.emplace(call->send_order_, call.get());
  call->abandoned_ = false;
  call->past_deadline_ = false;
  call->sent_at_ = call->last_byte_at_ = at;
  call->first_data_at_ = -1;
  call->service_start_ = at;
  call->progress_ = StreamProgress();
  std::uint64_t serial = ++call->serial_;
  if (call->streams_) {
    call->waiting_ = true;
    limiter_.adaptive().on_waiting_change(+1);
  }
  largest_prompt_ = std::max(largest_prompt_, call->prompt_tokens_);
  call->exchange_ = transport_->send(std::move(request), [this, call](HttpResponse response) {
    on_response(call, std::move(response));
  });
  watch(call, serial, std::min(at + stall_limit(), at + seconds_left(*call)));
}

void OpenAIClient::on_data(const std::shared_ptr<Call>& call, std::string_view bytes) {
  double at = now();
  call->last_byte_at_ = last_progress_at_ = at;
  if (!call->streams_) {
    if (call->behind_until_ < 0) call->behind_until_ = at;  // the server is answering it
    return;
  }
  if (call->progress_.feed(bytes) == 0 && !call->progress_.done()) return;
  AdaptiveLimit& adaptive = limiter_.adaptive();
  if (call->waiting_ && call->progress_.data_events() > 0) {
    call->waiting_ = false;
    adaptive.on_waiting_change(-1);
    call->first_data_at_ = at;
    if (call->behind_until_ < 0) call->behind_until_ = at;  // being served
    // A server serving one request at a time starts the next after its previous reply.
    call->service_start_ = std::max(call->sent_at_, last_reply_at_);
    call->generating_ = true;
    adaptive.on_generation_start();
  }
  if (call->generating_ && call->progress_.done()) {
    call->generating_ = false;
    adaptive.on_generation_end();
  }
}

// Book-keeping when an attempt ends, whichever way.
void OpenAIClient::end_attempt(Call& call, const HttpResponse& response) {
  double at = now();
  call.in_flight_ = false;
  attempts_in_flight_.erase(call.send_order_);
  call.queued_seconds_ += (call.behind_until_ >= 0 ? call.behind_until_ : at) - call.sent_at_;
  // The oldest attempt still in flight no longer waits behind one of ours.
  if (!attempts_in_flight_.empty()) {
    Call* oldest = attempts_in_flight_.begin()->second;
    if (oldest->behind_until_ < 0) oldest->behind_until_ = at;
  }
  AdaptiveLimit& adaptive = limiter_.adaptive();
  if (call.waiting_) {
    call.waiting_ = false;
    adaptive.on_waiting_change(-1);
  }
  if (call.generating_) {
    call.generating_ = false;
    adaptive.on_generation_end();
  }
  if (response.cancelled || response.timed_out) {
    std::lock_guard<std::mutex> lock(mutex_);
    // Cancelled by the watchdog (no sign of life), or by cancel() (the run is stopping).
    if (response.timed_out || (call.abandoned_ && !call.past_deadline_)) {
      ++totals_.timed_out_attempts;
    }
    // From when the server could have started it (after the reply before it) to now.
    double start = call.first_data_at_ >= 0 ? call.service_start_
                                            : std::max(call.sent_at_, last_reply_at_);
    totals_.abandoned_server_seconds += std::max(0.0, at - start);
    return;
  }
  if (response.status != 0) {
    last_progress_at_ = at;
    last_reply_at_ = at;
  }
}

// The attempt is abandoned when neither it nor any other attempt of this client has
// received anything for stall_limit() seconds (then retried), or when its call's
// deadline has passed (then the call fails), whatever signs of life the server gives.
void OpenAIClient::watch(const std::shared_ptr<Call>& call, std::uint64_t serial, double at) {
  transport_->schedule(std::max(0.0, at - now()), [this, call, serial] {
    if (!call->in_flight_ || call->serial_ != serial) return;
    const double left = seconds_left(*call);
    const double due = std::max(call->last_byte_at_, last_progress_at_) + stall_limit();
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

// The configured timeout, or 3x the measured time of the server for the largest
// prompt sent so far (the server may be silent that long evaluating it).
double OpenAIClient::stall_limit() const {
  double limit = options_.endpoint.timeout_seconds;
  if (prompt_speeds_.empty()) return limit;
  std::vector<double> speeds(prompt_speeds_.begin(), prompt_speeds_.end());
  std::nth_element(speeds.begin(), speeds.begin() + speeds.size() / 2, speeds.end());
  double speed = speeds[speeds.size() / 2];
  return speed > 0 ? std::max(limit, 3.0 * largest_prompt_ / speed) : limit;
}

// Prompt tokens per second of a streamed reply: its prompt over the time from when the
// server could start it to its first chunk (queueing makes this an underestimate: the
// stall limit errs long).
void OpenAIClient::note_speed(const Call& call, double prompt_tokens) {
  if (call.first_data_at_ < 0 || prompt_tokens <= 0) return;
  double seconds = call.first_data_at_ - call.service_start_;
  if (seconds <= 0) return;
  prompt_speeds_.push_back(prompt_tokens / seconds);
  if (prompt_speeds_.size() > 9) prompt_speeds_.pop_front();
}

// The server root: the base URL without its /v1.
std::string server_root(std::string base) {
  while (!base.empty() && base.back() == '/') base.pop_back();
  if (base.ends_with("/v1")) base.resize(base.size() - 3);
  return base;
}

void OpenAIClient::ask_server_slots() {
  if (options_.endpoint.flavor != ApiFlavor::kOpenAI) return;
  constexpr double kSlotsWaitSeconds = 2.0;
  slots_pending_ = true;
  auto done = std::make_shared<bool>(false);
  auto settle = [this, done](int slots) {
    if (*done) return;
    *done = true;
    if (slots > 0) limiter_.adaptive().set_server_slots(slots);
    slots_pending_ = false;
    publish_limits();
    pump();
  };
  HttpRequest request{"GET", server_root(options_.endpoint.base_url) + "/props",
                      request_headers(options_.endpoint), "", kSlotsWaitSeconds};
  transport_->send(std::move(request), [settle](HttpResponse response) {
    json props = response.status == 200 ? json::parse(response.body, nullptr, false) : json();
    int slots = 0;
    if (props.is_object() && props.contains("total_slots") && props["total_slots"].is_number_integer()) {
      slots = props["total_slots"].get<int>();
    }
    settle(slots);
  });
  transport_->schedule(kSlotsWaitSeconds, [settle] { settle(0); });
}

void OpenAIClient::publish_limits() {
  const AdaptiveLimit& adaptive = limiter_.adaptive();
  std::lock_guard<std::mutex> lock(mutex_);
  totals_.concurrency_limit = adaptive.limit();
  totals_.concurrency_lowest = adaptive.lowest_limit();
  totals_.server_parallelism = adaptive.measured_parallelism();
}

void OpenAIClient::on_response(const std::shared_ptr<Call>& call, HttpResponse response) {
  limiter_.release();
  end_attempt(*call, response);
  // cancel() ends an attempt the watchdog did not abandon: its call fails, not retried.
  const bool stopped = response.cancelled && !call->abandoned_;
  if (response.cancelled) response.timed_out = true;
  if (call->probing_) {
    call->probing_ = false;
    --probes_in_flight_;
  }
  if (auto pause = quota_pause_seconds(response.headers, call->tokens_)) {
    limiter_.pause_until(now() + *pause);
  }
  call->last_ = std::move(response);
  // Everything downstream (replies, evidence, errors, traces, the cache) starts from this
  // body: a server that echoes the key loses it here. A short key is also taken out where
  // a reply uses it as a plain word ("none", "test"): counted, so the run can say so. Only
  // a 200's body is read as a reply; an error page that quotes the key is a failed attempt.
  std::string scrubbed = redact_secrets(redact(call->last_.body));
  if (call->last_.status == 200 && scrubbed != call->last_.body) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++totals_.key_redacted_replies;
  }
  call->last_.body = std::move(scrubbed);
  if (stopped) {
    Status why = halted();
    call->fail(why.ok() ? unavailable("the attempt was cancelled") : why);
    return pump();
  }
  if (call->past_deadline_) {  // not retried: the call's time is spent
    call->fail(deadline_exceeded(
        "no usable reply within the call's deadline of " +
        number_text(options_.retry.deadline_seconds) + " s (" + std::to_string(call->attempts_) +
        " attempts); the last attempt was abandoned unfinished"));
    return pump();
  }
  int status = call->last_.status;
  if (status >= 200 && status < 300) {
    limiter_.on_success();
    note_speed(*call, call->prompt_tokens_);
    publish_limits();
    // A 2xx whose body is not a JSON object (empty, an HTML page from a proxy, cut
    // short) is a server fault like a 5xx: retried within the budget, and the reason
    // says what came back. An event stream (a streamed chat reply) is not one JSON
    // object; its chunks are checked when the stream is parsed.
    auto type = call->last_.headers.find("content-type");
    bool streamed = is_event_stream(
        type == call->last_.headers.end() ? std::string() : type->second, call->last_.body);
    Status envelope = streamed ? ok_status() : check_reply_envelope(call->last_.body);
    if (!envelope.ok()) {
      retry_or_fail(call, backoff_seconds(call->exchange_attempts_ - 1, options_.retry, random_),
                    unavailable("HTTP " + std::to_string(status) + " from the server, but " +
                                envelope.message() + " (" +
                                std::to_string(call->exchange_attempts_) + " attempts)"));
    } else {
      call->on_reply(call->last_.body);
    }
  } else if (status == 401 || status == 403) {
    // A refused key refuses every call: stop at the first refusal.
    Status why = final_status(*call);
    halt(why);
    call->fail(why);
  } else if (format_rejected(*call) && call->on_rejected()) {
    waiting_.push_front(call);  // the weaker format at once: no retry budget spent
  } else if (format_rejected(*call)) {
    call->fail(final_status(*call));  // no weaker format left; retrying cannot help
  } else {
    // A 429, or an attempt the server never answered: fewer requests at once.
    if (status == 429 || call->last_.timed_out) limiter_.on_throttled(call->ticket_);
    publish_limits();
    RetryDecision decision = decide_retry(call->last_, call->exchange_attempts_, options_.retry,
                                          random_, std::chrono::system_clock::now());
    if (decision.retry) {
      // A server that named a wait gets it from every request, not just this one.
      if (status == 429 && retry_after_seconds(call->last_.headers, options_.retry,
                                               std::chrono::system_clock::now())) {
        limiter_.pause_until(now() + decision.delay_seconds);
      }
      retry_or_fail(call, decision.delay_seconds, final_status(*call));
    } else {
      call->fail(final_status(*call));
    }
  }
  pump();
}

void OpenAIClient::retry_or_fail(const std::shared_ptr<Call>& call, double delay_seconds,
                                 const Status& why) {
  if (call->exchange_attempts_ >= options_.retry.max_attempts) return call->fail(why);
  if (delay_seconds >= seconds_left(*call)) return call->fail(deadline_status(*call, why));
  retry_later(call, delay_seconds);
}

double OpenAIClient::seconds_left(const Call& call) const {
  const double deadline = options_.retry.deadline_seconds;
  if (deadline <= 0 || call.first_sent_ < 0) return std::numeric_limits<double>::infinity();
  return deadline - charged_seconds(call);
}

double OpenAIClient::charged_seconds(const Call& call) const {
  if (call.first_sent_ < 0) return 0.0;
  const double at = now();
  double queued = call.queued_seconds_;
  if (call.in_flight_) queued += (call.behind_until_ >= 0 ? call.behind_until_ : at) - call.sent_at_;
  return at - call.first_sent_ - queued;
}

Status OpenAIClient::deadline_status(const Call& call, const Status& last) const {
  return deadline_exceeded("no usable reply within the call's deadline of " +
                           number_text(options_.retry.deadline_seconds) + " s (" +
                           std::to_string(call.attempts_) + " attempts); the last: " +
                           last.message());
}

void OpenAIClient::halt(const Status& why) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!halted_.ok()) return;
    halted_ = Status(why.code(), why.message() + "; no further requests were sent");
  }
  is_halted_.store(true);
}

// A chat call's response_format was refused (by a 400, or by a 4xx / 500 that says so).
bool OpenAIClient::format_rejected(const Call& call) {
  return call.body_.contains("response_format") &&
         is_format_rejection(call.last_.status, call.last_.body);
}

void OpenAIClient::retry_later(std::shared_ptr<Call> call, double delay_seconds) {
  transport_->schedule(delay_seconds, [this, call = std::move(call)]() mutable {
    waiting_.push_front(std::move(call));  // retries go before calls not yet started
    pump();
  });
}

Status OpenAIClient::final_status(const Call& call) const {
  const HttpResponse& response = call.last_;
  std::string attempts = " (" + std::to_string(call.exchange_attempts_) + " attempts)";
  if (response.status == 0 && response.timed_out) {
    return deadline_exceeded("no reply within " + number_text(stall_limit()) +
                             " s of the server's last sign of life" + attempts);
  }
  if (response.status == 0) return unavailable("connection failed: " + response.error + attempts);
  std::string what = "HTTP " + std::to_string(response.status) + " from the server";
  if (response.status == 401 || response.status == 403) {
    // The server's text may quote the key: only its name is given.
    return failed_precondition(what + ": authentication failed; check the key in $" +
                               options_.endpoint.api_key_env);
  }
  what += ": " + server_error_message(response.body);
  if (format_rejected(call)) return invalid_argument(what + " (response_format not accepted)");
  if (is_retryable(response)) return unavailable(what + attempts);
  if (response.status == 400 || response.status == 404 || response.status == 422) {
    return invalid_argument(what);
  }
  return unavailable(what);
}

bool OpenAIClient::over_budget() const {
  if (options_.max_cost_usd <= 0) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  return totals_.cost_usd >= options_.max_cost_usd;
}

void OpenAIClient::accept_format(FormatStep format) {
  FormatStep floor = format_floor_.load();
  while (format < floor && !format_floor_.compare_exchange_weak(floor, format)) {
  }
}

void OpenAIClient::add_usage(const TokenUsage& usage, const std::string& model) {
  const std::string& priced = model.empty() ? options_.endpoint.model : model;
  std::optional<ModelPrice> price = find_price(priced, options_.prices);
  double cost = price ? cost_usd(usage, *price) : 0.0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    totals_.tokens.prompt_tokens += usage.prompt_tokens;
    totals_.tokens.completion_tokens += usage.completion_tokens;
    totals_.tokens.cached_tokens += usage.cached_tokens;
    totals_.cost_usd += cost;
  }
  if (permits_) permits_->report(usage, cost);
}

void OpenAIClient::record(const Call& call, const Status& status, bool from_cache) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (from_cache) ++totals_.cache_hits;
  if (!status.ok()) ++totals_.failed_calls;
  if (!from_cache && call.attempts_ > 0) {
    totals_.images += call.images_;
    totals_.image_tokens += call.image_tokens_;
  }
  if (!options_.keep_traces) return;
  // The request can quote an earlier reply (a repair), and a reply can echo the key.
  nlohmann::json request = nlohmann::json::parse(
      redact_secrets(redact_key(call.body_text_, options_.endpoint)), nullptr, false);
  traces_.push_back({call.kind_, call.purpose_, call.key_,
                     request.is_discarded() ? call.body_ : request,
                     redact_secrets(redact_key(call.last_.body, options_.endpoint)),
                     call.attempts_, from_cache, status.ok() ? "" : status.to_string()});
}

void Call::book_usage(const TokenUsage& usage, const std::string& model) {
  usage_.prompt_tokens += usage.prompt_tokens;
  usage_.completion_tokens += usage.completion_tokens;
  usage_.cached_tokens += usage.cached_tokens;
  client_->add_usage(usage, model);
}

std::string OpenAIClient::redact(std::string text) const {
  return redact_key(std::move(text), options_.endpoint);
}

Status OpenAIClient::redacted(const Status& status) const {
  return Status(status.code(), redact_key(status.message(), options_.endpoint));
}

}  // namespace

namespace {

StatusOr<std::unique_ptr<Client>> make_openai_client(const ClientOptions& options,
                                                     const ClientHooks& hooks,
                                                     std::unique_ptr<HttpTransport> transport) {
  if (options.endpoint.base_url.empty()) return invalid_argument("the judge needs a base URL");
  if (options.endpoint.model.empty()) return invalid_argument("the judge needs a model name");
  if (!options.endpoint.api_key_env.empty() &&
      !is_environment_variable_name(options.endpoint.api_key_env)) {
    return invalid_argument(
        "the key's variable (api_key_env) must be the name of an environment variable "
        "(e.g. OPENAI_API_KEY), not a key");
  }
  register_secret(api_key_value(options.endpoint));
  if (transport == nullptr) return invalid_argument("no HTTP transport");
  std::unique_ptr<ResponseCache> cache;
  if (hooks.store) {
    cache = make_store_cache(hooks.store, options.cache.mode);
  } else {
    RAGMETER_ASSIGN_OR_RETURN(cache, open_response_cache(options.cache));
  }
  return std::unique_ptr<Client>(std::make_unique<OpenAIClient>(
      options, std::move(cache), std::move(transport), hooks.permits));
}

StatusOr<std::unique_ptr<HttpTransport>> curl_transport_for(const ClientOptions& options) {
  CurlTransportOptions transport_options;
  transport_options.verify_tls = options.endpoint.verify_tls;
  transport_options.max_connections = std::max(options.limits.max_in_flight, 1) + 8;
  return make_curl_transport(transport_options);
}

}  // namespace

StatusOr<std::unique_ptr<Client>> make_client_with_transport(
    const ClientOptions& options, std::unique_ptr<HttpTransport> transport) {
  return make_openai_client(options, ClientHooks{}, std::move(transport));
}

StatusOr<std::unique_ptr<Client>> make_client(const ClientOptions& options) {
  return make_client(options, ClientHooks{});
}

StatusOr<std::unique_ptr<Client>> make_client(const ClientOptions& options, const ClientHooks& hooks) {
  RAGMETER_ASSIGN_OR_RETURN(std::unique_ptr<HttpTransport> transport, curl_transport_for(options));
  return make_openai_client(options, hooks, std::move(transport));
}

}  // namespace ragmeter::llm
