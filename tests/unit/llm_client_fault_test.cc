// The judge client against the FAKE OpenAI-compatible server (tests/fakes/
// fake_llm_server.cc) on 127.0.0.1: retries, retry-after, timeouts, dropped
// connections, the repair attempt, explicit failures, the cache, replay mode, format
// fallback, the budget, key hygiene and that concurrent calls all end. Requests are
// counted at the fake.
//
// The fake is found at $RAGMETER_FAKE_LLM_SERVER or RAGMETER_BINARY_DIR/fakes/; the
// tests are skipped when it is not built.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../fakes/fake_llm_server_process.h"
#include "llm/http_transport.h"
#include "ragmeter/judge_factory.h"
#include "ragmeter/judge_hooks.h"
#include "ragmeter/llm.h"
#include "tests/unit/test_paths.h"
#include "tests/unit/fake_llm_judge.h"
#include "tests/unit/memory_reply_store.h"

namespace ragmeter::llm {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr const char* kKeyVariable = "RAGMETER_FAKE_TEST_KEY";
constexpr const char* kFakeKey = "sk-fake-7f3a9c1e5b2d4680";

using test_judges::fake_llm_server_path;

// The fake server process and its control endpoints.
class FakeLlmServer {
 public:
  bool start(const std::string& path) {
    if (!process_.start(path, {})) return false;
    base_ = "http://127.0.0.1:" + std::to_string(process_.port());
    auto transport = make_curl_transport({});
    if (!transport.ok()) return false;
    control_ = std::move(transport).value();
    return true;
  }

  std::string base_url() const { return base_ + "/v1"; }

  // Replaces the script and resets the counters.
  void script(const json& spec) { ASSERT_EQ(call("POST", "/fake/script", spec.dump()).status, 200); }
  json stats() { return json::parse(call("GET", "/fake/stats", "").body); }
  long requests() { return stats()["requests"].get<long>(); }
  json recent_requests() { return json::parse(call("GET", "/fake/requests", "").body); }

 private:
  HttpResponse call(const std::string& method, const std::string& path, std::string body) {
    std::promise<HttpResponse> done;
    std::future<HttpResponse> response = done.get_future();
    control_->send({method, base_ + path, {}, std::move(body), 5.0},
                   [&done](HttpResponse r) { done.set_value(std::move(r)); });
    return response.get();
  }

  fakes::FakeLlmServerProcess process_;
  std::string base_;
  std::unique_ptr<HttpTransport> control_;
};

json reply_step(const std::string& content, json extra = json::object()) {
  extra["content"] = content;
  return extra;
}

json raw_step(int status, json body, json headers = json::object()) {
  return {{"kind", "raw"}, {"status", status}, {"json", std::move(body)}, {"headers", headers}};
}

json kind_step(const std::string& kind) { return {{"kind", kind}}; }

class LlmClientFaultTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string path = fake_llm_server_path();
    if (!std::filesystem::exists(path)) return;
    server_ = new FakeLlmServer();
    if (!server_->start(path)) {
      delete server_;
      server_ = nullptr;
    }
  }

  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }

  void SetUp() override {
    ASSERT_TRUE(test_judges::fake_llm_server_built());
    ASSERT_NE(server_, nullptr) << "the fake LLM server at " << fake_llm_server_path()
                                << " did not start";
    setenv(kKeyVariable, kFakeKey, 1);
  }

  ClientOptions options() const {
    ClientOptions options;
    options.endpoint.base_url = server_->base_url();
    options.endpoint.model = "fake-model";
    options.endpoint.api_key_env = kKeyVariable;
    options.endpoint.timeout_seconds = 5.0;
    options.retry.max_attempts = 3;
    options.retry.initial_backoff_seconds = 0.01;
    options.retry.max_backoff_seconds = 0.05;
    options.cache.mode = CacheMode::kOff;
    return options;
  }

  static std::unique_ptr<Client> client_for(const ClientOptions& options) {
    auto client = make_client(options);
    EXPECT_TRUE(client.ok()) << client.status().to_string();
    return client.ok() ? std::move(client).value() : nullptr;
  }

  // Two clients (two processes of a run) keeping their replies in `store`, read-write.
  std::pair<std::unique_ptr<Client>, std::unique_ptr<Client>> clients_sharing(
      const std::shared_ptr<ReplyStore>& store) const {
    ClientOptions shared = options();
    shared.cache.mode = CacheMode::kReadWrite;
    shared.cache.path = "/nonexistent/never-opened.sqlite";  // the store replaces the file
    auto first = make_client(shared, ClientHooks{nullptr, store});
    auto second = make_client(shared, ClientHooks{nullptr, store});
    EXPECT_TRUE(first.ok() && second.ok());
    if (!first.ok() || !second.ok()) return {};
    return {std::move(first).value(), std::move(second).value()};
  }

  static ChatRequest verdict_request(const std::string& question = "Is the claim supported?") {
    ChatRequest request;
    request.messages = {{"user", question}};
    request.format = ReplyFormat::kJsonSchema;
    request.schema = {{"type", "object"},
                      {"properties", {{"verdict", {{"type", "integer"}}}}},
                      {"required", {"verdict"}}};
    return request;
  }

  template <typename T>
  static StatusOr<T> wait(std::future<StatusOr<T>> future) {
    if (future.wait_for(std::chrono::seconds(20)) != std::future_status::ready) {
      return internal_error("the call did not end within 20 s");
    }
    return future.get();
  }

  static void expect_failure(const StatusOr<ChatResponse>& reply, StatusCode code,
                             const std::string& reason) {
    ASSERT_FALSE(reply.ok());
    EXPECT_EQ(reply.status().code(), code) << reply.status().to_string();
    EXPECT_NE(reply.status().message().find(reason), std::string::npos)
        << reply.status().to_string();
  }

  static double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
  }

  static FakeLlmServer* server_;
};

