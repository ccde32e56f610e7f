// Conversation tasks (conversation_task.h) as judge tasks (judge_tasks.h): one call shows the numbered conversation, the task's field (e.g. the chatbot's role) and the
// items to judge, and reads one verdict per item (DeepEval asks one call per item or turn,
// plus one for the reason: docs/agents.md).
#include "judge/llm/llm_requests.h"
#include "ragmeter/judge_tasks.h"
#include "ragmeter_prompts.inc"

namespace ragmeter {

using Json = nlohmann::json;

namespace {

// What a task's call writes in the sample's language.
constexpr std::string_view kTaskWhat = "the reasons";

std::string text_of(const Json& object, const char* key) {
  const auto it = object.find(key);
  if (it == object.end()) return "";
  if (it->is_string()) return it->get<std::string>();
  if (it->is_number_integer()) return std::to_string(it->get<long long>());
  return "";
}

// The texts of a reply the language check reads: the reasons.
std::vector<std::string> task_texts(const Json& reply) {
  std::vector<std::string> out;
  if (!reply.is_object()) return out;
  if (std::string reason = text_of(reply, "reason"); !reason.empty()) out.push_back(std::move(reason));
  const auto verdicts = reply.find("verdicts");
  if (verdicts == reply.end() || !verdicts->is_array()) return out;
  for (const Json& v : *verdicts) {
    if (!v.is_object()) continue;
    if (std::string reason = text_of(v, "reason"); !reason.empty()) out.push_back(std::move(reason));
  }
  return out;
}

Json task_schema() {
  const Json verdict = {{"type", "object"},
                        {"properties", {{"item", {{"type", "string"}}},
                                        // No enum: a loose "Yes, it is" is read as DeepEval
                                        // reads it (normalise_verdict), not refused.
                                        {"verdict", {{"type", "string"}}},
                                        {"reason", {{"type", "string"}}}}},
                        {"required", {"item", "verdict", "reason"}}};
  return {{"type", "object"},
          {"properties", {{"verdicts", {{"type", "array"}, {"items", verdict}}},
                          {"reason", {{"type", "string"}}}}},
          {"required", {"verdicts", "reason"}}};
}

StatusOr<ItemVerdicts> read_task_reply(const Json& reply) {
  const auto verdicts = reply.is_object() ? reply.find("verdicts") : reply.end();
  if (!reply.is_object() || verdicts == reply.end() || !verdicts->is_array()) {
    return invalid_argument("the reply has no list of verdicts");
  }
  ItemVerdicts out;
  for (const Json& v : *verdicts) {
    if (!v.is_object()) return invalid_argument("a verdict of the reply is not an object");
    // A number for the item ("item": 3) is read as its text.
    out.verdicts.push_back({text_of(v, "item"), text_of(v, "verdict"), text_of(v, "reason")});
  }
  out.reason = text_of(reply, "reason");
  return out;
}

}  // namespace

StatusOr<ItemVerdicts> ask_conversation_task(Judge& judge, const Sample& sample,
                                             const ConversationTask& task, CallLog* calls) {
  if (!sample.conversation) return invalid_argument(task.name + ": the sample is not a conversation");
  const Conversation& conversation = *sample.conversation;
  JudgeTask asked;
  asked.kind = task.name;
  asked.prompt = "Task: " + task.instructions + "\n" + std::string(prompts::k_conversation_task);
  asked.schema = task_schema();
  asked.schema_name = "verdicts";
  asked.sections = judge_conversation_section(conversation);
  if (!task.field.empty()) {
    // DeepEval's names: the chatbot role, the relevant topics.
    std::string name = task.field == "reference_topics" ? "relevant_topics" : task.field;
    for (char& c : name) c = (c == '_') ? ' ' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    asked.sections += judge_section(name, conversation_field_text(conversation, task.field).value_or(""));
  }
  asked.sections += conversation_task_item_section(conversation, task.items);
  asked.written = kTaskWhat;
  asked.written_texts = task_texts;
  asked.subject = task.name;
  RAGMETER_ASSIGN_OR_RETURN(TaskReply answer, judge.ask(asked, sample, calls));
  RAGMETER_ASSIGN_OR_RETURN(ItemVerdicts out, read_task_reply(answer.reply));
  if (!answer.wrong_script.empty()) out.warning = answer.wrong_script + "; the verdicts are kept";
  return out;
}

}  // namespace ragmeter
