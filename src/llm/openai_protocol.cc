#include "llm/openai_protocol.h"

#include <algorithm>
#include <cmath>
#include <cctype>
#include <cstdlib>

namespace ragmeter::llm {
namespace {

using nlohmann::json;

std::string trimmed_base_url(const EndpointOptions& endpoint) {
  std::string url = endpoint.base_url;
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url;
}

// Percent-encodes all but RFC 3986's unreserved characters.
std::string escape_path_segment(std::string_view segment) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string escaped;
  for (unsigned char c : segment) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      escaped.push_back(static_cast<char>(c));
    } else {
      escaped += {'%', kHex[c >> 4], kHex[c & 15]};
    }
  }
  return escaped;
}

std::string endpoint_url(const EndpointOptions& endpoint, std::string_view operation) {
  std::string base = trimmed_base_url(endpoint);
  if (endpoint.flavor == ApiFlavor::kOpenAI) return base + "/" + std::string(operation);
  return base + "/openai/deployments/" + escape_path_segment(endpoint.model) + "/" +
         std::string(operation) + "?api-version=" + escape_path_segment(endpoint.azure_api_version);
}

}  // namespace

std::string api_key_value(const EndpointOptions& endpoint) {
  if (endpoint.api_key_env.empty()) return "";
  const char* key = std::getenv(endpoint.api_key_env.c_str());
  return key == nullptr ? "" : key;
}

namespace {

std::string api_key(const EndpointOptions& endpoint) { return api_key_value(endpoint); }

json base_body(const EndpointOptions& endpoint) {
  json body = json::object();
  if (endpoint.flavor == ApiFlavor::kOpenAI) body["model"] = endpoint.model;
  return body;
}

FormatStep step_of(ReplyFormat format) {
  switch (format) {
    case ReplyFormat::kJsonSchema: return FormatStep::kJsonSchema;
    case ReplyFormat::kJsonObject: return FormatStep::kJsonObject;
    case ReplyFormat::kText: return FormatStep::kText;
  }
  return FormatStep::kText;
}

json response_format(const ChatRequest& request, FormatStep step) {
  switch (step) {
    case FormatStep::kJsonSchema:
      return {{"type", "json_schema"},
              {"json_schema", {{"name", request.schema_name}, {"schema", request.schema}}}};
    case FormatStep::kJsonObjectWithSchema:
      if (request.schema.is_object()) return {{"type", "json_object"}, {"schema", request.schema}};
      return {{"type", "json_object"}};
    case FormatStep::kJsonObject:
    case FormatStep::kText:
      break;
  }
  return {{"type", "json_object"}};
}

bool mentions_response_format(std::string_view body) {
  std::string text(body);
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* word : {"response_format", "json_schema", "json_object"}) {
    if (text.find(word) != std::string::npos) return true;
  }
  return false;
}

// For a format the server rejected: the prompt itself asks for the JSON, with the schema
// unless the prompt already shows the reply's form.
std::string json_only_hint(const ChatRequest& request) {
  std::string hint = "Reply with only a JSON value, no other text.";
  if (!request.schema.is_null() && !request.reply_form_in_prompt) {
    hint += " It must match this JSON Schema: " + request.schema.dump();
  }
  return hint;
}

void append_to_last_user_message(json& messages, const std::string& text) {
  if (!messages.empty() && messages.back().value("role", "") == "user" &&
      messages.back()["content"].is_array()) {  // content parts: one more text part
    messages.back()["content"].push_back({{"type", "text"}, {"text", text}});
  } else if (!messages.empty() && messages.back().value("role", "") == "user") {
    std::string content = messages.back().value("content", "");
    messages.back()["content"] = content.empty() ? text : content + "\n\n" + text;
  } else {
    messages.push_back({{"role", "user"}, {"content", text}});
  }
}

std::string one_line(std::string_view text, size_t limit) {
  std::string line(text.substr(0, limit));
  std::replace_if(line.begin(), line.end(), [](char c) { return c == '\n' || c == '\r'; }, ' ');
  if (text.size() > limit) line += "...";
  return line;
}

