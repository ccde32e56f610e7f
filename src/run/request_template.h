// Request templates: a JSON body or a text with {{placeholders}} filled from a row.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "ragmeter/run.h"
#include "ragmeter/status.h"

namespace ragmeter::run {

// The value of placeholder `name` for `request`: "question", "id", "index" and, for a
// conversation's turn, "messages" (the history) first, then the row's field of that name. Null when the row has no such field.
const nlohmann::ordered_json* placeholder_value(const TargetRequest& request,
                                                const std::string& name,
                                                nlohmann::ordered_json* scratch);

// `text` with every {{name}} replaced by the named value's text (a string as is, any
// other value as compact JSON). InvalidArgument naming the field and the row when the
// row has no such field, or for an unclosed "{{".
StatusOr<std::string> render_text(std::string_view text, const TargetRequest& request);

// A parsed JSON body template (see HttpTargetOptions::body_template).
class JsonTemplate {
 public:
  // InvalidArgument when `text` is not JSON.
  static StatusOr<JsonTemplate> parse(const std::string& text);
  // The body for `request`: a string that is one placeholder becomes the value itself,
  // others are rendered by render_text. A conversation's turn (request.messages set)
  // whose body is an object without a "messages" field gets one: the history. Errors as
  // render_text.
  StatusOr<nlohmann::ordered_json> render(const TargetRequest& request) const;

 private:
  nlohmann::ordered_json template_;
};

}  // namespace ragmeter::run
