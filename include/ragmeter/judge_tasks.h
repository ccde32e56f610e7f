// The judge's tasks: questions for a judge, each built as a JudgeTask (judge.h: the prompt,
// the sample's sections or images, the reply's schema, and for some the offline rules' answer) and
// asked of any judge through the one Judge::ask, their replies read here. A task with
// offline rules (the relevant sentences, the entities) is answered by them when the judge
// has no model; any other task then answers FailedPrecondition naming it ("rubric scores
// need an LLM judge ..."), which the metrics report as `skipped`. Requests are byte for
// byte what the judge's own methods sent before they became tasks, so cached replies still
// answer them. Thread-safe as the judge is.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ragmeter/conversation_task.h"
#include "ragmeter/judge.h"
#include "ragmeter/sample.h"
#include "ragmeter/status.h"

namespace ragmeter {

// answer_relevancy's questions: those the response answers and whether it is noncommittal
// (GeneratedQuestions, judge.h); call kind "questions", in the sample's language.
// InvalidArgument when the model wrote them in another script, also when asked again (they
// would be compared with the question across languages). A response that declines in so
// many words (is_noncommittal) is noncommittal whatever the model said. Offline: the
// response stands in for the questions.
StatusOr<GeneratedQuestions> ask_questions(Judge& judge, const Sample& sample, CallLog* calls);
JudgeTask questions_task(const Sample& sample);

// context_relevance: which sentences of the retrieved contexts are needed to answer
// the question.
struct RelevantSentences {
  std::size_t total = 0;               // sentences in the contexts (split_sentences)
  std::vector<std::string> relevant;   // the needed ones (each a sentence of the contexts)
};

// The sentences of the sample's retrieved contexts needed to answer its question; call
// kind "relevant_sentences", none when the contexts have no sentence. A model's copied
// text counts as the context sentence it equals (normalised), else the first untaken one
// that contains it or that it contains; each sentence counts once. Offline: a sentence
// holding at least half of the question's content words (stemmed; at least one).
StatusOr<RelevantSentences> ask_relevant_sentences(Judge& judge, const Sample& sample,
                                                   CallLog* calls);
// Its task, as asked (context_relevance's MetricInfo::task); an empty kind when the
// contexts have no sentence.
JudgeTask relevant_sentences_task(const Sample& sample);

// context_entity_recall's entities: of the reference, and of the retrieved contexts
// together (normalised strings: case-folded, spaces normalised; each list without repeats).
struct EntityLists {
  std::vector<std::string> reference;
  std::vector<std::string> contexts;
};

// The named entities (people, places, organisations, dates, numbers) of the sample's
// reference and retrieved contexts; call kind "entities". A model is asked for the
// reference's only and the contexts' list stays empty (context_entity_recall then matches
// the reference's entities against the contexts' words); the offline rules
// (offline_entities) list both.
StatusOr<EntityLists> ask_entities(Judge& judge, const Sample& sample, CallLog* calls);
// Its task, as asked (context_entity_recall's MetricInfo::task).
JudgeTask entities_task(const Sample& sample);

// The aspect critic `name` with `definition` on the sample (question, response, contexts
// and reference when present; a conversation's messages), by majority over `votes` (odd)
// ballots, asked concurrently; call kind "critic:NAME". InvalidArgument when `votes` is
// even or below 1, or a ballot's reply has no verdict 0 or 1.
StatusOr<CriticVerdict> ask_critic(Judge& judge, const Sample& sample, std::string_view name,
                                   std::string_view definition, int votes, CallLog* calls);

// The sample's score 1..5 against `rubrics` ({"score1_description": ..., ...}); call kind
// "rubric". InvalidArgument when the reply has no integer score.
StatusOr<RubricScore> ask_rubric(Judge& judge, const Sample& sample,
                                 const std::map<std::string, std::string>& rubrics,
                                 CallLog* calls);

// ragas's topic adherence over the sample's conversation: its topics, each with whether
// the assistant answered it and whether it is one of `reference_topics`; call kind "topics".
StatusOr<TopicVerdicts> ask_topics(Judge& judge, const Sample& sample,
                                   const std::vector<std::string>& reference_topics,
                                   CallLog* calls);

// A conversation task (conversation_task.h) over the sample's conversation: one call, named
// by the task, whose verdicts cover the task's items. InvalidArgument on a single-turn
// sample.
StatusOr<ItemVerdicts> ask_conversation_task(Judge& judge, const Sample& sample,
                                             const ConversationTask& task, CallLog* calls);

// DeepEval's task completion over the sample's conversation: the task (the row's `task`
// when given), the outcome and a verdict in [0, 1] (read_task_completion_reply), one
// "task_completion" call. InvalidArgument on a single-turn sample.
StatusOr<TaskCompletion> ask_task_completion(Judge& judge, const Sample& sample, CallLog* calls);

// ragas 0.4's multimodal_faithfulness / multimodal_relevance: one "vision" call over the
// response (and, for relevance, the question) and every retrieved context in rank order,
// texts and `images` (the sample's, read) shown as they are, a verdict 0/1 and a reason
// in the sample's language (a reason still in another script keeps the verdict and says so
// in MultimodalVerdict::warning). A judge without a vision model answers FailedPrecondition
// ("needs a vision model ..."); InvalidArgument when the reply has no verdict 0 or 1, or the
// images pass the server's limits (--judge-max-images, --judge-max-image-bytes).
StatusOr<MultimodalVerdict> ask_multimodal_verdict(Judge& judge, const Sample& sample,
                                                   const std::vector<SampleImage>& images,
                                                   MultimodalQuestion question, CallLog* calls);
// Its task, as asked: the images are shown through JudgeTask::parts, which point into
// `images` (keep it alive while the task is asked).
JudgeTask multimodal_verdict_task(const Sample& sample, const std::vector<SampleImage>& images,
                                  MultimodalQuestion question);

}  // namespace ragmeter