StatusOr<json> parse_body(std::string_view body) {
  json parsed = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (body.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    return invalid_argument("the body is empty");
  }
  if (parsed.is_discarded()) {
    return invalid_argument("the body is not JSON: " + one_line(body, 120));
  }
  if (!parsed.is_object()) return invalid_argument("reply is not a JSON object");
  if (parsed.contains("error") && !parsed["error"].is_null()) {
    return invalid_argument("server error in reply: " + server_error_message(body));
  }
  return parsed;
}

std::string string_or_empty(const json& object, const char* name) {
  auto found = object.find(name);
  return found != object.end() && found->is_string() ? found->get<std::string>() : "";
}

std::int64_t integer_or_zero(const json& object, const char* name) {
  auto found = object.find(name);
  return found != object.end() && found->is_number() ? found->get<std::int64_t>() : 0;
}

TokenUsage parse_usage(const json& reply) {
  auto found = reply.find("usage");
  if (found == reply.end() || !found->is_object()) return TokenUsage{};
  return parse_usage_object(*found);
}

std::vector<TokenLogprob> parse_logprobs(const json& choice) {
  std::vector<TokenLogprob> tokens;
  append_logprobs(choice, &tokens);
  return tokens;
}

StatusOr<ChatChoice> parse_choice(const json& choice) {
  const json& message = choice.at("message");
  ChatChoice parsed;
  const json& content = message.contains("content") ? message["content"] : json();
  if (content.is_string()) {
    parsed.content = content.get<std::string>();
  } else if (std::string refusal = string_or_empty(message, "refusal"); !refusal.empty()) {
    return invalid_argument("the model refused: " + one_line(refusal, 200));
  } else if (!content.is_null()) {
    return invalid_argument("reply message content is not a string");
  }
  parsed.finish_reason = string_or_empty(choice, "finish_reason");
  parsed.logprobs = parse_logprobs(choice);
  return parsed;
}

StatusOr<ChatResponse> parse_chat_json(const json& reply) {
  auto choices = reply.find("choices");
  if (choices == reply.end() || !choices->is_array()) {
    return invalid_argument("reply has no \"choices\" array");
  }
  if (choices->empty()) return invalid_argument("reply has no choices");
  std::vector<const json*> ordered;
  for (const json& choice : *choices) ordered.push_back(&choice);
  std::stable_sort(ordered.begin(), ordered.end(), [](const json* a, const json* b) {
    return integer_or_zero(*a, "index") < integer_or_zero(*b, "index");
  });
  ChatResponse response;
  for (const json* choice : ordered) {
    RAGMETER_ASSIGN_OR_RETURN(ChatChoice parsed, parse_choice(*choice));
    response.choices.push_back(std::move(parsed));
  }
  response.usage = parse_usage(reply);
  response.model = string_or_empty(reply, "model");
  return response;
}

StatusOr<EmbeddingResponse> parse_embedding_json(const json& reply, size_t expected) {
  auto data = reply.find("data");
  if (data == reply.end() || !data->is_array()) return invalid_argument("reply has no \"data\" array");
  if (data->size() != expected) {
    return invalid_argument("reply has " + std::to_string(data->size()) + " embeddings for " +
                            std::to_string(expected) + " inputs");
  }
  EmbeddingResponse response;
  response.vectors.resize(expected);
  std::vector<bool> seen(expected, false);
  for (size_t i = 0; i < data->size(); ++i) {
    const json& item = (*data)[i];
    std::int64_t index = item.contains("index") ? item.at("index").get<std::int64_t>()
                                                : static_cast<std::int64_t>(i);
    if (index < 0 || static_cast<size_t>(index) >= expected || seen[index]) {
      return invalid_argument("reply has a bad or repeated embedding index " +
                              std::to_string(index));
    }
    if (!item.at("embedding").is_array()) {
      return invalid_argument("embedding " + std::to_string(index) + " is not an array of numbers");
    }
    seen[index] = true;
    response.vectors[index] = item.at("embedding").get<std::vector<float>>();
  }
  response.usage = parse_usage(reply);
  return response;
}

