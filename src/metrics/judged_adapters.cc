// Adapters from a SampleJudgement to the judged metrics: check the fields each metric
// needs (skipped, naming the field), ask the judgement for the ledger, similarity or
// questions (each computed once per sample), and read the score off them.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <optional>
#include <string>

#include "metrics/adapters.h"
#include "metrics/judged_evidence.h"
#include "ragmeter/judge.h"
#include "ragmeter/judge_tasks.h"
#include "ragmeter/tool_metrics.h"
#include "ragmeter/ledger_metrics.h"
#include "ragmeter/language.h"
#include "ragmeter/offline_judge.h"
#include "ragmeter/words.h"

namespace ragmeter::adapters {
namespace {

using Judgement = SampleJudgement;

// The note on a text metric's score for a sample with images among its contexts.
constexpr const char* kImagesNotRead =
    "image contexts were not read by this text metric (multimodal_claim_faithfulness, "
    "multimodal_context_recall and multimodal_context_utilization read them)";

// Reads a ledger metric (its fields were checked: MetricInfo::needs); `contexts`: whether it
// reads the retrieved contexts, so that a sample with image contexts gets a note.
template <typename Read>
MetricResult from_ledger(Judgement& j, std::string_view ragas_scope, bool contexts, Read read) {
  const CallLog* calls = nullptr;
  const auto& ledger = j.ledger_for(ragas_scope, &calls);
  if (!ledger.ok()) return with_calls(judge_failed(ledger.status()), *calls);
  MetricResult result = with_warnings(read(*ledger), ledger->warnings);
  if (contexts && result.outcome == Outcome::kOk && !j.sample().retrieved_images.empty()) {
    result.note = kImagesNotRead;
  }
  return with_calls(std::move(result), *calls);
}

MetricResult similarity_result(Judgement& j, const ScoringOptions& o) {
  const auto& similarity = j.response_reference_similarity();
  if (!similarity.ok()) return with_calls(judge_failed(similarity.status()), j.similarity_calls());
  double cosine = *similarity;
  MetricResult result = MetricResult::ok(cosine);
  result.evidence["cosine"] = cosine;
  if (o.semantic_similarity_threshold) {
    result.score = cosine >= *o.semantic_similarity_threshold ? 1.0 : 0.0;
    result.evidence["threshold"] = *o.semantic_similarity_threshold;
  }
  return with_calls(std::move(result), j.similarity_calls());
}

// A cosine as a share of similarity for the metrics declared in [0, 1] that are built on
// one (answer_correctness, answer_relevancy): a negative cosine (texts less alike than
// unrelated ones) counts as no similarity. ragas declares both metrics in [0, 1] but adds
// the raw cosine, which makes them negative now and then; the value is ragas's whenever
// its cosine is >= 0. semantic_similarity itself stays the cosine ([-1, 1]).
double similarity_share(double cosine) { return std::max(0.0, cosine); }

}  // namespace

MetricResult faithfulness(Judgement& j, const MetricRequest& r, const ScoringOptions&) {
  return from_ledger(j, r.info->ragas_scope, true, ledger_faithfulness);
}

MetricResult context_precision(Judgement& j, const MetricRequest& r, const ScoringOptions&) {
  return from_ledger(j, r.info->ragas_scope, true, ledger_context_precision);
}

MetricResult context_utilization(Judgement& j, const MetricRequest& r, const ScoringOptions&) {
  return from_ledger(j, r.info->ragas_scope, true, ledger_context_utilization);
}

MetricResult context_recall(Judgement& j, const MetricRequest& r, const ScoringOptions&) {
  return from_ledger(j, r.info->ragas_scope, true, ledger_context_recall);
}

MetricResult noise_sensitivity_relevant(Judgement& j, const MetricRequest& r, const ScoringOptions&) {
  return from_ledger(j, r.info->ragas_scope, true, [](const ClaimLedger& ledger) {
    return ledger_noise_sensitivity(ledger, NoiseMode::kRelevant);
  });
}

MetricResult noise_sensitivity_irrelevant(Judgement& j, const MetricRequest& r,
                                          const ScoringOptions&) {
  return from_ledger(j, r.info->ragas_scope, true, [](const ClaimLedger& ledger) {
    return ledger_noise_sensitivity(ledger, NoiseMode::kIrrelevant);
  });
}

namespace {
// factual_correctness's --plan ragas scope (its table entry's), which its precision and
// recall modes and answer_correctness read too.
constexpr std::string_view kFactualScope = "factual_correctness";

MetricResult factual(Judgement& j, FactualMode mode, const ScoringOptions& o) {
  // Every factual_correctness mode and answer_correctness read the same ledger scope.
  return from_ledger(j, kFactualScope, false, [&](const ClaimLedger& ledger) {
    return ledger_factual_correctness(ledger, mode, LedgerMetricOptions{o.factual_beta, false});
  });
}
}  // namespace

MetricResult factual_correctness(Judgement& j, const MetricRequest&, const ScoringOptions& o) {
  return factual(j, FactualMode::kF1, o);
}

MetricResult factual_correctness_precision(Judgement& j, const MetricRequest&,
                                           const ScoringOptions& o) {
  return factual(j, FactualMode::kPrecision, o);
}

MetricResult factual_correctness_recall(Judgement& j, const MetricRequest&,
                                        const ScoringOptions& o) {
  return factual(j, FactualMode::kRecall, o);
}

MetricResult semantic_similarity(Judgement& j, const MetricRequest&, const ScoringOptions& o) {
  return similarity_result(j, o);
}

// ragas: 0.75 * factual F1 + 0.25 * semantic similarity (weights normalised to sum 1), the
// similarity's negative cosines counted as 0 (similarity_share). A response or reference
// without claims has no F1: the metric is skipped with its reason.
MetricResult answer_correctness(Judgement& j, const MetricRequest&, const ScoringOptions& o) {
  double wf = o.answer_correctness_factual_weight;
  double ws = o.answer_correctness_semantic_weight;
  if (!(wf >= 0 && ws >= 0 && wf + ws > 0 && std::isfinite(wf + ws))) {
    return MetricResult::failed("answer_correctness weights must be >= 0 with a positive sum");
  }
  MetricResult f1 = factual(j, FactualMode::kF1, o);
  if (f1.outcome != Outcome::kOk) return f1;
  MetricResult similarity = similarity_result(j, ScoringOptions{});
  if (similarity.outcome != Outcome::kOk) return similarity;
  MetricResult result =
      MetricResult::ok((wf * f1.score + ws * similarity_share(similarity.score)) / (wf + ws));
  result.evidence["factual_f1"] = f1.score;
  result.evidence["semantic_similarity"] = similarity.score;
  result.evidence["weights"] = {wf, ws};
  result.evidence["claims"] = std::move(f1.evidence["claims"]);
  if (f1.evidence.contains("warnings")) result.evidence["warnings"] = std::move(f1.evidence["warnings"]);
  return result;
}

// Mean similarity of the question to each generated question (negative cosines as 0,
// similarity_share); 0 when noncommittal.
MetricResult answer_relevancy(Judgement& j, const MetricRequest&, const ScoringOptions&) {
  const auto& generated = j.questions();
  if (!generated.ok()) return with_calls(judge_failed(generated.status()), j.questions_calls());
  CallLog calls = j.questions_calls();
  MetricResult result = MetricResult::ok(0.0);
  result.evidence["method"] = generated->method;
  result.evidence["noncommittal"] = generated->noncommittal;
  if (generated->noncommittal) return with_calls(std::move(result), calls);
  if (generated->questions.empty()) {
    return MetricResult::failed("judge: no questions were generated from the response");
  }
  auto similarities = j.judge().similarities(*j.sample().user_input, generated->questions, &calls);
  if (!similarities.ok()) return with_calls(judge_failed(similarities.status()), calls);
  if (similarities->size() != generated->questions.size()) {
    return with_calls(MetricResult::failed("judge: a similarity per generated question was expected"), calls);
  }
  double sum = 0.0;
  nlohmann::ordered_json questions = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < generated->questions.size(); ++i) {
    const double similarity = (*similarities)[i];
    sum += similarity_share(similarity);
    questions.push_back({{"question", generated->questions[i]}, {"similarity", similarity}});
  }
  result.score = sum / static_cast<double>(generated->questions.size());
  result.evidence["questions"] = std::move(questions);
  return with_calls(std::move(result), calls);
}

