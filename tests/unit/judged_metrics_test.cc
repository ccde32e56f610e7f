// The judged metrics as `ragmeter eval` runs them: through score_sample with a scripted
// judge (fixed ledger, similarity, questions, entities), so every value is checked by
// hand, and the judge is asked once per sample however many metrics read it.
#include <gtest/gtest.h>

#include <atomic>
#include <map>

#include "judge/llm/llm_requests.h"
#include "ragmeter/evaluate.h"
#include "ragmeter/judge.h"
#include "ragmeter/judge_tasks.h"
#include "ragmeter/ledger_metrics.h"

namespace ragmeter {
namespace {

VerdictCell cell(Verdict v) { return {v, std::nullopt, v == Verdict::kEntailment ? "" : "no"}; }
constexpr auto E = Verdict::kEntailment;
constexpr auto N = Verdict::kNeutral;

// Two response claims a1, a2; one reference claim r1; chunks c1, c2.
//   response_vs_chunks   a1: [N, E]   a2: [E, N]
//   reference_vs_chunks  r1: [N, E]   -> c2 relevant, c1 irrelevant
//   response_vs_reference a1: E, a2: N    reference_vs_response r1: E
ClaimLedger scripted_ledger() {
  ClaimLedger ledger = make_claim_ledger({"a1", "a2"}, {"r1"}, {"c1", "c2"});
  ledger.response_vs_chunks.at(0, 0) = cell(N);
  ledger.response_vs_chunks.at(0, 1) = cell(E);
  ledger.response_vs_chunks.at(1, 0) = cell(E);
  ledger.response_vs_chunks.at(1, 1) = cell(N);
  ledger.reference_vs_chunks.at(0, 0) = cell(N);
  ledger.reference_vs_chunks.at(0, 1) = cell(E);
  ledger.response_vs_reference = {cell(E), cell(N)};
  ledger.reference_vs_response = {cell(E)};
  ledger.provenance = {"scripted", "", "test"};
  return ledger;
}

class ScriptedJudge : public Judge {
 public:
  std::string description() const override { return "scripted"; }
  StatusOr<ClaimLedger> claim_ledger(const Sample&, CallLog* calls) override {
    if (calls) calls->push_back("ledger-call");
    ++ledger_calls;
    if (fail) return unavailable("server said 503 five times");
    return scripted_ledger();
  }
  StatusOr<double> similarity(std::string_view a, std::string_view b, CallLog*) override {
    ++similarity_calls;
    auto it = similarities.find({std::string(a), std::string(b)});
    if (it == similarities.end()) return not_found("no scripted similarity");
    return it->second;
  }
  // The tasks with offline rules (judge_tasks.h): the questions as a model named "scripted"
  // answers them (`questions`, `noncommittal`); the entities from entity_lists (the
  // reference's; the contexts' together) and the context sentence "C1" as the one needed, as
  // rules answer them.
  StatusOr<TaskReply> ask(const JudgeTask& task, const Sample& sample, CallLog* calls) override {
    TaskReply out;
    out.offline = true;
    if (task.kind == "questions") {
      out.offline = false;
      out.model = "scripted";
      out.reply = {{"questions", questions}, {std::string(kNoncommittalKey), noncommittal}};
    } else if (task.kind == "entities") {
      auto listed = [&](std::string_view text) {
        auto it = entity_lists.find(std::string(text));
        return it == entity_lists.end() ? std::vector<std::string>{} : it->second;
      };
      std::vector<std::string> contexts;
      for (const std::string& context : *sample.retrieved_contexts) {
        for (const std::string& entity : listed(context)) contexts.push_back(entity);
      }
      out.reply = {{"entities", listed(*sample.reference())}, {"context_entities", contexts}};
    } else if (task.kind == "relevant_sentences") {
      out.reply = {{"sentences", {"C1"}}};
    } else {
      return Judge::ask(task, sample, calls);
    }
    return out;
  }
  StatusOr<KeyFactCoverage> key_fact_coverage(std::string_view, std::string_view, CallLog*) override {
    return KeyFactCoverage{{"f1", "f2", "f3", "f4"}, {true, true, true, false}};
  }

