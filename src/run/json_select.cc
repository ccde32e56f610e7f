#include "run/json_select.h"

#include <charconv>

namespace ragmeter::run {
namespace {

const nlohmann::json* step(const nlohmann::json& value, const std::string& key) {
  if (value.is_object()) {
    auto it = value.find(key);
    return it == value.end() ? nullptr : &*it;
  }
  if (value.is_array()) {
    std::size_t index = 0;
    const char* end = key.data() + key.size();
    auto [ptr, error] = std::from_chars(key.data(), end, index);
    if (key.empty() || error != std::errc() || ptr != end || index >= value.size()) return nullptr;
    return &value[index];
  }
  return nullptr;
}

// RFC 6901: "~1" is '/', "~0" is '~'.
std::string unescape_pointer_token(std::string_view token) {
  std::string out;
  for (std::size_t i = 0; i < token.size(); ++i) {
    if (token[i] == '~' && i + 1 < token.size() && (token[i + 1] == '0' || token[i + 1] == '1')) {
      out += token[i + 1] == '0' ? '~' : '/';
      ++i;
    } else {
      out += token[i];
    }
  }
  return out;
}

}  // namespace

const nlohmann::json* select_json(const nlohmann::json& value, std::string_view selector) {
  const nlohmann::json* current = &value;
  if (selector.empty()) return current;
  const bool pointer = selector.front() == '/';
  const char separator = pointer ? '/' : '.';
  if (pointer) selector.remove_prefix(1);
  while (current != nullptr) {
    std::size_t end = selector.find(separator);
    std::string_view token = selector.substr(0, end);
    current = step(*current, pointer ? unescape_pointer_token(token) : std::string(token));
    if (end == std::string_view::npos) break;
    selector.remove_prefix(end + 1);
  }
  return current;
}

std::string truncate_for_message(std::string_view text, std::size_t limit) {
  if (text.size() <= limit) return std::string(text);
  std::size_t cut = limit;
  // Back up to the start of a UTF-8 sequence.
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return std::string(text.substr(0, cut)) + "... (" + std::to_string(text.size()) + " bytes)";
}

}  // namespace ragmeter::run