FakeLlmServer* LlmClientFaultTest::server_ = nullptr;

TEST_F(LlmClientFaultTest, ServerErrorsAreRetriedThenSucceed) {
  server_->script({{"steps", {raw_step(500, {{"error", "boom"}}), raw_step(503, {})}}});
  auto client = client_for(options());
  StatusOr<ChatResponse> reply = wait(client->chat(verdict_request()));
  ASSERT_TRUE(reply.ok()) << reply.status().to_string();
  EXPECT_EQ(reply->attempts, 3);
  EXPECT_EQ(reply->choices[0].json, json({{"verdict", 1}}));
  EXPECT_EQ(server_->requests(), 3);
  EXPECT_EQ(client->totals().requests, 3);
}

TEST_F(LlmClientFaultTest, GivesUpAsUnavailableAfterMaxAttempts) {
  server_->script({{"default", raw_step(503, {{"error", {{"message", "overloaded"}}}})}});
  auto client = client_for(options());
  StatusOr<ChatResponse> reply = wait(client->chat(verdict_request()));
  expect_failure(reply, StatusCode::kUnavailable, "overloaded");
  EXPECT_EQ(server_->requests(), 3);
  EXPECT_EQ(client->totals().failed_calls, 1);
}

// A port on 127.0.0.1 where nothing listens: bound, read, closed.
int closed_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  const bool bound = bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0 &&
                     getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0;
  close(fd);
  return bound ? ntohs(address.sin_port) : 9;  // 9: discard, closed on a test machine
}

TEST_F(LlmClientFaultTest, AServerNeverReachedStopsTheClientWhenTheFirstCallGivesUp) {
  ClientOptions unreachable = options();
  unreachable.endpoint.base_url = "http://127.0.0.1:" + std::to_string(closed_port()) + "/v1";
  auto client = client_for(unreachable);
  StatusOr<ChatResponse> first = wait(client->chat(verdict_request()));
  expect_failure(first, StatusCode::kUnavailable, "connection failed");
  EXPECT_NE(first.status().message().find("(3 attempts)"), std::string::npos)
      << first.status().to_string();
  EXPECT_EQ(client->totals().requests, 3);
  // The next call is not sent: it would only spend three more attempts the same way.
  StatusOr<ChatResponse> second = wait(client->chat(verdict_request("Another question?")));
  expect_failure(second, StatusCode::kUnavailable, "no further requests were sent");
  EXPECT_NE(second.status().message().find("connection failed"), std::string::npos);
  EXPECT_EQ(client->totals().requests, 3);
  EXPECT_FALSE(client->halted().ok());
}

TEST_F(LlmClientFaultTest, AServerThatAnsweredThenWentAwayIsStillRetriedCallByCall) {
  fakes::FakeLlmServerProcess own;  // a server of this test's own, stopped half-way
  ASSERT_TRUE(own.start(fake_llm_server_path(), {}));
  ClientOptions options_now = options();
  options_now.endpoint.base_url = own.base_url();
  auto client = client_for(options_now);
  ASSERT_TRUE(wait(client->chat(verdict_request())).ok());
  kill(own.pid(), SIGKILL);
  waitpid(own.pid(), nullptr, 0);
  // A restarting server refuses connections for a while: each call keeps its retries.
  expect_failure(wait(client->chat(verdict_request("Second?"))), StatusCode::kUnavailable,
                 "connection failed");
  StatusOr<ChatResponse> third = wait(client->chat(verdict_request("Third?")));
  expect_failure(third, StatusCode::kUnavailable, "connection failed");
  EXPECT_EQ(third.status().message().find("no further requests"), std::string::npos)
      << third.status().to_string();
  EXPECT_EQ(client->totals().requests, 1 + 3 + 3);
  EXPECT_TRUE(client->halted().ok());
}

TEST_F(LlmClientFaultTest, A404SaysWhereTheRequestWentAndHintsAtV1) {
  server_->script({{"default", raw_step(404, {{"detail", "Not Found"}})}});
  ClientOptions without_v1 = options();
  without_v1.endpoint.base_url = server_->base_url().substr(0, server_->base_url().size() - 3);
  StatusOr<ChatResponse> reply = wait(client_for(without_v1)->chat(verdict_request()));
  expect_failure(reply, StatusCode::kInvalidArgument,
                 "HTTP 404 from the server: Not Found (sent to " + without_v1.endpoint.base_url +
                     "/chat/completions; most servers' base URL ends in /v1)");
  EXPECT_EQ(server_->requests(), 1);  // not retried
  server_->script({{"default", raw_step(404, {{"error", {{"message", "model 'x' not found"}}}})}});
  reply = wait(client_for(options())->chat(verdict_request()));
  expect_failure(reply, StatusCode::kInvalidArgument,
                 "HTTP 404 from the server: model 'x' not found (sent to " + server_->base_url() +
                     "/chat/completions)");
}

