// The OpenAI-compatible wire format: URLs, headers and bodies of chat-completion and
// embedding requests (OpenAI and Azure flavors), the parsing of their replies, and the
// form replies take in the cache.
//
// Pure functions, thread-safe. Nothing here logs; only api_key_value(),
// request_headers() and redact_key() see the API key.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "ragmeter/llm.h"
#include "ragmeter/status.h"

namespace ragmeter::llm {

// OpenAI: {base_url}/chat/completions. Azure:
// {base_url}/openai/deployments/{model}/chat/completions?api-version={version}.
std::string chat_url(const EndpointOptions& endpoint);
// The same with "embeddings" in place of "chat/completions".
std::string embeddings_url(const EndpointOptions& endpoint);
// llama.cpp's server properties: {base_url without its /v1}/props.
std::string props_url(const EndpointOptions& endpoint);
// The requests the server serves at once (total_slots) from its answer to GET props_url()
// with `status` and `body`; 0 when the answer gives none.
int props_total_slots(int status, std::string_view body);

// Content-Type plus, when getenv(api_key_env) is set and not empty, the key:
// "Authorization: Bearer KEY" (OpenAI) or "api-key: KEY" (Azure). The returned value
// holds the key: send it, never log or store it.
std::vector<std::pair<std::string, std::string>> request_headers(const EndpointOptions& endpoint);

// The key: getenv(api_key_env), "" when unset. Send it or register it as a secret;
// never log or store it.
std::string api_key_value(const EndpointOptions& endpoint);

// `text` with the endpoint's key replaced by "[redacted]" (redact_secret, status.h: a key
// shorter than 16 bytes only where it stands as a word), for server replies that echo it.
std::string redact_key(std::string text, const EndpointOptions& endpoint);

// The forms of response_format a chat call tries in turn, weakest first in this
// declaration: json_schema; then json_object with the schema attached ("schema" next
// to "type", which llama.cpp's server and llama-cpp-python turn into a grammar and
// other OpenAI-compatible servers ignore); then plain json_object; then plain text
// with the JSON (and schema) asked for in the prompt.
enum class FormatStep { kText, kJsonObject, kJsonObjectWithSchema, kJsonSchema };

// The step a request starts at: its own format (kJsonSchema, kJsonObject or kText).
FormatStep first_format_step(const ChatRequest& request);

// The step after `step` was rejected: the next weaker one, skipping json_object with
// the schema when the request has no schema object. nullopt after kText.
std::optional<FormatStep> weaker_format_step(FormatStep step, const ChatRequest& request);

// Whether an error reply says the server does not accept the response_format it was
// sent: any 400 (the OpenAI form), and a 422 or 500 (llama-cpp-python answers 500
// "Input should be 'text' or 'json_object'") or other 4xx but 401, 403, 404, 408, 409
// and 429 whose body mentions "response_format", "json_schema" or "json_object".
bool is_format_rejection(int status, std::string_view body);

// The chat-completion body for `request` sent with the response format of `step`.
// When `step` is weaker than the request's format, the last user message asks for JSON
// only, with the schema when there is one.
// A message's "content": its text, or its parts (text and image_url) when it has any.
nlohmann::json message_content(const ChatMessage& message);

nlohmann::json chat_request_body(const EndpointOptions& endpoint, const ChatRequest& request,
                                 FormatStep step);

// The chat-completion body for `request` sent with response format `sent`. When `sent`
// is weaker than request.format (a server rejected the stronger one), the last user
// message asks for JSON only, with the schema when there is one. OpenAI: "model" is
// set; Azure: the deployment in the URL names it. request.extra is merged last (JSON
// merge patch: a null removes a field).
nlohmann::json chat_request_body(const EndpointOptions& endpoint, const ChatRequest& request,
                                 ReplyFormat sent);

// The follow-up after `bad_reply` to `sent_body` did not parse or fit the schema: the
// same conversation plus that reply and a short message naming `problem`, asking for
// only the corrected JSON. One choice (n is dropped).
nlohmann::json repair_request_body(const nlohmann::json& sent_body, std::string_view bad_reply,
                                   std::string_view problem);

nlohmann::json embedding_request_body(const EndpointOptions& endpoint,
                                      const EmbeddingRequest& request);

// About how many tokens `request` takes from a tokens-per-minute quota: its characters
// / 4 plus max_tokens per choice, as servers count it.
double estimate_tokens(const ChatRequest& request);

// Parses a chat-completion reply: choices in index order (content, finish_reason,
// logprobs.content[].top_logprobs), usage (with prompt_tokens_details.cached_tokens)
// and model. `json` of the choices is left empty. InvalidArgument with the reason for
// a body that is not JSON, carries an "error" object, has no choices or is malformed,
// and for a refusal.
// Whether a 2xx body is a JSON object that is not an error report: OK, or
// InvalidArgument saying what came back ("the body is empty", "the body is not JSON:
// <its first 120 bytes>", ...). Such a body is retried like a 5xx.
Status check_reply_envelope(std::string_view body);

StatusOr<ChatResponse> parse_chat_reply(std::string_view body);

// Parses an embeddings reply: data[].embedding ordered by index. InvalidArgument when
// the body is malformed or does not hold exactly `expected` vectors.
StatusOr<EmbeddingResponse> parse_embedding_reply(std::string_view body, size_t expected);

// A "usage" object (prompt, completion and prompt_tokens_details.cached_tokens; absent
// fields 0), and a choice's logprobs.content[] appended to `tokens`; for whole replies
// and for stream chunks alike. The second throws nlohmann::json's type errors.
TokenUsage parse_usage_object(const nlohmann::json& usage);
void append_logprobs(const nlohmann::json& choice, std::vector<TokenLogprob>* tokens);

// The server's explanation in an error reply: error.message when the body has one,
// else the start of the body. At most ~300 characters, one line.
std::string server_error_message(std::string_view body);

// The cache forms of responses (from_cache and attempts are not stored) and their
// parsers. InvalidArgument for a value that is not such a form.
std::string chat_cache_value(const ChatResponse& response);
StatusOr<ChatResponse> parse_chat_cache_value(std::string_view value);
std::string embedding_cache_value(const EmbeddingResponse& response);
StatusOr<EmbeddingResponse> parse_embedding_cache_value(std::string_view value);

}  // namespace ragmeter::llm
