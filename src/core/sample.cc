// Row -> Sample: field lookup by ragas names and legacy aliases, list parsing.
#include "ragmeter/sample.h"

#include <string_view>

#include "core/list_literal.h"
#include "ragmeter/language.h"

namespace ragmeter {
namespace {

using Json = nlohmann::ordered_json;

// Canonical field and the legacy names that also fill it, in order of preference.
struct FieldAliases {
  std::string_view field;
  std::vector<std::string_view> names;
};

const std::vector<FieldAliases>& field_aliases() {
  static const std::vector<FieldAliases> kAliases = {
      {"user_input", {"user_input", "question"}},
      {"response", {"response", "answer"}},
      {"retrieved_contexts", {"retrieved_contexts", "contexts"}},
      {"reference", {"reference", "ground_truth", "ground_truths"}},
      {"reference_contexts", {"reference_contexts"}},
      {"retrieved_context_ids", {"retrieved_context_ids"}},
      {"reference_context_ids", {"reference_context_ids"}},
      {"rubrics", {"rubrics"}},
      {"language", {"language"}},
  };
  return kAliases;
}

Status field_error(std::string_view name, std::string_view message) {
  return invalid_argument("field '" + std::string(name) + "': " + std::string(message));
}

// Finds the value of canonical `field`: first a user column mapped onto it, then the
// canonical name, then the legacy names. Null values count as absent.
// The value of column `name` if present and not null. A row has few columns: a scan
// with no key string built is cheaper than find().
const Json* column_value(const Json& fields, std::string_view name) {
  for (auto it = fields.begin(); it != fields.end(); ++it) {
    if (it.key() == name) return it->is_null() ? nullptr : &*it;
  }
  return nullptr;
}

// A mapped column: the top-level column of that exact name, else, when the name has
// dots, the value at that path of nested objects ("meta.question").
const Json* mapped_column_value(const Json& fields, std::string_view column) {
  if (const Json* value = column_value(fields, column)) return value;
  if (column.find('.') == std::string_view::npos) return nullptr;
  const Json* at = &fields;
  for (std::size_t start = 0;;) {
    const std::size_t dot = column.find('.', start);
    if (!at->is_object()) return nullptr;
    at = column_value(*at, column.substr(start, dot == std::string_view::npos
                                                    ? std::string_view::npos
                                                    : dot - start));
    if (at == nullptr || dot == std::string_view::npos) return at;
    start = dot + 1;
  }
}

// `*found_name` views the column map or the alias table, which outlive the call.
const Json* lookup(const Json& fields, std::string_view field, const ColumnMap& column_map,
                   std::string_view* found_name) {
  for (const auto& [column, target] : column_map) {
    if (target != field) continue;
    if (const Json* value = mapped_column_value(fields, column)) {
      *found_name = column;
      return value;
    }
  }
  for (const auto& aliases : field_aliases()) {
    if (aliases.field != field) continue;
    for (std::string_view name : aliases.names) {
      if (const Json* value = column_value(fields, name)) {
        *found_name = name;
        return value;
      }
    }
  }
  return nullptr;
}

// One rule for text: a text field takes a JSON string and nothing else. A number or a
// boolean is not silently turned into text ("response": 42 would otherwise match the
// reference "42"); the row is rejected with the field named, as ragas's own sample
// model (pydantic) rejects it.
std::string a_type_name(const Json& value) {
  const std::string name = value.type_name();
  return (name == "object" || name == "array" ? "an " : "a ") + name;
}

StatusOr<std::string> as_string(const Json& value, std::string_view name) {
  if (value.is_string()) return value.get<std::string>();
  const bool scalar = value.is_number() || value.is_boolean();
  return field_error(name, "expected a string, got " + a_type_name(value) +
                               (scalar ? " (quote it in the data if it is meant as text)" : ""));
}

// The list a list field holds: `value` itself when it is an array, else the array a
// string holds (JSON or a Python list literal, as CSV cells do), kept in `*parsed`.
StatusOr<const Json*> list_of(const Json& value, std::string_view name, Json* parsed) {
  if (!value.is_string()) {
    if (!value.is_array()) return field_error(name, std::string("expected a list, got ") + value.type_name());
    return &value;
  }
  auto list = parse_list_literal(value.get_ref<const std::string&>());
  if (!list.ok()) {
    return field_error(name, "expected a list (JSON array or Python list literal): " +
                                 list.status().message());
  }
  *parsed = std::move(list).value();
  if (!parsed->is_array()) return field_error(name, std::string("expected a list, got ") + value.type_name());
  return parsed;
}

// A list field: a JSON array, or a string holding a JSON array / Python list literal
// (as CSV cells do). Items are strings; in id lists (`ids`), integer items are ids too
// and become their decimal text.
StatusOr<std::vector<std::string>> as_string_list(const Json& value, std::string_view name,
                                                  bool ids) {
  Json parsed;  // no copy of a JSON array: contexts can be long
  RAGMETER_ASSIGN_OR_RETURN(const Json* list, list_of(value, name, &parsed));
  const Json& array = *list;
  std::vector<std::string> out;
  out.reserve(array.size());
  for (std::size_t i = 0; i < array.size(); ++i) {
    const Json& item = array[i];
    if (item.is_string()) {
      out.push_back(item.get<std::string>());
    } else if (ids && item.is_number_integer()) {
      out.push_back(item.dump());
    } else {
      return field_error(name, "item " + std::to_string(i) + " is " + a_type_name(item) +
                                   (ids ? ", expected a string or an integer"
                                        : ", expected a string"));
    }
  }
  return out;
}

// retrieved_contexts: the text items in sample->retrieved_contexts, the image items
// (image.h) in sample->retrieved_images with their rank in the list.
Status fill_contexts(const Json& fields, const ColumnMap& map, Sample* sample) {
  std::string_view name;
  const Json* value = lookup(fields, "retrieved_contexts", map, &name);
  if (value == nullptr) return ok_status();
  Json parsed;
  RAGMETER_ASSIGN_OR_RETURN(const Json* list, list_of(*value, name, &parsed));
  std::vector<std::string> texts;
  texts.reserve(list->size());
  for (std::size_t i = 0; i < list->size(); ++i) {
    const Json& item = (*list)[i];
    if (!item.is_string() && !item.is_object()) {
      return field_error(name, "item " + std::to_string(i) + " is " + a_type_name(item) +
                                   ", expected a string or an image object");
    }
    std::string text;
    auto image = image_ref_from_json(item, &text);
    if (!image.ok()) return field_error(name, "item " + std::to_string(i) + ": " + image.status().message());
    if (image->has_value()) {
      sample->retrieved_images.push_back({i, std::move(**image)});
    } else {
      texts.push_back(std::move(text));
    }
  }
  sample->retrieved_contexts = std::move(texts);
  return ok_status();
}

StatusOr<std::map<std::string, std::string>> as_rubrics(const Json& value, std::string_view name) {
  const Json* parsed_or_value = &value;
  Json parsed;
  if (value.is_string()) {
    parsed = Json::parse(value.get_ref<const std::string&>(), nullptr, /*allow_exceptions=*/false);
    parsed_or_value = &parsed;
  }
  const Json& object = *parsed_or_value;
  if (!object.is_object()) return field_error(name, "expected an object of name -> description");
  std::map<std::string, std::string> out;
  for (const auto& [key, description] : object.items()) {
    if (!description.is_string()) return field_error(name, "rubric '" + key + "' is not a string");
    out[key] = description.get<std::string>();
  }
  return out;
}

// A `language` column: a supported code, "und" (as result rows write it), or nothing to
// say ("" or "auto": detect). Case and surrounding spaces are ignored.
StatusOr<std::string> language_column(const Json& value, std::string_view name) {
  RAGMETER_ASSIGN_OR_RETURN(std::string code, as_string(value, name));
  const std::size_t begin = code.find_first_not_of(" \t");
  code = begin == std::string::npos ? std::string() : code.substr(begin, code.find_last_not_of(" \t") + 1 - begin);
  for (char& c : code) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  if (code.empty() || code == "auto") return std::string();
  if (code == kUndeterminedLanguage || is_supported_language(code)) return code;
  return field_error(name, unknown_language_message(code, "the language column"));
}

Status fill_string(const Json& fields, std::string_view field, const ColumnMap& map,
                   std::optional<std::string>* out) {
  std::string_view name;
  if (const Json* value = lookup(fields, field, map, &name)) {
    RAGMETER_ASSIGN_OR_RETURN(*out, as_string(*value, name));
  }
  return ok_status();
}

Status fill_list(const Json& fields, std::string_view field, const ColumnMap& map,
                 std::optional<std::vector<std::string>>* out) {
  std::string_view name;
  if (const Json* value = lookup(fields, field, map, &name)) {
    RAGMETER_ASSIGN_OR_RETURN(*out, as_string_list(*value, name, field.ends_with("_ids")));
  }
  return ok_status();
}

// `reference` may be a string or (as `ground_truths`) a list of references.
Status fill_references(const Json& fields, const ColumnMap& map, Sample* sample) {
  std::string_view name;
  const Json* value = lookup(fields, "reference", map, &name);
  if (value == nullptr) return ok_status();
  bool is_list = value->is_array() || (name == "ground_truths" && value->is_string() &&
                                       value->get_ref<const std::string&>().starts_with("["));
  if (is_list) {
    RAGMETER_ASSIGN_OR_RETURN(std::vector<std::string> references, as_string_list(*value, name, false));
    sample->set_references(std::move(references));
    return ok_status();
  }
  RAGMETER_ASSIGN_OR_RETURN(std::string reference, as_string(*value, name));
  sample->set_reference(std::move(reference));
  return ok_status();
}

// The fields single-turn and multi-turn rows share: rubrics and language (the reference is
// read here for a conversation, with the single-turn fields otherwise).
StatusOr<Sample> fill_shared_fields(const Json& fields, const ColumnMap& column_map, Sample sample) {
  if (sample.conversation) RAGMETER_RETURN_IF_ERROR(fill_references(fields, column_map, &sample));
  std::string_view name;
  if (const Json* value = lookup(fields, "rubrics", column_map, &name)) {
    RAGMETER_ASSIGN_OR_RETURN(sample.rubrics, as_rubrics(*value, name));
  }
  if (const Json* value = lookup(fields, "language", column_map, &name)) {
    RAGMETER_ASSIGN_OR_RETURN(sample.language, language_column(*value, name));
  }
  return sample;
}

}  // namespace

Status parse_column_mapping(const std::string& spec, ColumnMap* map) {
  auto eq = spec.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size()) {
    return invalid_argument("--column-map expects COLUMN=FIELD, got '" + spec + "'");
  }
  std::string target = spec.substr(eq + 1);
  const auto& names = sample_field_names();
  if (std::find(names.begin(), names.end(), target) == names.end()) {
    return invalid_argument("--column-map: '" + target + "' is not a sample field");
  }
  (*map)[spec.substr(0, eq)] = target;
  return ok_status();
}

