// measure_server_speed(): one streamed request, timed at its first and last chunk.
#include <chrono>
#include <future>

#include "llm/chat_stream.h"
#include "llm/http_transport.h"
#include "llm/openai_protocol.h"
#include "ragmeter/llm.h"

namespace ragmeter::llm {
namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

double seconds_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// A prompt of about 600 tokens that no earlier request shares a prefix with.
ChatRequest probe_request() {
  ChatRequest request;
  std::string text = "Probe " + std::to_string(Clock::now().time_since_epoch().count()) + ". ";
  while (text.size() < 2400) {
    text += "The river rises in the hills, runs through three towns and reaches the sea. ";
  }
  request.messages = {{"user", text + "\nRetell the passage in one long sentence."}};
  request.max_tokens = 48;
  return request;
}

int announced_slots(HttpTransport& transport, const EndpointOptions& endpoint) {
  std::promise<HttpResponse> done;
  auto got = done.get_future();
  transport.send({"GET", props_url(endpoint), request_headers(endpoint), "", 5.0},
                 [&done](HttpResponse response) { done.set_value(std::move(response)); });
  HttpResponse response = got.get();
  return props_total_slots(response.status, response.body);
}

}  // namespace

StatusOr<ServerSpeed> measure_server_speed(const ClientOptions& options) {
  RAGMETER_ASSIGN_OR_RETURN(std::unique_ptr<HttpTransport> transport,
                            make_curl_transport({options.endpoint.verify_tls, 2}));
  ServerSpeed speed;
  speed.slots = announced_slots(*transport, options.endpoint);
  ChatRequest request = probe_request();
  json body = chat_request_body(options.endpoint, request, ReplyFormat::kText);
  body["stream"] = true;
  body["stream_options"] = {{"include_usage", true}};
  // Touched by the loop thread only until `done` is set.
  auto progress = std::make_shared<StreamProgress>();
  auto first = std::make_shared<Clock::time_point>();
  auto last = std::make_shared<Clock::time_point>();
  std::promise<HttpResponse> done;
  auto got = done.get_future();
  HttpRequest http{"POST", chat_url(options.endpoint), request_headers(options.endpoint),
                   body.dump(), options.endpoint.timeout_seconds * 4,
                   [progress, first, last](std::string_view bytes) {
                     bool before = progress->data_events() > 0;
                     if (progress->feed(bytes) > 0) {
                       if (!before) *first = Clock::now();
                       *last = Clock::now();
                     }
                   }};
  Clock::time_point start = Clock::now();
  transport->send(std::move(http), [&done](HttpResponse response) { done.set_value(std::move(response)); });
  HttpResponse response = got.get();
  if (response.status == 0) {
    Status failed(response.timed_out ? StatusCode::kDeadlineExceeded : StatusCode::kUnavailable,
                  "the speed probe got no reply: " + response.error);
    return failed;
  }
  if (response.status != 200) {
    return unavailable("the speed probe got HTTP " + std::to_string(response.status) + ": " +
                       server_error_message(response.body));
  }
  StreamFacts facts;
  RAGMETER_ASSIGN_OR_RETURN(ChatResponse reply, parse_chat_stream(response.body, &facts));
  speed.prompt_tokens = facts.usage_given ? reply.usage.prompt_tokens
                                          : static_cast<std::int64_t>(estimate_tokens(request) -
                                                                      request.max_tokens);
  speed.completion_tokens = facts.usage_given ? reply.usage.completion_tokens : facts.content_chunks;
  if (progress->data_events() == 0) return invalid_argument("the speed probe's reply had no chunk");
  double to_first = seconds_between(start, *first);
  double generating = seconds_between(*first, *last);
  if (to_first > 0) speed.prompt_tokens_per_second = speed.prompt_tokens / to_first;
  if (generating > 0 && speed.completion_tokens > 1) {
    speed.completion_tokens_per_second = (speed.completion_tokens - 1) / generating;
  }
  return speed;
}

double estimated_server_seconds(const ServerSpeed& speed, std::int64_t prompt_tokens,
                                std::int64_t completion_tokens, int parallel) {
  if (speed.prompt_tokens_per_second <= 0 || speed.completion_tokens_per_second <= 0) return 0;
  double serial = prompt_tokens / speed.prompt_tokens_per_second +
                  completion_tokens / speed.completion_tokens_per_second;
  return serial / std::max(parallel, 1);
}

}  // namespace ragmeter::llm
