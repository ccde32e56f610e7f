// Probe of the judge client (include/ragmeter/llm.h) against a real OpenAI-compatible
// server, for tests/llm/test_judge_client_e2e.py: `llm_client_probe CONFIG.json`.
//
// CONFIG: {"base_url", "model", "cache_path" (default: none, cache off),
//          "cache_mode" ("rw" | "ro" | "off" | "replay"; default "rw" with a path, else
//          "off"), "concurrency" (4), "timeout_seconds" (300), "max_attempts" (3),
//          "requests": [request, ...]}
// A request: {"kind": "chat" (default), "prompt": TEXT or "messages": [{role, content}],
//             "system": TEXT (optional), "max_tokens" (32), "temperature" (0), "seed",
//             "schema": {...} (asks for json_schema unless "format" says otherwise),
//             "format": "text" | "json_object" | "json_schema"}
//         or {"kind": "embeddings", "inputs": [TEXT, ...]}.
// Every request is started at once (the client's concurrency limit applies), then one
// JSON line per request is printed in request order:
//   {"index", "kind", "ok", "code", "error", "from_cache", "attempts", "seconds",
//    chat: "content", "json" (the parsed reply for JSON formats), "finish_reason",
//          "sent_response_format" (the response_format of the last body sent, or null),
//    embeddings: "count", "dims", "vectors" (the first 8 numbers of each)}
// and a last line {"totals": {"requests", "cache_hits", "failed_calls",
// "prompt_tokens", "completion_tokens"}}. Exit status 0 when the config is usable
// (whatever the calls did), 2 otherwise (the reason on stderr).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <future>
#include <iostream>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "ragmeter/llm.h"
#include "ragmeter/llm_config.h"

