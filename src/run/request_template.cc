#include "run/request_template.h"

#include <string>

namespace ragmeter::run {
namespace {

using nlohmann::ordered_json;

std::string trim(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  return std::string(text);
}

Status missing_field(const std::string& name, const TargetRequest& request) {
  std::string fields;
  for (const auto& [key, value] : request.row->items()) fields += (fields.empty() ? "" : ", ") + key;
  return invalid_argument("the request template names '{{" + name + "}}', which row " +
                          std::to_string(request.index + 1) + " (id " + request.id +
                          ") does not have; its fields: " + (fields.empty() ? "(none)" : fields));
}

// The placeholder name when `text` is exactly "{{name}}".
std::optional<std::string> sole_placeholder(std::string_view text) {
  if (!text.starts_with("{{") || !text.ends_with("}}") || text.size() < 4) return std::nullopt;
  std::string_view inner = text.substr(2, text.size() - 4);
  if (inner.find("{{") != std::string_view::npos || inner.find("}}") != std::string_view::npos) {
    return std::nullopt;
  }
  return trim(inner);
}

Status render_in_place(ordered_json& value, const TargetRequest& request) {
  if (value.is_object() || value.is_array()) {
    for (auto& child : value) RAGMETER_RETURN_IF_ERROR(render_in_place(child, request));
    return ok_status();
  }
  if (!value.is_string()) return ok_status();
  const std::string& text = value.get_ref<const std::string&>();
  if (auto name = sole_placeholder(text)) {
    ordered_json scratch;
    const ordered_json* found = placeholder_value(request, *name, &scratch);
    if (found == nullptr) return missing_field(*name, request);
    value = *found;
    return ok_status();
  }
  if (text.find("{{") == std::string::npos) return ok_status();
  RAGMETER_ASSIGN_OR_RETURN(std::string rendered, render_text(text, request));
  value = std::move(rendered);
  return ok_status();
}

}  // namespace

const ordered_json* placeholder_value(const TargetRequest& request, const std::string& name,
                                      ordered_json* scratch) {
  if (name == "question") return &(*scratch = request.question);
  if (name == "id") return &(*scratch = request.id);
  if (name == "index") return &(*scratch = request.index);
  if (name == "messages" && request.messages != nullptr) return request.messages.get();
  auto it = request.row->find(name);
  return it == request.row->end() ? nullptr : &*it;
}

StatusOr<std::string> render_text(std::string_view text, const TargetRequest& request) {
  std::string out;
  std::size_t at = 0;
  while (true) {
    std::size_t open = text.find("{{", at);
    if (open == std::string_view::npos) break;
    std::size_t close = text.find("}}", open + 2);
    if (close == std::string_view::npos) {
      return invalid_argument("the request template has '{{' without '}}': " + std::string(text));
    }
    out.append(text.substr(at, open - at));
    std::string name = trim(text.substr(open + 2, close - open - 2));
    ordered_json scratch;
    const ordered_json* value = placeholder_value(request, name, &scratch);
    if (value == nullptr) return missing_field(name, request);
    out += value->is_string() ? value->get<std::string>() : value->dump();
    at = close + 2;
  }
  out.append(text.substr(at));
  return out;
}

StatusOr<JsonTemplate> JsonTemplate::parse(const std::string& text) {
  JsonTemplate result;
  result.template_ = ordered_json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (result.template_.is_discarded()) {
    return invalid_argument("the body template is not JSON: " + text);
  }
  return result;
}

StatusOr<ordered_json> JsonTemplate::render(const TargetRequest& request) const {
  ordered_json body = template_;
  RAGMETER_RETURN_IF_ERROR(render_in_place(body, request));
  // A conversation's turn carries its history, unless the template places it (or another
  // field named "messages") itself.
  if (request.messages != nullptr && body.is_object() && !body.contains("messages")) {
    body["messages"] = *request.messages;
  }
  return body;
}

}  // namespace ragmeter::run