TEST_F(LlmClientFaultTest, RetryAfterIsHonoured) {
  server_->script({{"steps",
                    {raw_step(429, {{"error", "slow down"}}, {{"retry-after", "1"}}),
                     raw_step(429, {}, {{"retry-after-ms", "200"}})}}});
  ClientOptions patient = options();
  patient.retry.max_backoff_seconds = 1.0;  // retry-after is capped at 4x this
  auto client = client_for(patient);
  Clock::time_point start = Clock::now();
  StatusOr<ChatResponse> reply = wait(client->chat(verdict_request()));
  ASSERT_TRUE(reply.ok()) << reply.status().to_string();
  EXPECT_GE(seconds_since(start), 1.2);
  EXPECT_EQ(server_->requests(), 3);
}

TEST_F(LlmClientFaultTest, TooManyRequestsWithoutRetryAfterIsRetried) {
  server_->script({{"steps", {raw_step(429, {})}}});
  auto client = client_for(options());
  StatusOr<ChatResponse> reply = wait(client->chat(verdict_request()));
  ASSERT_TRUE(reply.ok()) << reply.status().to_string();
  EXPECT_EQ(reply->attempts, 2);
}

TEST_F(LlmClientFaultTest, HangEndsAsDeadlineExceededAfterTimeoutAndRetries) {
  server_->script({{"default", kind_step("hang")}});
  ClientOptions hanging = options();
  hanging.endpoint.timeout_seconds = 0.3;
  hanging.retry.max_attempts = 2;
  auto client = client_for(hanging);
  Clock::time_point start = Clock::now();
  StatusOr<ChatResponse> reply = wait(client->chat(verdict_request()));
  expect_failure(reply, StatusCode::kDeadlineExceeded, "no reply within");
  EXPECT_GE(seconds_since(start), 0.6);
  EXPECT_EQ(server_->requests(), 2);
}

TEST_F(LlmClientFaultTest, DroppedAndClosedConnectionsAreRetried) {
  server_->script({{"steps", {kind_step("drop"), kind_step("close")}}});
  auto client = client_for(options());
  StatusOr<ChatResponse> reply = wait(client->chat(verdict_request()));
  ASSERT_TRUE(reply.ok()) << reply.status().to_string();
  EXPECT_EQ(reply->attempts, 3);
  EXPECT_EQ(server_->requests(), 3);
}

TEST_F(LlmClientFaultTest, MalformedJsonGetsOneRepairThenFailsWithTheRawReply) {
  server_->script({{"default", reply_step("{verdict: [1,")}});
  auto client = client_for(options());
  StatusOr<ChatResponse> reply = wait(client->chat(verdict_request()));
  expect_failure(reply, StatusCode::kInvalidArgument, "repair");
  EXPECT_EQ(server_->requests(), 2);
  std::vector<CallTrace> traces = client->traces();
  ASSERT_EQ(traces.size(), 1u);
  EXPECT_NE(traces[0].raw_reply.find("{verdict: [1,"), std::string::npos);
  EXPECT_FALSE(traces[0].error.empty());
  json repair = server_->recent_requests().back()["body"];
  ASSERT_EQ(repair["messages"].size(), 3u);
  EXPECT_EQ(repair["messages"][1]["role"], "assistant");
  EXPECT_EQ(repair["messages"][1]["content"], "{verdict: [1,");
}

TEST_F(LlmClientFaultTest, RepairFixesAMalformedReply) {
  server_->script({{"steps", {reply_step("Sure! {\"verdict\": ")}}});
  auto client = client_for(options());
  StatusOr<ChatResponse> reply = wait(client->chat(verdict_request()));
  ASSERT_TRUE(reply.ok()) << reply.status().to_string();
  EXPECT_EQ(reply->attempts, 2);
  EXPECT_EQ(reply->choices[0].json, json({{"verdict", 1}}));
  EXPECT_EQ(reply->usage.prompt_tokens, 20);  // both replies are paid for
}

TEST_F(LlmClientFaultTest, SchemaBreakingReplyGetsOneRepairThenFails) {
  server_->script({{"default", reply_step(R"({"verdict": "yes"})")}});
  auto client = client_for(options());
  StatusOr<ChatResponse> reply = wait(client->chat(verdict_request()));
  expect_failure(reply, StatusCode::kInvalidArgument, "verdict");
  EXPECT_EQ(server_->requests(), 2);
  EXPECT_NE(client->traces().back().raw_reply.find(R"(\"verdict\": \"yes\")"), std::string::npos);
}

TEST_F(LlmClientFaultTest, EmptyChoicesFailWithAReason) {
  server_->script({{"default", raw_step(200, {{"choices", json::array()}})}});
  auto client = client_for(options());
  StatusOr<ChatResponse> reply = wait(client->chat(verdict_request()));
  expect_failure(reply, StatusCode::kInvalidArgument, "no choices");
  EXPECT_EQ(server_->requests(), 1);
}

