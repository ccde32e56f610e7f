// Judge tasks over a whole conversation, as data: a task is a prompt, the items of the
// conversation it asks about and how the judge's yes/no verdicts become a score. One call
// per (conversation, task) answers every item at once; DeepEval's conversational metrics
// (conversation completeness, knowledge retention, role adherence, turn relevancy,
// argument correctness, topic adherence) are rows of conversation_tasks() (docs/agents.md), and a library
// user can define a task of their own and ask any Judge for it (ask_conversation_task, judge_tasks.h).
//
// The judge's reply is one shape for every task:
//   {"verdicts": [{"item": "3", "verdict": "yes", "reason": "..."}], "reason": "..."}
// where `item` is a message number, a tool call number or (kFound) the item the judge found.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ragmeter/conversation.h"

namespace ragmeter {

// What a task's verdicts are about.
enum class TaskItems {
  kFound,              // items the judge finds itself (e.g. the user's intentions)
  kAssistantMessages,  // every assistant message with text, by message number
  kTurnEnds,           // the last message of each user-assistant interaction (DeepEval's units)
  kToolCalls,          // every tool call, numbered in conversation order
};

// What an item the judge gave no verdict for counts as.
enum class MissingItem {
  kNotJudged,  // left out of the score, with a warning naming it
  kLeftOut,    // left out of the score, silently: the prompt lets the judge skip it
  kPasses,     // counts as passing (the prompt asks only for the failing ones to be named)
};

struct ConversationTask {
  std::string name;          // the metric's name, also the call's kind in usage and traces
  std::string instructions;  // the task's prompt: what to judge and what yes and no mean
  TaskItems items = TaskItems::kFound;
  MissingItem missing = MissingItem::kNotJudged;
  bool yes_passes = true;  // false: "yes" is the failing verdict (e.g. "forgets a fact")
  // A field of the conversation shown to the judge as its own section (conversation_field_text:
  // "chatbot_role", "reference_topics"); empty for none. The metric is skipped when the row
  // lacks it.
  std::string field;
  // Why a conversation with nothing to judge is skipped ("the conversation has no tool
  // call"), and what the metric's source scores then ("DeepEval scores 1"): the reason reads
  // "NOTHING_TO_JUDGE (SOURCE_SCORE)". Without a readable verdict on any item asked, the
  // reason says that instead, with the same source score.
  std::string nothing_to_judge;
  std::string source_score;
};

// One verdict of the judge's reply. `verdict` is "yes" or "no" after DeepEval's reading of
// a verdict (lower-cased, its leading run of letters: "Yes, it does" is "yes"); anything
// else ("idk", "maybe") is "" and the verdict is dropped, as DeepEval drops it.
struct ItemVerdict {
  std::string item;
  std::string verdict;
  std::string reason;
};

struct ItemVerdicts {
  std::vector<ItemVerdict> verdicts;  // as the judge gave them, in its order
  std::string reason;
  std::string warning;  // as CriticVerdict::warning
};

// The items a task asks about in `conversation`, as the labels the judge is shown and
// answers with: message numbers (1-based, counting every message) or tool call numbers;
// empty for kFound. kTurnEnds follows DeepEval 4.3.1's get_unit_interactions over the
// user and assistant messages (system and tool messages are read past): a unit runs from
// a user message to the assistant message before the next user message, and a last unit
// counts only when it ends with an assistant message.
std::vector<std::string> conversation_task_items(const Conversation& conversation, TaskItems items);

// The section of the prompt that lists the items: "MESSAGES TO JUDGE: 2, 4" or the tool
// calls one per line ("call 1: name({args})"); empty for kFound.
std::string conversation_task_item_section(const Conversation& conversation, TaskItems items);

// A conversation field as the judge is shown it: one of Conversation::texts, or the
// reference topics one per line ("- weather\n"); nullopt when the row lacks it (or the list
// is empty).
std::optional<std::string> conversation_field_text(const Conversation& conversation,
                                                   std::string_view field);

// DeepEval's reading of a verdict: "yes", "no" or "" (dropped).
std::string normalise_verdict(std::string_view raw);

// The score of a task's verdicts, DeepEval's fraction of passing verdicts: for kFound every
// verdict with a yes/no counts; otherwise an asked item's first verdict is its verdict
// (later ones are dropped, as are verdicts on items not asked; "#3.", "message 3" and, for
// tool calls, "call 3" are item "3"), and an asked item whose
// first verdict is unreadable or that has none follows task.missing.
// nullopt when nothing counts (DeepEval scores 1 then; ragmeter skips).
struct ItemScore {
  std::optional<double> score;
  std::vector<std::string> passed, failed, not_judged;  // items, in asked order
  int dropped = 0;  // verdicts not counted: not yes/no, a repeated or unknown item
};
ItemScore score_item_verdicts(const ConversationTask& task, const std::vector<std::string>& asked,
                              const ItemVerdicts& verdicts);

// DeepEval's TaskCompletionMetric as one call (ask_task_completion, judge_tasks.h; docs/agents.md):
// the task the user wants done (the row's `task` when given), what the assistant and its
// tool calls achieved, and how far that achieves the task, a number in [0, 1].
struct TaskCompletion {
  std::string task;      // the row's `task` when given, else the task the judge inferred
  bool task_given = false;
  std::string outcome;   // the judge's account of what was done
  double verdict = 0.0;  // in [0, 1]: the score
  // The verdict as the judge wrote it when that was not a JSON number ("0.8"); empty else.
  std::string verdict_text;
  std::string reason;
  std::string warning;  // as CriticVerdict::warning
};

// The row's task for deepeval_task_completion (its `task` field, DeepEval's `task`
// argument), nullopt when the row has none.
std::optional<std::string> given_task(const Conversation& conversation);

// Why deepeval_task_completion skips the conversation, empty when it judges it: an empty
// `task`, no assistant message (text or tool call: no outcome; DeepEval requires an actual
// output), or no user message with text and no `task` (no task to infer).
std::string task_completion_skip(const Conversation& conversation);

// The built-in tasks (DeepEval's conversational metrics), and one by metric name.
const std::vector<ConversationTask>& conversation_tasks();
const ConversationTask* find_conversation_task(std::string_view name);

}  // namespace ragmeter
