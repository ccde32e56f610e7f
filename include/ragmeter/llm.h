// The judge transport: an OpenAI-compatible client for chat completions and embeddings
// (OpenAI, Azure OpenAI, vLLM, llama.cpp's server, Ollama, LM Studio, proxies), with
// concurrency, retries, rate limits, a content-addressed cache, usage and cost.
//
// Every call ends as a value: a response, or a Status saying why not (Unavailable after
// retries, DeadlineExceeded, InvalidArgument for a reply that does not parse after the
// repair attempt, ResourceExhausted when --max-cost is reached, NotFound for a cache
// miss in replay mode). API keys are read from the environment when a request is sent
// and never stored in requests, caches, traces or results.
#pragma once

#include <cstdint>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ragmeter/status.h"

namespace ragmeter::llm {

// One part of a message whose content holds images (OpenAI's content parts): a text
// part, or an image_url part with a data URI.
struct ContentPart {
  std::string text;       // a text part when image_url is empty
  std::string image_url;  // "data:image/png;base64,...": an image part
  std::string detail;     // the image's detail: "low", "high", "auto"; "" sends none
  // The image's prompt tokens as estimated (estimate_image_tokens), for the
  // tokens-per-minute limit, usage when the server reports none, and UsageTotals.
  std::int64_t estimated_tokens = 0;

