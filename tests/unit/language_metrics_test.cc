// The token-overlap metrics and the run in other languages: a Chinese answer copied from
// its passage scores 1 where SQuAD's whitespace tokens gave 0, a wrong one scores less,
// English keeps SQuAD's values, and each row and the summary say the language.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "ragmeter/evaluate.h"
#include "ragmeter/evaluate_rows.h"
#include "ragmeter/language.h"
#include "ragmeter/text_overlap.h"

namespace ragmeter {
namespace {

using Json = nlohmann::ordered_json;

EvalOptions options_for(const std::string& metrics) {
  EvalOptions options;
  options.metrics = *parse_metric_list(metrics);
  return options;
}

double score(const Sample& sample, const std::string& metric) {
  const std::vector<MetricResult> results = score_sample(sample, options_for(metric));
  EXPECT_EQ(results[0].outcome, Outcome::kOk) << results[0].reason;
  return results[0].score;
}

Sample chinese_sample(std::string response) {
  Sample sample;
  sample.user_input = "中国的首都是哪里？";  // "What is the capital of China?"
  sample.response = std::move(response);
  sample.set_reference("首都是北京");           // "The capital is Beijing"
  sample.retrieved_contexts = std::vector<std::string>{"中国的首都是北京。"};
  return sample;
}

TEST(ChineseTokenOverlapTest, AnswerCopiedFromThePassageScoresOne) {
  // The response copies the passage's clause with its full stop "。", which SQuAD's
  // normalisation keeps (it removes ASCII punctuation only): one token each side, 0.
  const Sample copied = chinese_sample("首都是北京。");
  EXPECT_EQ(squad_token_f1(*copied.response, copied.references()), 0.0);
  EXPECT_EQ(score(copied, "token_f1"), 1.0);
  EXPECT_EQ(score(copied, "answer_token_recall"), 1.0);
  // Every response word (首都, 是, 北京) is among the passage's (中国, 的, 首都, 是, 北京).
  EXPECT_EQ(score(copied, "k_precision"), 1.0);
}

TEST(ChineseTokenOverlapTest, WrongAnswerScoresLess) {
  // [首都, 是, 上海] against [首都, 是, 北京]: 2 of 3 words each way, F1 = 2/3.
  const Sample wrong = chinese_sample("首都是上海。");
  EXPECT_DOUBLE_EQ(score(wrong, "token_f1"), 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(score(wrong, "answer_token_recall"), 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(score(wrong, "k_precision"), 2.0 / 3.0);
}

TEST(ChineseTokenOverlapTest, FullWidthDigitsMatchAsciiDigits) {
  // "Founded in 1949" with full-width digits against ASCII ones: NFKC makes them one word.
  Sample sample;
  sample.response = "成立于１９４９年";
  sample.set_reference("成立于1949年");
  EXPECT_EQ(score(sample, "token_f1"), 1.0);
}

TEST(EnglishTokenOverlapTest, EnglishSamplesKeepSquadTokens) {
  // SQuAD drops the hyphen ("stateoftheart" is one token); ICU's words would be four.
  Sample sample;
  sample.response = "a state-of-the-art method";
  sample.set_reference("the state of the art method");
  sample.language = "en";
  EXPECT_EQ(score(sample, "token_f1"), squad_token_f1(*sample.response, sample.references()));
  // [stateoftheart, method] against [state, of, art, method]: P = 1/2, R = 1/4, F1 = 1/3.
  EXPECT_DOUBLE_EQ(score(sample, "token_f1"), 1.0 / 3.0);
}

TEST(MixedLanguageTokenOverlapTest, ChineseResponseToEnglishQuestionIsSplitIntoWords) {
  Sample sample;
  sample.user_input = "What is the capital of China? Please answer in one short sentence.";
  sample.response = "首都是北京。";
  sample.set_reference("首都是北京");
  assign_sample_language(&sample);
  EXPECT_EQ(squad_token_f1(*sample.response, sample.references()), 0.0);
  EXPECT_EQ(score(sample, "token_f1"), 1.0);  // whatever the sample's language: its script says
}

TEST(RunLanguagesTest, EachRowSaysItsLanguageAndTheSummaryCountsThem) {
  std::vector<Json> rows = {
      {{"response", "首都是北京。"}, {"reference", "首都是北京"}},
      {{"response", "巴黎是法国的首都。"}, {"reference", "巴黎"}},
      {{"response", "The capital of France is Paris, a city on the Seine."},
       {"reference", "Paris is the capital of France."}},
      {{"response", "Paris"}, {"reference", "Paris"}, {"language", "fr"}},  // the column wins
  };
  auto run = evaluate_rows(std::move(rows), options_for("token_f1"));
  ASSERT_TRUE(run.ok()) << run.status().message();
  ASSERT_EQ(run->table.rows.size(), 4u);
  EXPECT_EQ(run->table.rows[0].fields.at("language"), "zh");
  EXPECT_EQ(run->table.rows[2].fields.at("language"), "en");
  EXPECT_EQ(run->table.rows[3].fields.at("language"), "fr");
  EXPECT_EQ(run->summary.languages, (std::map<std::string, std::int64_t>{{"zh", 2}, {"en", 1}, {"fr", 1}}));
}

TEST(RunLanguagesTest, ForcedLanguageAppliesToEveryRow) {
  std::vector<Json> rows = {{{"response", "首都是北京。"}, {"reference", "首都是北京"}},
                            {{"response", "x"}, {"reference", "x"}, {"language", "en"}}};
  EvalOptions options = options_for("token_f1");
  options.language = "ja";
  auto run = evaluate_rows(std::move(rows), options);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->summary.languages, (std::map<std::string, std::int64_t>{{"ja", 2}}));
}

TEST(RunLanguagesTest, MixedRowListsEachFieldsLanguage) {
  std::vector<Json> rows = {
      {{"user_input", "法国的首都是哪里？"},
       {"response", "法国的首都是巴黎。"},
       {"retrieved_contexts",
        Json::array({"Paris is the capital and largest city of France. With an estimated "
                     "population of two million residents, it is the centre of the Paris "
                     "Region, and one of the world's major centres of finance, diplomacy, "
                     "commerce, culture and science."})}}};
  auto run = evaluate_rows(std::move(rows), options_for("k_precision"));
  ASSERT_TRUE(run.ok());
  const Json& fields = run->table.rows[0].fields;
  EXPECT_EQ(fields.at("language"), "zh");
  EXPECT_EQ(fields.at("languages").at("response"), "zh");
  EXPECT_EQ(fields.at("languages").at("retrieved_contexts"), "en");
  EXPECT_EQ(run->table.rows[0].results[0].outcome, Outcome::kOk);
}

}  // namespace
}  // namespace ragmeter