// Runs `parse` on the parsed body; nlohmann's type errors become InvalidArgument.
template <typename T, typename Parse>
StatusOr<T> parse_guarded(std::string_view body, Parse parse) {
  try {
    RAGMETER_ASSIGN_OR_RETURN(json reply, parse_body(body));
    return parse(reply);
  } catch (const json::exception& error) {
    return invalid_argument(std::string("malformed reply: ") + error.what());
  }
}

json usage_json(const TokenUsage& usage) {
  return {{"prompt_tokens", usage.prompt_tokens},
          {"completion_tokens", usage.completion_tokens},
          {"cached_tokens", usage.cached_tokens}};
}

TokenUsage usage_from_cache(const json& value) {
  const json& usage = value.at("usage");
  return {usage.at("prompt_tokens").get<std::int64_t>(),
          usage.at("completion_tokens").get<std::int64_t>(),
          usage.at("cached_tokens").get<std::int64_t>()};
}

json choice_cache_json(const ChatChoice& choice) {
  json logprobs = json::array();
  for (const TokenLogprob& token : choice.logprobs) {
    logprobs.push_back({{"token", token.token}, {"logprob", token.logprob}, {"top", token.top}});
  }
  json value = {{"content", choice.content},
                {"finish_reason", choice.finish_reason},
                {"logprobs", std::move(logprobs)}};
  if (choice.json) value["json"] = *choice.json;
  return value;
}

ChatChoice choice_from_cache(const json& value) {
  ChatChoice choice;
  choice.content = value.at("content").get<std::string>();
  choice.finish_reason = value.at("finish_reason").get<std::string>();
  if (value.contains("json")) choice.json = value["json"];
  for (const json& token : value.at("logprobs")) {
    choice.logprobs.push_back({token.at("token").get<std::string>(),
                               token.at("logprob").get<double>(),
                               token.at("top").get<std::vector<std::pair<std::string, double>>>()});
  }
  return choice;
}

}  // namespace

TokenUsage parse_usage_object(const nlohmann::json& usage) {
  TokenUsage parsed;
  parsed.prompt_tokens = integer_or_zero(usage, "prompt_tokens");
  parsed.completion_tokens = integer_or_zero(usage, "completion_tokens");
  auto details = usage.find("prompt_tokens_details");
  if (details != usage.end() && details->is_object()) {
    parsed.cached_tokens = integer_or_zero(*details, "cached_tokens");
  }
  return parsed;
}

void append_logprobs(const nlohmann::json& choice, std::vector<TokenLogprob>* tokens) {
  auto logprobs = choice.find("logprobs");
  if (logprobs == choice.end() || !logprobs->is_object()) return;
  auto content = logprobs->find("content");
  if (content == logprobs->end() || !content->is_array()) return;
  for (const json& entry : *content) {
    TokenLogprob token{entry.at("token").get<std::string>(), entry.at("logprob").get<double>(), {}};
    if (auto top = entry.find("top_logprobs"); top != entry.end() && top->is_array()) {
      for (const json& alternative : *top) {
        token.top.emplace_back(alternative.at("token").get<std::string>(),
                               alternative.at("logprob").get<double>());
      }
    }
    tokens->push_back(std::move(token));
  }
}

std::string chat_url(const EndpointOptions& endpoint) {
  return endpoint_url(endpoint, "chat/completions");
}

std::string embeddings_url(const EndpointOptions& endpoint) {
  return endpoint_url(endpoint, "embeddings");
}

std::string props_url(const EndpointOptions& endpoint) {
  std::string root = trimmed_base_url(endpoint);
  if (root.ends_with("/v1")) root.resize(root.size() - 3);
  return root + "/props";
}

