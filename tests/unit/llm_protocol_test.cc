// The OpenAI-compatible wire format: request URLs, headers and exact bodies for both
// flavors, and reply parsing, including the explicit errors.
#include "llm/openai_protocol.h"

#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

namespace ragmeter::llm {
namespace {

using nlohmann::json;

EndpointOptions openai_endpoint() {
  EndpointOptions endpoint;
  endpoint.base_url = "https://api.openai.com/v1/";
  endpoint.model = "gpt-4o-mini";
  endpoint.api_key_env = "RAGMETER_TEST_PROTOCOL_KEY";
  return endpoint;
}

EndpointOptions azure_endpoint() {
  EndpointOptions endpoint;
  endpoint.base_url = "https://example.openai.azure.com";
  endpoint.model = "judge deployment";
  endpoint.api_key_env = "RAGMETER_TEST_PROTOCOL_KEY";
  endpoint.flavor = ApiFlavor::kAzure;
  return endpoint;
}

ChatRequest verdict_request() {
  ChatRequest request;
  request.messages = {{"system", "You judge."}, {"user", "Is it supported?"}};
  request.max_tokens = 64;
  request.format = ReplyFormat::kJsonSchema;
  request.schema = {{"type", "object"},
                    {"properties", {{"verdict", {{"type", "integer"}}}}},
                    {"required", {"verdict"}}};
  request.schema_name = "verdict";
  return request;
}

TEST(LlmProtocolUrl, OpenAIAppendsTheOperationToTheBaseUrl) {
  EXPECT_EQ(chat_url(openai_endpoint()), "https://api.openai.com/v1/chat/completions");
  EXPECT_EQ(embeddings_url(openai_endpoint()), "https://api.openai.com/v1/embeddings");
}

TEST(LlmProtocolUrl, AzureNamesTheDeploymentAndApiVersion) {
  EXPECT_EQ(chat_url(azure_endpoint()),
            "https://example.openai.azure.com/openai/deployments/judge%20deployment/"
            "chat/completions?api-version=2024-10-21");
  EXPECT_EQ(embeddings_url(azure_endpoint()),
            "https://example.openai.azure.com/openai/deployments/judge%20deployment/"
            "embeddings?api-version=2024-10-21");
}

// llama.cpp serves /props at the server root, beside /v1, not under it.
TEST(LlmProtocolUrl, PropsSitsAtTheServerRootWithoutV1) {
  EXPECT_EQ(props_url(openai_endpoint()), "https://api.openai.com/props");
  EndpointOptions local;
  local.base_url = "http://127.0.0.1:8080//";
  EXPECT_EQ(props_url(local), "http://127.0.0.1:8080/props");
}

TEST(LlmProtocolProps, TotalSlotsIsReadOnlyFromAnIntegerInA200) {
  EXPECT_EQ(props_total_slots(200, R"({"total_slots": 4, "model_path": "m.gguf"})"), 4);
  EXPECT_EQ(props_total_slots(404, R"({"total_slots": 4})"), 0);
  EXPECT_EQ(props_total_slots(200, R"({"total_slots": "4"})"), 0);
  EXPECT_EQ(props_total_slots(200, R"({"total_slots": 2.5})"), 0);
  EXPECT_EQ(props_total_slots(200, "<html>not found</html>"), 0);
  EXPECT_EQ(props_total_slots(200, "[4]"), 0);
}

TEST(LlmProtocolHeaders, OpenAISendsABearerToken) {
  setenv("RAGMETER_TEST_PROTOCOL_KEY", "sk-test-123", 1);
  auto headers = request_headers(openai_endpoint());
  ASSERT_EQ(headers.size(), 2u);
  EXPECT_EQ(headers[0], (std::pair<std::string, std::string>{"Content-Type", "application/json"}));
  EXPECT_EQ(headers[1], (std::pair<std::string, std::string>{"Authorization", "Bearer sk-test-123"}));
  unsetenv("RAGMETER_TEST_PROTOCOL_KEY");
}

TEST(LlmProtocolHeaders, AzureSendsAnApiKeyHeader) {
  setenv("RAGMETER_TEST_PROTOCOL_KEY", "azure-key", 1);
  auto headers = request_headers(azure_endpoint());
  ASSERT_EQ(headers.size(), 2u);
  EXPECT_EQ(headers[1], (std::pair<std::string, std::string>{"api-key", "azure-key"}));
  unsetenv("RAGMETER_TEST_PROTOCOL_KEY");
}

TEST(LlmProtocolHeaders, NoKeyVariableMeansNoCredentialHeader) {
  unsetenv("RAGMETER_TEST_PROTOCOL_KEY");
  EXPECT_EQ(request_headers(openai_endpoint()).size(), 1u);
}

TEST(LlmProtocolHeaders, RedactKeyRemovesEveryOccurrence) {
  setenv("RAGMETER_TEST_PROTOCOL_KEY", "sk-abc", 1);
  EXPECT_EQ(redact_key("bad key sk-abc, again sk-abc.", openai_endpoint()),
            "bad key [redacted], again [redacted].");
  unsetenv("RAGMETER_TEST_PROTOCOL_KEY");
}

TEST(LlmProtocolBody, OpenAIJsonSchemaBodyIsExact) {
  ChatRequest request = verdict_request();
  request.seed = 7;
  EXPECT_EQ(chat_request_body(openai_endpoint(), request, ReplyFormat::kJsonSchema).dump(),
            R"({"max_tokens":64,"messages":[{"content":"You judge.","role":"system"},)"
            R"({"content":"Is it supported?","role":"user"}],"model":"gpt-4o-mini",)"
            R"("response_format":{"json_schema":{"name":"verdict","schema":{"properties":)"
            R"({"verdict":{"type":"integer"}},"required":["verdict"],"type":"object"}},)"
            R"("type":"json_schema"},"seed":7,"temperature":0.0})");
}

TEST(LlmProtocolBody, AzureBodyLeavesTheModelToTheUrl) {
  ChatRequest request;
  request.messages = {{"user", "hi"}};
  request.n = 3;
  request.top_logprobs = 2;
  request.temperature = 0.7;
  EXPECT_EQ(chat_request_body(azure_endpoint(), request, ReplyFormat::kText).dump(),
            R"({"logprobs":true,"max_tokens":1024,"messages":[{"content":"hi","role":"user"}],)"
            R"("n":3,"temperature":0.7,"top_logprobs":2})");
}

TEST(LlmProtocolBody, JsonObjectFormat) {
  ChatRequest request = verdict_request();
  request.format = ReplyFormat::kJsonObject;
  request.schema = nullptr;
  json body = chat_request_body(openai_endpoint(), request, ReplyFormat::kJsonObject);
  EXPECT_EQ(body["response_format"], json({{"type", "json_object"}}));
  EXPECT_EQ(body["messages"][1]["content"], "Is it supported?");
}

TEST(LlmProtocolBody, DowngradedFormatPutsTheSchemaInTheLastUserMessage) {
  ChatRequest request = verdict_request();
  json object_body = chat_request_body(openai_endpoint(), request, ReplyFormat::kJsonObject);
  EXPECT_EQ(object_body["response_format"], json({{"type", "json_object"}}));
  std::string prompt = object_body["messages"][1]["content"];
  EXPECT_TRUE(prompt.starts_with("Is it supported?\n\nReply with only a JSON value"));
  EXPECT_NE(prompt.find(request.schema.dump()), std::string::npos);
  json text_body = chat_request_body(openai_endpoint(), request, ReplyFormat::kText);
  EXPECT_FALSE(text_body.contains("response_format"));
  EXPECT_EQ(text_body["messages"][1]["content"], prompt);
}

TEST(LlmProtocolBody, APromptThatShowsItsReplyIsNotSentTheSchemaAgain) {
  ChatRequest request = verdict_request();
  request.reply_form_in_prompt = true;
  for (FormatStep step : {FormatStep::kJsonObjectWithSchema, FormatStep::kJsonObject, FormatStep::kText}) {
    json body = chat_request_body(openai_endpoint(), request, step);
    EXPECT_EQ(body["messages"][1]["content"],
              "Is it supported?\n\nReply with only a JSON value, no other text.");
  }
  // The server still gets the schema where the format carries one.
  EXPECT_EQ(chat_request_body(openai_endpoint(), request, FormatStep::kJsonObjectWithSchema)["response_format"],
            json({{"type", "json_object"}, {"schema", request.schema}}));
  EXPECT_EQ(chat_request_body(openai_endpoint(), request, FormatStep::kJsonSchema)["messages"][1]["content"],
            "Is it supported?");
}

TEST(LlmProtocolBody, JsonObjectWithSchemaStepAttachesTheSchema) {
  ChatRequest request = verdict_request();
  json body = chat_request_body(openai_endpoint(), request, FormatStep::kJsonObjectWithSchema);
  EXPECT_EQ(body["response_format"], json({{"type", "json_object"}, {"schema", request.schema}}));
  std::string prompt = body["messages"][1]["content"];
  EXPECT_NE(prompt.find(request.schema.dump()), std::string::npos);
  request.schema = nullptr;
  body = chat_request_body(openai_endpoint(), request, FormatStep::kJsonObjectWithSchema);
  EXPECT_EQ(body["response_format"], json({{"type", "json_object"}}));
}

TEST(LlmProtocolFormat, FallbackSequence) {
  ChatRequest request = verdict_request();
  EXPECT_EQ(first_format_step(request), FormatStep::kJsonSchema);
  EXPECT_EQ(weaker_format_step(FormatStep::kJsonSchema, request), FormatStep::kJsonObjectWithSchema);
  EXPECT_EQ(weaker_format_step(FormatStep::kJsonObjectWithSchema, request), FormatStep::kJsonObject);
  EXPECT_EQ(weaker_format_step(FormatStep::kJsonObject, request), FormatStep::kText);
  EXPECT_EQ(weaker_format_step(FormatStep::kText, request), std::nullopt);
  request.schema = nullptr;  // nothing to attach: straight to plain json_object
  EXPECT_EQ(weaker_format_step(FormatStep::kJsonSchema, request), FormatStep::kJsonObject);
  request.format = ReplyFormat::kJsonObject;
  EXPECT_EQ(first_format_step(request), FormatStep::kJsonObject);
  request.format = ReplyFormat::kText;
  EXPECT_EQ(first_format_step(request), FormatStep::kText);
}

TEST(LlmProtocolFormat, FormatRejections) {
  const std::string llama_cpp_python =
      R"({"error":{"message":"[{'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), )"
      R"('msg': \"Input should be 'text' or 'json_object'\"}]","type":"internal_server_error"}})";
  EXPECT_TRUE(is_format_rejection(500, llama_cpp_python));
  EXPECT_TRUE(is_format_rejection(422, R"({"detail":"JSON_SCHEMA is not supported"})"));
  EXPECT_TRUE(is_format_rejection(400, R"({"error":{"message":"anything"}})"));
  EXPECT_FALSE(is_format_rejection(500, R"({"error":{"message":"out of memory"}})"));
  EXPECT_FALSE(is_format_rejection(503, llama_cpp_python));
  EXPECT_FALSE(is_format_rejection(429, llama_cpp_python));
  EXPECT_FALSE(is_format_rejection(401, llama_cpp_python));
  EXPECT_FALSE(is_format_rejection(200, llama_cpp_python));
}

TEST(LlmProtocolBody, ExtraFieldsAreMergedLast) {
  ChatRequest request;
  request.messages = {{"user", "hi"}};
  request.extra = {{"max_tokens", nullptr}, {"max_completion_tokens", 10}, {"top_k", 5}};
  json body = chat_request_body(openai_endpoint(), request, ReplyFormat::kText);
  EXPECT_FALSE(body.contains("max_tokens"));
  EXPECT_EQ(body["max_completion_tokens"], 10);
  EXPECT_EQ(body["top_k"], 5);
}

TEST(LlmProtocolBody, RepairAppendsTheBadReplyAndTheProblem) {
  ChatRequest request = verdict_request();
  request.n = 5;
  json sent = chat_request_body(openai_endpoint(), request, ReplyFormat::kJsonSchema);
  json repair = repair_request_body(sent, "{verdict: yes", "unexpected end of input");
  EXPECT_FALSE(repair.contains("n"));
  ASSERT_EQ(repair["messages"].size(), 4u);
  EXPECT_EQ(repair["messages"][2], json({{"role", "assistant"}, {"content", "{verdict: yes"}}));
  std::string ask = repair["messages"][3]["content"];
  EXPECT_NE(ask.find("unexpected end of input"), std::string::npos);
  EXPECT_NE(ask.find("only the corrected JSON"), std::string::npos);
  EXPECT_EQ(repair["response_format"], sent["response_format"]);
}

TEST(LlmProtocolBody, EmbeddingBodies) {
  EmbeddingRequest request{{"a", "b"}};
  EXPECT_EQ(embedding_request_body(openai_endpoint(), request).dump(),
            R"({"input":["a","b"],"model":"gpt-4o-mini"})");
  EXPECT_EQ(embedding_request_body(azure_endpoint(), request).dump(), R"({"input":["a","b"]})");
}

TEST(LlmProtocolReply, ParsesChoicesUsageAndLogprobs) {
  const char* body = R"({
    "model": "gpt-4o-mini-2024-07-18",
    "choices": [
      {"index": 1, "message": {"role": "assistant", "content": "B"}, "finish_reason": "length"},
      {"index": 0, "message": {"role": "assistant", "content": "A"}, "finish_reason": "stop",
       "logprobs": {"content": [{"token": "A", "logprob": -0.1,
                                 "top_logprobs": [{"token": "A", "logprob": -0.1},
                                                  {"token": "B", "logprob": -2.5}]}]}}],
    "usage": {"prompt_tokens": 100, "completion_tokens": 2, "total_tokens": 102,
              "prompt_tokens_details": {"cached_tokens": 64}}})";
  StatusOr<ChatResponse> reply = parse_chat_reply(body);
  ASSERT_TRUE(reply.ok()) << reply.status().to_string();
  ASSERT_EQ(reply->choices.size(), 2u);
  EXPECT_EQ(reply->choices[0].content, "A");
  EXPECT_EQ(reply->choices[0].finish_reason, "stop");
  EXPECT_EQ(reply->choices[1].finish_reason, "length");
  ASSERT_EQ(reply->choices[0].logprobs.size(), 1u);
  EXPECT_DOUBLE_EQ(reply->choices[0].logprobs[0].logprob, -0.1);
  EXPECT_EQ(reply->choices[0].logprobs[0].top[1], (std::pair<std::string, double>{"B", -2.5}));
  EXPECT_EQ(reply->usage.prompt_tokens, 100);
  EXPECT_EQ(reply->usage.completion_tokens, 2);
  EXPECT_EQ(reply->usage.cached_tokens, 64);
  EXPECT_EQ(reply->model, "gpt-4o-mini-2024-07-18");
}

