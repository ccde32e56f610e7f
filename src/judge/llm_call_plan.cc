// What the LLM judge would ask for a sample (--dry-run): the calls by kind and a rough
// token estimate, from the same rules as llm_judge.cc, without sending anything.
#include <algorithm>
#include <string>

#include "core/conversation_turns.h"
#include "judge/llm_requests.h"
#include "judge/verdict_table.h"

#include "ragmeter/llm_judge.h"
#include "ragmeter/offline_judge.h"
#include "ragmeter_prompts.inc"

namespace ragmeter {
namespace {

constexpr std::int64_t kBytesPerToken = 4;
constexpr std::int64_t kTokensPerVerdict = 30;
constexpr std::int64_t kQuestionTokens = 80;
constexpr std::int64_t kEntityTokens = 40;
constexpr std::int64_t kCriticTokens = 60;
constexpr std::int64_t kTopicsTokens = 120;  // a few topics with two flags each, and a reason
constexpr std::int64_t kTaskCompletionTokens = 150;  // a task, an outcome, a reason, a number

std::int64_t tokens(std::size_t bytes) {
  return static_cast<std::int64_t>(bytes) / kBytesPerToken + 1;
}

}  // namespace

std::int64_t PlannedCalls::total_calls() const {
  std::int64_t total = 0;
  for (const auto& [kind, n] : calls) total += n;
  return total;
}

PlannedCalls& PlannedCalls::operator+=(const PlannedCalls& other) {
  for (const auto& [kind, n] : other.calls) calls[kind] += n;
  prompt_tokens += other.prompt_tokens;
  completion_tokens += other.completion_tokens;
  return *this;
}

namespace {

// Whether the metric table lists `field` among the metric's needs ("conversation, reference").
bool needs_field(const MetricInfo& info, std::string_view field) {
  std::string_view rest = info.fields;
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    if (item == field) return true;
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
  }
  return false;
}

// A conversation task's one call (llm_conversation_tasks.cc), when the metric would make it:
// not when the row lacks the task's field or the conversation has none of its items.
void plan_conversation_task(const Sample& sample, const ConversationTask& task, PlannedCalls* plan) {
  const Conversation& conversation = *sample.conversation;
  std::size_t field = 0;
  if (!task.field.empty()) {
    const std::optional<std::string> text = conversation_field_text(conversation, task.field);
    if (!text) return;
    field = text->size() + task.field.size() + 3;
  }
  const std::size_t items = conversation_task_items(conversation, task.items).size();
  if (task.items != TaskItems::kFound && items == 0) return;
  plan->calls[task.name] += 1;
  plan->prompt_tokens += tokens(prompts::k_system.size() + task.instructions.size() +
                                prompts::k_conversation_task.size() +
                                judge_conversation_section(conversation).size() + field +
                                conversation_task_item_section(conversation, task.items).size());
  // The found items (intentions) are a few; one verdict per listed item otherwise.
  plan->completion_tokens += kTokensPerVerdict * static_cast<std::int64_t>(std::max<std::size_t>(items, 3)) +
                             kCriticTokens;
}

// deepeval_task_completion's one call (llm_task_completion.cc), unless the metric skips the
// conversation (task_completion_skip).
void plan_task_completion(const Sample& sample, PlannedCalls* plan) {
  const Conversation& conversation = *sample.conversation;
  if (!task_completion_skip(conversation).empty()) return;
  const std::optional<std::string> task = given_task(conversation);
  plan->calls["task_completion"] += 1;
  plan->prompt_tokens += tokens(prompts::k_system.size() + prompts::k_task_completion.size() +
                                judge_conversation_section(conversation).size() +
                                (task ? task->size() + 8 : 0));
  plan->completion_tokens += kTaskCompletionTokens;
}

// A conversation's calls: the single-turn metrics' for each turn (as evaluate scores them,
// conversation_turns.h), and a critic call per vote for each judged conversation metric
// over the whole conversation.
PlannedCalls plan_conversation_calls(const Sample& sample, const std::vector<MetricRequest>& metrics,
                                     bool with_embedder, int context_tokens, int max_tokens,
                                     int critic_votes) {
  std::vector<MetricRequest> single_turn;
  int critic_calls = 0;
  bool topics = false;  // one topics call serves the three topic adherence metrics
  PlannedCalls plan_tasks;
  for (const MetricRequest& request : metrics) {
    if (request.info == nullptr) continue;
    if (request.info->calls & judge_calls::kTopics) {
      topics = topics || (sample.conversation->reference_topics &&
                          !sample.conversation->reference_topics->empty());
      continue;
    }
    if (request.info->calls & judge_calls::kTaskCompletion) {
      plan_task_completion(sample, &plan_tasks);
      continue;
    }
    if (request.info->calls & judge_calls::kConversationTask) {
      if (const ConversationTask* task = find_conversation_task(request.info->name)) {
        plan_conversation_task(sample, *task, &plan_tasks);
      }
      continue;
    }
    if (request.info->family != MetricFamily::kConversation) {
      single_turn.push_back(request);
    } else if (request.info->judged != nullptr && (request.info->calls & judge_calls::kCritic) &&
               (!needs_field(*request.info, "reference") || sample.reference())) {
      critic_calls += std::max(critic_votes, 1);  // not when skipped for a missing reference
    }
  }
  PlannedCalls plan = std::move(plan_tasks);
  if (!single_turn.empty()) {
    for (const ConversationTurn& turn : conversation_turns(sample)) {
      plan += plan_llm_calls(turn.sample, single_turn, with_embedder, context_tokens, max_tokens,
                             critic_votes);
    }
  }
  if (topics) {
    std::size_t listed = 0;
    for (const std::string& topic : *sample.conversation->reference_topics) listed += topic.size() + 3;
    plan.calls["topics"] += 1;
    plan.prompt_tokens += tokens(prompts::k_system.size() + prompts::k_topics.size() +
                                 judge_sample_sections(sample).size() + listed);
    plan.completion_tokens += kTopicsTokens;
  }
  if (critic_calls > 0) {
    plan.calls["critic"] += critic_calls;
    plan.prompt_tokens += critic_calls * tokens(prompts::k_system.size() + prompts::k_critic.size() +
                                                judge_sample_sections(sample).size());
    plan.completion_tokens += critic_calls * kCriticTokens;
  }
  return plan;
}

}  // namespace

