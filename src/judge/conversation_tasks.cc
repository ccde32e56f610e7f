// The conversation tasks (conversation_task.h): their items, DeepEval's reading of a
// verdict and its fraction of passing verdicts, and the built-in tasks.
#include "ragmeter/conversation_task.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "ragmeter_prompts.inc"

namespace ragmeter {

namespace {

std::string tool_call_text(const ToolCall& call) {
  return call.name + "(" + call.args.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + ")";
}

// DeepEval's get_unit_interactions over the user and assistant messages: the message
// number (1-based) of each unit's last message.
std::vector<std::string> turn_ends(const Conversation& conversation) {
  std::vector<std::string> out;
  bool has_user = false;
  std::optional<Role> last;  // the role of the current unit's last message
  std::size_t last_number = 0;
  std::size_t unit_size = 0;
  for (std::size_t i = 0; i < conversation.messages.size(); ++i) {
    const Role role = conversation.messages[i].role;
    if (role != Role::kUser && role != Role::kAssistant) continue;
    if (unit_size > 0 && last == Role::kAssistant && role == Role::kUser && has_user) {
      out.push_back(std::to_string(last_number));
      unit_size = 0;
    }
    ++unit_size;
    last = role;
    last_number = i + 1;
    if (role == Role::kUser) has_user = true;
  }
  if (unit_size > 1 && last == Role::kAssistant && has_user) out.push_back(std::to_string(last_number));
  return out;
}

// An item as the judge wrote it ("3", "#3.", "message 3"; "call 2" for a tool call) as the
// label it was asked by ("3"). The other kind's word is kept, so "message 2" is no call.
std::string asked_label(std::string item, TaskItems items) {
  item.erase(0, item.find_first_not_of(" #"));
  item.erase(item.find_last_not_of(" .") + 1);
  const std::string word = items == TaskItems::kToolCalls ? "call" : "message";
  if (item.size() > word.size() && std::equal(word.begin(), word.end(), item.begin(), [](char a, char b) {
        return a == std::tolower(static_cast<unsigned char>(b));
      })) {
    item.erase(0, item.find_first_not_of(" #", word.size()));
  }
  return item;
}

}  // namespace

std::vector<std::string> conversation_task_items(const Conversation& conversation, TaskItems items) {
  std::vector<std::string> out;
  switch (items) {
    case TaskItems::kFound: break;
    case TaskItems::kAssistantMessages:
      for (std::size_t i = 0; i < conversation.messages.size(); ++i) {
        const Message& m = conversation.messages[i];
        if (m.role == Role::kAssistant && !m.content.empty()) out.push_back(std::to_string(i + 1));
      }
      break;
    case TaskItems::kTurnEnds: out = turn_ends(conversation); break;
    case TaskItems::kToolCalls: {
      const std::size_t calls = conversation.tool_calls().size();
      for (std::size_t k = 1; k <= calls; ++k) out.push_back(std::to_string(k));
      break;
    }
  }
  return out;
}

std::string conversation_task_item_section(const Conversation& conversation, TaskItems items) {
  if (items == TaskItems::kFound) return "";
  if (items == TaskItems::kToolCalls) {
    // No message numbers here: a small model answered with those instead of the calls'.
    std::string out = "TOOL CALLS TO JUDGE:\n";
    int number = 0;
    for (const ToolCall& call : conversation.tool_calls()) {
      out += "call " + std::to_string(++number) + ": " + tool_call_text(call) + "\n";
    }
    return out + "\n";
  }
  std::string listed;
  for (const std::string& item : conversation_task_items(conversation, items)) {
    listed += (listed.empty() ? "" : ", ") + item;
  }
  return "MESSAGES TO JUDGE: " + listed + "\n\n";
}

std::string normalise_verdict(std::string_view raw) {
  std::size_t begin = 0;
  while (begin < raw.size() && std::isspace(static_cast<unsigned char>(raw[begin]))) ++begin;
  std::string word;
  for (std::size_t i = begin; i < raw.size(); ++i) {
    const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(raw[i])));
    if (c < 'a' || c > 'z') break;
    word += c;
  }
  return word == "yes" || word == "no" ? word : "";
}