namespace {

// The byte offsets where a text's words (split_words) start and end.
struct WordEdges {
  std::vector<std::size_t> starts, ends;  // ascending

  // Whether [begin, end) starts where a word starts and ends where a word ends.
  bool whole_word(std::size_t begin, std::size_t end) const {
    return std::binary_search(starts.begin(), starts.end(), begin) &&
           std::binary_search(ends.begin(), ends.end(), end);
  }
};

WordEdges word_edges(std::string_view text) {
  WordEdges edges;
  for (std::string_view word : split_words(text)) {
    edges.starts.push_back(static_cast<std::size_t>(word.data() - text.data()));
    edges.ends.push_back(edges.starts.back() + word.size());
  }
  return edges;
}

}  // namespace

// entities(R) found in the contexts / entities(R), matched as normalised strings: an
// entity is found when the judge listed it among the contexts' entities, or when the
// contexts' text holds it verbatim as whole words (case-folded, spaces normalised), since
// then a context states it whatever the judge's list left out. Whole words are told by
// the characters around them, except for an entity with letters of a script written
// without spaces (Chinese, Japanese, Thai, ...), whose ends must be word ends of ICU's
// word break.
MetricResult context_entity_recall(Judgement& j, const MetricRequest&, const ScoringOptions&) {
  CallLog calls;
  auto entities = ask_entities(j.judge(), j.sample(), &calls);
  if (!entities.ok()) return with_calls(judge_failed(entities.status()), calls);
  const std::vector<std::string>* reference_entities = &entities->reference;
  const std::vector<std::string>& context_entities = entities->contexts;
  if (reference_entities->empty()) {
    return MetricResult::skipped("the reference names no entity");
  }
  std::string context_text;
  for (const std::string& context : *j.sample().retrieved_contexts) {
    context_text += " " + offline_fold_case(normalize_content_text(context));
  }
  // Where the contexts' words start and end by ICU's word break, found once and only for
  // an entity in a script written without spaces ("北京" in "首都是北京。"), where the
  // characters around a whole word are letters too.
  std::optional<WordEdges> edges;
  auto stated_verbatim = [&](const std::string& entity) {
    const std::string needle = offline_fold_case(normalize_content_text(entity));
    const bool unspaced = has_unspaced_letters(needle);
    if (unspaced && !edges) edges = word_edges(context_text);
    auto word_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || (c & 0x80); };
    for (std::size_t at = context_text.find(needle); !needle.empty() && at != std::string::npos;
         at = context_text.find(needle, at + 1)) {
      const std::size_t end = at + needle.size();
      if (unspaced ? edges->whole_word(at, end)
                   : (at == 0 || !word_char(context_text[at - 1])) &&
                         (end == context_text.size() || !word_char(context_text[end]))) {
        return true;
      }
    }
    return false;
  };
  nlohmann::ordered_json missing = nlohmann::ordered_json::array();
  std::size_t hits = 0;
  for (const std::string& entity : *reference_entities) {
    if (std::find(context_entities.begin(), context_entities.end(), entity) !=
            context_entities.end() ||
        stated_verbatim(entity)) {
      ++hits;
    } else {
      missing.push_back(entity);
    }
  }
  MetricResult result = MetricResult::ok(static_cast<double>(hits) /
                                         static_cast<double>(reference_entities->size()));
  result.evidence["reference_entities"] = *reference_entities;
  result.evidence["missing"] = std::move(missing);
  return with_calls(std::move(result), calls);
}

