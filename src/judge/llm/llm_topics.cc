// ragas's topic adherence with the LLM judge (llm_judge_impl.h): one "topics" call over the
// whole conversation lists the user's topics and, for each, whether the assistant answered
// it and whether it falls into the reference topics (ragas asks this in 2 + one call per
// topic: docs/agents.md).
#include "judge/llm/llm_judge_impl.h"
#include "judge/llm/llm_requests.h"
#include "ragmeter_prompts.inc"

namespace ragmeter {

using Json = nlohmann::json;

namespace {

// What the topics call writes in the sample's language.
constexpr std::string_view kTopicsWhat = "the topics and the reason";

// The texts of a topics reply the language check reads: the topics and the reason.
std::vector<std::string> topic_texts(const Json& reply) {
  std::vector<std::string> out;
  if (!reply.is_object()) return out;
  const auto reason = reply.find("reason");
  if (reason != reply.end() && reason->is_string()) out.push_back(reason->get<std::string>());
  const auto topics = reply.find("topics");
  if (topics == reply.end() || !topics->is_array()) return out;
  for (const Json& entry : *topics) {
    const auto topic = entry.is_object() ? entry.find("topic") : entry.end();
    if (entry.is_object() && topic != entry.end() && topic->is_string()) {
      out.push_back(topic->get<std::string>());
    }
  }
  return out;
}

Json topics_schema() {
  const Json entry = {{"type", "object"},
                      {"properties", {{"topic", {{"type", "string"}}},
                                      {"answered", {{"type", "boolean"}}},
                                      {"in_reference", {{"type", "boolean"}}}}},
                      {"required", {"topic", "answered", "in_reference"}}};
  return {{"type", "object"},
          {"properties", {{"topics", {{"type", "array"}, {"items", entry}}},
                          {"reason", {{"type", "string"}}}}},
          {"required", {"topics", "reason"}}};
}

}  // namespace

StatusOr<TopicVerdicts> LlmJudge::topic_verdicts(const Sample& sample,
                                                 const std::vector<std::string>& reference_topics,
                                                 CallLog* calls) {
  const JudgeLanguage language = judge_language_of(sample);
  std::string listed;
  for (const std::string& topic : reference_topics) listed += "- " + topic + "\n";
  const std::string sections =
      judge_sample_sections(sample) + judge_section("REFERENCE TOPICS", listed);
  LanguageReply answer = chat_in_language(
      book_, *options_.chat, language, kTopicsWhat,
      [&](const std::string& line) {
        return make_judge_request(sections, prompts::k_topics, topics_schema(), "topics",
                                  options_.max_tokens, {}, line);
      },
      topic_texts, "topics", calls);
  RAGMETER_ASSIGN_OR_RETURN(Json reply, std::move(answer.reply));
  const auto topics = reply.find("topics");
  if (topics == reply.end() || !topics->is_array()) {
    return invalid_argument("the topics reply has no list of topics");
  }
  TopicVerdicts out;
  for (const Json& entry : *topics) {
    if (!entry.is_object()) return invalid_argument("a topic of the reply is not an object");
    const auto topic = entry.find("topic");
    const auto answered = entry.find("answered");
    const auto in_reference = entry.find("in_reference");
    if (topic == entry.end() || !topic->is_string() || answered == entry.end() ||
        !answered->is_boolean() || in_reference == entry.end() || !in_reference->is_boolean()) {
      return invalid_argument(
          "a topic of the reply lacks 'topic' (text), 'answered' or 'in_reference' (true/false)");
    }
    out.topics.push_back(topic->get<std::string>());
    out.answered.push_back(answered->get<bool>());
    out.in_reference.push_back(in_reference->get<bool>());
  }
  const auto reason = reply.find("reason");
  if (reason != reply.end() && reason->is_string()) out.reason = reason->get<std::string>();
  if (answer.wrong) {
    out.warning = wrong_script_message(language, kTopicsWhat, *answer.wrong) + "; the topics are kept";
  }
  return out;
}

}  // namespace ragmeter
