#include "llm/embedding_call.h"

#include <cstddef>

#include "llm/openai_client.h"
#include "llm/openai_protocol.h"

namespace ragmeter::llm {

void EmbeddingCall::prepare() {
  purpose_ = request_.purpose;
  if (client_->needs_keys()) key_ = embedding_cache_key(client_->options().endpoint, request_);
  url_ = embeddings_url(client_->options().endpoint);
  size_t characters = 0;
  for (const std::string& input : request_.inputs) characters += input.size();
  tokens_ = static_cast<double>(characters) / 4.0;
  prompt_tokens_ = tokens_;
  set_body(embedding_request_body(client_->options().endpoint, request_));
}

bool EmbeddingCall::serve_from_cache(const std::string& value) {
  last_.body = value;  // the trace of a cache hit shows the stored reply
  return serve_cached(parse_embedding_cache_value(value));
}

void EmbeddingCall::on_reply(const std::string& body) {
  StatusOr<EmbeddingResponse> reply = parse_embedding_reply(body, request_.inputs.size());
  if (!reply.ok()) return fail(reply.status());
  book_usage(reply->usage, "");
  store([&reply] { return embedding_cache_value(*reply); });
  succeed(std::move(reply).value(), false);
}

}  // namespace ragmeter::llm
