#include "llm/chat_stream.h"

#include "llm/openai_protocol.h"

#include <algorithm>
#include <map>
#include <vector>

#include <nlohmann/json.hpp>

namespace ragmeter::llm {
namespace {

using nlohmann::json;

std::string_view without_cr(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

// The value of a "data:" line (one optional space after the colon, as the SSE spec says).
bool data_value(std::string_view line, std::string_view* value) {
  if (!line.starts_with("data:")) return false;
  line.remove_prefix(5);
  if (!line.empty() && line.front() == ' ') line.remove_prefix(1);
  *value = line;
  return true;
}

// The data of each event, in order: lines of one event joined by "\n".
std::vector<std::string> event_data(std::string_view body) {
  std::vector<std::string> events;
  std::string current;
  bool has_data = false;
  size_t start = 0;
  while (start <= body.size()) {
    size_t end = body.find('\n', start);
    bool last = end == std::string_view::npos;
    std::string_view line = without_cr(body.substr(start, last ? body.size() - start : end - start));
    std::string_view value;
    if (line.empty()) {
      if (has_data) events.push_back(std::move(current));
      current.clear();
      has_data = false;
    } else if (data_value(line, &value)) {
      if (has_data) current += '\n';
      current += value;
      has_data = true;
    }
    if (last) break;
    start = end + 1;
  }
  if (has_data) events.push_back(std::move(current));  // a stream cut before its blank line
  return events;
}

std::string string_or_empty(const json& object, const char* name) {
  auto found = object.find(name);
  return found != object.end() && found->is_string() ? found->get<std::string>() : "";
}

std::int64_t integer_or_zero(const json& object, const char* name) {
  auto found = object.find(name);
  return found != object.end() && found->is_number() ? found->get<std::int64_t>() : 0;
}

std::string one_line(std::string_view text, size_t limit) {
  std::string line(text.substr(0, limit));
  std::replace_if(line.begin(), line.end(), [](char c) { return c == '\n' || c == '\r'; }, ' ');
  return line;
}

StatusOr<ChatResponse> parse_events(const std::vector<std::string>& events, StreamFacts* facts) {
  std::map<std::int64_t, ChatChoice> choices;
  std::map<std::int64_t, std::string> refusals;
  ChatResponse response;
  *facts = StreamFacts{};
  for (const std::string& data : events) {
    if (data == "[DONE]") break;
    json chunk = json::parse(data, nullptr, /*allow_exceptions=*/false);
    if (!chunk.is_object()) return invalid_argument("stream chunk is not a JSON object: " + one_line(data, 120));
    if (chunk.contains("error") && !chunk["error"].is_null()) {
      const json& error = chunk["error"];
      std::string message = error.is_object() ? string_or_empty(error, "message") : error.dump();
      return invalid_argument("server error in stream: " + one_line(message, 300));
    }
    if (std::string model = string_or_empty(chunk, "model"); !model.empty()) response.model = model;
    if (auto usage = chunk.find("usage"); usage != chunk.end() && usage->is_object()) {
      response.usage = parse_usage_object(*usage);
      facts->usage_given = true;
    }
    auto list = chunk.find("choices");
    if (list == chunk.end() || !list->is_array()) continue;
    for (const json& choice : *list) {
      std::int64_t index = integer_or_zero(choice, "index");
      ChatChoice& into = choices[index];
      if (auto delta = choice.find("delta"); delta != choice.end() && delta->is_object()) {
        if (auto content = delta->find("content"); content != delta->end() && content->is_string()) {
          into.content += content->get<std::string>();
          if (!content->get_ref<const std::string&>().empty()) ++facts->content_chunks;
        }
        if (std::string refusal = string_or_empty(*delta, "refusal"); !refusal.empty()) {
          refusals[index] += refusal;
        }
      }
      if (std::string finish = string_or_empty(choice, "finish_reason"); !finish.empty()) {
        into.finish_reason = finish;
      }
      append_logprobs(choice, &into.logprobs);
    }
  }
  if (choices.empty()) return invalid_argument("the stream has no choices");
  for (auto& [index, choice] : choices) {
    if (choice.content.empty() && refusals.contains(index)) {
      return invalid_argument("the model refused: " + one_line(refusals[index], 200));
    }
    response.choices.push_back(std::move(choice));
  }
  return response;
}

}  // namespace

int StreamProgress::feed(std::string_view bytes) {
  int completed = 0;
  while (!bytes.empty()) {
    size_t end = bytes.find('\n');
    if (end == std::string_view::npos) {
      line_.append(bytes);
      break;
    }
    line_.append(bytes.substr(0, end));
    bytes.remove_prefix(end + 1);
    std::string_view line = without_cr(line_);
    std::string_view value;
    if (line.empty()) {
      if (event_has_data_) {
        if (event_is_done_) {
          done_ = true;
        } else {
          ++data_events_;
          ++completed;
        }
      }
      event_has_data_ = event_is_done_ = false;
    } else if (data_value(line, &value)) {
      event_is_done_ = !event_has_data_ && value == "[DONE]";
      event_has_data_ = true;
    }
    line_.clear();
  }
  return completed;
}

StatusOr<ChatResponse> parse_chat_stream(std::string_view body, StreamFacts* facts) {
  std::vector<std::string> events = event_data(body);
  if (events.empty()) return invalid_argument("reply is not an event stream: " + one_line(body, 120));
  try {
    return parse_events(events, facts);
  } catch (const json::exception& error) {
    return invalid_argument(std::string("malformed stream chunk: ") + error.what());
  }
}

bool is_event_stream(const std::string& content_type, std::string_view body) {
  if (content_type.find("text/event-stream") != std::string::npos) return true;
  if (content_type.find("json") != std::string::npos) return false;
  size_t first = body.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && (body.substr(first).starts_with("data:") ||
                                             body.substr(first).starts_with(":"));
}

}  // namespace ragmeter::llm
