// The fields a metric needs (metric.h's sample_fields): their names for the help text and
// the one check every metric's sample passes before it is scored.
#include <array>
#include <optional>
#include <string>

#include "ragmeter/metric.h"

namespace ragmeter {
namespace {

namespace f = sample_fields;

struct FieldName {
  unsigned bit;
  std::string_view name;
};

// In the order the help text lists them and the check tries them.
constexpr std::array<FieldName, 13> kFieldNames = {{
    {f::kConversation, "conversation"},
    {f::kUserInput, "user_input"},
    {f::kResponse, "response"},
    {f::kReference, "reference"},
    {f::kRetrievedContexts, "retrieved_contexts"},
    {f::kReferenceContexts, "reference_contexts"},
    {f::kRetrievedContextIds, "retrieved_context_ids"},
    {f::kReferenceContextIds, "reference_context_ids"},
    {f::kContextIdsOrTexts, "retrieved and reference context ids (or texts)"},
    {f::kReferenceToolCalls, "reference_tool_calls"},
    {f::kExpectedTools, "expected_tools"},
    {f::kReferenceTopics, "reference_topics"},
    {f::kChatbotRole, "chatbot_role"},
}};

// A missing or empty field.
template <typename T>
std::optional<MetricResult> require_field(const std::optional<T>& value, const char* name) {
  if (!value.has_value()) return MetricResult::skipped(std::string("field '") + name + "' is missing");
  if (value->empty()) return MetricResult::skipped(std::string("field '") + name + "' is empty");
  return std::nullopt;
}

constexpr const char* kSingleTurnRow =
    "a conversation metric: the row is single-turn (it needs `user_input` as a list of "
    "messages, `messages` or `turns`, docs/agents.md)";

constexpr const char* kOnlyImages =
    "the retrieved contexts are all images, which a text metric does not read (the multimodal_* "
    "metrics do)";

std::optional<MetricResult> missing_contexts(const Sample& s, unsigned needs) {
  if (needs & f::kContextImages) {
    if (!s.retrieved_images.empty()) return std::nullopt;
  } else if (!s.retrieved_images.empty() && s.retrieved_contexts && s.retrieved_contexts->empty()) {
    return MetricResult::skipped(kOnlyImages);
  }
  return require_field(s.retrieved_contexts, "retrieved_contexts");
}

// The rank metrics read ids when the sample has both lists, else texts.
std::optional<MetricResult> missing_ids_or_texts(const Sample& s) {
  if (s.retrieved_context_ids && s.reference_context_ids) {
    if (auto skip = require_field(s.retrieved_context_ids, "retrieved_context_ids")) return skip;
    return require_field(s.reference_context_ids, "reference_context_ids");
  }
  if (s.retrieved_contexts && s.reference_contexts) {
    if (auto skip = missing_contexts(s, f::kNone)) return skip;
    return require_field(s.reference_contexts, "reference_contexts");
  }
  return MetricResult::skipped(
      "needs retrieved_context_ids and reference_context_ids, or retrieved_contexts and "
      "reference_contexts");
}

std::optional<MetricResult> missing_reference(const Sample& s) {
  if (s.conversation) {
    if (s.reference() && !s.reference()->empty()) return std::nullopt;
    return MetricResult::skipped(
        "field 'reference' is missing (the desired outcome; "
        "ragas_agent_goal_accuracy_without_reference needs none)");
  }
  return require_field(s.reference(), "reference");
}

// The conversation's fields; only asked once the sample is known to have one.
std::optional<MetricResult> missing_conversation_field(const Conversation& c, unsigned bit) {
  switch (bit) {
    case f::kReferenceToolCalls:
    case f::kExpectedTools:
      if (c.reference_tool_calls) return std::nullopt;
      return MetricResult::skipped(
          "field 'reference_tool_calls' is missing (DeepEval's name: 'expected_tools')");
    case f::kReferenceTopics:
      if (c.reference_topics && !c.reference_topics->empty()) return std::nullopt;
      return MetricResult::skipped("field 'reference_topics' is missing or empty");
    case f::kChatbotRole:
      if (c.texts.contains("chatbot_role")) return std::nullopt;
      return MetricResult::skipped("field 'chatbot_role' is missing or empty");
    default:
      return std::nullopt;
  }
}

std::optional<MetricResult> missing_field(const Sample& s, unsigned bit, unsigned needs) {
  switch (bit) {
    case f::kConversation:
      if (s.conversation) return std::nullopt;
      return MetricResult::skipped(kSingleTurnRow);
    case f::kUserInput:
      return require_field(s.user_input, "user_input");
    case f::kResponse:
      return require_field(s.response, "response");
    case f::kReference:
      return missing_reference(s);
    case f::kRetrievedContexts:
      return missing_contexts(s, needs);
    case f::kReferenceContexts:
      return require_field(s.reference_contexts, "reference_contexts");
    case f::kRetrievedContextIds:
      return require_field(s.retrieved_context_ids, "retrieved_context_ids");
    case f::kReferenceContextIds:
      return require_field(s.reference_context_ids, "reference_context_ids");
    case f::kContextIdsOrTexts:
      return missing_ids_or_texts(s);
    default:
      if (!s.conversation) return std::nullopt;  // kConversation, first, said so already
      return missing_conversation_field(*s.conversation, bit);
  }
}

}  // namespace

std::string required_fields_text(unsigned needs) {
  std::string text;
  for (const FieldName& field : kFieldNames) {
    if ((needs & field.bit) == 0) continue;
    if (!text.empty()) text += ", ";
    text += field.name;
    if (field.bit == f::kRetrievedContexts && (needs & f::kContextImages)) {
      text += " (text and images)";
    }
  }
  return text;
}

unsigned required_field_bit(std::string_view name) {
  for (const FieldName& field : kFieldNames) {
    if (field.name == name) return field.bit;
  }
  return f::kNone;
}

std::optional<MetricResult> missing_required_field(const Sample& sample, unsigned needs) {
  for (const FieldName& field : kFieldNames) {
    if ((needs & field.bit) == 0) continue;
    if (auto skip = missing_field(sample, field.bit, needs)) return skip;
  }
  return std::nullopt;
}

}  // namespace ragmeter