  bool operator==(const ContentPart&) const = default;
};

struct ChatMessage {
  std::string role;     // "system", "user", "assistant"
  std::string content;
  // When not empty, the message's content is these parts, in order, and `content` is not
  // sent (a vision request); part of the cache key, images by their bytes.
  std::vector<ContentPart> parts;
};

// OpenAI's count of an image's prompt tokens (GPT-4o's published rule): "low" detail 85;
// otherwise the image scaled to fit 2048 x 2048, then its short side to 768, and 170 per
// 512-pixel tile plus 85. Servers count differently (llama.cpp: the model's projector);
// the server's own usage, when it reports one, is what the totals keep.
std::int64_t estimate_image_tokens(int width, int height, std::string_view detail);

enum class ReplyFormat {
  kText,        // plain text
  kJsonObject,  // JSON mode: response_format {"type": "json_object"}
  kJsonSchema,  // structured output: response_format {"type": "json_schema", ...}
};

struct ChatRequest {
  std::vector<ChatMessage> messages;
  double temperature = 0.0;
  int max_tokens = 1024;
  std::optional<std::int64_t> seed;
  int n = 1;                          // choices to generate (self-consistency votes)
  ReplyFormat format = ReplyFormat::kText;
  // JSON Schema of the reply, for kJsonSchema (sent without "strict", so a schema
  // outside OpenAI's strict subset is not rejected); replies of both JSON formats are
  // checked against it when it is an object.
  nlohmann::json schema;
  std::string schema_name = "reply";
  // True when the prompt itself names the reply's keys and shows its form (the LLM
  // judge's prompts do: a KEYS line and a "Reply:" example). Then, when a server rejects
  // the json_schema format, the prompt asks for JSON only without appending the schema:
  // the schema repeats the prompt at a quarter of a verdict table's tokens, and the
  // reply is still checked against it. Part of the cache key when true.
  bool reply_form_in_prompt = false;
  int top_logprobs = 0;               // > 0 asks for logprobs with that many alternatives
  // Extra body fields for servers that need them (merged last; part of the cache key).
  nlohmann::json extra = nlohmann::json::object();
  // What the call is for ("claims", "verdicts", ...), copied into its CallTrace; not sent
  // and not part of the cache key.
  std::string purpose;
};

struct TokenUsage {
  std::int64_t prompt_tokens = 0;
  std::int64_t completion_tokens = 0;
  std::int64_t cached_tokens = 0;  // usage.prompt_tokens_details.cached_tokens when given
};

struct TokenLogprob {
  std::string token;
  double logprob = 0.0;
  std::vector<std::pair<std::string, double>> top;  // alternatives, most likely first
};

struct ChatChoice {
  std::string content;
  std::string finish_reason;         // "stop", "length", ...
  std::optional<nlohmann::json> json;  // the parsed reply for JSON formats
  std::vector<TokenLogprob> logprobs;
};

struct ChatResponse {
  std::vector<ChatChoice> choices;
  TokenUsage usage;
  std::string model;       // as the server names it
  bool from_cache = false;
  int attempts = 0;        // HTTP attempts made (0 when served from the cache)
};

struct EmbeddingRequest {
  std::vector<std::string> inputs;
  std::string purpose;  // as ChatRequest::purpose
};

struct EmbeddingResponse {
  std::vector<std::vector<float>> vectors;  // one per input, in input order
  TokenUsage usage;
  bool from_cache = false;
  int attempts = 0;
};

enum class ApiFlavor {
  kOpenAI,  // POST {base_url}/chat/completions, header "Authorization: Bearer KEY"
  kAzure,   // POST {base_url}/openai/deployments/{model}/chat/completions?api-version=V,
            // header "api-key: KEY"
};

struct EndpointOptions {
  std::string base_url;                    // e.g. https://api.openai.com/v1
  std::string model;                       // model name (Azure: the deployment)
  // The NAME of the variable holding the key (letters, digits, '_'; not starting with a
  // digit), which may be unset; make_client refuses anything else, such as a key pasted
  // here, without repeating it.
  std::string api_key_env = "OPENAI_API_KEY";
  ApiFlavor flavor = ApiFlavor::kOpenAI;
  std::string azure_api_version = "2024-10-21";
  // Seconds without a sign of life from the server before an attempt is abandoned (and
  // retried): no byte on this attempt and none on any other attempt of this client, so
  // an attempt that only waits behind our own earlier requests is never abandoned while
  // the server works through them. Raised to 3x the time the server is measured to need
  // for the largest prompt sent so far, when that is longer.
  double timeout_seconds = 120.0;
  // Chat replies are streamed ("stream": true with stream_options.include_usage): tokens
  // are signs of life, and abandoning an attempt closes its connection, which stops the
  // generation on llama.cpp's servers. A reply without usage gets its tokens estimated
  // (UsageTotals::estimated_usage_calls). false: one JSON body per reply.
  bool stream = true;
  bool verify_tls = true;                  // never turned off by default
  // Structured output support: kJsonSchema requests fall back to JSON mode with the
  // schema attached ({"type": "json_object", "schema": ...}, which llama.cpp's servers
  // enforce by a grammar), then plain JSON mode, then plain text with the schema in the
  // prompt, when a server rejects the format (a 400, or a 4xx / 500 whose message names
  // response_format, json_schema or json_object; such a rejection is not retried); the
  // weakest format that then worked is used for the rest of the client's life.
};

struct RetryOptions {
  int max_attempts = 6;              // per call, including the first
  // The most one call may take, from its first attempt to its end, retries and their
  // waits included. An attempt still running when the deadline passes is abandoned (its
  // connection closed) and the call fails with DeadlineExceeded, whatever signs of life
  // the server gives (a request it lost while it streams others' replies, a stream that
  // never ends); EndpointOptions::timeout_seconds only ends an attempt the server is
  // silent about. Not counted: time queued for a free slot before the first attempt,
  // and time an attempt waits behind this client's own earlier attempts still in flight
  // (before its first byte), as timeout_seconds does not count it either: a slow local
  // server working through our own queue is not a stuck call. 0: no total deadline (a
  // server that keeps a connection alive could then hold a call for ever).
  double deadline_seconds = 300.0;
  double initial_backoff_seconds = 0.5;
  double max_backoff_seconds = 30.0;  // cap of the exponential backoff (before jitter)
  // Retried: connection errors, timeouts, 408, 409, 429, 5xx, and a 2xx whose body is
  // not a JSON object (empty, an HTML page); other statuses end the call. A 401 or 403
  // ends every call: the client stops sending at the first one (Client::halted).
  // retry-after / retry-after-ms headers are honoured (capped at
  // max_backoff_seconds * 4); otherwise the wait is uniform in [0, min(max, initial *
  // 2^retry)] ("full jitter"). Retries wait on timers: no thread sleeps.
};

struct RateLimitOptions {
  int max_in_flight = 16;            // --concurrency: requests in flight at once
  double requests_per_minute = 0;    // 0: no cap
  double tokens_per_minute = 0;      // 0: no cap (estimated prompt + max_tokens)
  // On a 429 the in-flight limit is halved (not below 1, once per window of requests)
  // and grows back by one per success, as TCP's AIMD does: a shared server is not
  // hammered. x-ratelimit-remaining-* / -reset-* headers pause new requests before the
  // server's quota runs out, and a 429's retry-after pauses them all.
};

enum class CacheMode {
  kReadWrite,  // default: serve hits, store new replies
  kReadOnly,   // serve hits, store nothing
  kOff,        // neither
  kReplay,     // serve hits; a miss is an error (NotFound), no network call is made
};

struct CacheOptions {
  std::string path;  // SQLite file; empty: ${XDG_CACHE_HOME:-~/.cache}/ragmeter/judge.sqlite
  CacheMode mode = CacheMode::kReadWrite;
};

// Price per million tokens, USD.
struct ModelPrice {
  double prompt_per_million = 0.0;
  double completion_per_million = 0.0;
  double cached_prompt_per_million = 0.0;
};

struct ClientOptions {
  EndpointOptions endpoint;
  RetryOptions retry;
  RateLimitOptions limits;
  CacheOptions cache;
  // Overrides of the built-in price table (docs/judges.md lists the defaults and their date).
  std::map<std::string, ModelPrice> prices;
  double max_cost_usd = 0.0;  // 0: no budget. Calls that would start past it fail.
  bool keep_traces = true;    // keep every call's request and raw reply for evidence
                              // (memory grows with the number of calls)
};

// Totals over a client's life.
struct UsageTotals {
  std::int64_t requests = 0;       // HTTP requests sent (retries included)
  std::int64_t cache_hits = 0;
  std::int64_t failed_calls = 0;
  TokenUsage tokens;
  double cost_usd = 0.0;
  // How the client adapted to the server (adaptive concurrency, stall detection).
  int concurrency_limit = 0;         // requests allowed in flight at the end: what it settled on
  int concurrency_lowest = 0;        // the lowest the limit went
  int server_parallelism = 0;        // requests the server was seen serving at once (0: not seen)
  std::int64_t timed_out_attempts = 0;  // attempts abandoned for no sign of life (then retried)
  // Server time spent on abandoned attempts, estimated from when the server could have
  // started each one (after the previous reply) to when it was abandoned. 0 is the goal.
  double abandoned_server_seconds = 0.0;
  std::int64_t estimated_usage_calls = 0;  // streamed replies without usage: tokens estimated
  // Images sent in chat requests (retries not counted twice: per call), and their
  // estimated prompt tokens (ContentPart::estimated_tokens), which servers include in
  // the prompt_tokens they report, and so in the cost.
  std::int64_t images = 0;
  std::int64_t image_tokens = 0;
  // Server replies (status 200) that held the API key's value (or another registered
  // secret) and were read with it replaced by "[redacted]" (redact_secret: a key under 16
  // bytes where it stands as a word). The judge read such a reply as rewritten, so a score
  // from it may differ from what the server said; 0 is the goal. Replies from the cache
  // and error pages that quote the key (failed attempts) are not counted.
  std::int64_t key_redacted_replies = 0;
};

// One call as it happened, for evidence and debugging. Holds no key.
struct CallTrace {
  std::string kind;              // "chat" or "embeddings"
  std::string purpose;           // the request's purpose: "claims", "verdicts", ...
  std::string cache_key;         // hex SHA-256 of the canonical request
  nlohmann::json request;        // the last body sent (without headers): the repair
                                 // request when there was one
  std::string raw_reply;         // the last body received; for a cache hit, the stored reply
  int attempts = 0;
  bool from_cache = false;
  std::string error;             // empty on success
};

class Client {
 public:
  // Calls still running end with Unavailable; it does not wait for them.
  virtual ~Client() = default;
  // Starts a chat call; the future becomes ready when it has ended either way.
  // Thread-safe: any number of threads may call concurrently.
  virtual std::future<StatusOr<ChatResponse>> chat(ChatRequest request) = 0;
  virtual std::future<StatusOr<EmbeddingResponse>> embed(EmbeddingRequest request) = 0;
  virtual UsageTotals totals() const = 0;
  // Every call so far (with keep_traces), in the order they ended. Thread-safe.
  virtual std::vector<CallTrace> traces() const = 0;
  // Why the client stopped sending, or OK: the server refused the key (a 401 or 403:
  // FailedPrecondition), was never reached in this run (nothing listening, an unknown host:
  // Unavailable), or the --max-cost budget was spent (ResourceExhausted). After that every
  // call fails at once with this status (a cached reply is still served). Thread-safe.
  virtual Status halted() const { return ok_status(); }
  // Stops the client, for a run being interrupted (Ctrl-C): calls waiting or started
  // later fail at once (a cached reply is still served), and the attempts in flight are
  // abandoned (their connections closed, which stops a streamed generation) and their
  // calls fail instead of being retried. halted() then says so. Returns at once; the
  // calls end on the client's own thread. Thread-safe.
  virtual void cancel() {}
};

// Whether `name` can be an environment variable's name: letters, digits and '_', not
// starting with a digit, not empty. A key pasted where a name belongs ("sk-...") is not.
bool is_environment_variable_name(std::string_view name);

// Creates a client. It reads the key from the environment once and registers it with
// register_secret() (status.h), so no Status or reason made afterwards can carry it.
// InvalidArgument for an unusable configuration (no base_url or model, an api_key_env
// that is not a variable's name); NotFound when a kReadOnly / kReplay cache file does
// not exist; Unavailable when the cache cannot be opened or the HTTP machinery (libcurl)
// cannot start.
StatusOr<std::unique_ptr<Client>> make_client(const ClientOptions& options);

// The canonical cache key of a chat request to an endpoint's model: hex SHA-256 over the
// model name, every sampling parameter, the messages, the schema and the extra fields.
// The endpoint's address (base URL, port, flavor, API version) is not in it, so the same
// model behind another address hits the same entry (docs/design.md, "Judge cache
// identity"). The key never includes the API key.
std::string chat_cache_key(const EndpointOptions& endpoint, const ChatRequest& request);
std::string embedding_cache_key(const EndpointOptions& endpoint, const EmbeddingRequest& request);

// ---- Server speed (for --dry-run's wall-time estimate) -------------------------

struct ServerSpeed {
  double prompt_tokens_per_second = 0;      // prompt evaluation (to the first chunk)
  double completion_tokens_per_second = 0;  // generation (first chunk to last)
  int slots = 0;  // requests served at once (llama.cpp's /props total_slots); 0: unknown
  std::int64_t prompt_tokens = 0;      // of the probe: the server's count, or estimated
  std::int64_t completion_tokens = 0;
};

// Measures the server with one streamed chat request (a ~600-token prompt, up to 48
// tokens of reply, not cached; the key as for any call) and asks GET /props for its
// slots. Takes as long as that request (a minute or more on a busy local model).
// Unavailable or DeadlineExceeded (options.endpoint.timeout_seconds x 4) when the server
// does not answer; InvalidArgument when its reply is not a chat stream.
StatusOr<ServerSpeed> measure_server_speed(const ClientOptions& options);

// Seconds to serve `prompt_tokens` and `completion_tokens` at `speed`, `parallel`
// requests at a time (at least 1). 0 when a speed is 0.
double estimated_server_seconds(const ServerSpeed& speed, std::int64_t prompt_tokens,
                                std::int64_t completion_tokens, int parallel);

// ---- Prices ------------------------------------------------------------------

// The price of `model`: exact name, then the longest matching prefix (so
// "gpt-4o-mini-2024-07-18" finds "gpt-4o-mini"), searched in the built-in table joined
// with `overrides` (an override replaces the built-in entry of the same name and adds
// new names). nullopt for unknown (local) models, which cost 0. Thread-safe.
std::optional<ModelPrice> find_price(const std::string& model,
                                     const std::map<std::string, ModelPrice>& overrides);

// Cost in USD of `usage` at `price`: cached prompt tokens (at most prompt_tokens) at the
// cached rate, the other prompt tokens at the prompt rate, completion tokens at theirs.
double cost_usd(const TokenUsage& usage, const ModelPrice& price);

// The date (YYYY-MM-DD) the built-in figures are from, for the docs and the summary;
// pricing.cc says where they come from.
const char* price_table_date();

}  // namespace ragmeter::llm
