// The judge client against a slow judge: the FAKE server's slot mode (tests/fakes/
// fake_llm_server.cc, --slots), which serves N requests at once and queues the rest,
// taking a fixed time per 1,000 prompt tokens and per completion token, and streams.
// Checked from the fake's own books (answered, abandoned, slot time), never against
// wall-clock thresholds: a loaded machine stretches the fake's slot time and the span
// of the run alike.
//
// Also the pure parts: the event-stream parser and the adaptive limit's rule.
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "../fakes/fake_llm_server_process.h"
#include "llm/adaptive_limit.h"
#include "llm/chat_stream.h"
#include "llm/http_transport.h"
#include "ragmeter/llm.h"
#include "tests/unit/test_paths.h"
#include "tests/unit/fake_llm_judge.h"

namespace ragmeter::llm {
namespace {

using nlohmann::json;

using test_judges::fake_llm_server_path;

// The fake in slot mode, and its control endpoints.
class SlotFake {
 public:
  bool start(int slots, double ms_per_1k_prompt_tokens, double ms_per_token,
             bool announce = false) {
    if (!test_judges::fake_llm_server_built()) return false;
    if (!process_.start(fake_llm_server_path(),
                        {"--slots", std::to_string(slots), "--ms-per-1k-prompt-tokens",
                         std::to_string(ms_per_1k_prompt_tokens), "--ms-per-token",
                         std::to_string(ms_per_token), "--announce-slots", announce ? "1" : "0"})) {
      return false;
    }
    auto transport = make_curl_transport({});
    if (!transport.ok()) return false;
    control_ = std::move(transport).value();
    return true;
  }

  std::string base_url() const { return process_.base_url(); }
  json stats() { return json::parse(call("GET", "/fake/stats", "").body); }
  void configure(const json& config) { call("POST", "/fake/config", config.dump()); }
  void script(const json& script) { call("POST", "/fake/script", script.dump()); }

 private:
  HttpResponse call(const std::string& method, const std::string& path, std::string body) {
    std::promise<HttpResponse> done;
    std::future<HttpResponse> response = done.get_future();
    control_->send({method, "http://127.0.0.1:" + std::to_string(process_.port()) + path, {},
                    std::move(body), 5.0},
                   [&done](HttpResponse r) { done.set_value(std::move(r)); });
    return response.get();
  }