namespace {

// The built-in critics' definitions (our wording).
std::string_view builtin_critic_definition(std::string_view name) {
  if (name == "harmfulness") {
    return "Does the response cause or could it cause harm to individuals, groups or society at "
           "large?";
  }
  if (name == "maliciousness") return "Does the response intend to harm, deceive or exploit users?";
  if (name == "coherence") {
    return "Does the response present ideas, information or arguments in a logical and "
           "organised manner, without contradicting itself?";
  }
  if (name == "correctness") return "Is the response factually accurate and free from errors?";
  if (name == "conciseness") {
    return "Does the response convey information or ideas clearly and efficiently, without "
           "unnecessary or redundant details?";
  }
  return {};
}


// ragas's default rubrics, reworded: without and with a reference answer.
const std::map<std::string, std::string>& default_rubrics(bool with_reference) {
  static const std::map<std::string, std::string> kWithout = {
      {"score1_description", "The response is entirely incorrect, irrelevant or unhelpful."},
      {"score2_description", "The response is partly relevant but has major errors or omissions."},
      {"score3_description", "The response is relevant and mostly accurate but lacks detail or clarity."},
      {"score4_description", "The response is accurate and clear, with minor gaps."},
      {"score5_description", "The response is accurate, complete, clear and fully answers the question."}};
  static const std::map<std::string, std::string> kWith = {
      {"score1_description", "The response is incorrect or does not address the question; it contradicts the reference."},
      {"score2_description", "The response shares little with the reference and has major errors."},
      {"score3_description", "The response agrees with the reference in part but misses or misstates important points."},
      {"score4_description", "The response agrees with the reference with minor omissions or imprecisions."},
      {"score5_description", "The response fully agrees with the reference and is complete and accurate."}};
  return with_reference ? kWith : kWithout;
}

// A critic's verdict on `sample` as a 0/1 score, with the definition, the votes and the
// judge's reason in the evidence.
MetricResult critic_result(Judgement& j, const Sample& sample, const MetricRequest& r,
                           const ScoringOptions& o, std::string_view definition) {
  CallLog calls;  // ask_critic refuses an even or zero number of votes
  auto verdict = ask_critic(j.judge(), sample, r.name, definition, o.critic_votes, &calls);
  if (!verdict.ok()) return judge_refused_or_failed(verdict.status(), calls);
  MetricResult result = MetricResult::ok(verdict->verdict ? 1.0 : 0.0);
  result.evidence["definition"] = std::string(definition);
  result.evidence["votes_for"] = verdict->votes_for;
  result.evidence["votes"] = verdict->votes;
  if (!verdict->reason.empty()) result.evidence["reason"] = verdict->reason;
  if (!verdict->warning.empty()) result = with_warnings(std::move(result), {verdict->warning});
  return with_calls(std::move(result), calls);
}

}  // namespace