TEST(LlmProtocolReply, NullDetailsAndMissingUsageAreZero) {
  StatusOr<ChatResponse> reply = parse_chat_reply(
      R"({"choices":[{"message":{"content":"x"},"finish_reason":null}],
          "usage":{"prompt_tokens":3,"completion_tokens":1,"prompt_tokens_details":null}})");
  ASSERT_TRUE(reply.ok()) << reply.status().to_string();
  EXPECT_EQ(reply->usage.cached_tokens, 0);
  EXPECT_EQ(reply->choices[0].finish_reason, "");
}

void expect_invalid(std::string_view body, std::string_view reason) {
  StatusOr<ChatResponse> reply = parse_chat_reply(body);
  ASSERT_FALSE(reply.ok()) << body;
  EXPECT_EQ(reply.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(reply.status().message().find(reason), std::string::npos)
      << reply.status().message();
}

TEST(LlmProtocolReply, ExplicitErrors) {
  expect_invalid(R"({"choices": []})", "no choices");
  expect_invalid(R"({"object": "chat.completion"})", "no \"choices\" array");
  expect_invalid("<html>Bad gateway</html>", "not JSON");
  expect_invalid(R"({"choices": [{"message": {"content": 5}}]})", "not a string");
  expect_invalid(R"({"choices": [{"no_message": 1}]})", "malformed reply");
  expect_invalid(R"({"error": {"message": "model overloaded"}})", "model overloaded");
  expect_invalid(R"({"choices": [{"message": {"content": null, "refusal": "I can't"}}]})",
                 "refused");
}

TEST(LlmProtocolReply, EmbeddingsAreOrderedByIndex) {
  StatusOr<EmbeddingResponse> reply = parse_embedding_reply(
      R"({"data":[{"index":1,"embedding":[0.5,1.5]},{"index":0,"embedding":[2.0,3.0]}],
          "usage":{"prompt_tokens":4}})",
      2);
  ASSERT_TRUE(reply.ok()) << reply.status().to_string();
  EXPECT_EQ(reply->vectors, (std::vector<std::vector<float>>{{2.0f, 3.0f}, {0.5f, 1.5f}}));
  EXPECT_EQ(reply->usage.prompt_tokens, 4);
}

