// What the LLM judge would ask for a sample (--dry-run): the calls by kind and a rough
// token estimate, from the same rules as llm_judge.cc, without sending anything.
#include <algorithm>
#include <string>

#include "core/conversation_turns.h"
#include "judge/llm/call_plan_parts.h"
#include "judge/llm/llm_requests.h"
#include "judge/llm/verdict_table.h"

#include "ragmeter/llm_judge.h"
#include "ragmeter/offline_judge.h"
#include "ragmeter_prompts.inc"

namespace ragmeter {
namespace {

constexpr std::int64_t kQuestionTokens = 80;
constexpr std::int64_t kCriticTokens = 60;
constexpr std::int64_t kTopicsTokens = 120;  // a few topics with two flags each, and a reason
constexpr std::int64_t kTaskCompletionTokens = 150;  // a task, an outcome, a reason, a number

std::int64_t tokens(std::size_t bytes) { return plan_tokens(bytes); }

}  // namespace

std::int64_t plan_tokens(std::size_t bytes) {
  constexpr std::int64_t kBytesPerToken = 4;
  return static_cast<std::int64_t>(bytes) / kBytesPerToken + 1;
}

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

// The one topics call that serves the three topic adherence metrics.
void plan_topics_call(const Sample& sample, PlannedCalls* plan) {
  std::size_t listed = 0;
  for (const std::string& topic : *sample.conversation->reference_topics) {
    listed += topic.size() + 3;
  }
  plan->calls["topics"] += 1;
  plan->prompt_tokens += tokens(prompts::k_system.size() + prompts::k_topics.size() +
                                judge_sample_sections(sample).size() + listed);
  plan->completion_tokens += kTopicsTokens;
}

bool has_reference_topics(const Conversation& conversation) {
  return conversation.reference_topics && !conversation.reference_topics->empty();
}

// The judged conversation metrics' critic calls, each over the whole conversation.
void plan_conversation_critic_calls(const Sample& sample, int critic_calls, PlannedCalls* plan) {
  plan->calls["critic"] += critic_calls;
  plan->prompt_tokens += critic_calls * tokens(prompts::k_system.size() + prompts::k_critic.size() +
                                               judge_sample_sections(sample).size());
  plan->completion_tokens += critic_calls * kCriticTokens;
}

// A conversation's calls: the single-turn metrics' for each turn (as evaluate scores them,
// conversation_turns.h), and a critic call per vote for each judged conversation metric
// over the whole conversation.
PlannedCalls plan_conversation_calls(const Sample& sample, const std::vector<MetricRequest>& metrics,
                                     const CallPlanOptions& options) {
  const int critic_votes = options.critic_votes;
  std::vector<MetricRequest> single_turn;
  int critic_calls = 0;
  bool topics = false;  // one topics call serves the three topic adherence metrics
  PlannedCalls plan_tasks;
  for (const MetricRequest& request : metrics) {
    if (request.info == nullptr) continue;
    if (request.info->calls & judge_calls::kTopics) {
      topics = topics || has_reference_topics(*sample.conversation);
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
               !missing_required_field(sample, request.info->needs)) {
      critic_calls += std::max(critic_votes, 1);  // not when skipped for a missing field
    }
  }
  PlannedCalls plan = std::move(plan_tasks);
  if (!single_turn.empty()) {
    for (const ConversationTurn& turn : conversation_turns(sample)) {
      plan += plan_llm_calls(turn.sample, single_turn, options);
    }
  }
  if (topics) plan_topics_call(sample, &plan);
  if (critic_calls > 0) plan_conversation_critic_calls(sample, critic_calls, &plan);
  return plan;
}

// What a single-turn sample's requested metrics ask (MetricInfo::calls), and how many
// critic calls: none for a metric the sample lacks a field of (it is skipped unasked).
struct RequestedCalls {
  unsigned calls = judge_calls::kNone;
  int critic_calls = 0;
  std::vector<const MetricInfo*> ledger_metrics;  // those reading a claim ledger, in order
};

RequestedCalls requested_calls(const Sample& sample, const std::vector<MetricRequest>& metrics,
                               int critic_votes) {
  RequestedCalls requested;
  for (const MetricRequest& request : metrics) {
    if (request.info == nullptr || request.info->judged == nullptr) continue;
    // A conversation metric on a single-turn row is skipped (it needs the conversation).
    if (missing_required_field(sample, request.info->needs)) continue;
    requested.calls |= request.info->calls;
    if (request.info->calls & judge_calls::kLedger) requested.ledger_metrics.push_back(request.info);
    if (request.info->calls & judge_calls::kCritic) {
      requested.critic_calls += std::max(critic_votes, 1);
    }
  }
  return requested;
}

}  // namespace

PlanTexts plan_texts(const Sample& sample) {
  static const std::vector<std::string> kNone;
  return PlanTexts{sample.user_input.value_or(""), sample.response.value_or(""),
                   std::string(sample.reference().value_or("")),
                   sample.retrieved_contexts ? *sample.retrieved_contexts : kNone,
                   sample.reference_contexts ? *sample.reference_contexts : kNone};
}