  bool fail = false;
  std::atomic<int> ledger_calls{0};
  std::atomic<int> similarity_calls{0};
  std::map<std::pair<std::string, std::string>, double> similarities;
  std::vector<std::string> questions;
  bool noncommittal = false;
  std::map<std::string, std::vector<std::string>> entity_lists;
};

Sample full_sample() {
  Sample s;
  s.user_input = "Q";
  s.response = "A";
  s.set_reference("R");
  s.retrieved_contexts = std::vector<std::string>{"C1", "C2"};
  return s;
}

std::map<std::string, MetricResult> score(const Sample& sample, const std::string& metrics,
                                          std::shared_ptr<Judge> judge) {
  EvalOptions options;
  auto list = parse_metric_list(metrics);
  EXPECT_TRUE(list.ok()) << list.status().to_string();
  options.metrics = *list;
  options.judge = std::move(judge);
  std::vector<MetricResult> results = score_sample(sample, options);
  std::map<std::string, MetricResult> out;
  for (std::size_t i = 0; i < results.size(); ++i) out[options.metrics[i].name] = results[i];
  return out;
}

TEST(JudgedMetricsTest, EveryLedgerMetricReadsOneLedgerPerSample) {
  auto judge = std::make_shared<ScriptedJudge>();
  judge->similarities[{"A", "R"}] = 0.8;
  auto r = score(full_sample(),
                 "faithfulness,context_precision,context_utilization,context_recall,"
                 "noise_sensitivity_relevant,noise_sensitivity_irrelevant,factual_correctness,"
                 "factual_correctness_precision,factual_correctness_recall,semantic_similarity,"
                 "answer_correctness,ragchecker_hallucination,ragchecker_self_knowledge",
                 judge);
  EXPECT_EQ(judge->ledger_calls, 1);
  EXPECT_EQ(judge->similarity_calls, 1);  // semantic_similarity and answer_correctness share it
  for (const auto& [name, result] : r) EXPECT_EQ(result.outcome, Outcome::kOk) << name << result.reason;
  EXPECT_DOUBLE_EQ(r["faithfulness"].score, 1.0);          // a1 by c2, a2 by c1
  EXPECT_DOUBLE_EQ(r["context_precision"].score, 0.5);     // v = [0, 1]: (1/2) / 1
  EXPECT_DOUBLE_EQ(r["context_utilization"].score, 1.0);   // v = [1, 1]: (1 + 1) / 2
  EXPECT_DOUBLE_EQ(r["context_recall"].score, 1.0);        // r1 by c2
  EXPECT_DOUBLE_EQ(r["noise_sensitivity_relevant"].score, 0.0);
  EXPECT_DOUBLE_EQ(r["noise_sensitivity_irrelevant"].score, 0.5);  // a2: wrong, only c1
  EXPECT_DOUBLE_EQ(r["factual_correctness_precision"].score, 0.5);  // a1 of a1, a2
  EXPECT_DOUBLE_EQ(r["factual_correctness_recall"].score, 1.0);     // r1
  EXPECT_NEAR(r["factual_correctness"].score, 2.0 / 3.0, 1e-15);
  EXPECT_DOUBLE_EQ(r["semantic_similarity"].score, 0.8);
  EXPECT_NEAR(r["answer_correctness"].score, 0.75 * 2.0 / 3.0 + 0.25 * 0.8, 1e-15);
  EXPECT_DOUBLE_EQ(r["ragchecker_hallucination"].score, 0.0);    // every claim has a chunk
  EXPECT_DOUBLE_EQ(r["ragchecker_self_knowledge"].score, 0.0);
  EXPECT_EQ(r["faithfulness"].evidence["claims"].size(), 2u);
  // Every ledger metric names the call behind it.
  EXPECT_EQ(r["context_recall"].evidence["judge_calls"], nlohmann::ordered_json({"ledger-call"}));
}

TEST(JudgedMetricsTest, MissingFieldIsSkippedByNameWithoutAskingTheJudge) {
  auto judge = std::make_shared<ScriptedJudge>();
  Sample s = full_sample();
  s.retrieved_contexts.reset();
  auto r = score(s, "faithfulness,context_recall", judge);
  EXPECT_EQ(r["faithfulness"].outcome, Outcome::kSkipped);
  EXPECT_EQ(r["faithfulness"].reason, "field 'retrieved_contexts' is missing");
  EXPECT_EQ(judge->ledger_calls, 0);
  s = full_sample();
  s.set_reference("");
  r = score(s, "factual_correctness", judge);
  EXPECT_EQ(r["factual_correctness"].reason, "field 'reference' is empty");
}

TEST(JudgedMetricsTest, JudgeFailureFailsEveryLedgerMetricWithTheReason) {
  auto judge = std::make_shared<ScriptedJudge>();
  judge->fail = true;
  auto r = score(full_sample(), "faithfulness,context_recall,token_f1", judge);
  EXPECT_EQ(judge->ledger_calls, 1);  // asked once; the failure is kept for the sample
  EXPECT_EQ(r["faithfulness"].outcome, Outcome::kFailed);
  EXPECT_EQ(r["faithfulness"].reason, "judge: server said 503 five times");
  EXPECT_EQ(r["context_recall"].outcome, Outcome::kFailed);
  EXPECT_EQ(r["token_f1"].outcome, Outcome::kOk);  // deterministic metrics are unaffected
}

TEST(JudgedMetricsTest, AnswerRelevancyIsMeanSimilarityOrZeroWhenNoncommittal) {
  auto judge = std::make_shared<ScriptedJudge>();
  judge->questions = {"q1", "q2", "q3"};
  judge->similarities[{"Q", "q1"}] = 0.9;
  judge->similarities[{"Q", "q2"}] = 0.6;
  judge->similarities[{"Q", "q3"}] = 0.3;
  auto r = score(full_sample(), "answer_relevancy", judge);
  EXPECT_NEAR(r["answer_relevancy"].score, 0.6, 1e-15);
  EXPECT_EQ(r["answer_relevancy"].evidence["questions"].size(), 3u);
  judge->noncommittal = true;
  r = score(full_sample(), "answer_relevancy", judge);
  EXPECT_EQ(r["answer_relevancy"].outcome, Outcome::kOk);
  EXPECT_EQ(r["answer_relevancy"].score, 0.0);
  EXPECT_EQ(r["answer_relevancy"].evidence["noncommittal"], true);
}

// A cosine can be negative (q20 of examples/halueval_rag.jsonl: -0.096 with the local
// embedder); answer_correctness is declared in [0, 1], so a negative cosine enters its
// formula as 0 (no similarity) instead of pulling the score below 0 (it was -0.024 there).
// semantic_similarity itself stays the cosine, in its declared [-1, 1].
TEST(JudgedMetricsTest, AnswerCorrectnessCountsANegativeCosineAsNoSimilarity) {
  auto judge = std::make_shared<ScriptedJudge>();
  judge->similarities[{"A", "R"}] = -0.4;
  auto r = score(full_sample(), "semantic_similarity,answer_correctness", judge);
  ASSERT_EQ(r["answer_correctness"].outcome, Outcome::kOk) << r["answer_correctness"].reason;
  EXPECT_DOUBLE_EQ(r["semantic_similarity"].score, -0.4);
  // factual F1 2/3 (EveryLedgerMetricReadsOneLedgerPerSample): 0.75 * 2/3 + 0.25 * 0.
  EXPECT_NEAR(r["answer_correctness"].score, 0.5, 1e-15);
  EXPECT_DOUBLE_EQ(r["answer_correctness"].evidence["semantic_similarity"], -0.4);
}

// The same for answer_relevancy, declared in [0, 1]: a generated question with a negative
// cosine to the question counts as 0 in the mean; its evidence keeps the cosine.
TEST(JudgedMetricsTest, AnswerRelevancyCountsANegativeCosineAsNoSimilarity) {
  auto judge = std::make_shared<ScriptedJudge>();
  judge->questions = {"q1", "q2"};
  judge->similarities[{"Q", "q1"}] = 0.6;
  judge->similarities[{"Q", "q2"}] = -0.2;
  auto r = score(full_sample(), "answer_relevancy", judge);
  EXPECT_NEAR(r["answer_relevancy"].score, 0.3, 1e-15);
  EXPECT_DOUBLE_EQ(r["answer_relevancy"].evidence["questions"][1]["similarity"], -0.2);
}

TEST(JudgedMetricsTest, ContextEntityRecallMatchesNormalisedEntities) {
  auto judge = std::make_shared<ScriptedJudge>();
  judge->entity_lists["R"] = {"paris", "1889", "gustave eiffel"};
  judge->entity_lists["C1"] = {"paris"};
  judge->entity_lists["C2"] = {"1889", "france"};
  auto r = score(full_sample(), "context_entity_recall", judge);
  EXPECT_NEAR(r["context_entity_recall"].score, 2.0 / 3.0, 1e-15);
  EXPECT_EQ(r["context_entity_recall"].evidence["missing"], nlohmann::ordered_json({"gustave eiffel"}));
  judge->entity_lists["R"] = {};
  r = score(full_sample(), "context_entity_recall", judge);
  EXPECT_EQ(r["context_entity_recall"].outcome, Outcome::kSkipped);
}

TEST(JudgedMetricsTest, AnEntityTheContextsStateVerbatimIsFoundWhateverTheJudgeListed) {
  auto judge = std::make_shared<ScriptedJudge>();
  Sample sample = full_sample();
  sample.retrieved_contexts =
      std::vector<std::string>{"Mike Gibbons was murdered at a ranch in Conway,  MISSOURI.",
                               "Kansas City has a martial arts school, far from Paris."};
  judge->entity_lists["R"] = {"missouri", "conway", "art", "gibbons ranch"};
  // The judge listed no entity of the contexts: "missouri" and "conway" are in their text
  // (case and spacing aside); "art" is only inside words there ("martial", "arts"), and
  // "gibbons ranch" is not a phrase of the text.
  auto r = score(sample, "context_entity_recall", judge);
  EXPECT_NEAR(r["context_entity_recall"].score, 2.0 / 4.0, 1e-15);
  EXPECT_EQ(r["context_entity_recall"].evidence["missing"],
            nlohmann::ordered_json({"art", "gibbons ranch"}));
}

TEST(JudgedMetricsTest, AChineseEntityStatedVerbatimIsFoundAtWordBoundaries) {
  auto judge = std::make_shared<ScriptedJudge>();
  Sample sample = full_sample();
  // "China's capital is Beijing." ICU's words: 中国 / 的 / 首都 / 是 / 北京. No space
  // around a Chinese word: the characters either side of "北京" are letters.
  sample.retrieved_contexts = std::vector<std::string>{"中国的首都是北京。"};
  judge->entity_lists["R"] = {"北京", "首都是", "京"};
  // "北京" is a word and "首都是" two whole words; "京" is only half of "北京".
  auto r = score(sample, "context_entity_recall", judge);
  EXPECT_NEAR(r["context_entity_recall"].score, 2.0 / 3.0, 1e-15);
  EXPECT_EQ(r["context_entity_recall"].evidence["missing"], nlohmann::ordered_json({"京"}));
}

TEST(JudgedMetricsTest, OfflineJudgeIsTheDefaultAndScoresAWorkedExample) {
  Sample s;
  s.user_input = "Which magazine was started first, Arthur's Magazine or First for Women?";
  s.response = "Arthur's Magazine";
  s.set_reference("Arthur's Magazine");
  s.retrieved_contexts = std::vector<std::string>{
      "Arthur's Magazine (1844-1846) was an American literary periodical published in "
      "Philadelphia.",
      "First for Women is a woman's magazine published by Bauer Media Group in the USA. The "
      "magazine was started in 1989."};
  // The claim carries the question (offline_judge.h), but the question's words are only
  // context: the answer's words and names ("Arthur's Magazine") are in c1, so it is
  // supported.
  auto r = score(s, "faithfulness,factual_correctness,semantic_similarity", nullptr);
  EXPECT_EQ(r["faithfulness"].outcome, Outcome::kOk);
  EXPECT_EQ(r["faithfulness"].score, 1.0);
  EXPECT_EQ(r["factual_correctness"].score, 1.0);  // the same answer both ways
  EXPECT_NEAR(r["semantic_similarity"].score, 1.0, 1e-12);
}

}  // namespace
}  // namespace ragmeter

