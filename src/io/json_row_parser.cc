// JsonRowParser: simdjson's DOM parser, its tree copied into nlohmann::ordered_json.
//
// nlohmann's lexer reads a character at a time and was most of the cost of reading a
// row; simdjson validates and parses with SIMD instructions, and copying its tree into
// the ordered_json the rest of the library uses costs far less. The copy must give the
// value nlohmann would have given, types included, so three cases go back to nlohmann:
//  - anything simdjson rejects (malformed JSON, invalid UTF-8, numbers out of double's
//    range, nesting deeper than 1024 levels, which nlohmann accepts): the errors keep
//    nlohmann's message and position, and the UTF-8 error names its field, as before;
//  - a root that is not an object (an error message of parse_json_row's);
//  - the number -0: nlohmann makes "-0" a signed integer and "-0.0" a double, where
//    simdjson's tree holds an int64 0 or a double -0.0, so both are re-read by nlohmann.
// Duplicate keys behave as in nlohmann: the last value, at the first key's place; a
// repeated top-level key is reported as a warning.

#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <simdjson.h>

#include "io/readers.h"

namespace ragmeter::readers {
namespace {

namespace dom = simdjson::dom;
using Json = nlohmann::ordered_json;

// simdjson keeps about 15 bytes of buffers per byte of the largest row it has parsed;
// after a row larger than this the parser is replaced, so that one huge row does not
// pin that memory for the rest of the file.
constexpr std::size_t kMaxKeptCapacity = std::size_t{1} << 20;

// dom::array and dom::object count their elements up to this value only.
constexpr std::size_t kSaturatedCount = 0xFFFFFF;

// Copies a simdjson tree into nlohmann's. Returns false when nlohmann must parse the
// row itself (see the file comment); `out` is then partly filled.
class TreeCopier {
 public:
  bool copy(dom::element from, Json* out) {
    switch (from.type()) {
      case dom::element_type::OBJECT:
        return copy_object(from.get_object().value_unsafe(), out);
      case dom::element_type::ARRAY:
        return copy_array(from.get_array().value_unsafe(), out);
      case dom::element_type::STRING:
        *out = Json::string_t(from.get_string().value_unsafe());
        return true;
      case dom::element_type::INT64: {
        const std::int64_t value = from.get_int64().value_unsafe();
        // nlohmann stores numbers without a minus sign as unsigned.
        if (value >= 0) {
          saw_integer_zero_ |= value == 0;
          *out = static_cast<std::uint64_t>(value);
        } else {
          *out = value;
        }
        return true;
      }
      case dom::element_type::UINT64:
        *out = from.get_uint64().value_unsafe();
        return true;
      case dom::element_type::DOUBLE: {
        const double value = from.get_double().value_unsafe();
        if (value == 0 && std::signbit(value)) return false;
        *out = value;
        return true;
      }
      case dom::element_type::BOOL:
        *out = from.get_bool().value_unsafe();
        return true;
      case dom::element_type::NULL_VALUE:
        *out = nullptr;
        return true;
    }
    return false;
  }

  // True when an integer 0 was copied: it may have been written -0.
  bool saw_integer_zero() const { return saw_integer_zero_; }

 private:
  bool copy_object(dom::object from, Json* out) {
    *out = Json(Json::value_t::object);
    auto& object = out->get_ref<Json::object_t&>();
    if (const std::size_t size = from.size(); size < kSaturatedCount) object.reserve(size);
    const bool top = depth_++ == 0;
    for (const dom::key_value_pair field : from) {
      const std::size_t before = object.size();
      // ordered_map's operator[] finds a duplicate key's first place, as nlohmann's parser does.
      Json& value = object[field.key];
      if (top && object.size() == before) duplicates_.emplace_back(field.key);
      if (!copy(field.value, &value)) return false;
    }
    --depth_;
    return true;
  }

 public:
  // The row's top-level keys that appeared more than once, in order.
  const std::vector<std::string>& duplicates() const { return duplicates_; }

 private:

  bool copy_array(dom::array from, Json* out) {
    *out = Json(Json::value_t::array);
    auto& array = out->get_ref<Json::array_t&>();
    if (const std::size_t size = from.size(); size < kSaturatedCount) array.reserve(size);
    for (const dom::element element : from) {
      if (!copy(element, &array.emplace_back())) return false;
    }
    return true;
  }

  bool saw_integer_zero_ = false;
  int depth_ = 0;
  std::vector<std::string> duplicates_;
};

// True when `text`, valid JSON, has the number -0 (not -0.0 or -0e0) outside strings.
bool has_negative_integer_zero(std::string_view text) {
  if (text.find("-0") == std::string_view::npos) return false;
  JsonStringTracker strings;
  for (std::size_t i = 0; i + 1 < text.size(); ++i) {
    if (strings.take(static_cast<unsigned char>(text[i]))) continue;
    if (text[i] != '-' || text[i + 1] != '0') continue;
    const char after = i + 2 < text.size() ? text[i + 2] : ' ';
    if (after != '.' && after != 'e' && after != 'E') return true;
  }
  return false;
}

}  // namespace

struct JsonRowParser::Simdjson {
  dom::parser parser;
};

JsonRowParser::JsonRowParser() : simdjson_(std::make_unique<Simdjson>()) {}

JsonRowParser::~JsonRowParser() = default;

std::optional<RowProblem> JsonRowParser::parse(std::string_view text, TextPosition origin,
                                               nlohmann::ordered_json* fields,
                                               std::vector<std::string>* warnings) {
  if (warnings != nullptr) warnings->clear();
  dom::parser& parser = simdjson_->parser;
  dom::element root;
  // realloc_if_needed: simdjson reads up to SIMDJSON_PADDING bytes past the end, so it
  // copies the text into a padded buffer it keeps.
  bool copied = parser.parse(text.data(), text.size(), /*realloc_if_needed=*/true).get(root) ==
                    simdjson::SUCCESS &&
                root.is_object();
  if (copied) {
    TreeCopier copier;
    copied = copier.copy(root, fields) &&
             !(copier.saw_integer_zero() && has_negative_integer_zero(text));
    if (copied && warnings != nullptr) {
      for (const std::string& key : copier.duplicates()) {
        warnings->push_back("duplicate key '" + key + "': the last value is used");
      }
    }
  }
  if (parser.capacity() > kMaxKeptCapacity) parser = dom::parser();
  if (copied) return std::nullopt;
  return parse_json_row(text, origin, fields);
}

}  // namespace ragmeter::readers
