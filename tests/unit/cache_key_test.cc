// Cache keys: stable across runs, sensitive to every parameter, blind to the API key.
#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "ragmeter/llm.h"

namespace ragmeter::llm {
namespace {

EndpointOptions golden_endpoint() {
  EndpointOptions endpoint;
  endpoint.base_url = "https://api.openai.com/v1/";
  endpoint.model = "gpt-4o-mini";
  return endpoint;
}

ChatRequest golden_request() {
  ChatRequest request;
  request.messages = {{"system", "You are a judge."},
                      {"user", "Is \"Paris\" the capital of France? R\xC3\xA9ponds."}};
  request.temperature = 0.0;
  request.max_tokens = 256;
  request.seed = 7;
  request.format = ReplyFormat::kJsonSchema;
  request.schema = {{"type", "object"}, {"properties", {{"verdict", {{"type", "integer"}}}}}};
  request.schema_name = "verdict";
  request.extra = {{"top_p", 0.5}};
  return request;
}

// Computed once from this build and checked independently: Python's
//   import hashlib, json
//   obj = {"version": "ragmeter-cache-v2", "kind": "chat", "model": "gpt-4o-mini",
//          "messages": [{"role": "system", "content": "You are a judge."},
//                       {"role": "user", "content": "Is \"Paris\" the capital of France?
//                       Réponds."}],
//          "temperature": 0.0, "max_tokens": 256, "seed": 7, "n": 1, "format": "json_schema",
//          "schema": {"type": "object", "properties": {"verdict": {"type": "integer"}}},
//          "schema_name": "verdict", "top_logprobs": 0, "extra": {"top_p": 0.5}}
//   text = json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
//   print(hashlib.sha256(text.encode()).hexdigest())
// prints the same hex, so the canonical form is the documented one (sorted keys, compact,
// shortest round-trip numbers, UTF-8) and the SHA-256 is the standard one.
constexpr const char* kGoldenChatKey =
    "389f324ae6190963052109f7fd9214e3b47ea4db081ff9afa817b2c3c347da29";

TEST(CacheKeyTest, GoldenChatKeyIsStableAcrossRuns) {
  EXPECT_EQ(chat_cache_key(golden_endpoint(), golden_request()), kGoldenChatKey);
}

TEST(CacheKeyTest, APromptThatShowsItsReplyFormIsAnotherKeyAndOnlyThen) {
  ChatRequest request = golden_request();
  request.reply_form_in_prompt = false;
  EXPECT_EQ(chat_cache_key(golden_endpoint(), request), kGoldenChatKey);  // the default
  request.reply_form_in_prompt = true;  // what a server that rejects json_schema is sent changes
  EXPECT_NE(chat_cache_key(golden_endpoint(), request), kGoldenChatKey);
}

TEST(CacheKeyTest, KeyIsLowercaseHexSha256) {
  std::string key = chat_cache_key(golden_endpoint(), golden_request());
  ASSERT_EQ(key.size(), 64u);
  EXPECT_EQ(key.find_first_not_of("0123456789abcdef"), std::string::npos);
}

// The issue-16 bug: a local server restarted on another port, or reached as localhost
// instead of 127.0.0.1, missed every entry. The address is not part of the identity
// (docs/design.md, "Judge cache identity"); the model is.
TEST(CacheKeyTest, ARestartedServerOnAnotherPortOrHostNameHitsTheSameKey) {
  EndpointOptions first = golden_endpoint();
  first.base_url = "http://127.0.0.1:8080/v1";
  const std::string key = chat_cache_key(first, golden_request());
  for (const char* url : {"http://127.0.0.1:41234/v1", "http://localhost:8080/v1",
                          "http://localhost:8080/v1/", "https://api.openai.com/v1/"}) {
    EndpointOptions other = first;
    other.base_url = url;
    EXPECT_EQ(chat_cache_key(other, golden_request()), key) << url;
    EXPECT_EQ(embedding_cache_key(other, {{"a"}}), embedding_cache_key(first, {{"a"}})) << url;
  }
  EndpointOptions other_model = first;
  other_model.model = "another-model";
  EXPECT_NE(chat_cache_key(other_model, golden_request()), key);
  EXPECT_NE(embedding_cache_key(other_model, {{"a"}}), embedding_cache_key(first, {{"a"}}));
}

// Each change of one parameter must give a key of its own.
TEST(CacheKeyTest, EveryParameterChangesTheKey) {
  using Change = std::function<void(EndpointOptions*, ChatRequest*)>;
  std::vector<std::pair<const char*, Change>> changes = {
      {"model", [](EndpointOptions* e, ChatRequest*) { e->model = "gpt-4o"; }},
      {"message content", [](EndpointOptions*, ChatRequest* r) { r->messages[1].content += " "; }},
      {"message role", [](EndpointOptions*, ChatRequest* r) { r->messages[0].role = "user"; }},
      {"message count", [](EndpointOptions*, ChatRequest* r) { r->messages.pop_back(); }},
      {"temperature", [](EndpointOptions*, ChatRequest* r) { r->temperature = 0.7; }},
      {"max_tokens", [](EndpointOptions*, ChatRequest* r) { r->max_tokens = 257; }},
      {"seed", [](EndpointOptions*, ChatRequest* r) { r->seed = 8; }},
      {"no seed", [](EndpointOptions*, ChatRequest* r) { r->seed.reset(); }},
      {"n", [](EndpointOptions*, ChatRequest* r) { r->n = 3; }},
      {"format", [](EndpointOptions*, ChatRequest* r) { r->format = ReplyFormat::kJsonObject; }},
      {"schema", [](EndpointOptions*, ChatRequest* r) { r->schema["required"] = {"verdict"}; }},
      {"schema_name", [](EndpointOptions*, ChatRequest* r) { r->schema_name = "other"; }},
      {"top_logprobs", [](EndpointOptions*, ChatRequest* r) { r->top_logprobs = 5; }},
      {"extra", [](EndpointOptions*, ChatRequest* r) { r->extra["top_p"] = 0.9; }},
  };
  std::set<std::string> keys = {chat_cache_key(golden_endpoint(), golden_request())};
  for (const auto& [name, change] : changes) {
    EndpointOptions endpoint = golden_endpoint();
    ChatRequest request = golden_request();
    change(&endpoint, &request);
    EXPECT_TRUE(keys.insert(chat_cache_key(endpoint, request)).second) << name;
  }
}

// The flavor and Azure's API version change how a request travels, not what answers it.
TEST(CacheKeyTest, FlavorAndApiVersionAreNotPartOfTheKey) {
  EndpointOptions openai = golden_endpoint();
  EndpointOptions azure = openai;
  azure.flavor = ApiFlavor::kAzure;
  EndpointOptions azure_other_version = azure;
  azure_other_version.azure_api_version = "2099-01-01";
  const std::string key = chat_cache_key(openai, golden_request());
  EXPECT_EQ(chat_cache_key(azure, golden_request()), key);
  EXPECT_EQ(chat_cache_key(azure_other_version, golden_request()), key);
}

TEST(CacheKeyTest, KeyIgnoresTheApiKeyAndItsVariable) {
  std::string before = chat_cache_key(golden_endpoint(), golden_request());
  ASSERT_EQ(setenv("OPENAI_API_KEY", "sk-test-SECRET", 1), 0);
  ASSERT_EQ(setenv("OTHER_KEY_VAR", "sk-test-OTHER", 1), 0);
  EndpointOptions other_variable = golden_endpoint();
  other_variable.api_key_env = "OTHER_KEY_VAR";
  EndpointOptions other_transport = golden_endpoint();
  other_transport.timeout_seconds = 5;
  EXPECT_EQ(chat_cache_key(golden_endpoint(), golden_request()), before);
  EXPECT_EQ(chat_cache_key(other_variable, golden_request()), before);
  EXPECT_EQ(chat_cache_key(other_transport, golden_request()), before);
  unsetenv("OPENAI_API_KEY");
  unsetenv("OTHER_KEY_VAR");
}

TEST(CacheKeyTest, EmbeddingKeysDependOnInputsAndOrder) {
  EndpointOptions endpoint = golden_endpoint();
  endpoint.model = "text-embedding-3-small";
  std::string ab = embedding_cache_key(endpoint, {{"a", "b"}});
  EXPECT_EQ(ab, embedding_cache_key(endpoint, {{"a", "b"}}));
  EXPECT_NE(ab, embedding_cache_key(endpoint, {{"b", "a"}}));
  EXPECT_NE(ab, embedding_cache_key(endpoint, {{"a"}}));
  endpoint.model = "text-embedding-3-large";
  EXPECT_NE(ab, embedding_cache_key(endpoint, {{"a", "b"}}));
}

TEST(CacheKeyTest, ChatAndEmbeddingKeysNeverCollide) {
  ChatRequest empty_chat;
  EXPECT_NE(chat_cache_key(golden_endpoint(), empty_chat),
            embedding_cache_key(golden_endpoint(), EmbeddingRequest{}));
}

TEST(CacheKeyTest, InvalidUtf8StillGivesAStableKey) {
  ChatRequest request = golden_request();
  request.messages[1].content = "bad \xFF byte";
  std::string key = chat_cache_key(golden_endpoint(), request);
  EXPECT_EQ(key.size(), 64u);
  EXPECT_EQ(key, chat_cache_key(golden_endpoint(), request));
}

}  // namespace
}  // namespace ragmeter::llm