namespace {

// The claims call of the response and the reference, for those not stated yet (each is
// then); short answers carry the question, with no call.
void plan_claims_call(const PlanTexts& texts, bool response_short, bool reference_short,
                      StatedTexts* stated, PlannedCalls* plan) {
  const std::string& response = texts.response;
  const std::string& reference = texts.reference;
  const bool response_asked = !response.empty() && !response_short && !stated->contains(response);
  const bool reference_asked =
      !reference.empty() && !reference_short && !stated->contains(reference);
  if (!response_asked && !reference_asked) return;
  // Both texts are shown (the one stated for its context); only the asked ones are stated.
  plan->calls["claims"] += 1;
  plan->prompt_tokens += tokens(prompts::k_system.size() + prompts::k_claims.size() +
                                texts.question.size() + response.size() + reference.size());
  plan->completion_tokens += tokens((stated->contains(response) ? 0 : response.size()) +
                                    (stated->contains(reference) ? 0 : reference.size()));
  if (response_asked) stated->insert(response);
  if (reference_asked) stated->insert(reference);
}

// One verdict table per group of distinct premises that fits the window together
// (verdict_table.h): the chunks, the reference (for response claims) and the response
// (for reference claims). Claims as long as their texts.
void plan_verdict_tables(const PlanTexts& texts, std::size_t response_claims,
                         std::size_t reference_claims, std::int64_t claim_count, int context_tokens,
                         int max_tokens, PlannedCalls* plan) {
  std::vector<std::string> premises;
  auto add = [&premises](const std::string& text) {
    if (std::find(premises.begin(), premises.end(), text) == premises.end()) {
      premises.push_back(text);
    }
  };
  if (response_claims + reference_claims > 0) {
    for (const std::string& chunk : texts.chunks) add(chunk);
  }
  if (response_claims > 0 && !texts.reference.empty()) add(texts.reference);
  if (reference_claims > 0 && !texts.response.empty()) add(texts.response);
  std::vector<std::size_t> premise_bytes;
  for (const std::string& premise : premises) premise_bytes.push_back(premise.size());
  const std::size_t fixed = verdict_table_fixed_bytes();
  for (const auto& group : group_premises(response_claims + reference_claims, premise_bytes, fixed,
                                          context_tokens, max_tokens)) {
    std::size_t bytes = fixed + response_claims + reference_claims;
    for (std::size_t i : group) bytes += premise_bytes[i] + 8;
    plan->calls["verdicts"] += 1;
    plan->prompt_tokens += tokens(bytes);
    plan->completion_tokens += kTokensPerVerdict * claim_count;
  }
}

}  // namespace

void plan_ledger_calls(const PlanTexts& texts, int context_tokens, int max_tokens,
                       StatedTexts* stated, PlannedCalls* plan) {
  const std::string& question = texts.question;
  const std::string& response = texts.response;
  const std::string& reference = texts.reference;
  const bool response_short = !response.empty() && answer_premise(response, question) != response;
  const bool reference_short =
      !reference.empty() && answer_premise(reference, question) != reference;
  const std::size_t response_claims =
      response.empty() ? 0 : response.size() + (response_short ? question.size() : 0);
  const std::size_t reference_claims =
      reference.empty() ? 0 : reference.size() + (reference_short ? question.size() : 0);
  const std::int64_t claim_count = static_cast<std::int64_t>(
      extract_claims(response, question).size() + extract_claims(reference, question).size());
  plan_claims_call(texts, response_short, reference_short, stated, plan);
  plan_verdict_tables(texts, response_claims, reference_claims, claim_count, context_tokens,
                      max_tokens, plan);
}