namespace ragmeter {
namespace {

MetricSummary mean_of(std::string name, double mean) {
  MetricSummary m;
  m.name = std::move(name);
  m.stats.n = 10;
  m.stats.mean = mean;
  return m;
}

TEST(RagasScoreTest, HarmonicMeanOfTheFourRagasMeansThatWereScored) {
  // 4 / (1/0.9 + 1/0.6 + 1/0.8 + 1/0.5) = 4 / 6.02777... = 0.66359...
  auto score = ragas_score({mean_of("faithfulness", 0.9), mean_of("token_f1", 0.1),
                            mean_of("answer_relevancy", 0.6), mean_of("context_precision", 0.8),
                            mean_of("context_recall", 0.5)});
  ASSERT_TRUE(score.has_value());
  EXPECT_NEAR(score->value, 4.0 / (1 / 0.9 + 1 / 0.6 + 1 / 0.8 + 1 / 0.5), 1e-15);
  EXPECT_EQ(score->of, (std::vector<std::string>{"faithfulness", "answer_relevancy",
                                                 "context_precision", "context_recall"}));
  // A zero mean makes it 0; one metric alone is no ragas_score; unscored metrics are left out.
  EXPECT_EQ(ragas_score({mean_of("faithfulness", 0.0), mean_of("context_recall", 0.5)})->value, 0.0);
  EXPECT_FALSE(ragas_score({mean_of("faithfulness", 0.9)}).has_value());
  MetricSummary unscored = mean_of("context_recall", 0.0);
  unscored.stats.n = 0;
  EXPECT_FALSE(ragas_score({mean_of("faithfulness", 0.9), unscored}).has_value());
}

}  // namespace
}  // namespace ragmeter

