// Content addresses of judge requests: SHA-256 over a canonical JSON form.
//
// The canonical form is nlohmann::json's compact dump of an object with sorted keys
// (nlohmann::json keeps object members in a std::map) and shortest round-trip number
// formatting (0.0 -> "0.0", 0.7 -> "0.7", 7 -> "7"); strings are emitted as UTF-8 with
// only the escapes JSON requires. Python's json.dumps(obj, sort_keys=True,
// separators=(",", ":"), ensure_ascii=False) writes the same text for the same object,
// which is how tests/unit/cache_key_test.cc's golden value was checked.
//
// Bump kCacheKeyVersion whenever the canonical form changes: old entries then simply
// stop matching instead of being served for a request they do not belong to.
#include <openssl/evp.h>

#include <string>
#include <vector>

#include "llm/response_cache.h"
#include "llm/openai_protocol.h"
#include "ragmeter/llm.h"

namespace ragmeter::llm {
namespace {

// v2: the endpoint's address (base URL, flavor, API version) left the key; see
// endpoint_identity.
constexpr const char* kCacheKeyVersion = "ragmeter-cache-v2";

std::string sha256_hex(const std::string& data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  // EVP_Digest only fails on allocation failure; an empty key then fails every lookup
  // instead of aliasing entries.
  if (EVP_Digest(data.data(), data.size(), digest, &length, EVP_sha256(), nullptr) != 1) return "";
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(length * 2);
  for (unsigned int i = 0; i < length; ++i) {
    hex.push_back(kHex[digest[i] >> 4]);
    hex.push_back(kHex[digest[i] & 0x0f]);
  }
  return hex;
}

const char* format_name(ReplyFormat format) {
  switch (format) {
    case ReplyFormat::kText:
      return "text";
    case ReplyFormat::kJsonObject:
      return "json_object";
    case ReplyFormat::kJsonSchema:
      return "json_schema";
  }
  return "text";
}

// Who answers is the model, named as the request names it: the same request to the same
// model is the same entry wherever the server listens. The address (base URL, port,
// localhost or 127.0.0.1, the flavor and Azure's API version, which only change how the
// request travels) is left out, so a local server restarted on another port, or reached
// by another name, still hits; two models never share an entry. The price: two servers
// serving different weights under one model name share entries (docs/design.md, "Judge
// cache identity"). The key's variable name and value, the timeout and TLS settings do
// not change the reply either.
nlohmann::json endpoint_identity(const char* kind, const EndpointOptions& endpoint) {
  return {{"version", kCacheKeyVersion}, {"kind", kind}, {"model", endpoint.model}};
}

nlohmann::json canonical_messages(const std::vector<ChatMessage>& messages) {
  nlohmann::json list = nlohmann::json::array();
  for (const ChatMessage& message : messages) {
    list.push_back({{"role", message.role}, {"content", message_content(message)}});
  }
  return list;
}

// nlohmann::json's dump throws on invalid UTF-8; `replace` keeps key computation total
// (a request with invalid UTF-8 still gets a stable key).
std::string canonical_dump(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

std::string content_address(const std::string& canonical) { return sha256_hex(canonical); }

std::string chat_cache_key(const EndpointOptions& endpoint, const ChatRequest& request) {
  nlohmann::json canonical = endpoint_identity("chat", endpoint);
  canonical["messages"] = canonical_messages(request.messages);
  canonical["temperature"] = request.temperature;
  canonical["max_tokens"] = request.max_tokens;
  canonical["seed"] = request.seed ? nlohmann::json(*request.seed) : nlohmann::json(nullptr);
  canonical["n"] = request.n;
  canonical["format"] = format_name(request.format);
  canonical["schema"] = request.schema;
  canonical["schema_name"] = request.schema_name;
  canonical["top_logprobs"] = request.top_logprobs;
  canonical["extra"] = request.extra;
  // Only when set, so that the keys of every other request are as before.
  if (request.reply_form_in_prompt) canonical["reply_form_in_prompt"] = true;
  return sha256_hex(canonical_dump(canonical));
}

std::string embedding_cache_key(const EndpointOptions& endpoint, const EmbeddingRequest& request) {
  nlohmann::json canonical = endpoint_identity("embeddings", endpoint);
  canonical["inputs"] = request.inputs;
  return sha256_hex(canonical_dump(canonical));
}

}  // namespace ragmeter::llm
