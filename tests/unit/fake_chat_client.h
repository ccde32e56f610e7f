// A base for the unit tests' FAKE in-process judge clients (not a model): no embeddings,
// no usage totals, no traces. A subclass answers chat().
#pragma once

#include <future>
#include <vector>

#include "ragmeter/llm.h"

namespace ragmeter {

class FakeChatOnlyClient : public llm::Client {
 public:
  std::future<StatusOr<llm::EmbeddingResponse>> embed(llm::EmbeddingRequest) override {
    std::promise<StatusOr<llm::EmbeddingResponse>> none;
    none.set_value(unavailable("the fake has no embeddings"));
    return none.get_future();
  }
  llm::UsageTotals totals() const override { return {}; }
  std::vector<llm::CallTrace> traces() const override { return {}; }
};

}  // namespace ragmeter