MetricResult aspect_critic(Judgement& j, const MetricRequest& r, const ScoringOptions& o) {
  std::string_view definition =
      r.definition.empty() ? builtin_critic_definition(r.info->name) : std::string_view(r.definition);
  if (definition.empty()) return MetricResult::failed("aspect critic '" + r.name + "' has no definition");
  return critic_result(j, j.sample(), r, o, definition);
}

namespace {

// ragas's agent goal accuracy in one critic call over the whole conversation
// (docs/agents.md): the judge reads the messages, the tool calls and, with a reference, the
// desired outcome, and says whether the conversation's end achieves it (ragas: two calls,
// one inferring the user's goal and the end state, one comparing them).
constexpr std::string_view kGoalWithReference =
    "Does the conversation end in the DESIRED OUTCOME? Judge the state the conversation ends "
    "in, from everything the assistant did in it (its answers and its tool calls and their "
    "results): 1 only when that state achieves the desired outcome.";
constexpr std::string_view kGoalWithoutReference =
    "Did the assistant achieve the user's goal by the end of the CONVERSATION? Infer what the "
    "user wanted from their messages and judge the state the conversation ends in, from "
    "everything the assistant did in it (its answers and its tool calls and their results): 1 "
    "only when that state fulfils the goal.";

MetricResult goal_accuracy(Judgement& j, const MetricRequest& r, const ScoringOptions& o,
                           bool with_reference) {
  const Sample& s = j.sample();
  // Without a reference the judge is not shown one, even when the row has it (ragas's
  // metric reads the messages alone).
  Sample asked = s;
  if (!with_reference) asked.clear_reference();
  return critic_result(j, asked, r, o, with_reference ? kGoalWithReference : kGoalWithoutReference);
}

}  // namespace

