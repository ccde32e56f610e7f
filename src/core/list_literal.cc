// List-valued cells: a JSON array, or the Python list literal that pandas writes to CSV
// for a list column (str(list), i.e. repr of each element).

#include "core/list_literal.h"

#include <cctype>
#include <charconv>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

#include <unicode/utf8.h>

#include "ragmeter/utf8.h"


namespace ragmeter {
namespace {

using nlohmann::ordered_json;

bool is_space(int c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

bool is_word_char(int c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
         c == '.' || c == '+' || c == '-';
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// ICU's encoder (the library links ICU already). Surrogates never get here.
void append_utf8(char32_t code_point, std::string* out) {
  std::uint8_t bytes[U8_MAX_LENGTH];
  std::int32_t length = 0;
  U8_APPEND_UNSAFE(bytes, length, static_cast<UChar32>(code_point));
  out->append(reinterpret_cast<const char*>(bytes), static_cast<std::size_t>(length));
}

bool is_high_surrogate(char32_t c) { return c >= 0xD800 && c <= 0xDBFF; }
bool is_low_surrogate(char32_t c) { return c >= 0xDC00 && c <= 0xDFFF; }

// The number, True/False/None or nan/inf that `word` spells in Python, if any.
std::optional<ordered_json> python_scalar(std::string_view word) {
  if (word == "True") return ordered_json(true);
  if (word == "False") return ordered_json(false);
  if (word == "None") return ordered_json(nullptr);
  const bool negative = word.starts_with('-');
  if (negative || word.starts_with('+')) word.remove_prefix(1);
  if (word == "inf" || word == "nan") {
    const double value = word == "inf" ? std::numeric_limits<double>::infinity()
                                       : std::numeric_limits<double>::quiet_NaN();
    return ordered_json(negative ? -value : value);
  }
  // Python allows 1_000 for 1000.
  std::string digits;
  if (negative) digits.push_back('-');
  for (char c : word) {
    if (c != '_') digits.push_back(c);
  }
  if (word.empty() || !(std::isdigit(static_cast<unsigned char>(word[0])) || word[0] == '.')) {
    return std::nullopt;
  }
  const char* first = digits.data();
  const char* last = digits.data() + digits.size();
  if (digits.find_first_of(".eE") == std::string::npos) {
    std::int64_t integer = 0;
    const auto [end, error] = std::from_chars(first, last, integer);
    if (error == std::errc() && end == last) return ordered_json(integer);
    std::uint64_t unsigned_integer = 0;
    const auto [unsigned_end, unsigned_error] = std::from_chars(first, last, unsigned_integer);
    if (unsigned_error == std::errc() && unsigned_end == last) return ordered_json(unsigned_integer);
  }
  // Also integers too large for 64 bits, which Python has and JSON readers make doubles.
  double real = 0;
  const auto [end, error] = std::from_chars(first, last, real);
  if (error == std::errc() && end == last) return ordered_json(real);
  return std::nullopt;
}

// A recursive-descent parser for one flat Python list literal.
class PythonListParser {
 public:
  explicit PythonListParser(std::string_view text) : text_(text) {}

  StatusOr<ordered_json> parse() {
    skip_space();
    if (peek() != '[') return error("expected '['");
    ++pos_;
    ordered_json list = ordered_json::array();
    skip_space();
    while (peek() != ']') {
      RAGMETER_ASSIGN_OR_RETURN(ordered_json element, parse_element());
      list.push_back(std::move(element));
      skip_space();
      if (peek() == ',') {
        ++pos_;  // a trailing comma before ']' is allowed, as in Python
        skip_space();
      } else if (peek() != ']') {
        return error("expected ',' or ']'");
      }
    }
    ++pos_;
    skip_space();
    if (pos_ != text_.size()) return error("unexpected text after the list");
    return list;
  }

 private:
  static constexpr int kEnd = -1;

  int peek() const { return pos_ < text_.size() ? static_cast<unsigned char>(text_[pos_]) : kEnd; }

  void skip_space() {
    while (is_space(peek())) ++pos_;
  }

  Status error(const std::string& what, std::size_t offset) const {
    return invalid_argument("not a JSON array or Python list literal: " + what +
                            " at byte offset " + std::to_string(offset));
  }
  Status error(const std::string& what) const { return error(what, pos_); }

  StatusOr<ordered_json> parse_element() {
    const int c = peek();
    if (c == '\'' || c == '"') {
      RAGMETER_ASSIGN_OR_RETURN(std::string text, parse_string());
      return ordered_json(std::move(text));
    }
    if (c == '[') return error("nested lists are not supported");
    if (c == kEnd) return error("unexpected end of input");
    if (!is_word_char(c)) return error("unexpected character '" + std::string(1, static_cast<char>(c)) + "'");
    const std::size_t start = pos_;
    while (is_word_char(peek())) ++pos_;
    const std::string_view word = text_.substr(start, pos_ - start);
    if (auto scalar = python_scalar(word)) return std::move(*scalar);
    return error("unexpected '" + std::string(word) + "'", start);
  }

  // A single- or double-quoted string at pos_, with Python's escapes.
  StatusOr<std::string> parse_string() {
    const std::size_t start = pos_;
    const char quote = text_[pos_++];
    std::string out;
    for (;;) {
      if (pos_ >= text_.size()) return error("unterminated string", start);
      const char c = text_[pos_++];
      if (c == quote) return out;
      if (c == '\\') {
        RAGMETER_RETURN_IF_ERROR(parse_escape(&out));
      } else {
        out.push_back(c);
      }
    }
  }

  // The escape after a backslash (pos_ is just past the backslash).
  Status parse_escape(std::string* out) {
    if (pos_ >= text_.size()) return error("unterminated string");
    const char c = text_[pos_++];
    switch (c) {
      case '\n': return ok_status();  // a backslash at the end of a line joins lines
      case '\\': case '\'': case '"': out->push_back(c); return ok_status();
      case 'a': out->push_back('\a'); return ok_status();
      case 'b': out->push_back('\b'); return ok_status();
      case 'f': out->push_back('\f'); return ok_status();
      case 'n': out->push_back('\n'); return ok_status();
      case 'r': out->push_back('\r'); return ok_status();
      case 't': out->push_back('\t'); return ok_status();
      case 'v': out->push_back('\v'); return ok_status();
      case 'x': return parse_code_point(2, out);
      case 'u': return parse_code_point(4, out);
      case 'U': return parse_code_point(8, out);
      default: break;
    }
    if (c >= '0' && c <= '7') {
      char32_t value = static_cast<char32_t>(c - '0');
      for (int i = 0; i < 2 && peek() >= '0' && peek() <= '7'; ++i) {
        value = value * 8 + static_cast<char32_t>(text_[pos_++] - '0');
      }
      append_utf8(value, out);
      return ok_status();
    }
    // Python keeps an unknown escape as it is, backslash included.
    out->push_back('\\');
    out->push_back(c);
    return ok_status();
  }

  // Reads exactly `digits` hex digits at pos_.
  std::optional<char32_t> parse_hex(int digits) {
    char32_t value = 0;
    for (int i = 0; i < digits; ++i) {
      const int digit = pos_ < text_.size() ? hex_value(text_[pos_]) : -1;
      if (digit < 0) return std::nullopt;
      value = value * 16 + static_cast<char32_t>(digit);
      ++pos_;
    }
    return value;
  }

  // \xNN, \uNNNN or \UNNNNNNNN. Python strings may hold lone surrogates, but UTF-8
  // cannot: a \uD83D\uDE00 pair (as JSON writes it) is joined, a lone one is an error.
  Status parse_code_point(int digits, std::string* out) {
    const std::size_t start = pos_ - 2;  // the backslash
    std::optional<char32_t> value = parse_hex(digits);
    if (!value) return error("truncated \\" + std::string(1, text_[start + 1]) + " escape", start);
    if (is_high_surrogate(*value) && text_.substr(pos_, 2) == "\\u") {
      const std::size_t low_start = pos_;
      pos_ += 2;
      const std::optional<char32_t> low = parse_hex(4);
      if (low && is_low_surrogate(*low)) {
        *value = 0x10000 + ((*value - 0xD800) << 10) + (*low - 0xDC00);
      } else {
        pos_ = low_start;  // left for the next escape to read (and reject)
      }
    }
    if (is_high_surrogate(*value) || is_low_surrogate(*value)) {
      return error("lone surrogate escape", start);
    }
    if (*value > 0x10FFFF) return error("escape beyond U+10FFFF", start);
    append_utf8(*value, out);
    return ok_status();
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

}  // namespace

StatusOr<ordered_json> parse_list_literal(std::string_view text) {
  std::size_t bad_offset = 0;
  if (!is_valid_utf8(text, &bad_offset)) {
    return invalid_argument("invalid UTF-8 at byte offset " + std::to_string(bad_offset));
  }
  // JSON first: it is the common case and nlohmann is the stricter, faster parser.
  ordered_json json = ordered_json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_array()) return json;
  return PythonListParser(text).parse();
}

}  // namespace ragmeter
