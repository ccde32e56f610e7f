// Tolerant JSON for model replies, and the JSON Schema subset the prompts use.
//
// A reply is first tried as strict JSON. Otherwise each '{' or '[' is a candidate, fenced
// blocks (```json ... ```) first, then the rest in text order; a candidate that does not
// parse is skipped as a whole (to its balancing bracket), so an object nested inside a
// broken one is never mistaken for the answer.
#include "llm/reply_json.h"

#include <cmath>
#include <functional>
#include <string>
#include <vector>

namespace ragmeter::llm {
namespace {

using nlohmann::json;

constexpr int kMaxDepth = 200;

// UTF-8 typographic quotes.
constexpr std::string_view kLeftDouble = "\xE2\x80\x9C";
constexpr std::string_view kRightDouble = "\xE2\x80\x9D";
constexpr std::string_view kLeftSingle = "\xE2\x80\x98";
constexpr std::string_view kRightSingle = "\xE2\x80\x99";

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || is_digit(c);
}

void append_utf8(std::string* out, std::uint32_t code_point) {
  if (code_point < 0x80) {
    out->push_back(static_cast<char>(code_point));
  } else if (code_point < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (code_point >> 6)));
    out->push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  } else if (code_point < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (code_point >> 12)));
    out->push_back(static_cast<char>(0x80 | ((code_point >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (code_point >> 18)));
    out->push_back(static_cast<char>(0x80 | ((code_point >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((code_point >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  }
}

// A recursive-descent parser over one candidate. The end of its text counts as a cut:
// open strings, arrays and objects are closed there and a dangling key is dropped.
class LenientParser {
 public:
  explicit LenientParser(std::string_view text) : text_(text) {}

  StatusOr<json> parse() { return value(0); }

 private:
  StatusOr<json> value(int depth) {
    skip_space();
    if (at_end()) return error("expected a value");
    if (depth > kMaxDepth) return error("nesting too deep");
    char c = text_[pos_];
    if (c == '{') return object(depth);
    if (c == '[') return array(depth);
    if (starts_string()) {
      RAGMETER_ASSIGN_OR_RETURN(std::string text, string());
      return json(std::move(text));
    }
    if (c == '-' || is_digit(c)) return number();
    return word();
  }

  StatusOr<json> object(int depth) {
    json result = json::object();
    RAGMETER_RETURN_IF_ERROR(sequence('}', [&] { return member(depth, &result); }));
    return result;
  }

  // "key": value, stored in `object`. A key cut before its value is dropped.
  Status member(int depth, json* object) {
    if (!starts_string()) return error("expected a quoted key or '}'");
    RAGMETER_ASSIGN_OR_RETURN(std::string key, string());
    skip_space();
    if (at_end()) return ok_status();
    if (text_[pos_] != ':') return error("expected ':' after key \"" + key + "\"");
    ++pos_;
    skip_space();
    if (at_end()) return ok_status();
    RAGMETER_ASSIGN_OR_RETURN((*object)[key], value(depth + 1));
    return ok_status();
  }

  StatusOr<json> array(int depth) {
    json result = json::array();
    RAGMETER_RETURN_IF_ERROR(sequence(']', [&]() -> Status {
      RAGMETER_ASSIGN_OR_RETURN(json item, value(depth + 1));
      result.push_back(std::move(item));
      return ok_status();
    }));
    return result;
  }

  // From an opening bracket: elements separated by commas, up to `close` or the end of
  // the text (a cut reply). A trailing comma is allowed.
  Status sequence(char close, const std::function<Status()>& element) {
    ++pos_;
    while (true) {
      skip_space();
      if (at_end()) return ok_status();
      if (text_[pos_] == close) {
        ++pos_;
        return ok_status();
      }
      RAGMETER_RETURN_IF_ERROR(element());
      skip_space();
      if (at_end()) return ok_status();
      if (text_[pos_] == ',') {
        ++pos_;
      } else if (text_[pos_] != close) {
        return error(std::string("expected ',' or '") + close + "'");
      }
    }
  }

  bool starts_string() const {
    std::string_view rest = text_.substr(pos_);
    return rest[0] == '"' || rest[0] == '\'' || rest.starts_with(kLeftDouble) ||
           rest.starts_with(kRightDouble) || rest.starts_with(kLeftSingle);
  }

  // Consumes the opening quote; returns the closing quotes that end this string.
  std::vector<std::string_view> open_quote() {
    std::string_view rest = text_.substr(pos_);
    if (rest[0] == '"' || rest[0] == '\'') {
      ++pos_;
      return {rest.substr(0, 1)};
    }
    pos_ += kLeftDouble.size();  // the typographic quotes are all three bytes long
    if (rest.starts_with(kLeftSingle)) return {kRightSingle};
    return {kRightDouble, kLeftDouble, "\""};  // models mix them up
  }

  StatusOr<std::string> string() {
    std::vector<std::string_view> closers = open_quote();
    std::string out;
    while (!at_end()) {
      for (std::string_view closer : closers) {
        if (text_.substr(pos_).starts_with(closer)) {
          pos_ += closer.size();
          return out;
        }
      }
      char c = text_[pos_++];
      if (c != '\\') {
        out.push_back(c);  // raw newlines and tabs are tolerated
        continue;
      }
      if (at_end()) break;
      RAGMETER_RETURN_IF_ERROR(escape(&out));
    }
    return out;  // cut inside the string: closed here
  }

  Status escape(std::string* out) {
    char c = text_[pos_++];
    if (c == 'u') return unicode_escape(out);
    static constexpr std::string_view kFrom = "ntrbf", kTo = "\n\t\r\b\f";
    std::size_t known = kFrom.find(c);
    out->push_back(known == std::string_view::npos ? c : kTo[known]);  // \" \\ \/ \' as is
    return ok_status();
  }

  bool hex4(std::uint32_t* value) {
    if (text_.size() - pos_ < 4) return false;
    *value = 0;
    for (int i = 0; i < 4; ++i) {
      char c = text_[pos_ + i];
      char lower = static_cast<char>(c | 0x20);
      int digit = is_digit(c) ? c - '0' : lower >= 'a' && lower <= 'f' ? lower - 'a' + 10 : -1;
      if (digit < 0) return false;
      *value = *value * 16 + static_cast<std::uint32_t>(digit);
    }
    pos_ += 4;
    return true;
  }

  Status unicode_escape(std::string* out) {
    std::uint32_t unit = 0;
    if (!hex4(&unit)) return error("bad \\u escape");
    if (unit >= 0xD800 && unit < 0xDC00 && text_.substr(pos_).starts_with("\\u")) {
      std::size_t saved = pos_;
      pos_ += 2;
      std::uint32_t low = 0;
      if (hex4(&low) && low >= 0xDC00 && low < 0xE000) {
        append_utf8(out, 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00));
        return ok_status();
      }
      pos_ = saved;
    }
    bool lone_surrogate = unit >= 0xD800 && unit < 0xE000;
    append_utf8(out, lone_surrogate ? 0xFFFD : unit);
    return ok_status();
  }

  StatusOr<json> number() {
    std::size_t start = pos_;
    if (text_[pos_] == '-') ++pos_;
    if (!at_end() && text_.substr(pos_).starts_with("Infinity")) {
      return error("Infinity is not a JSON number");
    }
    auto digits = [&] {
      std::size_t from = pos_;
      while (!at_end() && is_digit(text_[pos_])) ++pos_;
      return pos_ > from;
    };
    bool ok = digits();
    if (ok && !at_end() && text_[pos_] == '.') ++pos_, ok = digits();
    if (ok && !at_end() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      ++pos_;
      if (!at_end() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      ok = digits();
    }
    json number;
    if (ok) number = json::parse(text_.substr(start, pos_ - start), nullptr, false);
    if (!ok || number.is_discarded()) {
      pos_ = start;
      return error("malformed number");
    }
    return number;
  }

  StatusOr<json> word() {
    std::size_t start = pos_;
    while (!at_end() && is_word_char(text_[pos_])) ++pos_;
    std::string_view word = text_.substr(start, pos_ - start);
    if (word == "true" || word == "True") return json(true);
    if (word == "false" || word == "False") return json(false);
    if (word == "null" || word == "None") return json(nullptr);
    pos_ = start;
    if (word == "NaN" || word == "nan" || word == "Infinity") {
      return error(std::string(word) + " is not a JSON number");
    }
    return error("unexpected " + (word.empty() ? "character '" + std::string(1, text_[pos_]) + "'"
                                               : "word '" + std::string(word) + "'"));
  }

  void skip_space() {
    while (!at_end() && is_space(text_[pos_])) ++pos_;
  }
  bool at_end() const { return pos_ >= text_.size(); }
  Status error(const std::string& what) const {
    return invalid_argument("reply is not JSON: " + what + " at offset " + std::to_string(pos_) +
                            " of the candidate starting '" + std::string(text_.substr(0, 40)) +
                            "'");
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

struct Span {
  std::size_t begin = 0;
  std::size_t end = 0;
};

// The contents of ```fenced``` blocks; an unclosed fence runs to the end (a cut reply).
std::vector<Span> fenced_blocks(std::string_view text) {
  std::vector<Span> blocks;
  std::size_t from = 0;
  while (true) {
    std::size_t open = text.find("```", from);
    if (open == std::string_view::npos) break;
    std::size_t line_end = text.find('\n', open);
    if (line_end == std::string_view::npos) break;  // "```json" with nothing after it
    std::size_t close = text.find("```", line_end);
    blocks.push_back({line_end + 1, close == std::string_view::npos ? text.size() : close});
    if (close == std::string_view::npos) break;
    from = close + 3;
  }
  return blocks;
}

// Whether a quote at `pos` opens a string: after a bracket, comma or colon, that is,
// where a JSON string may start (so an apostrophe in prose is not one).
bool quote_opens_string(std::string_view text, std::size_t pos) {
  while (pos > 0 && is_space(text[pos - 1])) --pos;
  if (pos == 0) return false;
  char before = text[pos - 1];
  return before == '{' || before == '[' || before == ',' || before == ':';
}

// The index just past the bracket balancing the one at `open` (or text.size() when it
// stays open), skipping brackets inside strings.
std::size_t balanced_end(std::string_view text, std::size_t open) {
  int depth = 0;
  char quote = 0;
  for (std::size_t i = open; i < text.size(); ++i) {
    char c = text[i];
    if (quote != 0) {
      if (c == '\\')
        ++i;
      else if (c == quote)
        quote = 0;
      continue;
    }
    if (c == '"' || (c == '\'' && quote_opens_string(text, i))) quote = c;
    if (c == '{' || c == '[') ++depth;
    if ((c == '}' || c == ']') && --depth == 0) return i + 1;
  }
  return text.size();
}

// The first candidate in `text` that parses; the first candidate's error otherwise.
StatusOr<json> first_candidate(std::string_view text) {
  Status first_error = invalid_argument("reply is not JSON: no '{' or '[' in it");
  bool seen = false;
  std::size_t from = 0;
  while (true) {
    std::size_t open = text.find_first_of("{[", from);
    if (open == std::string_view::npos) return first_error;
    StatusOr<json> parsed = LenientParser(text.substr(open)).parse();
    if (parsed.ok()) return parsed;
    if (!seen) first_error = parsed.status();
    seen = true;
    from = balanced_end(text, open);
  }
}

}  // namespace

StatusOr<json> parse_reply_json(std::string_view reply) {
  json strict = json::parse(reply, nullptr, /*allow_exceptions=*/false);
  if (!strict.is_discarded()) return strict;
  for (const Span& block : fenced_blocks(reply)) {
    StatusOr<json> parsed = first_candidate(reply.substr(block.begin, block.end - block.begin));
    if (parsed.ok()) return parsed;
  }
  return first_candidate(reply);
}

// ---------------------------------------------------------------------------------------
// Schema subset.

namespace {

std::string member_path(const std::string& path, const std::string& key) {
  bool identifier = !key.empty() && !is_digit(key[0]);
  for (char c : key) identifier = identifier && is_word_char(c);
  if (identifier) return path + "." + key;
  return path + "[" + json(key).dump(-1, ' ', false, json::error_handler_t::replace) + "]";
}

bool has_type(const json& value, const std::string& type) {
  if (type == "object") return value.is_object();
  if (type == "array") return value.is_array();
  if (type == "string") return value.is_string();
  if (type == "boolean") return value.is_boolean();
  if (type == "null") return value.is_null();
  if (type == "number") return value.is_number();
  if (type == "integer") {
    if (value.is_number_integer()) return true;
    // JSON Schema counts 1.0 as an integer.
    return value.is_number_float() && std::isfinite(value.get<double>()) &&
           std::floor(value.get<double>()) == value.get<double>();
  }
  return true;  // an unknown type name constrains nothing
}

Status fail(const std::string& path, const std::string& what) {
  return invalid_argument(path + ": " + what);
}

Status check_type(const json& value, const json& type, const std::string& path) {
  std::vector<std::string> names;
  if (type.is_string()) names.push_back(type.get<std::string>());
  if (type.is_array()) {
    for (const json& name : type) {
      if (name.is_string()) names.push_back(name.get<std::string>());
    }
  }
  std::string expected;
  for (const std::string& name : names) {
    if (has_type(value, name)) return ok_status();
    expected += (expected.empty() ? "" : " or ") + name;
  }
  return expected.empty() ? ok_status() : fail(path, "expected " + expected);
}

Status check_enum(const json& value, const json& options, const std::string& path) {
  if (!options.is_array()) return ok_status();
  for (const json& option : options) {
    if (value == option) return ok_status();
  }
  return fail(path, "expected one of " + options.dump());
}

Status check_range(const json& value, const json& schema, const std::string& path) {
  if (!value.is_number()) return ok_status();
  double number = value.get<double>();
  auto bound = schema.find("minimum");
  if (bound != schema.end() && bound->is_number() && number < bound->get<double>()) {
    return fail(path, "below the minimum " + bound->dump());
  }
  bound = schema.find("maximum");
  if (bound != schema.end() && bound->is_number() && number > bound->get<double>()) {
    return fail(path, "above the maximum " + bound->dump());
  }
  return ok_status();
}

Status check_value(const json& value, const json& schema, const std::string& path);

Status check_object(const json& value, const json& schema, const std::string& path) {
  if (!value.is_object()) return ok_status();
  auto required = schema.find("required");
  if (required != schema.end() && required->is_array()) {
    for (const json& name : *required) {
      if (name.is_string() && !value.contains(name.get<std::string>())) {
        return fail(member_path(path, name.get<std::string>()), "required property missing");
      }
    }
  }
  auto properties = schema.find("properties");
  auto additional = schema.find("additionalProperties");
  for (const auto& [key, member] : value.items()) {
    std::string child = member_path(path, key);
    if (properties != schema.end() && properties->is_object() && properties->contains(key)) {
      RAGMETER_RETURN_IF_ERROR(check_value(member, (*properties)[key], child));
    } else if (additional != schema.end() && additional->is_boolean() && !additional->get<bool>()) {
      return fail(child, "unexpected property");
    } else if (additional != schema.end() && additional->is_object()) {
      RAGMETER_RETURN_IF_ERROR(check_value(member, *additional, child));
    }
  }
  return ok_status();
}

Status check_array(const json& value, const json& schema, const std::string& path) {
  if (!value.is_array()) return ok_status();
  auto min_items = schema.find("minItems");
  if (min_items != schema.end() && min_items->is_number() &&
      static_cast<double>(value.size()) < min_items->get<double>()) {
    return fail(path, "expected at least " + min_items->dump() + " items, got " +
                          std::to_string(value.size()));
  }
  auto max_items = schema.find("maxItems");
  if (max_items != schema.end() && max_items->is_number() &&
      static_cast<double>(value.size()) > max_items->get<double>()) {
    return fail(path, "expected at most " + max_items->dump() + " items, got " +
                          std::to_string(value.size()));
  }
  auto items = schema.find("items");
  if (items == schema.end() || !items->is_object()) return ok_status();
  for (std::size_t i = 0; i < value.size(); ++i) {
    RAGMETER_RETURN_IF_ERROR(check_value(value[i], *items, path + "[" + std::to_string(i) + "]"));
  }
  return ok_status();
}

Status check_value(const json& value, const json& schema, const std::string& path) {
  if (schema.is_boolean() && !schema.get<bool>()) return fail(path, "no value is allowed here");
  if (!schema.is_object()) return ok_status();
  if (auto type = schema.find("type"); type != schema.end()) {
    RAGMETER_RETURN_IF_ERROR(check_type(value, *type, path));
  }
  if (auto options = schema.find("enum"); options != schema.end()) {
    RAGMETER_RETURN_IF_ERROR(check_enum(value, *options, path));
  }
  RAGMETER_RETURN_IF_ERROR(check_range(value, schema, path));
  RAGMETER_RETURN_IF_ERROR(check_object(value, schema, path));
  return check_array(value, schema, path);
}

}  // namespace

Status check_schema(const json& value, const json& schema) {
  return check_value(value, schema, "$");
}

}  // namespace ragmeter::llm