namespace {

void plan_questions_call(const PlanTexts& texts, bool with_embedder, PlannedCalls* plan) {
  if (texts.response.empty()) return;
  plan->calls["questions"] += 1;
  plan->prompt_tokens +=
      tokens(prompts::k_system.size() + prompts::k_questions.size() + texts.response.size());
  plan->completion_tokens += kQuestionTokens;
  if (with_embedder) plan->calls["embeddings"] += 1;  // the question and 3 generated, at once
}

// The reference's entities (the contexts': whole words, no call).
void plan_similarity_call(const PlanTexts& texts, bool with_embedder, PlannedCalls* plan) {
  if (!with_embedder || texts.response.empty() || texts.reference.empty()) return;
  plan->calls["embeddings"] += 1;
  plan->prompt_tokens += tokens(texts.response.size() + texts.reference.size());
}

// The metrics that name a judge task (MetricInfo::task): one request per task kind and
// sample, planned from the task as the metric asks it.
void plan_task_calls(const Sample& sample, const std::vector<MetricRequest>& metrics,
                     PlannedCalls* plan) {
  std::set<std::string> asked;
  for (const MetricRequest& request : metrics) {
    if (request.info == nullptr || request.info->task == nullptr) continue;
    if (missing_required_field(sample, request.info->needs)) continue;
    const JudgeTask task = request.info->task(sample);
    if (task.kind.empty() || !asked.insert(task.kind).second) continue;
    plan->calls[task.kind] += 1;
    plan->prompt_tokens +=
        tokens(prompts::k_system.size() + task.prompt.size() + task.sections.size());
    plan->completion_tokens += task.completion_tokens;
  }
}

// The key facts are the claims of the reference contexts (joined as summary_score joins
// them), then one verdict table: each fact against the response.
void plan_key_facts_calls(const PlanTexts& texts, PlannedCalls* plan) {
  if (texts.response.empty() || texts.reference_contexts.empty()) return;
  std::string text;
  for (const std::string& context : texts.reference_contexts) {
    text += (text.empty() ? "" : "\n") + context;
  }
  plan->calls["claims"] += 1;
  plan->prompt_tokens += tokens(prompts::k_system.size() + prompts::k_claims.size() + text.size());
  plan->completion_tokens += tokens(text.size());
  if (!extract_claims(text, "").empty()) {
    plan->calls["verdicts"] += 1;
    plan->prompt_tokens +=
        tokens(verdict_table_fixed_bytes() + text.size() + texts.response.size());
    plan->completion_tokens +=
        kTokensPerVerdict * static_cast<std::int64_t>(extract_claims(text, "").size());
  }
}

void plan_critic_calls(const PlanTexts& texts, int critic_calls, PlannedCalls* plan) {
  if (critic_calls <= 0 || texts.response.empty()) return;
  plan->calls["critic"] += critic_calls;
  plan->prompt_tokens +=
      critic_calls * tokens(prompts::k_system.size() + prompts::k_critic.size() +
                            texts.question.size() + texts.response.size() + texts.reference.size());
  plan->completion_tokens += critic_calls * kCriticTokens;
}

void plan_rubric_call(const PlanTexts& texts, PlannedCalls* plan) {
  if (texts.response.empty()) return;
  plan->calls["rubric"] += 1;
  plan->prompt_tokens +=
      tokens(prompts::k_system.size() + prompts::k_rubric.size() + texts.question.size() +
             texts.response.size() + texts.reference.size());
  plan->completion_tokens += kCriticTokens;
}

// Images: their tokens are not known before they are read (the dry run reads none), so
// only the calls and the text around the images are counted.
void plan_vision_call(const PlanTexts& texts, PlannedCalls* plan) {
  if (texts.response.empty()) return;
  std::size_t context_bytes = 0;
  for (const std::string& chunk : texts.chunks) context_bytes += chunk.size();
  plan->calls["vision"] += 1;
  plan->prompt_tokens +=
      tokens(prompts::k_system.size() + prompts::k_multimodal_faithfulness.size() +
             texts.question.size() + texts.response.size() + context_bytes);
  plan->completion_tokens += kCriticTokens;
}

void plan_image_verdicts_calls(const Sample& sample, const PlanTexts& texts, PlannedCalls* plan) {
  if (sample.retrieved_images.empty()) return;
  const auto images = static_cast<std::int64_t>(sample.retrieved_images.size());
  plan->calls["image_verdicts"] += images;
  plan->prompt_tokens +=
      images * tokens(prompts::k_system.size() + prompts::k_image_verdicts.size() +
                      texts.response.size() + texts.reference.size());
  plan->completion_tokens += images * kCriticTokens;
}

}  // namespace

PlannedCalls plan_llm_calls(const Sample& sample, const std::vector<MetricRequest>& metrics,
                            const CallPlanOptions& options) {
  if (sample.conversation) return plan_conversation_calls(sample, metrics, options);
  const bool with_embedder = options.with_embedder;
  const RequestedCalls requested = requested_calls(sample, metrics, options.critic_votes);
  const unsigned calls = requested.calls;
  const PlanTexts texts = plan_texts(sample);
  PlannedCalls plan;
  if (options.ragas_plan) {
    plan_ragas_ledgers(texts, requested.ledger_metrics, options.context_tokens, options.max_tokens,
                       &plan);
  } else if (calls & judge_calls::kLedger) {
    StatedTexts stated;
    plan_ledger_calls(texts, options.context_tokens, options.max_tokens, &stated, &plan);
  }
  if (calls & judge_calls::kQuestions) plan_questions_call(texts, with_embedder, &plan);
  if (calls & judge_calls::kSimilarity) plan_similarity_call(texts, with_embedder, &plan);
  plan_task_calls(sample, metrics, &plan);
  if (calls & judge_calls::kKeyFacts) plan_key_facts_calls(texts, &plan);
  plan_critic_calls(texts, requested.critic_calls, &plan);
  if (calls & judge_calls::kRubric) plan_rubric_call(texts, &plan);
  if (calls & judge_calls::kVision) plan_vision_call(texts, &plan);
  if (calls & judge_calls::kImageVerdicts) plan_image_verdicts_calls(sample, texts, &plan);
  return plan;
}

}  // namespace ragmeter