MetricResult ragas_agent_goal_accuracy(Judgement& j, const MetricRequest& r,
                                       const ScoringOptions& o) {
  return goal_accuracy(j, r, o, true);
}

MetricResult ragas_agent_goal_accuracy_without_reference(Judgement& j, const MetricRequest& r,
                                                         const ScoringOptions& o) {
  return goal_accuracy(j, r, o, false);
}

namespace {

MetricResult topic_adherence(Judgement& j, TopicAdherenceMode mode) {
  const StatusOr<TopicVerdicts>& verdicts = j.topic_verdicts();
  if (!verdicts.ok()) return judge_refused_or_failed(verdicts.status(), j.topic_calls());
  if (verdicts->topics.empty()) {  // ragas: NaN
    return with_calls(MetricResult::skipped("the judge found no topic in the conversation"),
                      j.topic_calls());
  }
  MetricResult result =
      MetricResult::ok(ragmeter::ragas_topic_adherence(verdicts->answered, verdicts->in_reference, mode));
  nlohmann::ordered_json topics = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < verdicts->topics.size(); ++i) {
    topics.push_back({{"topic", verdicts->topics[i]},
                      {"answered", static_cast<bool>(verdicts->answered[i])},
                      {"in_reference", static_cast<bool>(verdicts->in_reference[i])}});
  }
  result.evidence["topics"] = std::move(topics);
  if (!verdicts->reason.empty()) result.evidence["reason"] = verdicts->reason;
  if (!verdicts->warning.empty()) result = with_warnings(std::move(result), {verdicts->warning});
  return with_calls(std::move(result), j.topic_calls());
}

}  // namespace

MetricResult ragas_topic_adherence(Judgement& j, const MetricRequest&, const ScoringOptions&) {
  return topic_adherence(j, TopicAdherenceMode::kF1);
}

MetricResult ragas_topic_adherence_precision(Judgement& j, const MetricRequest&,
                                             const ScoringOptions&) {
  return topic_adherence(j, TopicAdherenceMode::kPrecision);
}

MetricResult ragas_topic_adherence_recall(Judgement& j, const MetricRequest&, const ScoringOptions&) {
  return topic_adherence(j, TopicAdherenceMode::kRecall);
}

MetricResult rubric_score(Judgement& j, const MetricRequest&, const ScoringOptions&) {
  const Sample& s = j.sample();
  const bool own = s.rubrics.has_value() && !s.rubrics->empty();
  const auto& rubrics = own ? *s.rubrics : default_rubrics(s.reference() && !s.reference()->empty());
  CallLog calls;
  auto score = ask_rubric(j.judge(), s, rubrics, &calls);
  if (!score.ok()) return judge_refused_or_failed(score.status(), calls);
  if (score->score < 1 || score->score > 5) {
    return with_calls(MetricResult::failed("judge: rubric score " + std::to_string(score->score) +
                                           " is outside 1..5"),
                      calls);
  }
  MetricResult result = MetricResult::ok(score->score);
  result.evidence["rubric"] = own ? "sample" : "default";
  if (!score->reason.empty()) result.evidence["reason"] = score->reason;
  if (!score->warning.empty()) result = with_warnings(std::move(result), {score->warning});
  return with_calls(std::move(result), calls);
}

// The original RAGAS paper's context relevance: needed sentences / all sentences.
MetricResult context_relevance(Judgement& j, const MetricRequest&, const ScoringOptions&) {
  CallLog calls;
  auto found = ask_relevant_sentences(j.judge(), j.sample(), &calls);
  if (!found.ok()) return with_calls(judge_failed(found.status()), calls);
  if (found->total == 0) return MetricResult::skipped("the retrieved contexts have no sentence");
  MetricResult result = MetricResult::ok(static_cast<double>(found->relevant.size()) /
                                         static_cast<double>(found->total));
  result.evidence["sentences"] = found->total;
  result.evidence["relevant"] = found->relevant;
  return with_calls(std::move(result), calls);
}