int props_total_slots(int status, std::string_view body) {
  json props = status == 200 ? json::parse(body, nullptr, false) : json();
  if (props.is_object() && props.contains("total_slots") &&
      props["total_slots"].is_number_integer()) {
    return props["total_slots"].get<int>();
  }
  return 0;
}

std::vector<std::pair<std::string, std::string>> request_headers(const EndpointOptions& endpoint) {
  std::vector<std::pair<std::string, std::string>> headers = {
      {"Content-Type", "application/json"}};
  std::string key = api_key(endpoint);
  if (key.empty()) return headers;
  if (endpoint.flavor == ApiFlavor::kAzure) {
    headers.emplace_back("api-key", key);
  } else {
    headers.emplace_back("Authorization", "Bearer " + key);
  }
  return headers;
}

std::string redact_key(std::string text, const EndpointOptions& endpoint) {
  return redact_secret(std::move(text), api_key(endpoint));
}

FormatStep first_format_step(const ChatRequest& request) { return step_of(request.format); }

std::optional<FormatStep> weaker_format_step(FormatStep step, const ChatRequest& request) {
  switch (step) {
    case FormatStep::kJsonSchema:
      return request.schema.is_object() ? FormatStep::kJsonObjectWithSchema
                                        : FormatStep::kJsonObject;
    case FormatStep::kJsonObjectWithSchema: return FormatStep::kJsonObject;
    case FormatStep::kJsonObject: return FormatStep::kText;
    case FormatStep::kText: break;
  }
  return std::nullopt;
}

bool is_format_rejection(int status, std::string_view body) {
  if (status == 400) return true;
  switch (status) {
    case 401: case 403: case 404: case 408: case 409: case 429: return false;
    default: break;
  }
  if ((status > 400 && status < 500) || status == 500) return mentions_response_format(body);
  return false;
}

nlohmann::json chat_request_body(const EndpointOptions& endpoint, const ChatRequest& request,
                                 ReplyFormat sent) {
  return chat_request_body(endpoint, request, step_of(sent));
}

nlohmann::json message_content(const ChatMessage& message) {
  if (message.parts.empty()) return message.content;
  json parts = json::array();
  for (const ContentPart& part : message.parts) {
    if (part.image_url.empty()) {
      parts.push_back({{"type", "text"}, {"text", part.text}});
      continue;
    }
    json image = {{"url", part.image_url}};
    if (!part.detail.empty()) image["detail"] = part.detail;
    parts.push_back({{"type", "image_url"}, {"image_url", std::move(image)}});
  }
  return parts;
}

std::int64_t estimate_image_tokens(int width, int height, std::string_view detail) {
  if (detail == "low") return 85;
  double w = std::max(width, 1), h = std::max(height, 1);
  const double fit = std::min(1.0, 2048.0 / std::max(w, h));
  w *= fit;
  h *= fit;
  const double shorter = std::min(1.0, 768.0 / std::min(w, h));
  w *= shorter;
  h *= shorter;
  const auto tiles = static_cast<std::int64_t>(std::ceil(w / 512.0) * std::ceil(h / 512.0));
  return 170 * tiles + 85;
}

nlohmann::json chat_request_body(const EndpointOptions& endpoint, const ChatRequest& request,
                                 FormatStep sent) {
  json body = base_body(endpoint);
  json messages = json::array();
  for (const ChatMessage& message : request.messages) {
    messages.push_back({{"role", message.role}, {"content", message_content(message)}});
  }
  if (sent < first_format_step(request)) {
    append_to_last_user_message(messages, json_only_hint(request));
  }
  body["messages"] = std::move(messages);
  body["temperature"] = request.temperature;
  body["max_tokens"] = request.max_tokens;
  if (request.seed) body["seed"] = *request.seed;
  if (request.n != 1) body["n"] = request.n;
  if (sent != FormatStep::kText) body["response_format"] = response_format(request, sent);
  if (request.top_logprobs > 0) {
    body["logprobs"] = true;
    body["top_logprobs"] = request.top_logprobs;
  }
  if (request.extra.is_object()) body.merge_patch(request.extra);
  return body;
}