PlannedCalls plan_llm_calls(const Sample& sample, const std::vector<MetricRequest>& metrics,
                            bool with_embedder, int context_tokens, int max_tokens,
                            int critic_votes) {
  if (sample.conversation) {
    return plan_conversation_calls(sample, metrics, with_embedder, context_tokens, max_tokens,
                                   critic_votes);
  }
  // What the requested metrics ask, from the metric table (MetricInfo::calls).
  unsigned calls = judge_calls::kNone;
  int critic_calls = 0;
  for (const MetricRequest& request : metrics) {
    if (request.info == nullptr || request.info->judged == nullptr) continue;
    // A conversation metric on a single-turn row is skipped: no call.
    if (request.info->family == MetricFamily::kConversation) continue;
    calls |= request.info->calls;
    if (request.info->calls & judge_calls::kCritic) critic_calls += std::max(critic_votes, 1);
  }
  const bool ledger = calls & judge_calls::kLedger;
  const bool questions = calls & judge_calls::kQuestions;
  const bool entities = calls & judge_calls::kEntities;
  const bool similarity = calls & judge_calls::kSimilarity;
  PlannedCalls plan;
  const std::size_t system = prompts::k_system.size();
  const std::string question = sample.user_input.value_or("");
  const std::string response = sample.response.value_or("");
  const std::string reference(sample.reference().value_or(""));
  static const std::vector<std::string> kNone;
  const auto& chunks = sample.retrieved_contexts ? *sample.retrieved_contexts : kNone;
  if (ledger) {
    const bool response_short = !response.empty() && answer_premise(response, question) != response;
    const bool reference_short =
        !reference.empty() && answer_premise(reference, question) != reference;
    // Claims as long as their texts; short answers carry the question.
    const std::size_t response_claims =
        response.empty() ? 0 : response.size() + (response_short ? question.size() : 0);
    const std::size_t reference_claims =
        reference.empty() ? 0 : reference.size() + (reference_short ? question.size() : 0);
    const std::int64_t claim_count =
        static_cast<std::int64_t>(extract_claims(response, question).size() +
                                  extract_claims(reference, question).size());
    if ((!response.empty() && !response_short) || (!reference.empty() && !reference_short)) {
      plan.calls["claims"] += 1;
      plan.prompt_tokens += tokens(system + prompts::k_claims.size() + question.size() +
                                   response.size() + reference.size());
      plan.completion_tokens += tokens(response.size() + reference.size());
    }
    // One verdict table per group of distinct premises that fits the window together
    // (verdict_table.h): the chunks, the reference (for response claims) and the
    // response (for reference claims).
    std::vector<std::string> premises;
    auto add = [&premises](const std::string& text) {
      if (std::find(premises.begin(), premises.end(), text) == premises.end()) premises.push_back(text);
    };
    if (response_claims + reference_claims > 0) {
      for (const std::string& chunk : chunks) add(chunk);
    }
    if (response_claims > 0 && !reference.empty()) add(reference);
    if (reference_claims > 0 && !response.empty()) add(response);
    std::vector<std::size_t> premise_bytes;
    for (const std::string& premise : premises) premise_bytes.push_back(premise.size());
    const std::size_t fixed = verdict_table_fixed_bytes();
    for (const auto& group : group_premises(response_claims + reference_claims, premise_bytes,
                                            fixed, context_tokens, max_tokens)) {
      std::size_t bytes = fixed + response_claims + reference_claims;
      for (std::size_t i : group) bytes += premise_bytes[i] + 8;
      plan.calls["verdicts"] += 1;
      plan.prompt_tokens += tokens(bytes);
      plan.completion_tokens += kTokensPerVerdict * claim_count;
    }
  }
  if (questions && !response.empty()) {
    plan.calls["questions"] += 1;
    plan.prompt_tokens += tokens(system + prompts::k_questions.size() + response.size());
    plan.completion_tokens += kQuestionTokens;
    if (with_embedder) plan.calls["embeddings"] += 1;  // the question and 3 generated, at once
  }
  if (entities && !reference.empty()) {  // the reference's entities (contexts: whole words)
    plan.calls["entities"] += 1;
    plan.prompt_tokens += tokens(system + prompts::k_entities.size() + reference.size());
    plan.completion_tokens += kEntityTokens;
  }
  if (similarity && with_embedder && !response.empty() && !reference.empty()) {
    plan.calls["embeddings"] += 1;
    plan.prompt_tokens += tokens(response.size() + reference.size());
  }
  if ((calls & judge_calls::kRelevantSentences) && !question.empty() && !chunks.empty()) {
    std::size_t bytes = system + prompts::k_relevant_sentences.size() + question.size();
    for (const std::string& chunk : chunks) bytes += chunk.size() + 6;
    plan.calls["relevant_sentences"] += 1;
    plan.prompt_tokens += tokens(bytes);
    plan.completion_tokens += tokens(bytes - system) / 2;
  }
  static const std::vector<std::string> kNoContexts;
  const auto& reference_contexts =
      sample.reference_contexts ? *sample.reference_contexts : kNoContexts;
  if ((calls & judge_calls::kKeyFacts) && !response.empty() && !reference_contexts.empty()) {
    std::string text;  // the reference contexts, as summary_score joins them
    for (const std::string& context : reference_contexts) text += (text.empty() ? "" : "\n") + context;
    // The key facts are the claims of that text, then one verdict table: each fact
    // against the response.
    plan.calls["claims"] += 1;
    plan.prompt_tokens += tokens(system + prompts::k_claims.size() + text.size());
    plan.completion_tokens += tokens(text.size());
    if (!extract_claims(text, "").empty()) {
      plan.calls["verdicts"] += 1;
      plan.prompt_tokens +=
          tokens(verdict_table_fixed_bytes() + text.size() + response.size());
      plan.completion_tokens +=
          kTokensPerVerdict * static_cast<std::int64_t>(extract_claims(text, "").size());
    }
  }
  if (critic_calls > 0 && !response.empty()) {
    plan.calls["critic"] += critic_calls;
    plan.prompt_tokens += critic_calls * tokens(system + prompts::k_critic.size() + question.size() +
                                                response.size() + reference.size());
    plan.completion_tokens += critic_calls * kCriticTokens;
  }
  if ((calls & judge_calls::kRubric) && !response.empty()) {
    plan.calls["rubric"] += 1;
    plan.prompt_tokens += tokens(system + prompts::k_rubric.size() + question.size() +
                                 response.size() + reference.size());
    plan.completion_tokens += kCriticTokens;
  }
  // Images: their tokens are not known before they are read (the dry run reads none), so
  // only the calls and the text around the images are counted.
  std::size_t context_bytes = 0;
  for (const std::string& chunk : chunks) context_bytes += chunk.size();
  if ((calls & judge_calls::kVision) && !response.empty()) {
    plan.calls["vision"] += 1;
    plan.prompt_tokens += tokens(system + prompts::k_multimodal_faithfulness.size() + question.size() +
                                 response.size() + context_bytes);
    plan.completion_tokens += kCriticTokens;
  }
  if ((calls & judge_calls::kImageVerdicts) && !sample.retrieved_images.empty()) {
    const auto images = static_cast<std::int64_t>(sample.retrieved_images.size());
    plan.calls["image_verdicts"] += images;
    plan.prompt_tokens += images * tokens(system + prompts::k_image_verdicts.size() + response.size() +
                                          reference.size());
    plan.completion_tokens += images * kCriticTokens;
  }
  return plan;
}

}  // namespace ragmeter