bool row_has_column(const nlohmann::ordered_json& fields, const std::string& column) {
  return fields.is_object() && mapped_column_value(fields, column) != nullptr;
}

const std::vector<std::string>& sample_field_names() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> names;
    for (const auto& aliases : field_aliases()) names.emplace_back(aliases.field);
    return names;
  }();
  return kNames;
}

StatusOr<Sample> sample_from_json(const nlohmann::ordered_json& fields, const ColumnMap& column_map) {
  if (!fields.is_object()) return invalid_argument("a row must be a JSON object");
  if (auto run_error = fields.find("run_error"); run_error != fields.end() && !run_error->is_null()) {
    std::string reason = run_error->dump();
    if (run_error->is_object()) {
      const auto text = [&](const char* key) {
        auto it = run_error->find(key);
        return it != run_error->end() && it->is_string() ? it->get<std::string>() : std::string();
      };
      reason = text("kind") + ": " + text("message");
    } else if (run_error->is_string()) {
      reason = run_error->get<std::string>();
    }
    return invalid_argument("field 'run_error': " + reason);
  }
  Sample sample;
  RAGMETER_ASSIGN_OR_RETURN(std::optional<Conversation> conversation,
                            conversation_from_json(fields));
  if (conversation) {
    sample.conversation = std::make_shared<const Conversation>(std::move(*conversation));
    return fill_shared_fields(fields, column_map, std::move(sample));
  }
  RAGMETER_RETURN_IF_ERROR(fill_string(fields, "user_input", column_map, &sample.user_input));
  RAGMETER_RETURN_IF_ERROR(fill_string(fields, "response", column_map, &sample.response));
  RAGMETER_RETURN_IF_ERROR(fill_references(fields, column_map, &sample));
  RAGMETER_RETURN_IF_ERROR(fill_contexts(fields, column_map, &sample));
  RAGMETER_RETURN_IF_ERROR(
      fill_list(fields, "reference_contexts", column_map, &sample.reference_contexts));
  RAGMETER_RETURN_IF_ERROR(
      fill_list(fields, "retrieved_context_ids", column_map, &sample.retrieved_context_ids));
  RAGMETER_RETURN_IF_ERROR(
      fill_list(fields, "reference_context_ids", column_map, &sample.reference_context_ids));
  return fill_shared_fields(fields, column_map, std::move(sample));
}

}  // namespace ragmeter