ItemScore score_item_verdicts(const ConversationTask& task, const std::vector<std::string>& asked,
                              const ItemVerdicts& verdicts) {
  ItemScore out;
  const std::string passing = task.yes_passes ? "yes" : "no";
  if (task.items == TaskItems::kFound) {
    for (const ItemVerdict& v : verdicts.verdicts) {
      const std::string verdict = normalise_verdict(v.verdict);
      if (verdict.empty()) { ++out.dropped; continue; }
      (verdict == passing ? out.passed : out.failed).push_back(v.item);
    }
  } else {
    std::map<std::string, std::string> first;  // asked item -> its first verdict
    for (const ItemVerdict& v : verdicts.verdicts) {
      const std::string item = asked_label(v.item, task.items);
      const std::string verdict = normalise_verdict(v.verdict);
      const bool known = std::find(asked.begin(), asked.end(), item) != asked.end();
      // The first verdict on an item is its verdict, even an unreadable one.
      if (!known || !first.emplace(item, verdict).second || verdict.empty()) ++out.dropped;
    }
    for (const std::string& item : asked) {
      const auto found = first.find(item);
      if (found != first.end() && !found->second.empty()) {
        (found->second == passing ? out.passed : out.failed).push_back(item);
      } else if (task.missing == MissingItem::kPasses) {
        out.passed.push_back(item);
      } else if (task.missing == MissingItem::kNotJudged) {
        out.not_judged.push_back(item);
      }
    }
  }
  const std::size_t counted = out.passed.size() + out.failed.size();
  if (counted > 0) out.score = static_cast<double>(out.passed.size()) / static_cast<double>(counted);
  return out;
}

const std::vector<ConversationTask>& conversation_tasks() {
  static const std::vector<ConversationTask> kTasks = {
      {"deepeval_conversation_completeness", std::string(prompts::k_task_conversation_completeness),
       TaskItems::kFound, MissingItem::kNotJudged, true, "",
       "the judge found no intention of the user's", "DeepEval scores 1"},
      {"deepeval_knowledge_retention", std::string(prompts::k_task_knowledge_retention),
       TaskItems::kAssistantMessages, MissingItem::kLeftOut, false, "",
       "no assistant message follows a fact the user stated: nothing to retain", "DeepEval scores 1"},
      {"deepeval_role_adherence", std::string(prompts::k_task_role_adherence),
       TaskItems::kAssistantMessages, MissingItem::kPasses, true, "chatbot_role",
       "the conversation has no assistant message with text", "DeepEval scores 1"},
      {"deepeval_turn_relevancy", std::string(prompts::k_task_turn_relevancy), TaskItems::kTurnEnds,
       MissingItem::kNotJudged, true, "",
       "the conversation has no turn that ends with an assistant message", "DeepEval scores 1"},
      {"deepeval_topic_adherence", std::string(prompts::k_task_topic_adherence), TaskItems::kFound,
       MissingItem::kNotJudged, true, "reference_topics",
       "the judge found no question of the user's", "DeepEval scores 0"},
      {"deepeval_argument_correctness", std::string(prompts::k_task_argument_correctness),
       TaskItems::kToolCalls, MissingItem::kNotJudged, true, "",
       "the conversation has no tool call", "DeepEval scores 1: 'No tool calls provided'"},
  };
  return kTasks;
}

std::optional<std::string> conversation_field_text(const Conversation& conversation,
                                                   std::string_view field) {
  if (field == "reference_topics") {
    if (!conversation.reference_topics || conversation.reference_topics->empty()) return std::nullopt;
    std::string out;
    for (const std::string& topic : *conversation.reference_topics) out += "- " + topic + "\n";
    return out;
  }
  const auto text = conversation.texts.find(field);
  if (text == conversation.texts.end()) return std::nullopt;
  return text->second;
}

std::optional<std::string> given_task(const Conversation& conversation) {
  const auto task = conversation.texts.find("task");
  if (task == conversation.texts.end()) return std::nullopt;
  return task->second;
}

std::string task_completion_skip(const Conversation& conversation) {
  const std::optional<std::string> task = given_task(conversation);
  if (task && task->empty()) return "field 'task' is empty (give the task or leave the field out)";
  bool user = false;
  bool assistant = false;
  for (const Message& m : conversation.messages) {
    user = user || (m.role == Role::kUser && !m.content.empty());
    assistant = assistant ||
                (m.role == Role::kAssistant && (!m.content.empty() || !m.tool_calls.empty()));
  }
  if (!assistant) {
    return "the conversation has no assistant message: no outcome to judge (DeepEval needs an "
           "actual output)";
  }
  if (!user && !task) {
    return "the conversation has no user message with text and the row no `task`: no task to "
           "judge";
  }
  return {};
}

const ConversationTask* find_conversation_task(std::string_view name) {
  for (const ConversationTask& task : conversation_tasks()) {
    if (task.name == name) return &task;
  }
  return nullptr;
}

}  // namespace ragmeter