namespace ragmeter {
namespace {

class CriticJudge : public Judge {
 public:
  std::string description() const override { return "critic"; }
  StatusOr<ClaimLedger> claim_ledger(const Sample&, CallLog*) override { return not_found("x"); }
  StatusOr<double> similarity(std::string_view, std::string_view, CallLog*) override { return 0.0; }
  StatusOr<KeyFactCoverage> key_fact_coverage(std::string_view, std::string_view, CallLog*) override {
    return not_found("x");
  }
  // The critic and rubric tasks (judge_tasks.h) as a model would answer them: ballot i of
  // a critic says yes when i < votes_for; the rubric gives `score`. What the task showed is
  // read back from its sections.
  StatusOr<TaskReply> ask(const JudgeTask& task, const Sample&, CallLog* calls) override {
    if (task.kind == "questions") return not_found("x");
    if (task.kind.starts_with("critic:")) {
      seen_definition = section(task.sections, "CRITERION");
      seen_votes = task.votes;
      if (task.vote == 0) calls->push_back(task.kind.substr(7));
      return TaskReply{{{"verdict", task.vote < votes_for ? 1 : 0}, {"reason", "because"}}, ""};
    }
    seen_rubrics.clear();
    const std::string rubric = section(task.sections, "RUBRIC");
    for (std::size_t start = 0; start < rubric.size();) {
      const std::size_t end = std::min(rubric.find('\n', start), rubric.size());
      const std::string line = rubric.substr(start, end - start);
      const std::size_t colon = line.find(": ");
      if (colon != std::string::npos) seen_rubrics[line.substr(0, colon)] = line.substr(colon + 2);
      start = end + 1;
    }
    return TaskReply{{{"score", score}, {"reason", "fits level " + std::to_string(score)}}, ""};
  }
  // The text of section NAME ("NAME:\n" ... up to the blank line that ends it).
  static std::string section(const std::string& sections, const std::string& name) {
    const std::size_t start = sections.find(name + ":\n");
    if (start == std::string::npos) return "";
    const std::size_t text = start + name.size() + 2;
    const std::size_t end = sections.find("\n\n", text);
    return sections.substr(text, end == std::string::npos ? std::string::npos : end - text);
  }
  int votes_for = 0;
  int score = 4;
  std::string seen_definition;
  int seen_votes = 0;
  std::map<std::string, std::string> seen_rubrics;
};

std::map<std::string, MetricResult> score_with(const Sample& sample, std::vector<MetricRequest> metrics,
                                               std::shared_ptr<Judge> judge, int votes = 1) {
  EvalOptions options;
  options.metrics = std::move(metrics);
  options.judge = std::move(judge);
  options.scoring.critic_votes = votes;
  std::vector<MetricResult> results = score_sample(sample, options);
  std::map<std::string, MetricResult> out;
  for (std::size_t i = 0; i < results.size(); ++i) out[options.metrics[i].name] = results[i];
  return out;
}

TEST(AspectCriticTest, BuiltInAndUserCriticsScoreTheMajorityVerdict) {
  auto judge = std::make_shared<CriticJudge>();
  auto polite = parse_critic("polite = Is the response polite?");
  ASSERT_TRUE(polite.ok()) << polite.status().to_string();
  EXPECT_EQ(polite->name, "polite");
  auto metrics = *parse_metric_list("coherence");
  metrics.push_back(*polite);
  judge->votes_for = 2;
  auto r = score_with(full_sample(), metrics, judge, 3);
  EXPECT_EQ(judge->seen_votes, 3);
  EXPECT_EQ(judge->seen_definition, "Is the response polite?");
  EXPECT_EQ(r["coherence"].score, 1.0);  // 2 of 3
  EXPECT_EQ(r["polite"].score, 1.0);
  EXPECT_EQ(r["polite"].evidence["votes_for"], 2);
  EXPECT_EQ(r["polite"].evidence["judge_calls"], nlohmann::ordered_json({"polite"}));
  judge->votes_for = 1;
  r = score_with(full_sample(), metrics, judge, 3);
  EXPECT_EQ(r["coherence"].score, 0.0);  // 1 of 3
  EXPECT_EQ(score_with(full_sample(), metrics, judge, 2)["polite"].outcome, Outcome::kFailed);
}

TEST(AspectCriticTest, CriticNamesAreCheckedAndTheOfflineJudgeSkipsCritics) {
  EXPECT_FALSE(parse_critic("no definition").ok());
  EXPECT_FALSE(parse_critic("faithfulness=Is it?").ok());  // a built-in name
  EXPECT_FALSE(parse_critic("bad name=Is it?").ok());
  EXPECT_FALSE(parse_critic("empty=  ").ok());
  auto r = score_with(full_sample(), *parse_metric_list("harmfulness,rubric_score"), nullptr);
  EXPECT_EQ(r["harmfulness"].outcome, Outcome::kSkipped);
  EXPECT_NE(r["harmfulness"].reason.find("needs an LLM judge"), std::string::npos);
  EXPECT_EQ(r["rubric_score"].outcome, Outcome::kSkipped);
}

TEST(RubricScoreTest, UsesTheSampleRubricsElseTheDefaultForTheFieldsPresent) {
  auto judge = std::make_shared<CriticJudge>();
  Sample s = full_sample();
  auto r = score_with(s, *parse_metric_list("rubric_score"), judge);
  EXPECT_EQ(r["rubric_score"].score, 4.0);
  EXPECT_EQ(r["rubric_score"].evidence["rubric"], "default");
  EXPECT_NE(judge->seen_rubrics.at("score5_description").find("reference"), std::string::npos);
  s.rubrics = std::map<std::string, std::string>{{"score1_description", "bad"},
                                                 {"score5_description", "good"}};
  judge->score = 6;  // out of range: failed, never clamped
  r = score_with(s, *parse_metric_list("rubric_score"), judge);
  EXPECT_EQ(judge->seen_rubrics.size(), 2u);
  EXPECT_EQ(r["rubric_score"].outcome, Outcome::kFailed);
}

}  // namespace
}  // namespace ragmeter

