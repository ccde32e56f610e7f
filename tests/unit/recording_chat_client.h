// A FAKE in-process judge client (not a model) that records every chat request and
// answers each with a reply built from the request's own JSON schema: every required
// key filled by its type (a string with the test's text, an enum with its first value,
// an integer with its minimum or 1, a boolean false, an array with its minItems or one
// item). A test may replace the reply of any request with `reply_for`, which sees the
// request and how many requests of its schema name came before it.
#pragma once

#include <functional>
#include <future>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/unit/fake_chat_client.h"

namespace ragmeter {

class RecordingChatClient : public FakeChatOnlyClient {
 public:
  using Json = nlohmann::json;
  // The reply to a request, or nullopt for the schema-filled one. `earlier` counts the
  // requests with the same schema name sent before this one.
  using ReplyFor = std::function<std::optional<Json>(const llm::ChatRequest&, int earlier)>;

  explicit RecordingChatClient(std::string text) : text_(std::move(text)) {}

  std::future<StatusOr<llm::ChatResponse>> chat(llm::ChatRequest request) override {
    std::optional<Json> reply;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      int earlier = 0;
      for (const llm::ChatRequest& seen : requests_) earlier += seen.schema_name == request.schema_name;
      if (reply_for) reply = reply_for(request, earlier);
      requests_.push_back(request);
    }
    if (!reply) reply = filled(request.schema);
    std::promise<StatusOr<llm::ChatResponse>> done;
    llm::ChatResponse response;
    llm::ChatChoice choice;
    choice.json = *reply;
    choice.content = reply->dump();
    response.choices.push_back(std::move(choice));
    done.set_value(std::move(response));
    return done.get_future();
  }

  // Every request so far, in the order they arrived.
  std::vector<llm::ChatRequest> requests() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return requests_;
  }
  // The requests whose schema is named `name` ("claims", "verdicts", "questions", ...).
  std::vector<llm::ChatRequest> requests_named(const std::string& name) const {
    std::vector<llm::ChatRequest> out;
    for (const llm::ChatRequest& request : requests()) {
      if (request.schema_name == name) out.push_back(request);
    }
    return out;
  }

  ReplyFor reply_for;  // set before the first request

 private:
  Json filled(const Json& schema) const {
    const std::string type = schema.value("type", "string");
    if (schema.contains("enum") && schema["enum"].is_array() && !schema["enum"].empty()) {
      return schema["enum"][0];
    }
    if (type == "object") {
      Json out = Json::object();
      for (const Json& key : schema.value("required", Json::array())) {
        const std::string k = key.get<std::string>();
        out[k] = filled(schema["properties"][k]);
      }
      return out;
    }
    if (type == "array") {
      const std::size_t n = schema.value("minItems", std::size_t{1});
      Json out = Json::array();
      for (std::size_t i = 0; i < std::max<std::size_t>(n, 1); ++i) out.push_back(filled(schema["items"]));
      return out;
    }
    if (type == "integer") return schema.value("minimum", 1);
    if (type == "boolean") return false;
    return text_;
  }

  std::string text_;
  mutable std::mutex mutex_;
  std::vector<llm::ChatRequest> requests_;
};

}  // namespace ragmeter