TEST_F(LlmClientFaultTest, TruncatedJsonReplyFailsWithoutRepair) {
  server_->script({{"default", reply_step(R"({"verdict": )", {{"finish_reason", "length"}})}});
  auto client = client_for(options());
  StatusOr<ChatResponse> reply = wait(client->chat(verdict_request()));
  expect_failure(reply, StatusCode::kInvalidArgument, "length");
  EXPECT_EQ(server_->requests(), 1);
}

TEST_F(LlmClientFaultTest, SecondIdenticalCallIsACacheHitWithoutARequest) {
  server_->script(json::object());
  std::filesystem::path cache = std::filesystem::temp_directory_path() /
                                ("ragmeter_fault_cache_" + std::to_string(getpid()) + ".sqlite");
  std::filesystem::remove(cache);
  ClientOptions cached = options();
  cached.cache = {cache.string(), CacheMode::kReadWrite};
  {
    auto client = client_for(cached);
    ASSERT_TRUE(wait(client->chat(verdict_request())).ok());
    StatusOr<ChatResponse> again = wait(client->chat(verdict_request()));
    ASSERT_TRUE(again.ok()) << again.status().to_string();
    EXPECT_TRUE(again->from_cache);
    EXPECT_EQ(again->attempts, 0);
    EXPECT_EQ(again->choices[0].json, json({{"verdict", 1}}));
    EXPECT_EQ(server_->requests(), 1);
    EXPECT_EQ(client->totals().cache_hits, 1);
  }
  cached.cache.mode = CacheMode::kReplay;
  auto replay = client_for(cached);
  ASSERT_NE(replay, nullptr);
  EXPECT_TRUE(wait(replay->chat(verdict_request())).ok());
  StatusOr<ChatResponse> miss = wait(replay->chat(verdict_request("Never asked before?")));
  ASSERT_FALSE(miss.ok());
  EXPECT_EQ(miss.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(server_->requests(), 1);
  replay.reset();
  std::filesystem::remove(cache);
  std::filesystem::remove(cache.string() + "-wal");
  std::filesystem::remove(cache.string() + "-shm");
}

TEST_F(LlmClientFaultTest, RejectedJsonSchemaFallsBackAndIsRemembered) {
  json rejected = raw_step(400, {{"error", {{"message", "response_format json_schema unsupported"}}}});
  server_->script({{"steps", {rejected, rejected, rejected}}});
  auto client = client_for(options());
  StatusOr<ChatResponse> reply = wait(client->chat(verdict_request()));
  ASSERT_TRUE(reply.ok()) << reply.status().to_string();
  StatusOr<ChatResponse> next = wait(client->chat(verdict_request("Another claim?")));
  ASSERT_TRUE(next.ok()) << next.status().to_string();
  json sent = server_->recent_requests();
  ASSERT_EQ(sent.size(), 5u);
  EXPECT_EQ(sent[0]["body"]["response_format"]["type"], "json_schema");
  EXPECT_EQ(sent[1]["body"]["response_format"]["type"], "json_object");
  EXPECT_EQ(sent[1]["body"]["response_format"]["schema"], verdict_request().schema);
  EXPECT_EQ(sent[2]["body"]["response_format"], json({{"type", "json_object"}}));
  EXPECT_FALSE(sent[3]["body"].contains("response_format"));
  std::string prompt = sent[3]["body"]["messages"][0]["content"];
  EXPECT_NE(prompt.find("JSON Schema"), std::string::npos);
  EXPECT_FALSE(sent[4]["body"].contains("response_format"));  // remembered
}

// llama-cpp-python answers the OpenAI json_schema form with a 500 naming the
// response_format; json_object with the schema attached is then accepted.
json llama_cpp_python_rejection() {
  return raw_step(500, {{"error",
                         {{"message",
                           "[{'type': 'literal_error', 'loc': ('body', 'response_format', "
                           "'type'), 'msg': \"Input should be 'text' or 'json_object'\", "
                           "'input': 'json_schema'}]"},
                          {"type", "internal_server_error"}}}});
}

TEST_F(LlmClientFaultTest, FormatRejectedWith500FallsBackToJsonObjectWithSchemaWithoutRetries) {
  server_->script({{"steps", {llama_cpp_python_rejection()}}});
  auto client = client_for(options());
  StatusOr<ChatResponse> reply = wait(client->chat(verdict_request()));
  ASSERT_TRUE(reply.ok()) << reply.status().to_string();
  EXPECT_EQ(reply->attempts, 2);
  ASSERT_TRUE(reply->choices[0].json.has_value());
  EXPECT_EQ((*reply->choices[0].json)["verdict"], 1);
  StatusOr<ChatResponse> next = wait(client->chat(verdict_request("Another claim?")));
  ASSERT_TRUE(next.ok()) << next.status().to_string();
  json sent = server_->recent_requests();
  ASSERT_EQ(sent.size(), 3u);  // one rejection, not a retried 5xx
  EXPECT_EQ(sent[0]["body"]["response_format"]["type"], "json_schema");
  EXPECT_EQ(sent[1]["body"]["response_format"],
            json({{"type", "json_object"}, {"schema", verdict_request().schema}}));
  // Remembered: the next call starts at json_object with the schema.
  EXPECT_EQ(sent[2]["body"]["response_format"],
            json({{"type", "json_object"}, {"schema", verdict_request().schema}}));
}

TEST_F(LlmClientFaultTest, CallsQueuedBeforeTheFallbackUseTheLearntFormat) {
  server_->script({{"steps", {llama_cpp_python_rejection()}}});
  ClientOptions serial = options();
  serial.limits.max_in_flight = 1;  // the other calls wait in the queue meanwhile
  auto client = client_for(serial);
  std::vector<std::future<StatusOr<ChatResponse>>> replies;
  for (int i = 0; i < 4; ++i) {
    replies.push_back(client->chat(verdict_request("Claim " + std::to_string(i) + "?")));
  }
  for (auto& reply : replies) ASSERT_TRUE(wait(std::move(reply)).ok());
  json sent = server_->recent_requests();
  ASSERT_EQ(sent.size(), 5u);  // one refusal in all, not one per queued call
  EXPECT_EQ(sent[0]["body"]["response_format"]["type"], "json_schema");
  for (std::size_t i = 1; i < sent.size(); ++i) {
    EXPECT_EQ(sent[i]["body"]["response_format"]["type"], "json_object") << i;
  }
}

TEST_F(LlmClientFaultTest, ConcurrentCallsWaitForTheFirstReplyBeforeGuessingTheFormat) {
  server_->script({{"steps", {llama_cpp_python_rejection()}}});
  ClientOptions concurrent = options();
  concurrent.limits.max_in_flight = 4;  // room for all four at once
  auto client = client_for(concurrent);
  std::vector<std::future<StatusOr<ChatResponse>>> replies;
  for (int i = 0; i < 4; ++i) {
    replies.push_back(client->chat(verdict_request("Claim " + std::to_string(i) + "?")));
  }
  for (auto& reply : replies) ASSERT_TRUE(wait(std::move(reply)).ok());
  json sent = server_->recent_requests();
  // The first call probes alone; the others go once its reply has settled the format.
  ASSERT_EQ(sent.size(), 5u);
  EXPECT_EQ(sent[0]["body"]["response_format"]["type"], "json_schema");
  for (std::size_t i = 1; i < sent.size(); ++i) {
    EXPECT_EQ(sent[i]["body"]["response_format"]["type"], "json_object") << i;
  }
}

TEST_F(LlmClientFaultTest, EveryFormatRejectedWith500EndsInPlainTextWithoutRetries) {
  json rejected = llama_cpp_python_rejection();
  server_->script({{"steps", {rejected, rejected, rejected}}});
  auto client = client_for(options());
  StatusOr<ChatResponse> reply = wait(client->chat(verdict_request()));
  ASSERT_TRUE(reply.ok()) << reply.status().to_string();
  json sent = server_->recent_requests();
  ASSERT_EQ(sent.size(), 4u);
  EXPECT_EQ(sent[0]["body"]["response_format"]["type"], "json_schema");
  EXPECT_TRUE(sent[1]["body"]["response_format"].contains("schema"));
  EXPECT_FALSE(sent[2]["body"]["response_format"].contains("schema"));
  EXPECT_FALSE(sent[3]["body"].contains("response_format"));
}

TEST_F(LlmClientFaultTest, PlainServerErrorIsRetriedNotTakenForAFormatRejection) {
  json failure = raw_step(500, {{"error", {{"message", "out of memory"}}}});
  server_->script({{"steps", {failure, failure}}});
  auto client = client_for(options());
  StatusOr<ChatResponse> reply = wait(client->chat(verdict_request()));
  ASSERT_TRUE(reply.ok()) << reply.status().to_string();
  json sent = server_->recent_requests();
  ASSERT_EQ(sent.size(), 3u);
  for (const json& request : sent) {
    EXPECT_EQ(request["body"]["response_format"]["type"], "json_schema");  // same format
  }
}

TEST_F(LlmClientFaultTest, FormatRejectionDuringRepairFailsWithoutRetries) {
  json rejected = llama_cpp_python_rejection();
  server_->script({{"steps", {reply_step("not json"), rejected}}, {"default", rejected}});
  auto client = client_for(options());
  StatusOr<ChatResponse> reply = wait(client->chat(verdict_request()));
  expect_failure(reply, StatusCode::kInvalidArgument, "response_format not accepted");
  EXPECT_EQ(server_->requests(), 2);
}

TEST_F(LlmClientFaultTest, ApiKeyNeverReachesTracesOrErrors) {
  server_->script({{"steps",
                    {raw_step(503, {{"error", {{"message", std::string("bad ") + kFakeKey}}}}),
                     kind_step("echo_auth")}},
                   {"default", raw_step(500, {{"error", std::string("key was ") + kFakeKey}})}});
  ClientOptions no_retry = options();
  no_retry.retry.max_attempts = 1;
  auto client = client_for(no_retry);
  std::vector<Status> errors;
  for (const char* question : {"a?", "b?", "c?"}) {
    StatusOr<ChatResponse> reply = wait(client->chat(verdict_request(question)));
    ASSERT_FALSE(reply.ok());
    errors.push_back(reply.status());
  }
  EXPECT_EQ(errors[1].code(), StatusCode::kFailedPrecondition);
  json received = server_->recent_requests();
  EXPECT_EQ(received[0]["authorization"], std::string("Bearer ") + kFakeKey);  // it was sent
  for (const Status& error : errors) {
    EXPECT_EQ(error.to_string().find(kFakeKey), std::string::npos) << error.to_string();
  }
  for (const CallTrace& trace : client->traces()) {
    std::string all = trace.kind + trace.cache_key + trace.request.dump() + trace.raw_reply +
                      trace.error;
    EXPECT_EQ(all.find(kFakeKey), std::string::npos) << all;
  }
}

TEST_F(LlmClientFaultTest, BudgetStopsCallsWithoutARequest) {
  server_->script(json::object());
  ClientOptions budget = options();
  budget.prices["fake-model"] = {1e6, 1e6, 0};  // a dollar a token
  budget.max_cost_usd = 1.0;
  auto client = client_for(budget);
  ASSERT_TRUE(wait(client->chat(verdict_request())).ok());
  EXPECT_DOUBLE_EQ(client->totals().cost_usd, 15.0);
  StatusOr<ChatResponse> over = wait(client->chat(verdict_request("More?")));
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.status().code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(server_->requests(), 1);
  // The client has stopped: the run's exit code reads this (4, the work could not be done).
  EXPECT_EQ(client->halted().code(), StatusCode::kResourceExhausted);
}

TEST_F(LlmClientFaultTest, EmbeddingsComeBackInInputOrder) {
  server_->script(json::object());
  auto client = client_for(options());
  StatusOr<EmbeddingResponse> reply = wait(client->embed({{"a", "bbb", "cc"}}));
  ASSERT_TRUE(reply.ok()) << reply.status().to_string();
  ASSERT_EQ(reply->vectors.size(), 3u);
  // The fake's first dimension is (length % 13) / 13 and it lists the data reversed.
  EXPECT_FLOAT_EQ(reply->vectors[0][0], 1.0f / 13);
  EXPECT_FLOAT_EQ(reply->vectors[1][0], 3.0f / 13);
  EXPECT_FLOAT_EQ(reply->vectors[2][0], 2.0f / 13);
}

TEST_F(LlmClientFaultTest, AllConcurrentCallsEndDespiteFaults) {
  json faults = json::array();
  for (int i = 0; i < 5; ++i) {
    for (json step : {raw_step(500, {}), kind_step("drop"), raw_step(429, {})}) {
      faults.push_back(step);
    }
  }
  server_->script({{"steps", faults}, {"default", {{"delay_ms", 20}}}});
  ClientOptions concurrent = options();
  concurrent.limits.max_in_flight = 32;
  concurrent.retry.max_attempts = 6;
  auto client = client_for(concurrent);
  constexpr int kCalls = 300;
  std::vector<std::future<StatusOr<ChatResponse>>> calls;
  for (int i = 0; i < kCalls; ++i) {
    calls.push_back(client->chat(verdict_request("claim " + std::to_string(i))));
  }
  int succeeded = 0;
  for (auto& call : calls) succeeded += wait(std::move(call)).ok() ? 1 : 0;
  EXPECT_EQ(succeeded, kCalls);
  EXPECT_EQ(server_->requests(), kCalls + static_cast<long>(faults.size()));
  EXPECT_LE(server_->stats()["max_in_flight"].get<int>(), 32);
  EXPECT_EQ(client->traces().size(), static_cast<size_t>(kCalls));
}

// A PermitSource for the hook tests: answers from a list, then grants; counts its calls
// and the usage reported to it.
class ScriptedPermits : public PermitSource {
 public:
  explicit ScriptedPermits(std::vector<Permit> answers) : answers_(std::move(answers)) {}
  Permit acquire(double) override {
    std::lock_guard<std::mutex> lock(mutex_);
    ++asked_;
    if (next_ < answers_.size()) return answers_[next_++];
    return {};
  }
  void report(const TokenUsage& usage, double) override {
    std::lock_guard<std::mutex> lock(mutex_);
    reported_tokens_ += usage.prompt_tokens + usage.completion_tokens;
  }
  int asked() {
    std::lock_guard<std::mutex> lock(mutex_);
    return asked_;
  }
  std::int64_t reported_tokens() {
    std::lock_guard<std::mutex> lock(mutex_);
    return reported_tokens_;
  }

 private:
  std::mutex mutex_;
  std::vector<Permit> answers_;
  std::size_t next_ = 0;
  int asked_ = 0;
  std::int64_t reported_tokens_ = 0;
};

TEST_F(LlmClientFaultTest, SharedPermitWaitHoldsTheRequestAndUsageIsReported) {
  server_->script(json::object());
  ClientOptions shared = options();
  auto permits = std::make_shared<ScriptedPermits>(
      std::vector<Permit>{{Permit::Kind::kWait, 0.3, ""}, {Permit::Kind::kWait, 0.3, ""}});
  auto made = make_client(shared, ClientHooks{permits, nullptr});
  ASSERT_TRUE(made.ok()) << made.status().to_string();
  auto client = std::move(made).value();
  Clock::time_point start = Clock::now();
  StatusOr<ChatResponse> reply = wait(client->chat(verdict_request()));
  ASSERT_TRUE(reply.ok()) << reply.status().to_string();
  EXPECT_GE(seconds_since(start), 0.6);  // two waits of 0.3 s before the permit
  EXPECT_EQ(permits->asked(), 3);
  EXPECT_EQ(server_->requests(), 1);
  EXPECT_EQ(permits->reported_tokens(), 15);  // the fake's usage: 10 prompt + 5 completion
}

TEST_F(LlmClientFaultTest, SharedPermitRefusalFailsTheCallWithoutARequest) {
  server_->script(json::object());
  ClientOptions shared = options();
  auto permits = std::make_shared<ScriptedPermits>(
      std::vector<Permit>{{Permit::Kind::kRefused, 0.0, "the cost budget of $1 is spent"}});
  auto made = make_client(shared, ClientHooks{permits, nullptr});
  ASSERT_TRUE(made.ok()) << made.status().to_string();
  auto client = std::move(made).value();
  expect_failure(wait(client->chat(verdict_request())), StatusCode::kResourceExhausted,
                 "the cost budget of $1 is spent");
  EXPECT_EQ(server_->requests(), 0);
  EXPECT_TRUE(wait(client->chat(verdict_request("Next?"))).ok());  // the next is granted
  EXPECT_EQ(server_->requests(), 1);
}

TEST_F(LlmClientFaultTest, ReplyStoreSharedByTwoClientsPaysOnce) {
  server_->script(json::object());
  auto store = std::make_shared<test_stores::MemoryReplyStore>();
  auto [first, second] = clients_sharing(store);
  ASSERT_TRUE(first && second);
  ASSERT_TRUE(wait(first->chat(verdict_request())).ok());
  StatusOr<ChatResponse> again = wait(second->chat(verdict_request()));
  ASSERT_TRUE(again.ok()) << again.status().to_string();
  EXPECT_TRUE(again->from_cache);
  EXPECT_EQ(server_->requests(), 1);
  EXPECT_EQ(store->size(), 1u);
}

// A one-letter placeholder key (OPENAI_API_KEY=x, common for local servers) is redacted
// where it stands alone, not inside words: the judge reads, and the cache keeps, the
// reply the server gave (before, every "x" of it became "[redacted]": "ma[redacted]_tokens",
// JSON keys the reply parser then missed). A key found inside "[redacted]" ("a") does not
// loop either.
TEST_F(LlmClientFaultTest, AShortPlaceholderKeyLeavesTheStoredReplyWhole) {
  for (const char* key : {"x", "a"}) {
    setenv(kKeyVariable, key, 1);
    const std::string content = R"({"verdict": 1, "why": "max_tokens: six boxes and a cat"})";
    server_->script({{"default", reply_step(content)}});
    auto store = std::make_shared<test_stores::MemoryReplyStore>();
    auto [first, second] = clients_sharing(store);
    ASSERT_TRUE(first && second);
    StatusOr<ChatResponse> live = wait(first->chat(verdict_request(key)));
    ASSERT_TRUE(live.ok()) << live.status().to_string();
    StatusOr<ChatResponse> again = wait(second->chat(verdict_request(key)));
    ASSERT_TRUE(again.ok()) << again.status().to_string();
    EXPECT_TRUE(again->from_cache);
    // The reply the judge reads and the one it stored are redacted alike.
    EXPECT_EQ(again->choices.at(0).content, live->choices.at(0).content);
    if (std::string(key) == "x") {
      EXPECT_EQ(live->choices.at(0).content, content);
      EXPECT_EQ(first->totals().key_redacted_replies, 0);
    } else {  // the lone "a" is a word of its own: taken out, the rest kept, and counted
      EXPECT_EQ(live->choices.at(0).content,
                R"({"verdict": 1, "why": "max_tokens: six boxes and [redacted] cat"})");
      EXPECT_EQ(first->totals().key_redacted_replies, 1);
    }
    EXPECT_EQ(second->totals().key_redacted_replies, 0);  // its reply came from the cache
  }
}

// A server that echoes a long key: taken out of the reply, counted once per reply that held
// it; neither a reply without it nor a 401 page quoting the key (a failed attempt, not a
// reply the judge reads) is counted.
TEST_F(LlmClientFaultTest, RepliesThatHeldTheKeyAreCounted) {
  const std::string key = "sk-test-0123456789abcdef";
  setenv(kKeyVariable, key.c_str(), 1);
  const json echoing = {{"verdict", 1}, {"why", "the key was " + key + " and " + key}};
  server_->script({{"steps", {reply_step(echoing.dump())}},
                   {"default", reply_step(R"({"verdict": 1, "why": "no key here"})")}});
  auto client = client_for(options());
  ASSERT_TRUE(client);
  StatusOr<ChatResponse> echoed = wait(client->chat(verdict_request("first")));
  ASSERT_TRUE(echoed.ok()) << echoed.status().to_string();
  EXPECT_EQ(echoed->choices.at(0).content,
            R"({"verdict":1,"why":"the key was [redacted] and [redacted]"})");
  ASSERT_TRUE(wait(client->chat(verdict_request("second"))).ok());
  EXPECT_EQ(client->totals().key_redacted_replies, 1);
  server_->script({{"default", kind_step("echo_auth")}});
  EXPECT_FALSE(wait(client->chat(verdict_request("third"))).ok());
  EXPECT_GE(server_->requests(), 1);  // the 401 quoting the key did come back
  EXPECT_EQ(client->totals().key_redacted_replies, 1);
}

// Two judges made by the factory with the same hooks (two workers of a Ray run): the
// second asks the server nothing for a sample the first judged, since replies, claims
// (by text) and verdict cells all went to the shared store, and every request of both
// asked the shared permit source.
TEST_F(LlmClientFaultTest, JudgesMadeWithSharedHooksShareClaimsVerdictsAndPermits) {
  // Every key the calls below ask: a claim per sentence, and the verdict table's cells of
  // two claims (the response's, the short reference's) against four passages, with each
  // claim's evidence quoted from the first chunk.
  json reply = {{"S1", json::array({"The tower is in Paris."})}, {"reason 1", ""}, {"reason 2", ""},
                {"Evidence 1", "Paris has a tower."}, {"Evidence 2", "Paris has a tower."}};
  for (const char* cell : {"P1: claim 1", "P2: claim 1", "P3: claim 1", "P4: claim 1",
                           "P1: claim 2", "P2: claim 2", "P3: claim 2", "P4: claim 2"}) {
    reply[cell] = "Entailment";
  }
  server_->script({{"default", reply_step(reply.dump())}});
  auto store = std::make_shared<test_stores::MemoryReplyStore>();
  auto permits = std::make_shared<ScriptedPermits>(std::vector<Permit>{});
  JudgeOptions options;
  options.url = server_->base_url();
  options.model = "fake-model";
  options.key_env = kKeyVariable;
  options.embedder = "offline";
  options.cache_path = "/nonexistent/never-opened.sqlite";  // the store replaces the file
  options.cache_mode = CacheMode::kReadWrite;
  options.hooks = {permits, store};
  auto first = make_judge(options);
  auto second = make_judge(options);
  ASSERT_TRUE(first.ok()) << first.status().to_string();
  ASSERT_TRUE(second.ok()) << second.status().to_string();
  Sample sample;
  sample.user_input = "Where is the tower?";
  sample.response = "The tower is in Paris.";  // one sentence each: one claim, as the reply
  sample.set_reference("The tower stands in Paris.");
  sample.retrieved_contexts = std::vector<std::string>{"Paris has a tower.", "It is tall."};
  auto ledger = first->judge->claim_ledger(sample, nullptr);
  ASSERT_TRUE(ledger.ok()) << ledger.status().to_string();
  const long sent = server_->requests();
  EXPECT_GE(sent, 2);  // a claims call and a verdict table at least
  EXPECT_EQ(permits->asked(), sent);
  EXPECT_GE(store->entries_of_kind("claims"), 1u);
  EXPECT_GE(store->entries_of_kind("verdict"), 1u);
  auto again = second->judge->claim_ledger(sample, nullptr);
  ASSERT_TRUE(again.ok()) << again.status().to_string();
  EXPECT_EQ(server_->requests(), sent);  // nothing paid twice
  EXPECT_EQ(permits->asked(), sent);
  ASSERT_EQ(again->response_claims.size(), ledger->response_claims.size());
  for (std::size_t i = 0; i < ledger->response_claims.size(); ++i) {
    EXPECT_EQ(again->response_claims[i].text, ledger->response_claims[i].text);
  }
}

TEST(SharedLimiterTest, RequestsPerMinuteAcrossCallersAndTheBudget) {
  // 120 per minute: 2 per second, a bucket of 2 (one second's worth), full at the start.
  SharedLimiter limiter({120.0, 0.0, 1.0});
  EXPECT_EQ(limiter.acquire(10, 0.0).kind, Permit::Kind::kGranted);
  EXPECT_EQ(limiter.acquire(10, 0.0).kind, Permit::Kind::kGranted);
  Permit third = limiter.acquire(10, 0.0);
  EXPECT_EQ(third.kind, Permit::Kind::kWait);
  EXPECT_DOUBLE_EQ(third.wait_seconds, 0.5);  // one request at 2 per second
  EXPECT_EQ(limiter.acquire(10, 0.5).kind, Permit::Kind::kGranted);
  limiter.report({100, 20, 0}, 0.6);
  EXPECT_EQ(limiter.acquire(10, 5.0).kind, Permit::Kind::kGranted);  // $0.6 of $1
  limiter.report({100, 20, 0}, 0.6);
  Permit refused = limiter.acquire(10, 10.0);
  EXPECT_EQ(refused.kind, Permit::Kind::kRefused);
  EXPECT_EQ(refused.reason, "the cost budget of $1 is spent");
  SharedTotals totals = limiter.totals();
  EXPECT_EQ(totals.permits, 4);
  EXPECT_EQ(totals.refused, 1);
  EXPECT_EQ(totals.waits, 1);
  EXPECT_EQ(totals.tokens.prompt_tokens, 200);
  EXPECT_DOUBLE_EQ(totals.cost_usd, 1.2);
}

TEST(SharedLimiterTest, TokensPerMinuteHoldsALargeRequest) {
  SharedLimiter limiter({0.0, 6000.0, 0.0});  // 100 tokens per second, a bucket of 100
  EXPECT_EQ(limiter.acquire(80, 0.0).kind, Permit::Kind::kGranted);
  Permit wait = limiter.acquire(80, 0.0);     // 20 left: 60 more tokens = 0.6 s
  EXPECT_EQ(wait.kind, Permit::Kind::kWait);
  EXPECT_NEAR(wait.wait_seconds, 0.6, 1e-12);
}

}  // namespace
}  // namespace ragmeter::llm
