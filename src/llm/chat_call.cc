#include "llm/chat_call.h"

#include <algorithm>
#include <optional>

#include "llm/chat_stream.h"
#include "llm/openai_client.h"
#include "llm/reply_json.h"

namespace ragmeter::llm {
namespace {

using nlohmann::json;

// FormatStep declares its steps weakest first.
FormatStep weakest(FormatStep a, FormatStep b) { return a < b ? a : b; }

}  // namespace

void ServerFormats::accept(FormatStep format) {
  FormatStep floor = floor_.load();
  while (format < floor && !floor_.compare_exchange_weak(floor, format)) {
  }
}

void ChatCall::prepare() {
  purpose_ = request_.purpose;
  if (client_->needs_keys()) key_ = chat_cache_key(client_->options().endpoint, request_);
  url_ = chat_url(client_->options().endpoint);
  tokens_ = estimate_tokens(request_);
  prompt_tokens_ =
      std::max(0.0, tokens_ - static_cast<double>(request_.max_tokens) * std::max(request_.n, 1));
  count_images();
  streams_ = client_->options().endpoint.stream;
  sent_ = weakest(first_format_step(request_), client_->formats().floor());
  set_body(chat_request_body(client_->options().endpoint, request_, sent_));
}

void ChatCall::count_images() {
  for (const ChatMessage& message : request_.messages) {
    for (const ContentPart& part : message.parts) {
      if (part.image_url.empty()) continue;
      ++images_;
      image_tokens_ += part.estimated_tokens;
    }
  }
}

// A call queued before the client learnt that the server refuses a format would
// otherwise be sent with it and pay one refusal more (seen with llama-cpp-python: 19 of
// 103 requests in bench/ragas_side_by_side.sh's first part).
void ChatCall::before_send() {
  FormatStep floor = client_->formats().floor();
  if (floor < sent_) {
    sent_ = floor;
    set_body(chat_request_body(client_->options().endpoint, request_, sent_));
  }
}

bool ChatCall::serve_from_cache(const std::string& value) {
  last_.body = value;  // the trace of a cache hit shows the stored reply
  return serve_cached(parse_chat_cache_value(value));
}

bool ChatCall::probes_format() const { return wants_json() && !client_->formats().settled(); }

bool ChatCall::on_rejected() {
  if (repairing_) return false;
  std::optional<FormatStep> weaker = weaker_format_step(sent_, request_);
  if (!weaker) return false;
  sent_ = *weaker;
  set_body(chat_request_body(client_->options().endpoint, request_, sent_));
  return true;
}

void ChatCall::on_reply(const std::string& body) {
  StatusOr<ChatResponse> reply = parse_reply(body);
  if (!reply.ok()) return fail(reply.status());
  book_usage(reply->usage, reply->model);
  if (sent_ != first_format_step(request_)) client_->formats().accept(sent_);
  if (wants_json()) client_->formats().settle();
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

}  // namespace ragmeter::llm