nlohmann::json repair_request_body(const nlohmann::json& sent_body, std::string_view bad_reply,
                                   std::string_view problem) {
  json body = sent_body;
  body.erase("n");
  json& messages = body["messages"];
  messages.push_back({{"role", "assistant"}, {"content", std::string(bad_reply)}});
  messages.push_back(
      {{"role", "user"},
       {"content", "Your reply could not be used: " + std::string(problem) +
                       ". Reply again with only the corrected JSON value, nothing else."}});
  return body;
}

nlohmann::json embedding_request_body(const EndpointOptions& endpoint,
                                      const EmbeddingRequest& request) {
  json body = base_body(endpoint);
  body["input"] = request.inputs;
  return body;
}

double estimate_tokens(const ChatRequest& request) {
  size_t characters = 0;
  double image_tokens = 0;
  for (const ChatMessage& message : request.messages) {
    characters += message.content.size();
    for (const ContentPart& part : message.parts) {
      characters += part.text.size();
      image_tokens += static_cast<double>(part.estimated_tokens);
    }
  }
  if (!request.schema.is_null()) characters += request.schema.dump().size();
  return static_cast<double>(characters) / 4.0 + image_tokens +
         static_cast<double>(request.max_tokens) * std::max(request.n, 1);
}

Status check_reply_envelope(std::string_view body) { return parse_body(body).status(); }

StatusOr<ChatResponse> parse_chat_reply(std::string_view body) {
  return parse_guarded<ChatResponse>(body, parse_chat_json);
}

StatusOr<EmbeddingResponse> parse_embedding_reply(std::string_view body, size_t expected) {
  return parse_guarded<EmbeddingResponse>(
      body, [expected](const json& reply) { return parse_embedding_json(reply, expected); });
}

std::string server_error_message(std::string_view body) {
  constexpr size_t kLimit = 300;
  json parsed = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_object()) {
    const json& error = parsed.contains("error") ? parsed["error"] : parsed;
    if (error.is_string()) return one_line(error.get<std::string>(), kLimit);
    for (const char* field : {"message", "detail"}) {
      if (error.is_object() && error.contains(field) && error[field].is_string()) {
        return one_line(error[field].get<std::string>(), kLimit);
      }
    }
  }
  return one_line(body, kLimit);
}

std::string chat_cache_value(const ChatResponse& response) {
  json choices = json::array();
  for (const ChatChoice& choice : response.choices) choices.push_back(choice_cache_json(choice));
  json value = {{"model", response.model},
                {"usage", usage_json(response.usage)},
                {"choices", std::move(choices)}};
  return value.dump();
}

StatusOr<ChatResponse> parse_chat_cache_value(std::string_view text) {
  try {
    json value = json::parse(text);
    ChatResponse response;
    response.model = value.at("model").get<std::string>();
    response.usage = usage_from_cache(value);
    for (const json& choice : value.at("choices")) {
      response.choices.push_back(choice_from_cache(choice));
    }
    return response;
  } catch (const json::exception& error) {
    return invalid_argument(std::string("unreadable cached chat reply: ") + error.what());
  }
}

std::string embedding_cache_value(const EmbeddingResponse& response) {
  json value = {{"usage", usage_json(response.usage)}, {"vectors", response.vectors}};
  return value.dump();
}

StatusOr<EmbeddingResponse> parse_embedding_cache_value(std::string_view text) {
  try {
    json value = json::parse(text);
    EmbeddingResponse response;
    response.usage = usage_from_cache(value);
    response.vectors = value.at("vectors").get<std::vector<std::vector<float>>>();
    return response;
  } catch (const json::exception& error) {
    return invalid_argument(std::string("unreadable cached embedding reply: ") + error.what());
  }
}

}  // namespace ragmeter::llm