TEST(LlmProtocolReply, EmbeddingsCountMustMatchTheInputs) {
  auto reply = parse_embedding_reply(R"({"data":[{"index":0,"embedding":[1]}]})", 2);
  ASSERT_FALSE(reply.ok());
  EXPECT_NE(reply.status().message().find("1 embeddings for 2 inputs"), std::string::npos);
  auto repeated = parse_embedding_reply(
      R"({"data":[{"index":0,"embedding":[1]},{"index":0,"embedding":[2]}]})", 2);
  EXPECT_FALSE(repeated.ok());
}

TEST(LlmProtocolReply, ServerErrorMessage) {
  EXPECT_EQ(server_error_message(R"({"error":{"message":"Rate limit reached","type":"x"}})"),
            "Rate limit reached");
  EXPECT_EQ(server_error_message(R"({"detail":"Not Found"})"), "Not Found");
  EXPECT_EQ(server_error_message("upstream\nconnect error"), "upstream connect error");
}

TEST(LlmProtocolCache, ChatValueRoundTrips) {
  ChatResponse response;
  response.model = "m";
  response.usage = {10, 3, 2};
  ChatChoice choice{"{\"verdict\": 1}", "stop", json{{"verdict", 1}}, {{"x", -0.5, {{"x", -0.5}}}}};
  response.choices.push_back(choice);
  StatusOr<ChatResponse> back = parse_chat_cache_value(chat_cache_value(response));
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(back->model, "m");
  EXPECT_EQ(back->usage.cached_tokens, 2);
  EXPECT_EQ(back->choices[0].content, choice.content);
  EXPECT_EQ(back->choices[0].json, choice.json);
  EXPECT_EQ(back->choices[0].logprobs[0].top, choice.logprobs[0].top);
  EXPECT_FALSE(parse_chat_cache_value("{}").ok());
}

TEST(LlmProtocolCache, EmbeddingValueRoundTripsFloatsExactly) {
  EmbeddingResponse response;
  response.vectors = {{0.1f, -3.25e-7f}, {1.0f / 3.0f, 0.0f}};
  StatusOr<EmbeddingResponse> back =
      parse_embedding_cache_value(embedding_cache_value(response));
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(back->vectors, response.vectors);
}

TEST(LlmProtocolEstimate, CountsCharactersAndMaxTokensPerChoice) {
  ChatRequest request;
  request.messages = {{"user", std::string(400, 'a')}};
  request.max_tokens = 50;
  request.n = 2;
  EXPECT_DOUBLE_EQ(estimate_tokens(request), 100.0 + 100.0);
}

}  // namespace
}  // namespace ragmeter::llm
