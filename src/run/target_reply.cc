// Reading a target's reply (answer_from_reply): the answer, the contexts and the token
// counts, picked out by the selectors; every way a reply can be wrong is a failure that
// shows what was received.
#include <string>

#include "ragmeter/conversation.h"
#include "ragmeter/image.h"
#include "ragmeter/run.h"
#include "run/json_select.h"

namespace ragmeter {
namespace {

using nlohmann::json;

const json* select_first(const json& reply, const std::string& given,
                         std::initializer_list<const char*> defaults) {
  if (!given.empty()) return run::select_json(reply, given);
  for (const char* name : defaults) {
    if (const json* found = run::select_json(reply, name); found != nullptr && !found->is_null()) {
      return found;
    }
  }
  return nullptr;
}

std::optional<std::string> scalar_text(const json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number() || value.is_boolean()) return value.dump();
  return std::nullopt;
}

// Reads the contexts list into `answer`; a failure message otherwise.
std::optional<std::string> read_contexts(const json& list, const ReplySelectors& selectors,
                                         TargetAnswer* answer) {
  if (!list.is_array()) {
    return "contexts are not a list: got " + run::truncate_for_message(list.dump());
  }
  std::vector<std::string> texts, ids;
  bool any_id = false;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const json& item = list[i];
    if (item.is_string()) {
      texts.push_back(item.get<std::string>());
      ids.emplace_back();
      continue;
    }
    std::string unused;
    auto image = item.is_object() ? image_ref_from_json(nlohmann::ordered_json(item), &unused)
                                  : StatusOr<std::optional<ImageRef>>(std::optional<ImageRef>());
    if (image.ok() && image->has_value()) {  // an image item: kept whole (image.h)
      answer->image_contexts.push_back(texts.size());
      texts.push_back(item.dump());
      const json* id = run::select_json(item, selectors.context_id);
      std::optional<std::string> id_text = id != nullptr ? scalar_text(*id) : std::nullopt;
      any_id = any_id || id_text.has_value();
      ids.push_back(id_text.value_or(""));
      continue;
    }
    const json* text = item.is_object() ? run::select_json(item, selectors.context_text) : nullptr;
    if (text == nullptr || !text->is_string()) {
      return "context " + std::to_string(i) + " is neither a string nor an object with a text field '" +
             selectors.context_text + "': got " + run::truncate_for_message(item.dump());
    }
    texts.push_back(text->get<std::string>());
    const json* id = run::select_json(item, selectors.context_id);
    std::optional<std::string> id_text = id != nullptr ? scalar_text(*id) : std::nullopt;
    any_id = any_id || id_text.has_value();
    ids.push_back(id_text.value_or(""));
  }
  answer->contexts = std::move(texts);
  if (any_id) answer->context_ids = std::move(ids);
  return std::nullopt;
}

// Ids given beside a list of context strings, by ragas's field name
// "retrieved_context_ids" (ids inside context objects win).
std::optional<std::string> read_context_ids(const json& reply, TargetAnswer* answer) {
  const json* ids = run::select_json(reply, "retrieved_context_ids");
  if (ids == nullptr || ids->is_null() || answer->context_ids) return std::nullopt;
  if (!ids->is_array() || ids->size() != answer->contexts->size()) {
    return "retrieved_context_ids is not a list as long as the contexts: got " +
           run::truncate_for_message(ids->dump());
  }
  std::vector<std::string> texts;
  for (const json& id : *ids) {
    std::optional<std::string> text = scalar_text(id);
    if (!text) return "retrieved_context_ids holds a value that is not text: " + run::truncate_for_message(id.dump());
    texts.push_back(std::move(*text));
  }
  answer->context_ids = std::move(texts);
  return std::nullopt;
}

std::optional<std::int64_t> token_count(const json& reply, const std::string& selector) {
  if (selector.empty()) return std::nullopt;
  const json* value = run::select_json(reply, selector);
  if (value == nullptr || !value->is_number()) return std::nullopt;
  return value->get<std::int64_t>();
}

// The tools the target reports having called; a failure message when they do not read.
std::optional<std::string> read_tool_calls(const json& reply, const ReplySelectors& selectors,
                                           TargetAnswer* answer) {
  const json* calls = select_first(reply, selectors.tool_calls, {"tool_calls", "choices.0.message.tool_calls"});
  if (calls == nullptr || calls->is_null()) return std::nullopt;
  auto read = tool_calls_from_json(nlohmann::ordered_json(*calls), "tool_calls");
  if (!read.ok()) return read.status().message() + ": got " + run::truncate_for_message(calls->dump());
  answer->tool_calls = std::move(*read);
  return std::nullopt;
}

}  // namespace

TargetOutcome target_failure(std::string kind, std::string message, bool retryable) {
  TargetOutcome outcome;
  outcome.failure.kind = std::move(kind);
  outcome.failure.message = std::move(message);
  outcome.failure.retryable = retryable;
  return outcome;
}

TargetOutcome answer_from_reply(std::string_view body, const ReplySelectors& selectors) {
  json reply = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (reply.is_discarded()) {
    return target_failure("bad_reply", "the reply is not JSON: got " +
                                           run::truncate_for_message(body));
  }
  const json* answer_value =
      select_first(reply, selectors.answer, {"answer", "response", "choices.0.message.content"});
  TargetAnswer read_calls;
  if (auto problem = read_tool_calls(reply, selectors, &read_calls)) {
    return target_failure("bad_tool_calls", *problem);
  }
  std::optional<std::string> text = answer_value ? scalar_text(*answer_value) : std::nullopt;
  if (!text && !read_calls.tool_calls.empty() && (answer_value == nullptr || answer_value->is_null())) {
    text = "";  // a reply holding only tool calls (OpenAI's content: null)
  }
  if (!text) {
    if (const json* error = run::select_json(reply, "error");
        selectors.answer.empty() && error != nullptr && !error->is_null() && answer_value == nullptr) {
      return target_failure("target_error", "the target reported an error: " +
                                                run::truncate_for_message(error->dump()));
    }
    std::string wanted = selectors.answer.empty() ? "'answer', 'response' or 'choices.0.message.content'"
                                                  : "'" + selectors.answer + "'";
    std::string what = answer_value == nullptr ? "matched nothing"
                                               : "is not text (" + run::truncate_for_message(answer_value->dump()) + ")";
    return target_failure("no_answer", "the answer selector " + wanted + " " + what +
                                           " in the reply: " + run::truncate_for_message(body));
  }
  TargetOutcome outcome;
  TargetAnswer& answer = outcome.answer.emplace();
  answer.response = std::move(*text);
  answer.tool_calls = std::move(read_calls.tool_calls);
  const json* contexts = select_first(reply, selectors.contexts, {"contexts", "retrieved_contexts"});
  if (contexts == nullptr && !selectors.contexts.empty()) {
    return target_failure("bad_contexts", "the contexts selector '" + selectors.contexts +
                                              "' matched nothing in the reply: " +
                                              run::truncate_for_message(body));
  }
  if (contexts != nullptr) {
    if (auto problem = read_contexts(*contexts, selectors, &answer)) {
      return target_failure("bad_contexts", *problem);
    }
    if (auto problem = read_context_ids(reply, &answer)) return target_failure("bad_contexts", *problem);
  }
  answer.prompt_tokens = token_count(reply, selectors.prompt_tokens);
  answer.completion_tokens = token_count(reply, selectors.completion_tokens);
  return outcome;
}

}  // namespace ragmeter
