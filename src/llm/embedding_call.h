// An embed() call: one embeddings request for all its inputs, the vectors in input order.
#pragma once

#include <string>
#include <utility>

#include "llm/call.h"
#include "ragmeter/llm.h"

namespace ragmeter::llm {

class EmbeddingCall final : public PromisedCall<EmbeddingResponse> {
 public:
  EmbeddingCall(OpenAIClient* client, EmbeddingRequest request)
      : PromisedCall(client, "embeddings"), request_(std::move(request)) {}

  void prepare() override;
  bool serve_from_cache(const std::string& value) override;
  void on_reply(const std::string& body) override;

 private:
  EmbeddingRequest request_;
};

}  // namespace ragmeter::llm