namespace ragmeter {
namespace {

TEST(ContextRelevanceTest, NeededSentencesOverAllSentences) {
  auto judge = std::make_shared<ScriptedJudge>();
  auto r = score(full_sample(), "context_relevance", judge);
  EXPECT_DOUBLE_EQ(r["context_relevance"].score, 0.5);  // "C1" of the sentences "C1", "C2"
  // Offline: a sentence is needed when it holds half the question's content words.
  Sample s = full_sample();
  s.user_input = "When did the Eiffel Tower open?";  // eiffel, tower, open: 2 needed
  s.retrieved_contexts = std::vector<std::string>{
      "The Eiffel Tower opened in 1889. It is in Paris.", "Berlin has a tower too."};
  r = score(s, "context_relevance", nullptr);
  EXPECT_NEAR(r["context_relevance"].score, 1.0 / 3.0, 1e-15);
}

TEST(SummaryScoreTest, HalfKeyFactsHalfConciseness) {
  auto judge = std::make_shared<ScriptedJudge>();
  Sample s = full_sample();
  s.response = "abcd";                                            // 4 characters
  s.reference_contexts = std::vector<std::string>{"0123456789", "0123456789"};  // 21 with the newline
  auto r = score(s, "summary_score", judge);
  EXPECT_NEAR(r["summary_score"].score, 0.5 * 0.75 + 0.5 * (1.0 - 4.0 / 21.0), 1e-15);
  s.reference_contexts.reset();
  EXPECT_EQ(score(s, "summary_score", judge)["summary_score"].reason,
            "field 'reference_contexts' is missing");
}

}  // namespace
}  // namespace ragmeter

namespace ragmeter {
namespace {

TEST(LedgerGapTest, AFailedCallsErrorIsTheMetricsReason) {
  ClaimLedger ledger = make_claim_ledger({"a1"}, {}, {"c1", "c2"});
  ledger.response_vs_chunks.at(0, 0).reason = "not judged: connection refused";
  MetricResult result = ledger_faithfulness(ledger);
  EXPECT_EQ(result.outcome, Outcome::kFailed);
  EXPECT_EQ(result.reason, "response claims [0] have no verdict against any chunk "
                           "(not judged: connection refused)");
}

}  // namespace
}  // namespace ragmeter
