// ragas's topic adherence as a judge task (judge_tasks.h): one "topics" call over the whole
// conversation lists the user's topics and, for each, whether the assistant answered it
// and whether it falls into the reference topics (ragas asks this in 2 + one call per
// topic: docs/agents.md).
#include "judge/llm/llm_requests.h"
#include "ragmeter/judge_tasks.h"
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

StatusOr<TopicVerdicts> ask_topics(Judge& judge, const Sample& sample,
                                   const std::vector<std::string>& reference_topics,
                                   CallLog* calls) {
  std::string listed;
  for (const std::string& topic : reference_topics) listed += "- " + topic + "\n";
  JudgeTask task;
  task.kind = "topics";
  task.prompt = std::string(prompts::k_topics);
  task.schema = topics_schema();
  task.schema_name = "topics";
  task.sections = judge_sample_sections(sample) + judge_section("REFERENCE TOPICS", listed);
  task.written = kTopicsWhat;
  task.written_texts = topic_texts;
  task.subject = "topic adherence";
  RAGMETER_ASSIGN_OR_RETURN(TaskReply answer, judge.ask(task, sample, calls));
  const Json& reply = answer.reply;
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
  if (!answer.wrong_script.empty()) out.warning = answer.wrong_script + "; the topics are kept";
  return out;
}

}  // namespace ragmeter
