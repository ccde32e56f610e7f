// The offline judge in languages other than English: per language, a sentence copied
// from the passage is entailed and a changed number or a negation is not; German nouns
// are not names; Chinese and Japanese words, numerals, negations, names and quoted text;
// a language without rules is refused with the reason.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ragmeter/evaluate.h"
#include "ragmeter/judge.h"
#include "ragmeter/ledger_metrics.h"
#include "ragmeter/metric.h"
#include "ragmeter/offline_judge.h"

namespace ragmeter {
namespace {

// faithfulness of `response` against the one passage, judged in `language`.
MetricResult faithfulness_in(const std::string& language, const std::string& response,
                             const std::string& passage) {
  const std::vector<std::string> chunks = {passage};
  OfflineJudgeInput input;
  input.response = response;
  input.chunks = chunks;
  input.language = language;
  ClaimLedger ledger;
  const Status status = fill_ledger_offline(input, &ledger);
  if (!status.ok()) return MetricResult::failed(status.message());
  return ledger_faithfulness(ledger);
}

std::vector<std::string> keys(const std::string& text, const std::string& language) {
  std::vector<std::string> out;
  for (const OfflineToken& token : offline_tokenize(text, language)) out.push_back(token.key);
  return out;
}

// One language's case: a passage of two sentences (the first is copied), the first
// sentence with its number changed, and a negated form of it.
struct LanguageCase {
  std::string language;
  std::string passage;
  std::string copied;
  std::string changed_number;
  std::string negated;
};

void PrintTo(const LanguageCase& c, std::ostream* out) { *out << c.language; }

// clang-format off
const LanguageCase kCases[] = {
    {"en", "The Eiffel Tower is 330 metres tall. It was completed in 1889.",
     "The Eiffel Tower is 330 metres tall.", "The Eiffel Tower is 300 metres tall.",
     "The Eiffel Tower is not 330 metres tall."},
    {"da", "Eiffeltårnet er 330 meter højt. Det blev færdigt i 1889.",
     "Eiffeltårnet er 330 meter højt.", "Eiffeltårnet er 300 meter højt.",
     "Eiffeltårnet er ikke 330 meter højt."},
    {"de", "Der Eiffelturm ist 330 Meter hoch. Er wurde 1889 fertiggestellt.",
     "Der Eiffelturm ist 330 Meter hoch.", "Der Eiffelturm ist 300 Meter hoch.",
     "Der Eiffelturm ist nicht 330 Meter hoch."},
    {"es", "La torre Eiffel mide 330 metros de altura. Fue terminada en 1889.",
     "La torre Eiffel mide 330 metros de altura.", "La torre Eiffel mide 300 metros de altura.",
     "La torre Eiffel no mide 330 metros de altura."},
    {"fi", "Eiffel-torni on 330 metriä korkea. Se valmistui vuonna 1889.",
     "Eiffel-torni on 330 metriä korkea.", "Eiffel-torni on 300 metriä korkea.",
     "Eiffel-torni ei ole 330 metriä korkea."},
    {"fr", "La tour Eiffel mesure 330 mètres de haut. Elle a été achevée en 1889.",
     "La tour Eiffel mesure 330 mètres de haut.", "La tour Eiffel mesure 300 mètres de haut.",
     "La tour Eiffel ne mesure pas 330 mètres de haut."},
    {"hu", "Az Eiffel-torony 330 méter magas. 1889-ben készült el.",
     "Az Eiffel-torony 330 méter magas.", "Az Eiffel-torony 300 méter magas.",
     "Az Eiffel-torony nem 330 méter magas."},
    {"id", "Menara Eiffel tingginya 330 meter. Menara itu selesai dibangun pada tahun 1889.",
     "Menara Eiffel tingginya 330 meter.", "Menara Eiffel tingginya 300 meter.",
     "Menara Eiffel tingginya tidak 330 meter."},
    {"it", "La Torre Eiffel è alta 330 metri. Fu completata nel 1889.",
     "La Torre Eiffel è alta 330 metri.", "La Torre Eiffel è alta 300 metri.",
     "La Torre Eiffel non è alta 330 metri."},
    {"nl", "De Eiffeltoren is 330 meter hoog. Hij werd in 1889 voltooid.",
     "De Eiffeltoren is 330 meter hoog.", "De Eiffeltoren is 300 meter hoog.",
     "De Eiffeltoren is niet 330 meter hoog."},
    {"no", "Eiffeltårnet er 330 meter høyt. Det ble ferdig i 1889.",
     "Eiffeltårnet er 330 meter høyt.", "Eiffeltårnet er 300 meter høyt.",
     "Eiffeltårnet er ikke 330 meter høyt."},
    {"pt", "A Torre Eiffel tem 330 metros de altura. Foi concluída em 1889.",
     "A Torre Eiffel tem 330 metros de altura.", "A Torre Eiffel tem 300 metros de altura.",
     "A Torre Eiffel não tem 330 metros de altura."},
    {"ru", "Высота Эйфелевой башни составляет 330 метров. Башня была построена в 1889 году.",
     "Высота Эйфелевой башни составляет 330 метров.",
     "Высота Эйфелевой башни составляет 300 метров.",
     "Высота Эйфелевой башни не составляет 330 метров."},
    {"sv", "Eiffeltornet är 330 meter högt. Det blev färdigt år 1889.",
     "Eiffeltornet är 330 meter högt.", "Eiffeltornet är 300 meter högt.",
     "Eiffeltornet är inte 330 meter högt."},
    {"zh", "埃菲尔铁塔高330米。它于1889年建成。", "埃菲尔铁塔高330米。", "埃菲尔铁塔高300米。",
     "埃菲尔铁塔不高330米。"},
    {"ja", "エッフェル塔の高さは330メートルです。1889年に完成しました。",
     "エッフェル塔の高さは330メートルです。", "エッフェル塔の高さは300メートルです。",
     "エッフェル塔の高さは330メートルではない。"},
};
// clang-format on

class EveryLanguageTest : public ::testing::TestWithParam<LanguageCase> {};

TEST_P(EveryLanguageTest, CopiedSentenceIsFaithful) {
  const LanguageCase& c = GetParam();
  const MetricResult result = faithfulness_in(c.language, c.copied, c.passage);
  ASSERT_EQ(result.outcome, Outcome::kOk) << result.reason;
  EXPECT_DOUBLE_EQ(result.score, 1.0);
}

TEST_P(EveryLanguageTest, ChangedNumberIsNotSupported) {
  const LanguageCase& c = GetParam();
  const VerdictCell cell = judge_claim(c.changed_number, c.passage, c.language);
  EXPECT_FALSE(cell.supports());
  EXPECT_NE(cell.reason.find("300"), std::string::npos) << cell.reason;
}

TEST_P(EveryLanguageTest, NegatedSentenceContradicts) {
  const LanguageCase& c = GetParam();
  const VerdictCell cell = judge_claim(c.negated, c.passage, c.language);
  EXPECT_EQ(cell.verdict, Verdict::kContradiction) << cell.reason;
}

TEST_P(EveryLanguageTest, LanguageIsCovered) {
  EXPECT_EQ(offline_judge_gap(GetParam().language), "");
}

INSTANTIATE_TEST_SUITE_P(Languages, EveryLanguageTest, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return info.param.language; });

TEST(OfflineLanguagesTest, EveryCoveredLanguageHasACase) {
  std::vector<std::string> tested;
  for (const LanguageCase& c : kCases) tested.push_back(c.language);
  std::sort(tested.begin(), tested.end());
  EXPECT_EQ(offline_judge_languages(), tested);
}

// ---- German: nouns are capitalised, not names --------------------------------------------

// The case: "name not found in the premise: 'Meter'" for a correct German answer.
TEST(OfflineLanguagesTest, GermanNounsAreNotNames) {
  const std::string passage = "Mit 330 Metern ist der Eiffelturm das höchste Bauwerk von Paris.";
  const std::string answer = "Der Eiffelturm ist 330 Meter hoch.";
  const VerdictCell as_english = judge_claim(answer, passage, "en");
  EXPECT_NE(as_english.reason.find("name not found in the premise: 'Meter'"), std::string::npos)
      << as_english.reason;
  EXPECT_TRUE(OfflineClaim(answer, "de").names().empty());
  EXPECT_TRUE(OfflineClaim("Der Turm gehört der SNCF.", "de").names().size() == 1u);
}

// ---- Tokens ------------------------------------------------------------------------------

TEST(OfflineLanguagesTest, FullWidthDigitsAndLettersAreNormalised) {
  EXPECT_EQ(keys("東京タワーは３３３メートル", "ja"), keys("東京タワーは333メートル", "ja"));
  const std::vector<OfflineToken> tokens = offline_tokenize("ＩＢＭ的股价", "zh");
  ASSERT_FALSE(tokens.empty());
  EXPECT_EQ(tokens[0].key, "ibm");
}

TEST(OfflineLanguagesTest, ChineseNumeralsAreNumbers) {
  const std::vector<OfflineToken> tokens = offline_tokenize("二十三个人", "zh");
  ASSERT_GE(tokens.size(), 2u);
  EXPECT_EQ(tokens[0].key, "23");
  EXPECT_EQ(tokens[0].number, NumberKind::kInteger);
  const VerdictCell cell = judge_claim("会议有三个人参加。", "会议有两个人参加。", "zh");
  EXPECT_FALSE(cell.supports());
}

TEST(OfflineLanguagesTest, ChineseNegationIsSplitOffTheWord) {
  const std::vector<OfflineToken> tokens = offline_tokenize("他不去", "zh");
  ASSERT_EQ(tokens.size(), 3u);
  EXPECT_TRUE(tokens[1].negation);
  EXPECT_EQ(tokens[2].key, "去");
  EXPECT_FALSE(offline_tokenize("非常不同", "zh")[0].negation);
  EXPECT_EQ(judge_claim("他没有去北京。", "他去了北京。", "zh").verdict, Verdict::kContradiction);
}

TEST(OfflineLanguagesTest, ElidedArticlesAreSplitOff) {
  const std::vector<std::string> french = keys("l'homme n'est pas là", "fr");
  ASSERT_GE(french.size(), 4u);
  EXPECT_EQ(french[0], "l");
  EXPECT_EQ(french[2], "n");
  EXPECT_TRUE(offline_tokenize("n'est", "fr")[0].negation);
}

TEST(OfflineLanguagesTest, DecimalCommaIsTheDecimalMark) {
  EXPECT_EQ(keys("3,5 Meter und 1.000 Euro", "de")[0], "3.5");
  EXPECT_EQ(keys("3,5 Meter und 1.000 Euro", "de")[3], "1000");
}

// ---- Names and quoted text in Chinese and Japanese -------------------------------------

TEST(OfflineLanguagesTest, LatinWordsAreNamesInChinese) {
  const VerdictCell cell = judge_claim("他买了一部iPhone。", "他买了一部手机。", "zh");
  EXPECT_EQ(cell.verdict, Verdict::kNeutral);
  EXPECT_NE(cell.reason.find("'iPhone'"), std::string::npos) << cell.reason;
}

TEST(OfflineLanguagesTest, QuotedTextMustBeInThePremise) {
  const VerdictCell cell = judge_claim("他读了《西游记》这本书。", "他读了《红楼梦》这本书。", "zh");
  EXPECT_EQ(cell.verdict, Verdict::kNeutral);
  EXPECT_NE(cell.reason.find("quoted text not found"), std::string::npos) << cell.reason;
  EXPECT_TRUE(judge_claim("他读了《西游记》。", "他昨天读了《西游记》。", "zh").supports());
}

// ---- Verbatim claims and negation scope outside English ---------------------------------

TEST(OfflineLanguagesTest, ClaimStatedVerbatimIsEntailed) {
  // All function words but one, and a negation the premise has too.
  EXPECT_TRUE(judge_claim("金網の中にはなにもいませんでした。", "金網の中にはなにもいませんでした。", "ja")
                  .supports());
  EXPECT_TRUE(judge_claim("没有,其实那时候几个强盗", "没有,其实那时候几个强盗,最主要有三点", "zh")
                  .supports());
}

TEST(OfflineLanguagesTest, NegationIsComparedClauseByClause) {
  // The premise's negation belongs to its second clause; the claim restates the first.
  const VerdictCell first =
      judge_claim("我们继续向贫困宣战", "我们要继续向贫困宣战,决不让贫困代代相传", "zh");
  EXPECT_TRUE(first.supports()) << first.reason;
  // Japanese ends the verb with its negation, several of ICU's words after the verb.
  const VerdictCell both = judge_claim("通路に立て看板が設置されていません",
                                       "街路樹の間の通路に通行止めの立て看板が設置されていません。", "ja");
  EXPECT_TRUE(both.supports()) << both.reason;
  EXPECT_EQ(judge_claim("通路に立て看板が設置されています",
                        "街路樹の間の通路に通行止めの立て看板が設置されていません。", "ja")
                .verdict,
            Verdict::kContradiction);
}

// ---- Clauses and short answers -----------------------------------------------------------

TEST(OfflineLanguagesTest, ChineseSentenceIsSplitAtClauseMarks) {
  const std::vector<std::string> claims =
      extract_claims("埃菲尔铁塔位于法国巴黎的战神广场，于一八八九年建成并对公众开放。", {}, "zh");
  EXPECT_EQ(claims, (std::vector<std::string>{"埃菲尔铁塔位于法国巴黎的战神广场",
                                              "于一八八九年建成并对公众开放。"}));
}

TEST(OfflineLanguagesTest, ShortChineseAnswerCarriesTheQuestion) {
  EXPECT_EQ(extract_claims("北京", "中国的首都是哪里？", "zh"),
            (std::vector<std::string>{"中国的首都是哪里？ 北京"}));
  EXPECT_EQ(extract_claims("中国的首都是北京。", "中国的首都是哪里？", "zh"),
            (std::vector<std::string>{"中国的首都是北京。"}));
}

TEST(OfflineLanguagesTest, OddInputNeverCrashes) {
  const std::vector<std::string> texts = {
      "", "不", "l'", "'", "n'", "qu'est", "《未闭合", "」「", "“", "一", "十分", "万一",
      "九九九九九九九九九九九九九九九九九九九九亿", "〇〇〇", "３,５", "1.000.000,5", "[1] 不是。",
      "\xE4\xB8", "abc\xFF" "def", "ない", "ませんでした", "NASA und SNCF", "ÉCOLE normale"};
  for (const std::string& language : offline_judge_languages()) {
    for (const std::string& text : texts) {
      const auto tokens = offline_tokenize(text, language);
      for (const OfflineToken& token : tokens) {
        EXPECT_LE(token.begin, token.end);
        EXPECT_LE(token.end, text.size());
      }
      for (const std::string& other : texts) {
        const VerdictCell cell = judge_claim(text, other, language);
        EXPECT_TRUE(cell.judged()) << language << ": " << text << " / " << other;
      }
      (void)extract_claims(text, "問題？", language);
    }
  }
}

// ---- Languages without rules ---------------------------------------------------------------

TEST(OfflineLanguagesTest, UncoveredLanguageIsRefusedWithTheReason) {
  EXPECT_EQ(offline_judge_gap("ko"), "the offline judge does not cover Korean");
  EXPECT_EQ(offline_judge_gap("und"), "");
  const MetricResult result = faithfulness_in("ko", "서울은 한국의 수도이다.", "서울은 한국의 수도이다.");
  EXPECT_EQ(result.outcome, Outcome::kFailed);
  EXPECT_EQ(result.reason, "the offline judge does not cover Korean");
}

TEST(OfflineLanguagesTest, EvaluationSkipsEveryJudgedMetricOfAnUncoveredSample) {
  Sample sample;
  sample.user_input = "한국의 수도는 어디입니까?";
  sample.response = "서울은 한국의 수도이다.";
  sample.retrieved_contexts = std::vector<std::string>{"서울은 한국의 수도이다."};
  sample.set_reference("서울은 한국의 수도이다.");
  EvalOptions options;
  auto metrics = parse_metric_list("faithfulness,context_recall,token_f1");
  ASSERT_TRUE(metrics.ok());
  options.metrics = *metrics;
  const std::vector<MetricResult> results = score_sample(sample, options);
  ASSERT_EQ(results.size(), 3u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(results[i].outcome, Outcome::kSkipped);
    EXPECT_EQ(results[i].reason, "the offline judge does not cover Korean");
  }
  EXPECT_EQ(results[2].outcome, Outcome::kOk);  // a deterministic metric is not the judge's
  EXPECT_DOUBLE_EQ(results[2].score, 1.0);
}

}  // namespace
}  // namespace ragmeter