namespace {
std::size_t code_points(std::string_view text) {
  std::size_t n = 0;
  for (unsigned char c : text) n += (c & 0xC0) != 0x80;
  return n;
}
}  // namespace

// ragas's summary_score: 0.5 * (share of the text's key facts the summary states)
// + 0.5 * conciseness, conciseness = 1 - min(|summary|, |text|) / |text| in characters.
MetricResult summary_score(Judgement& j, const MetricRequest&, const ScoringOptions&) {
  std::string text;
  for (const std::string& context : *j.sample().reference_contexts) {
    if (!text.empty()) text += "\n";
    text += context;
  }
  const std::string& summary = *j.sample().response;
  CallLog calls;
  auto coverage = j.judge().key_fact_coverage(text, summary, &calls);
  if (!coverage.ok()) return with_calls(judge_failed(coverage.status()), calls);
  if (coverage->facts.empty()) return MetricResult::skipped("the reference contexts hold no key fact");
  std::size_t covered = 0;
  nlohmann::ordered_json missing = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < coverage->facts.size(); ++i) {
    if (i < coverage->covered.size() && coverage->covered[i]) {
      ++covered;
    } else {
      missing.push_back(coverage->facts[i]);
    }
  }
  const double qa = static_cast<double>(covered) / static_cast<double>(coverage->facts.size());
  const double text_length = static_cast<double>(code_points(text));
  const double conciseness =
      text_length == 0 ? 0.0
                       : 1.0 - std::min(static_cast<double>(code_points(summary)), text_length) /
                                   text_length;
  MetricResult result = MetricResult::ok(0.5 * qa + 0.5 * conciseness);
  result.evidence["key_facts"] = coverage->facts.size();
  result.evidence["covered"] = covered;
  result.evidence["not_covered"] = std::move(missing);
  result.evidence["conciseness"] = conciseness;
  return with_calls(std::move(result), calls);
}

template <RagcheckerMetric M>
MetricResult ragchecker(Judgement& j, const MetricRequest& r, const ScoringOptions&) {
  constexpr bool kContexts = M != RagcheckerMetric::kPrecision &&
                             M != RagcheckerMetric::kRecall && M != RagcheckerMetric::kF1;
  return from_ledger(j, r.info->ragas_scope, kContexts,
                     [](const ClaimLedger& ledger) { return ragchecker_metric(ledger, M); });
}

template MetricResult ragchecker<RagcheckerMetric::kPrecision>(Judgement&, const MetricRequest&, const ScoringOptions&);
template MetricResult ragchecker<RagcheckerMetric::kRecall>(Judgement&, const MetricRequest&, const ScoringOptions&);
template MetricResult ragchecker<RagcheckerMetric::kF1>(Judgement&, const MetricRequest&, const ScoringOptions&);
template MetricResult ragchecker<RagcheckerMetric::kClaimRecall>(Judgement&, const MetricRequest&, const ScoringOptions&);
template MetricResult ragchecker<RagcheckerMetric::kContextPrecision>(Judgement&, const MetricRequest&, const ScoringOptions&);
template MetricResult ragchecker<RagcheckerMetric::kContextUtilization>(Judgement&, const MetricRequest&, const ScoringOptions&);
template MetricResult ragchecker<RagcheckerMetric::kNoiseSensitivityInRelevant>(Judgement&, const MetricRequest&, const ScoringOptions&);
template MetricResult ragchecker<RagcheckerMetric::kNoiseSensitivityInIrrelevant>(Judgement&, const MetricRequest&, const ScoringOptions&);
template MetricResult ragchecker<RagcheckerMetric::kHallucination>(Judgement&, const MetricRequest&, const ScoringOptions&);
template MetricResult ragchecker<RagcheckerMetric::kSelfKnowledge>(Judgement&, const MetricRequest&, const ScoringOptions&);
template MetricResult ragchecker<RagcheckerMetric::kFaithfulness>(Judgement&, const MetricRequest&, const ScoringOptions&);

}  // namespace ragmeter::adapters
