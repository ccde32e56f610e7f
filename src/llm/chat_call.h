// A chat() call: its request body for the response format the server accepts, the reply
// (streamed or not) checked as JSON against the schema, and one repair request per
// choice that is not usable JSON.
#pragma once

#include <atomic>
#include <cstddef>
#include <deque>
#include <string>
#include <utility>

#include "llm/call.h"
#include "llm/openai_protocol.h"
#include "ragmeter/llm.h"

namespace ragmeter::llm {

// What a client has learnt of its server's response formats, shared by its chat calls.
// Thread-safe.
class ServerFormats {
 public:
  // The weakest response format the server accepted after rejecting a stronger one.
  FormatStep floor() const { return floor_.load(); }
  void accept(FormatStep format);
  // Whether a JSON-format chat reply has come back: until then the response format is a
  // guess, and JSON chat calls are sent one at a time (a server that refuses the format
  // then refuses it once, not once per call in flight).
  bool settled() const { return settled_.load(); }
  void settle() { settled_.store(true); }

 private:
  std::atomic<FormatStep> floor_{FormatStep::kJsonSchema};
  std::atomic<bool> settled_{false};
};

class ChatCall final : public PromisedCall<ChatResponse> {
 public:
  ChatCall(OpenAIClient* client, ChatRequest request)
      : PromisedCall(client, "chat"), request_(std::move(request)) {}

  void prepare() override;
  void before_send() override;
  bool serve_from_cache(const std::string& value) override;
  bool probes_format() const override;
  bool on_rejected() override;
  void on_reply(const std::string& body) override;

 private:
  bool wants_json() const { return request_.format != ReplyFormat::kText; }
  void count_images();
  StatusOr<ChatResponse> parse_reply(const std::string& body);
  Status check_json(ChatChoice& choice) const;
  void on_main_reply(ChatResponse reply);
  void on_repair_reply(ChatResponse reply);
  void next_repair_or_finish();

  ChatRequest request_;
  FormatStep sent_ = FormatStep::kText;
  nlohmann::json main_body_;  // the body the repairs follow up on
  ChatResponse response_;     // the main reply, its choices repaired one by one
  std::deque<std::pair<size_t, std::string>> repairs_;  // choice index, what is wrong
  bool repairing_ = false;
};

}  // namespace ragmeter::llm
