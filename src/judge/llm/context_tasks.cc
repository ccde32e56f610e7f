// context_relevance's sentences and context_entity_recall's entities as judge tasks
// (judge_tasks.h): one request each to a model, the offline rules (offline_tasks.h)
// without one, one reading of the reply for both.
#include <algorithm>

#include "judge/llm/call_plan_parts.h"
#include "judge/llm/llm_requests.h"
#include "judge/offline/offline_tasks.h"
#include "ragmeter/judge_tasks.h"
#include "ragmeter/offline_judge.h"
#include "ragmeter_prompts.inc"

namespace ragmeter {

using Json = nlohmann::json;

namespace {

Json strings_reply_schema(const char* key) {
  return {{"type", "object"}, {"properties", {{key, string_array_schema()}}}, {"required", {key}}};
}

// Each copied text as the sentence it stands for, each sentence once: the first untaken
// sentence equal to it (normalised), else the first untaken one that contains it or that it
// contains, so a sentence the model copied only in part (or with its neighbour) still
// counts.
std::vector<std::string> copied_sentences(const std::vector<std::string>& sentences,
                                          const std::vector<std::string>& copied) {
  std::vector<std::string> normal;
  for (const std::string& sentence : sentences) normal.push_back(normalize_content_text(sentence));
  std::vector<bool> taken(sentences.size(), false);
  std::vector<std::string> out;
  for (const std::string& text : copied) {
    const std::string key = normalize_content_text(text);
    if (key.empty()) continue;
    auto take = [&](auto matches) {
      for (std::size_t i = 0; i < sentences.size(); ++i) {
        if (taken[i] || !matches(normal[i])) continue;
        taken[i] = true;
        out.push_back(sentences[i]);
        return true;
      }
      return false;
    };
    if (take([&](const std::string& s) { return s == key; })) continue;
    take([&](const std::string& s) {
      return s.find(key) != std::string::npos || key.find(s) != std::string::npos;
    });
  }
  return out;
}

}  // namespace

namespace {

// The sentences of the sample's retrieved contexts (split_sentences), in order.
std::vector<std::string> context_sentences(const Sample& sample) {
  std::vector<std::string> sentences;
  if (!sample.retrieved_contexts) return sentences;
  for (const std::string& context : *sample.retrieved_contexts) {
    for (std::string_view sentence : split_sentences(context)) sentences.emplace_back(sentence);
  }
  return sentences;
}

// The entities reply's expected length in tokens (a short list of names).
constexpr std::int64_t kEntitiesReplyTokens = 40;

}  // namespace

namespace {

// The task of a sample whose contexts have a sentence.
JudgeTask sentences_task(const Sample& sample) {
  std::string contexts;
  for (const std::string& context : *sample.retrieved_contexts) contexts += context + "\n";
  JudgeTask task{
      .kind = "relevant_sentences",
      .prompt = std::string(prompts::k_relevant_sentences),
      .schema = strings_reply_schema("sentences"),
      .schema_name = "sentences",
      .sections = judge_section("QUESTION", sample.user_input.value_or("")) +
                  judge_section("CONTEXTS", contexts),
      .subject = "context relevance",
      .offline = [](const Sample& s) { return offline_relevant_sentences_reply(s); },
  };
  task.completion_tokens = plan_tokens(task.prompt.size() + task.sections.size()) / 2;
  return task;
}

}  // namespace

JudgeTask relevant_sentences_task(const Sample& sample) {
  if (context_sentences(sample).empty()) return JudgeTask{};
  return sentences_task(sample);
}

StatusOr<RelevantSentences> ask_relevant_sentences(Judge& judge, const Sample& sample,
                                                   CallLog* calls) {
  RelevantSentences out;
  const std::vector<std::string> sentences = context_sentences(sample);
  out.total = sentences.size();
  if (sentences.empty()) return out;
  JudgeTask task = sentences_task(sample);
  // The rules read the sentences split here (splitting is most of their cost).
  task.offline = [&sentences](const Sample& s) -> StatusOr<Json> {
    return offline_relevant_sentences_reply(s, sentences);
  };
  RAGMETER_ASSIGN_OR_RETURN(TaskReply reply, judge.ask(task, sample, calls));
  const std::vector<std::string> named = json_strings(reply.reply["sentences"]);
  // The rules name the contexts' own sentences; a model's copies are matched to them.
  out.relevant = reply.offline ? named : copied_sentences(sentences, named);
  return out;
}

JudgeTask entities_task(const Sample& sample) {
  return JudgeTask{
      .kind = "entities",
      .prompt = std::string(prompts::k_entities),
      .schema = strings_reply_schema("entities"),
      .schema_name = "entities",
      .sections = judge_section("TEXT", sample.reference().value_or("")),
      .subject = "context entity recall",
      .completion_tokens = kEntitiesReplyTokens,
      .offline = offline_entities_reply,
  };
}

StatusOr<EntityLists> ask_entities(Judge& judge, const Sample& sample, CallLog* calls) {
  RAGMETER_ASSIGN_OR_RETURN(TaskReply reply, judge.ask(entities_task(sample), sample, calls));
  EntityLists out;
  if (!reply.offline) {
    out.reference = normalised_entities(reply.reply["entities"]);
    return out;
  }
  // The rules' entities are normalised already (offline_entities), and only the rules list
  // the contexts' (a model is not asked for them).
  out.reference = json_strings(reply.reply["entities"]);
  out.contexts = json_strings(reply.reply["context_entities"]);
  return out;
}

}  // namespace ragmeter