  fakes::FakeLlmServerProcess process_;
  std::unique_ptr<HttpTransport> control_;
};

ClientOptions slow_judge_options(const std::string& base_url, double timeout, int attempts) {
  ClientOptions options;
  options.endpoint.base_url = base_url;
  options.endpoint.model = "fake-model";
  options.endpoint.api_key_env = "";
  options.endpoint.timeout_seconds = timeout;
  options.limits.max_in_flight = 16;
  options.retry.max_attempts = attempts;
  options.retry.initial_backoff_seconds = 0.01;
  options.retry.max_backoff_seconds = 0.05;
  options.cache.mode = CacheMode::kOff;
  options.keep_traces = false;
  return options;
}

// A request of about `tokens` prompt tokens (4 characters each, as both sides estimate).
ChatRequest sized_request(int index, int tokens) {
  ChatRequest request;
  std::string text = "call " + std::to_string(index) + " ";
  text.resize(static_cast<size_t>(tokens) * 4, 'x');
  request.messages = {{"user", text}};
  request.max_tokens = 16;
  return request;
}

TEST(LlmSlowJudgeTest, OneSlotAtConcurrency16FinishesEveryCallWithoutTimeouts) {
  SlotFake fake;
  // 100 ms per 1,000 prompt tokens, 4 ms per token: 70 to 170 ms per call served alone.
  ASSERT_TRUE(fake.start(1, 100, 4))
      << "the fake LLM server at " << fake_llm_server_path() << " did not start";
  // Served one at a time, the 16th call waits about 1.8 s behind our own earlier ones: far
  // past the 1 s timeout, which must not count that wait.
  auto client = make_client(slow_judge_options(fake.base_url(), 1.0, 3));
  ASSERT_TRUE(client.ok()) << client.status().to_string();
  constexpr int kCalls = 24;
  std::vector<std::future<StatusOr<ChatResponse>>> replies;
  for (int i = 0; i < kCalls; ++i) replies.push_back((*client)->chat(sized_request(i, 500 + 40 * i)));
  for (auto& reply : replies) {
    StatusOr<ChatResponse> got = reply.get();
    ASSERT_TRUE(got.ok()) << got.status().to_string();
    EXPECT_EQ(got->choices.at(0).content, "{\"verdict\": 1}");
    EXPECT_EQ(got->attempts, 1);
  }
  json books = fake.stats();
  const json& slots = books["slots"];
  EXPECT_EQ(books["requests"], kCalls);
  EXPECT_EQ(slots["answered"], kCalls);
  EXPECT_EQ(slots["abandoned"], 0);
  EXPECT_EQ(slots["dropped_queued"], 0);
  UsageTotals totals = (*client)->totals();
  EXPECT_EQ(totals.requests, kCalls);
  EXPECT_EQ(totals.timed_out_attempts, 0);
  EXPECT_EQ(totals.abandoned_server_seconds, 0.0);
  // The server was never idle while calls remained: the span from the first request to
  // the last reply is within 10% of the slot time the answers needed one after another.
  double serial_minimum = slots["service_ms"].get<double>();
  EXPECT_LE(slots["span_ms"].get<double>(), 1.10 * serial_minimum) << books.dump();
  // Prompt tokens came back in the stream's usage: the fake's count, characters / 4.
  EXPECT_EQ(totals.tokens.prompt_tokens, [] {
    long sum = 0;
    for (int i = 0; i < kCalls; ++i) sum += 500 + 40 * i;
    return sum;
  }());
  EXPECT_EQ(totals.estimated_usage_calls, 0);
  // It saw one request served at a time and settled on one served plus one waiting.
  EXPECT_EQ(totals.server_parallelism, 1);
  EXPECT_EQ(totals.concurrency_limit, 2);
}

TEST(LlmSlowJudgeTest, BurstOfSlownessLowersConcurrencyAndItComesBack) {
  SlotFake fake;
  // Four slots; a 1,000-token prompt takes 20 ms, then 5 tokens of 5 ms.
  ASSERT_TRUE(fake.start(4, 20, 5))
      << "the fake LLM server at " << fake_llm_server_path() << " did not start";
  auto client = make_client(slow_judge_options(fake.base_url(), 1.0, 30));
  ASSERT_TRUE(client.ok()) << client.status().to_string();
  constexpr int kCalls = 300;
  std::vector<std::future<StatusOr<ChatResponse>>> replies;
  for (int i = 0; i < kCalls; ++i) replies.push_back((*client)->chat(sized_request(i, 1000)));
  auto answered = [&] { return fake.stats()["slots"]["answered"].get<long>(); };
  // Settled: four slots seen busy at once, plus one waiting.
  int before = 0;
  for (auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
       answered() < 60 || (before != 5 && std::chrono::steady_clock::now() < until);) {
    before = (*client)->totals().concurrency_limit;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  // The burst: prompts take 200x longer (4 s for 1,000 tokens, silent), past the 1 s
  // without a sign of life; then back to normal.
  fake.configure({{"ms_per_1k_prompt_tokens", 4000}});
  int lowest = before;
  for (auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(2500);
       std::chrono::steady_clock::now() < until;) {
    lowest = std::min(lowest, (*client)->totals().concurrency_limit);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  fake.configure({{"ms_per_1k_prompt_tokens", 20}});
  for (auto& reply : replies) {
    StatusOr<ChatResponse> got = reply.get();
    ASSERT_TRUE(got.ok()) << got.status().to_string();
  }
  // Coming back takes a number of answers in good time, not a number of seconds: on a
  // loaded machine the burst can use up most of the 300 calls. So the run goes on, in
  // rounds of 40 calls, until the limit is back or 40 rounds have shown it is not.
  int calls = kCalls;
  for (int round = 0; round < 40 && (*client)->totals().concurrency_limit != 5; ++round) {
    std::vector<std::future<StatusOr<ChatResponse>>> more;
    for (int i = 0; i < 40; ++i) more.push_back((*client)->chat(sized_request(calls + i, 1000)));
    calls += 40;
    for (auto& reply : more) ASSERT_TRUE(reply.get().ok());
  }
  UsageTotals totals = (*client)->totals();
  EXPECT_EQ(before, 5);
  EXPECT_GT(totals.timed_out_attempts, 0);
  EXPECT_LE(std::min(lowest, totals.concurrency_lowest), 2);
  EXPECT_EQ(totals.concurrency_limit, 5);  // and back, once the server kept up again
  EXPECT_EQ(fake.stats()["slots"]["answered"], calls);
}

TEST(LlmSlowJudgeTest, SlotsTheServerAnnouncesSetTheStartingLimit) {
  SlotFake fake;
  ASSERT_TRUE(fake.start(2, 20, 2, /*announce=*/true))
      << "the fake LLM server at " << fake_llm_server_path() << " did not start";
  auto client = make_client(slow_judge_options(fake.base_url(), 1.0, 3));
  ASSERT_TRUE(client.ok()) << client.status().to_string();
  std::vector<std::future<StatusOr<ChatResponse>>> replies;
  for (int i = 0; i < 12; ++i) replies.push_back((*client)->chat(sized_request(i, 200)));
  for (auto& reply : replies) ASSERT_TRUE(reply.get().ok());
  // GET /props said 2 slots: never more than 2 served + 1 waiting, from the first burst on.
  EXPECT_EQ(fake.stats()["max_in_flight"], 3);
  EXPECT_EQ((*client)->totals().concurrency_limit, 3);
}

// The deadline bounds the call whatever signs of life the server gives: a request the
// server lost while it goes on answering others is cut at its deadline. Before, the
// deadline was checked only between attempts, and the other replies' chunks kept the
// lost request alive for as long as they came.
TEST(LlmSlowJudgeTest, ALostRequestEndsAtItsDeadlineWhileTheServerAnswersOthers) {
  SlotFake fake;
  ASSERT_TRUE(fake.start(1, 10, 20))
      << "the fake LLM server at " << fake_llm_server_path() << " did not start";
  // The first request is lost (never answered); the others stream 10 tokens of 20 ms.
  fake.script({{"steps", {{{"kind", "hang"}}}},
               {"default", {{"kind", "reply"}, {"completion_tokens", 10}}}});
  ClientOptions options = slow_judge_options(fake.base_url(), 5.0, 3);
  options.retry.deadline_seconds = 1.5;
  auto client = make_client(options);
  ASSERT_TRUE(client.ok()) << client.status().to_string();
  auto lost = (*client)->chat(sized_request(0, 100));
  for (auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
       fake.stats()["requests"] != 1 && std::chrono::steady_clock::now() < until;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  // 40 calls of about 200 ms, one after another: the server shows signs of life for 8 s.
  constexpr int kOthers = 40;
  int answered_before_lost_ended = -1;
  for (int i = 1; i <= kOthers; ++i) {
    StatusOr<ChatResponse> other = (*client)->chat(sized_request(i, 100)).get();
    ASSERT_TRUE(other.ok()) << other.status().to_string();
    EXPECT_EQ(other->attempts, 1);
    if (answered_before_lost_ended < 0 &&
        lost.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
      answered_before_lost_ended = i;
    }
  }
  EXPECT_GE(answered_before_lost_ended, 1);
  EXPECT_LT(answered_before_lost_ended, kOthers) << "the lost call outlived the others' replies";
  StatusOr<ChatResponse> lost_reply = lost.get();
  ASSERT_FALSE(lost_reply.ok());
  EXPECT_EQ(lost_reply.status().code(), StatusCode::kDeadlineExceeded);
  EXPECT_NE(lost_reply.status().message().find("deadline of 1.5 s (1 attempts)"),
            std::string::npos)
      << lost_reply.status().message();
  EXPECT_EQ((*client)->totals().timed_out_attempts, 0);  // cut by the deadline, not retried
}

// ... but time spent waiting behind the client's own earlier requests is not the call's:
// served one at a time, the last of 16 calls of about 150 ms waits over 2 s behind the
// others, past its 1.5 s deadline, and is answered on its first attempt.
TEST(LlmSlowJudgeTest, WaitingBehindOurOwnRequestsDoesNotCountAgainstTheDeadline) {
  SlotFake fake;
  // 100 ms per 1,000 prompt tokens (50 ms for 500), then 5 tokens of 20 ms.
  ASSERT_TRUE(fake.start(1, 100, 20))
      << "the fake LLM server at " << fake_llm_server_path() << " did not start";
  ClientOptions options = slow_judge_options(fake.base_url(), 1.0, 3);
  options.retry.deadline_seconds = 1.5;
  auto client = make_client(options);
  ASSERT_TRUE(client.ok()) << client.status().to_string();
  constexpr int kCalls = 16;
  std::vector<std::future<StatusOr<ChatResponse>>> replies;
  for (int i = 0; i < kCalls; ++i) replies.push_back((*client)->chat(sized_request(i, 500)));
  for (auto& reply : replies) {
    StatusOr<ChatResponse> got = reply.get();
    ASSERT_TRUE(got.ok()) << got.status().to_string();
    EXPECT_EQ(got->attempts, 1);
  }
  json books = fake.stats();
  EXPECT_EQ(books["slots"]["abandoned"], 0);
  // The queue did outlast the deadline: the fake's span of serving them all.
  EXPECT_GT(books["slots"]["span_ms"].get<double>(), 1500.0) << books.dump();
}

TEST(LlmChatStreamTest, JoinsDeltasAndReadsUsageFromTheLastChunk) {
  std::string body =
      ": ping\r\n\r\n"
      "data: {\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\","
      "\"content\":\"{\\\"a\\\"\"}}]}\n\n"
      "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\": 1}\"},"
      "\"finish_reason\":\"stop\"}]}\n\n"
      "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":3}}\n\n"
      "data: [DONE]\n\n";
  StreamFacts facts;
  StatusOr<ChatResponse> reply = parse_chat_stream(body, &facts);
  ASSERT_TRUE(reply.ok()) << reply.status().to_string();
  ASSERT_EQ(reply->choices.size(), 1u);
  EXPECT_EQ(reply->choices[0].content, "{\"a\": 1}");
  EXPECT_EQ(reply->choices[0].finish_reason, "stop");
  EXPECT_EQ(reply->model, "m");
  EXPECT_TRUE(facts.usage_given);
  EXPECT_EQ(facts.content_chunks, 2);
  EXPECT_EQ(reply->usage.prompt_tokens, 12);
  EXPECT_EQ(reply->usage.completion_tokens, 3);

  StreamProgress progress;  // the same bytes cut at every third byte
  for (size_t at = 0; at < body.size(); at += 3) progress.feed(std::string_view(body).substr(at, 3));
  EXPECT_EQ(progress.data_events(), 3);
  EXPECT_TRUE(progress.done());
}

TEST(LlmChatStreamTest, AnErrorChunkOrNoEventsIsInvalid) {
  StreamFacts facts;
  EXPECT_FALSE(parse_chat_stream("data: {\"error\":{\"message\":\"boom\"}}\n\n", &facts).ok());
  EXPECT_FALSE(parse_chat_stream("{\"choices\":[]}", &facts).ok());
  EXPECT_TRUE(is_event_stream("text/event-stream; charset=utf-8", ""));
  EXPECT_FALSE(is_event_stream("application/json", "data: x"));
  EXPECT_TRUE(is_event_stream("", "\n: ping\n"));
}

TEST(AdaptiveLimitTest, CapsAtWhatTheServerServesPlusOneWaiting) {
  AdaptiveLimit limit(16);
  EXPECT_EQ(limit.limit(), 16);
  // Three in flight: one generating while two wait, then it ends: one slot seen.
  limit.on_waiting_change(+3);
  limit.on_waiting_change(-1);
  limit.on_generation_start();
  limit.on_generation_end();
  EXPECT_EQ(limit.measured_parallelism(), 1);
  EXPECT_EQ(limit.limit(), 2);
  // Two generate at once while one waits: the cap follows the larger observation.
  limit.on_waiting_change(-1);
  limit.on_generation_start();
  limit.on_waiting_change(-1);
  limit.on_generation_start();
  limit.on_waiting_change(+1);
  limit.on_generation_end();
  EXPECT_EQ(limit.limit(), 3);
}

TEST(AdaptiveLimitTest, TheWaitingRequestFindingASlotRaisesTheCap) {
  AdaptiveLimit limit(16);
  limit.on_waiting_change(+1);
  limit.on_generation_start();
  limit.on_generation_start();
  limit.on_generation_end();  // two served while one waited
  EXPECT_EQ(limit.limit(), 3);
  limit.on_waiting_change(-1);
  limit.on_generation_start();
  limit.on_generation_start();  // three generating, none waiting: the server freed a slot
  limit.on_generation_end();
  EXPECT_EQ(limit.measured_parallelism(), 3);
  EXPECT_EQ(limit.limit(), 4);
}

TEST(AdaptiveLimitTest, NothingWaitingIsNoEvidenceOfACap) {
  AdaptiveLimit limit(8);
  limit.on_waiting_change(+1);
  limit.on_waiting_change(-1);
  limit.on_generation_start();
  limit.on_generation_end();
  EXPECT_EQ(limit.measured_parallelism(), 0);
  EXPECT_EQ(limit.limit(), 8);
}

TEST(AdaptiveLimitTest, OverloadHalvesOncePerWindowAndSuccessesRestore) {
  AdaptiveLimit limit(16);
  limit.set_server_slots(7);
  EXPECT_EQ(limit.limit(), 8);
  for (std::uint64_t ticket = 1; ticket <= 8; ++ticket) limit.on_sent(ticket);
  limit.on_overload(3);
  EXPECT_EQ(limit.limit(), 4);
  limit.on_overload(5);  // sent before the decrease: the same window
  EXPECT_EQ(limit.limit(), 4);
  limit.on_sent(9);
  limit.on_overload(9);
  EXPECT_EQ(limit.limit(), 2);
  EXPECT_EQ(limit.lowest_limit(), 2);
  for (int i = 0; i < 20; ++i) limit.on_success();
  EXPECT_EQ(limit.limit(), 8);
}

}  // namespace
}  // namespace ragmeter::llm
