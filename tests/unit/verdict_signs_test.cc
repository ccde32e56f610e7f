// Signs of an unread verdict table and the bound on table size (src/judge/llm/verdict_signs.h),
// on replies the local 1.5B model gave (issue 39 and the long-passage dev runs of
// docs/judges.md) and on hand-checked cases.
#include <gtest/gtest.h>

#include "judge/llm/verdict_signs.h"

#include "judge/llm/verdict_checks.h"

namespace ragmeter {
namespace {

VerdictCell cell(Verdict verdict, std::string reason = "") {
  VerdictCell out;
  out.verdict = verdict;
  out.reason = std::move(reason);
  return out;
}

struct NegationCase {
  const char* claim;
  const char* reason;
  bool negates;
  const char* why;
};

TEST(VerdictSignsTest, AReasonThatIsTheClaimWithANotInsertedNegatesIt) {
  const NegationCase cases[] = {
      {"Myanmar's civil war began in 1948.", "Myanmar's civil war did not begin in 1948.", true,
       "the claim with a not"},
      {"The BooksCorpus dataset holds over 7,000 unpublished books.",
       "The passage does not state that the BooksCorpus dataset holds over 7,000 unpublished books.",
       true, "words about the passage do not count as the reason's own"},
      {"OpenSR improves lip-reading accuracy.", "OpenSR doesn't improve lip-reading accuracy.", true,
       "n't"},
      {"The BooksCorpus dataset holds about 700 published textbooks.",
       "The passage gives over 7,000 unpublished books, not about 700 published textbooks.", false,
       "it says what the passage states instead"},
      // The reply: a reason about another passage's subject, given for a claim about
      // Myanmar's civil war against each of three passages.
      {"Myanmar's civil war is one of the longest-running civil wars in the world.",
       "The Inter Expo Center is not a civil war, it is a convention center.", false,
       "a reason about something else"},
      {"Myanmar's civil war did not end in 1962.", "Myanmar's civil war did not end in 1962.", false,
       "no negation beyond the claim's own"},
      {"Myanmar's civil war began in 1948.", "The war began in 1948 in Burma.", false,
       "no negation"},
      {"", "not", false, "no claim"},
  };
  for (const NegationCase& c : cases) {
    EXPECT_EQ(reason_negates_claim(c.claim, c.reason), c.negates) << c.why << ": " << c.reason;
  }
}

TEST(VerdictSignsTest, OneReasonForContradictionsAgainstSeveralPassagesIsASign) {
  // The claim: Contradiction against chunks 0, 1 and 2, the one reason of the claim
  // copied to each (the table has one reason per claim).
  const std::string copied = "The Inter Expo Center is not a civil war, it is a convention center.";
  const std::vector<std::string> claims = {
      "Myanmar's civil war is one of the longest-running civil wars in the world.",
      "Myanmar's civil war began in 1948.", "The war began after independence."};
  std::vector<std::vector<VerdictCell>> cells = {
      {cell(Verdict::kContradiction, copied), cell(Verdict::kContradiction, copied),
       cell(Verdict::kContradiction, copied)},
      {cell(Verdict::kContradiction, "Myanmar's civil war did not begin in 1948."),
       cell(Verdict::kNeutral, "Myanmar's civil war did not begin in 1948."),
       cell(Verdict::kNeutral, "Myanmar's civil war did not begin in 1948.")},
      {cell(Verdict::kEntailment), cell(Verdict::kContradiction, "It began in 1950."),
       cell(Verdict::kNeutral, "It began in 1950.")}};
  std::vector<std::pair<std::size_t, std::size_t>> asked;
  for (std::size_t i = 0; i < 3; ++i) {
    for (std::size_t j = 0; j < 3; ++j) asked.emplace_back(i, j);
  }
  const std::vector<std::string> passages = {"Inter Expo Center is a convention center.",
                                             "Myanmar gained independence in 1948.",
                                             "The war began in 1948."};
  const std::vector<std::optional<std::string>> none(3);
  const auto suspects = suspect_claims(claims, passages, cells, none, asked);
  ASSERT_EQ(suspects.size(), 2u);
  EXPECT_EQ(suspects[0].claim, 0u);
  EXPECT_EQ(suspects[0].sign, TableSign::kCopiedContradiction);
  EXPECT_EQ(suspects[1].claim, 1u);
  EXPECT_EQ(suspects[1].sign, TableSign::kNegatedClaim);
  // Only the cells the call asked count: claim 0 asked against one passage is no sign.
  const auto one = suspect_claims(claims, passages, cells, none, {{0, 0}, {2, 1}});
  EXPECT_TRUE(one.empty());
}

struct QuoteCase {
  const char* claim;
  const char* quote;
  const char* language;
  bool states;
  const char* why;
};

TEST(VerdictSignsTest, AQuoteStatesAClaimWhenItHoldsEveryContentWordNumberAndName) {
  const QuoteCase cases[] = {
      // The last long-passage trace: the quote given for a claim judged Contradiction.
      {"M2M-100 supports up to 100 languages and thousands of translation directions.",
       "Models like M2M-100 support up to 100 languages and thousands of translation directions.",
       "", true, "the sentence that supports the claim, stems matching"},
      {"M2M-100 supports up to 200 languages.",
       "Models like M2M-100 support up to 100 languages and thousands of translation directions.",
       "", false, "a number changed"},
      {"The museum opened in the southern district in 1889.",
       "The museum opened in the northern district in 1889.", "", false,
       "one word changed: every content word is required"},
      {"The museum did not open in 1889.", "The museum opened in 1889.", "", false,
       "negated in the claim only"},
      {"The museum opened in 1889.", "The museum never opened in 1889.", "", false,
       "negated in the quote only"},
      {"Gustave Eiffel built the tower.", "The tower was built by Eiffel's company.", "", false,
       "a name missing"},
      {"首都是北京。", "中国的首都是北京。", "zh", true, "Chinese, ICU words"},
      {"首都是上海。", "中国的首都是北京。", "zh", false, "Chinese, a word changed"},
      {"수도는 서울이다.", "한국의 수도는 서울이다.", "ko", false,
       "a language the offline judge has no rules for"},
      {"", "Anything.", "", false, "no claim"},
  };
  for (const QuoteCase& c : cases) {
    EXPECT_EQ(quote_states_claim(c.claim, c.quote, c.language), c.states) << c.why << ": " << c.claim;
  }
}

TEST(VerdictSignsTest, AClaimNotEntailedByThePassageItsOwnQuoteStatesIsASign) {
  const std::string supports =
      "Models like M2M-100 support up to 100 languages and thousands of translation directions.";
  const std::vector<std::string> claims = {
      "M2M-100 supports up to 100 languages and thousands of translation directions.",
      "M2M-100 supports up to 200 languages."};
  const std::vector<std::string> passages = {"Translation has a long history.",
                                             "Multilingual models. " + supports};
  const std::string said = "contradicts the claim that it supports up to 100 languages";
  const std::vector<std::vector<VerdictCell>> cells = {
      {cell(Verdict::kNeutral, said), cell(Verdict::kContradiction, said)},
      {cell(Verdict::kNeutral, "It gives 100 languages, not 200."),
       cell(Verdict::kContradiction, "It gives 100 languages, not 200.")}};
  const std::vector<std::optional<std::string>> quotes = {supports, supports};
  const std::vector<std::pair<std::size_t, std::size_t>> asked = {{0, 0}, {0, 1}, {1, 0}, {1, 1}};
  const auto suspects = suspect_claims(claims, passages, cells, quotes, asked);
  // The wrong claim (a number changed) is no sign: its quote does not state it.
  ASSERT_EQ(suspects.size(), 1u);
  EXPECT_EQ(suspects[0].claim, 0u);
  EXPECT_EQ(suspects[0].sign, TableSign::kQuoteStatesClaim);
  EXPECT_EQ(suspects[0].quoted_premise, 1u);
  EXPECT_EQ(suspects[0].quote, supports);
  // Entailed against the other passage: the fourth sign (its evidence is elsewhere), which
  // locate_entailment_by_evidence also moves, not this one.
  std::vector<std::vector<VerdictCell>> entailed = cells;
  entailed[0][0] = cell(Verdict::kEntailment);
  const auto elsewhere = suspect_claims(claims, passages, entailed, quotes, {{0, 0}, {0, 1}});
  ASSERT_EQ(elsewhere.size(), 1u);
  EXPECT_EQ(elsewhere[0].sign, TableSign::kEvidenceElsewhere);
  // The quote in no asked passage: no sign.
  EXPECT_TRUE(suspect_claims(claims, passages, cells, quotes, {{0, 0}}).empty());
  // A quote that opens with the claim restated and goes on with the passage's own sentences
  // (kiwi-26 of the long-passage dev rows): found as a whole (80% of its runs of three
  // words are the passage's), but its first sentence is not, so it is no sign.
  const std::string real =
      "In the MPO-LSTM model, the MPO format is applied to the dense matrices between the input "
      "vector and the hidden layer. This requires the preparation of eight MPOs, one for each of "
      "the gating units and hidden units respectively. It leads to a large reduction in the "
      "number of parameters of the recurrent network.";
  const std::vector<std::string> mpo_claim = {
      "The MPO decomposition has been applied to LSTM networks."};
  const std::vector<std::string> mpo_passage = {"Tensor methods. " + real};
  const std::string restated = mpo_claim[0] + " " + real;
  const std::vector<std::vector<VerdictCell>> mpo_cells = {{cell(Verdict::kContradiction, "no")}};
  ASSERT_TRUE(quote_found(restated, mpo_passage[0]));
  ASSERT_TRUE(quote_states_claim(mpo_claim[0], restated));
  for (const auto& suspect : suspect_claims(mpo_claim, mpo_passage, mpo_cells, {restated}, {{0, 0}})) {
    EXPECT_NE(suspect.sign, TableSign::kQuoteStatesClaim);
  }
  // The claim copied as the quote, with one word the passage does not have: quote_found
  // allows it (a fifth of its runs of three words may differ), and the quote states the
  // claim, but the passage's sentence it was taken from does not ("northern").
  const std::vector<std::string> district = {
      "The city museum of modern art opened its doors in the southern district of the old "
      "town in the spring of that year."};
  const std::vector<std::string> district_passage = {
      "History. The city museum of modern art opened its doors in the northern district of the "
      "old town in the spring of that year. It has a garden."};
  ASSERT_TRUE(quote_found(district[0], district_passage[0]));
  ASSERT_TRUE(quote_states_claim(district[0], district[0]));
  const std::vector<std::vector<VerdictCell>> district_cells = {
      {cell(Verdict::kContradiction, "It opened in another district instead.")}};
  // The sign (the claim is asked again), but not one its quote may settle.
  const auto copied = suspect_claims(district, district_passage, district_cells, {district[0]}, {{0, 0}});
  ASSERT_EQ(copied.size(), 1u);
  EXPECT_EQ(copied[0].sign, TableSign::kQuoteStatesClaim);
  EXPECT_FALSE(copied[0].passage_states);
  // The same quote against a passage that says "southern": the passage states it.
  const std::vector<std::string> southern = {"History. " + district[0] + " It has a garden."};
  const auto stated = suspect_claims(district, southern, district_cells, {district[0]}, {{0, 0}});
  ASSERT_EQ(stated.size(), 1u);
  EXPECT_EQ(stated[0].sign, TableSign::kQuoteStatesClaim);
  EXPECT_TRUE(stated[0].passage_states);

  const VerdictCell settled = settle_quoted_support(Verdict::kContradiction, supports);
  EXPECT_EQ(settled.verdict, Verdict::kEntailment);
  EXPECT_EQ(settled.reason,
            "the judge said Contradiction, but the sentence it quoted from this passage states "
            "the claim: \"" + supports + "\"");
}

// kiwi-11 of the long-passage dev rows: asked with the passage alone, the 1.5B model said
// Contradiction and gave as its reason the passage's own sentence stating the claim.
TEST(VerdictSignsTest, AReasonCopiedFromThePassageThatStatesTheClaimSettlesIt) {
  const std::string sentence =
      "Ghorbani et al., in 2019, proposed an approach that uses 'adversarial word substitution' "
      "to create slightly altered versions of the original input [4].";
  const std::vector<std::string> passage = {
      "Interpretability methods differ. " + sentence + " Saliency maps are another family."};
  const std::vector<std::string> claim = {
      "Ghorbani et al. (2019) used adversarial word substitution to create slightly altered "
      "versions of the input."};
  const auto rejected = [&](const std::string& reason) {
    return std::vector<std::vector<VerdictCell>>{{cell(Verdict::kContradiction, reason)}};
  };
  const auto settled = suspect_claims(claim, passage, rejected(sentence), {std::nullopt}, {{0, 0}});
  ASSERT_EQ(settled.size(), 1u);
  EXPECT_EQ(settled[0].sign, TableSign::kUnexplainedRejection);
  EXPECT_TRUE(settled[0].passage_states);
  EXPECT_EQ(settled[0].quoted_premise, 0u);
  EXPECT_EQ(settled[0].quote, sentence);
  EXPECT_EQ(settle_quoted_support(Verdict::kContradiction, sentence, true).reason,
            "the judge said Contradiction, but its reason, copied from this passage, states the "
            "claim: \"" + sentence + "\"");
  // The model's own sentence affirming the claim, in no passage: a sign, nothing to settle.
  const std::string own = "Ghorbani et al. (2019) used adversarial word substitution to create "
                          "slightly altered versions of the input, as claimed.";
  const auto unsettled = suspect_claims(claim, passage, rejected(own), {std::nullopt}, {{0, 0}});
  ASSERT_EQ(unsettled.size(), 1u);
  EXPECT_EQ(unsettled[0].sign, TableSign::kUnexplainedRejection);
  EXPECT_FALSE(unsettled[0].passage_states);
  // A claim with a year the passage's sentence does not have: the reason does not state it.
  const std::vector<std::string> changed = {
      "Ghorbani et al. (2021) used adversarial word substitution to create slightly altered "
      "versions of the input."};
  for (const auto& suspect : suspect_claims(changed, passage, rejected(sentence), {std::nullopt}, {{0, 0}})) {
    EXPECT_FALSE(suspect.passage_states);
  }
}

TEST(VerdictSignsTest, AWordOfRejectionTheClaimHasRejectsNothing) {
  // robustqa-116 of the long-passage dev rows: a Contradiction whose reason is the claim
  // restated, "rather" included.
  const std::string claim =
      "The screen images are usually added in post-production, so the actors are often looking "
      "at a blank or green screen rather than moving a real cursor.";
  EXPECT_TRUE(reason_affirms_claim(
      claim, "The passage states that the screen images are added in post-production, so actors "
             "are looking at a blank or green screen rather than moving a real cursor."));
  // A word of rejection of the reason's own still rejects.
  EXPECT_FALSE(reason_affirms_claim(
      claim, "The passage says the screen images are added in post-production, but the actors "
             "move a real cursor instead."));
}

TEST(VerdictSignsTest, AReasonOfAbsenceIsToldFromOneOfContradiction) {
  // The long-passage dev rows (robustqa-70's right answer, 2026-12-01): Contradiction for the
  // gold passage, Neutral for the others, under this reason.
  EXPECT_TRUE(reason_says_absent(
      "The passage does not mention calculating the total return by adding money received from "
      "sales to the current value of remaining shares. It only provides a general guideline for "
      "calculating the total return."));
  EXPECT_TRUE(reason_says_absent("The passage doesn't mention the tower."));
  EXPECT_TRUE(reason_says_absent("There is no information about the 28% rule."));
  EXPECT_TRUE(reason_says_absent("The passage does not provide any information about the ban."));
  // A reason that names what the passage says instead gives the Contradiction its grounds.
  EXPECT_FALSE(reason_says_absent(
      "The passage does not mention 32 percent; it gives 36 percent instead."));
  EXPECT_FALSE(reason_says_absent("The passage does not state this, it contradicts it."));
  EXPECT_FALSE(reason_says_absent("The passage gives 1889, not 1899."));
  EXPECT_FALSE(reason_says_absent(""));
}

TEST(VerdictSignsTest, OneContradictionUnderAReasonOfAbsenceIsASign) {
  const std::vector<std::string> claims = {
      "You divide the gain by the total spent to get the percentage gain.",
      "The tower opened in 1899."};
  const std::vector<std::string> passages = {
      "Divide this gain by the total amount spent to find the percentage gain.",
      "The gardens are open all year.", "The tower opened in 1889."};
  const std::string absent = "The passage does not mention dividing the gain by the total spent.";
  const std::string grounds = "The passage gives 1889, not 1899.";
  const std::vector<std::vector<VerdictCell>> cells = {
      {cell(Verdict::kContradiction, absent), cell(Verdict::kNeutral, absent),
       cell(Verdict::kNeutral, absent)},
      {cell(Verdict::kNeutral, grounds), cell(Verdict::kNeutral, grounds),
       cell(Verdict::kContradiction, grounds)}};
  const std::vector<std::pair<std::size_t, std::size_t>> asked = {{0, 0}, {0, 1}, {0, 2},
                                                                  {1, 0}, {1, 1}, {1, 2}};
  const auto suspects = suspect_claims(claims, passages, cells, {std::nullopt, std::nullopt}, asked);
  ASSERT_EQ(suspects.size(), 1u);  // the changed year's Contradiction has its grounds
  EXPECT_EQ(suspects[0].claim, 0u);
  EXPECT_EQ(suspects[0].sign, TableSign::kAbsentContradiction);
  // Entailed by another passage: the claim is supported, no sign.
  std::vector<std::vector<VerdictCell>> entailed = cells;
  entailed[0][1] = cell(Verdict::kEntailment);
  EXPECT_TRUE(suspect_claims(claims, passages, entailed, {std::nullopt, std::nullopt}, asked).empty());
}

TEST(VerdictSignsTest, ATablesSpanIsItsClaimsTimesItsPassageTokens) {
  // 7 claims against three passages of 700 tokens: 14,700 in one call.
  EXPECT_EQ(table_span(7, 2100), 14700);
}

}  // namespace
}  // namespace ragmeter