namespace {

using nlohmann::json;
using namespace ragmeter;
using namespace ragmeter::llm;
using Clock = std::chrono::steady_clock;

int usage_error(const std::string& message) {
  std::cerr << "llm_client_probe: " << message << "\n";
  return 2;
}

StatusOr<ChatRequest> chat_request(const json& spec) {
  ChatRequest request;
  if (spec.contains("system")) request.messages.push_back({"system", spec["system"].get<std::string>()});
  if (spec.contains("messages")) {
    for (const json& message : spec["messages"]) {
      request.messages.push_back(
          {message.at("role").get<std::string>(), message.at("content").get<std::string>()});
    }
  }
  if (spec.contains("prompt")) request.messages.push_back({"user", spec["prompt"].get<std::string>()});
  if (request.messages.empty()) return invalid_argument("a chat request needs prompt or messages");
  request.max_tokens = spec.value("max_tokens", 32);
  request.temperature = spec.value("temperature", 0.0);
  if (spec.contains("seed")) request.seed = spec["seed"].get<std::int64_t>();
  if (spec.contains("schema")) {
    request.schema = spec["schema"];
    request.format = ReplyFormat::kJsonSchema;
  }
  std::string format = spec.value("format", "");
  if (format == "text") {
    request.format = ReplyFormat::kText;
  } else if (format == "json_object") {
    request.format = ReplyFormat::kJsonObject;
  } else if (format == "json_schema") {
    request.format = ReplyFormat::kJsonSchema;
  } else if (!format.empty()) {
    return invalid_argument("unknown format \"" + format + "\"");
  }
  return request;
}

json status_fields(const Status& status) {
  if (status.ok()) return {{"ok", true}, {"code", "OK"}, {"error", ""}};
  return {{"ok", false}, {"code", status_code_name(status.code())}, {"error", status.to_string()}};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return usage_error("usage: llm_client_probe CONFIG.json");
  std::ifstream file(argv[1]);
  if (!file) return usage_error(std::string("cannot read ") + argv[1]);
  json config = json::parse(file, nullptr, /*allow_exceptions=*/false);
  if (!config.is_object()) return usage_error("the config is not a JSON object");

  ClientOptions options;
  try {
    options.endpoint.base_url = config.value("base_url", "");
    options.endpoint.model = config.value("model", "");
    options.endpoint.api_key_env = config.value("api_key_env", "RAGMETER_PROBE_API_KEY");
    options.endpoint.timeout_seconds = config.value("timeout_seconds", 300.0);
    options.retry.max_attempts = config.value("max_attempts", 3);
    options.retry.initial_backoff_seconds = 0.2;
    options.retry.max_backoff_seconds = 2.0;
    options.limits.max_in_flight = config.value("concurrency", 4);
    options.cache.path = config.value("cache_path", "");
    std::string mode = config.value("cache_mode", options.cache.path.empty() ? "off" : "rw");
    StatusOr<CacheMode> cache_mode = parse_cache_mode(mode);
    if (!cache_mode.ok()) return usage_error(cache_mode.status().to_string());
    options.cache.mode = *cache_mode;
  } catch (const json::exception& error) {
    return usage_error(std::string("bad config: ") + error.what());
  }

  StatusOr<std::unique_ptr<Client>> made = make_client(options);
  if (!made.ok()) return usage_error(made.status().to_string());
  std::unique_ptr<Client> client = std::move(made).value();

  struct Started {
    std::string kind;
    std::string key;
    std::variant<std::future<StatusOr<ChatResponse>>, std::future<StatusOr<EmbeddingResponse>>>
        future;
  };
  std::vector<Started> started;
  const Clock::time_point start = Clock::now();
  try {
    for (const json& spec : config.value("requests", json::array())) {
      std::string kind = spec.value("kind", "chat");
      if (kind == "chat") {
        StatusOr<ChatRequest> request = chat_request(spec);
        if (!request.ok()) return usage_error(request.status().to_string());
        std::string key = chat_cache_key(options.endpoint, *request);
        started.push_back({kind, key, client->chat(std::move(request).value())});
      } else if (kind == "embeddings") {
        EmbeddingRequest request{spec.at("inputs").get<std::vector<std::string>>()};
        std::string key = embedding_cache_key(options.endpoint, request);
        started.push_back({kind, key, client->embed(std::move(request))});
      } else {
        return usage_error("unknown request kind \"" + kind + "\"");
      }
    }
  } catch (const json::exception& error) {
    return usage_error(std::string("bad request in the config: ") + error.what());
  }

  std::vector<json> lines;
  for (size_t i = 0; i < started.size(); ++i) {
    json line = {{"index", i}, {"kind", started[i].kind}};
    if (auto* chat = std::get_if<0>(&started[i].future)) {
      StatusOr<ChatResponse> reply = chat->get();
      line.update(status_fields(reply.status()));
      if (reply.ok()) {
        const ChatChoice& choice = reply->choices.front();
        line["content"] = choice.content;
        line["json"] = choice.json ? *choice.json : json();
        line["finish_reason"] = choice.finish_reason;
        line["from_cache"] = reply->from_cache;
        line["attempts"] = reply->attempts;
      }
    } else {
      StatusOr<EmbeddingResponse> reply = std::get<1>(started[i].future).get();
      line.update(status_fields(reply.status()));
      if (reply.ok()) {
        line["count"] = reply->vectors.size();
        json dims = json::array();
        json heads = json::array();
        for (const std::vector<float>& vector : reply->vectors) {
          dims.push_back(vector.size());
          heads.push_back(std::vector<float>(vector.begin(),
                                             vector.begin() + std::min<size_t>(8, vector.size())));
        }
        line["dims"] = std::move(dims);
        line["vectors"] = std::move(heads);
        line["from_cache"] = reply->from_cache;
        line["attempts"] = reply->attempts;
      }
    }
    line["seconds"] = std::chrono::duration<double>(Clock::now() - start).count();
    lines.push_back(std::move(line));
  }

  // The response_format each chat call last sent, from the traces (matched by key).
  std::vector<CallTrace> traces = client->traces();
  for (size_t i = 0; i < started.size(); ++i) {
    if (started[i].kind != "chat") continue;
    lines[i]["sent_response_format"] = nullptr;
    for (const CallTrace& trace : traces) {
      if (trace.cache_key == started[i].key && !trace.from_cache &&
          trace.request.is_object() && trace.request.contains("response_format")) {
        lines[i]["sent_response_format"] = trace.request["response_format"];
      }
    }
  }
  for (const json& line : lines) std::cout << line.dump() << "\n";

  UsageTotals totals = client->totals();
  std::cout << json{{"totals",
                     {{"requests", totals.requests},
                      {"cache_hits", totals.cache_hits},
                      {"failed_calls", totals.failed_calls},
                      {"prompt_tokens", totals.tokens.prompt_tokens},
                      {"completion_tokens", totals.tokens.completion_tokens}}}}
                   .dump()
            << "\n";
  return 0;
}
