// The checks in code of the compact plan's verdicts (src/judge/llm/verdict_checks.h), on
// hand-checked cases: what the small local model was seen to accept (docs/judges.md,
// "The LLM judge against people, beside ragas") and what must stay as the model said.
#include <gtest/gtest.h>

#include "judge/llm/verdict_checks.h"
#include "ragmeter/llm_judge.h"

namespace ragmeter {
namespace {

using Json = nlohmann::json;

const char* kOberoi =
    "The Oberoi family is an Indian family that is famous for its involvement in hotels. "
    "The Oberoi Group is a hotel company with its head office in Delhi.";

VerdictCell entailment() {
  VerdictCell cell;
  cell.verdict = Verdict::kEntailment;
  return cell;
}

struct QuoteCase {
  const char* quote;
  bool found;
  const char* why;
};

TEST(VerdictChecksTest, AQuoteCountsOnlyWhenItWasCopiedFromThePassage) {
  const QuoteCase cases[] = {
      {"The Oberoi Group is a hotel company with its head office in Delhi.", true, "verbatim"},
      {"the oberoi group is a hotel company, with its head office in delhi", true,
       "case and punctuation"},
      {"The Oberoi Group is a hotel company with its head office", true, "stopped early"},
      {"The Oberoi family is an Indian family that is famous for its involvement in hotels", true,
       "the first sentence"},
      {"Delhi", true, "one word of the passage"},
      {"head office in Delhi", true, "a phrase"},
      // One word changed at the end of a long sentence: 10 of its 11 runs of 3 occur (the
      // name check catches this one).
      {"The Oberoi Group is a hotel company with its head office in Mumbai.", true, "one word"},
      {"The Oberoi Group has its head office in Mumbai.", false, "the model's own sentence"},
      {"Mumbai", false, "a word the passage does not have"},
      {"Delhi office", false, "two words of the passage, not in a row"},
      {"none", false, "no evidence"},
      {"", false, "empty"},
      {"<a sentence copied from a passage, or none>", false, "the prompt's placeholder"},
  };
  for (const QuoteCase& c : cases) {
    EXPECT_EQ(quote_found(c.quote, kOberoi), c.found) << c.why << ": " << c.quote;
  }
}

TEST(VerdictChecksTest, EvidenceIsReadPerClaimAndAReplyWithoutItHasNone) {
  Json reply =
      Json::parse(R"({"Evidence 1": "a quote", "Evidence 2": 3, "P1: claim 1": "Entailment"})");
  const auto evidence = read_table_evidence(reply, 3);
  ASSERT_EQ(evidence.size(), 3u);
  EXPECT_EQ(evidence[0], "a quote");
  EXPECT_FALSE(evidence[1].has_value());  // not a string
  EXPECT_FALSE(evidence[2].has_value());  // no key
  // The replies of the format before llm-v5 ("Pn: claim m" and "reason m" only).
  const auto old = read_table_evidence(
      Json::parse(R"({"P1: claim 1": "Entailment", "reason 1": ""})"), 1);
  EXPECT_FALSE(old[0].has_value());
  EXPECT_FALSE(read_table_evidence(Json::array(), 1)[0].has_value());
  EXPECT_EQ(evidence_key(0, 3), "Evidence 1");
  EXPECT_EQ(evidence_key(0, 10), "Evidence 01");
  // Ten claims or more: the keys are padded, and read with the same numbering.
  const auto padded = read_table_evidence(
      Json::parse(R"({"Evidence 01": "first", "Evidence 10": "tenth", "Evidence 2": "no"})"), 10);
  EXPECT_EQ(padded[0], "first");
  EXPECT_EQ(padded[9], "tenth");
  EXPECT_FALSE(padded[1].has_value());
}

TEST(VerdictChecksTest, AnEntailmentWhoseQuoteIsInNoPassageBecomesNeutral) {
  const std::vector<std::string> premises = {kOberoi, "Mumbai is the financial capital of India."};
  // Claims: 0 quoted a sentence the model wrote; 1 quoted P2; 2 said "none"; 3 gave no
  // evidence key (a reply in the old format): left as the model said.
  std::vector<std::vector<VerdictCell>> cells(4, {entailment(), entailment()});
  cells[0][1].verdict = Verdict::kContradiction;
  cells[0][1].reason = "r";
  const std::vector<std::optional<std::string>> evidence = {
      "The Oberoi Group has its head office in Mumbai.", "Mumbai is the financial capital of India",
      "none", std::nullopt};
  // The claims' words: the offline judge finds none of them in a passage.
  const std::vector<std::string> claims = {"The Oberoi Group has its head office in Mumbai.",
                                           "Mumbai is the financial capital of India.",
                                           "The Oberoi family owns airlines.", "Kolkata."};
  std::vector<std::pair<std::size_t, std::size_t>> asked;
  for (std::size_t i = 0; i < 4; ++i) {
    for (std::size_t j = 0; j < 2; ++j) asked.emplace_back(i, j);
  }
  check_quoted_evidence(evidence, claims, premises, asked, "", &cells);
  EXPECT_EQ(cells[0][0].verdict, Verdict::kNeutral);
  EXPECT_EQ(cells[0][0].reason,
            "the judge said Entailment, but its evidence is in no passage: "
            "\"The Oberoi Group has its head office in Mumbai.\"");
  EXPECT_EQ(cells[0][1].verdict, Verdict::kContradiction);  // not an Entailment: as it was
  EXPECT_EQ(cells[0][1].reason, "r");
  // A quote found in one passage keeps the claim's Entailments, in every passage.
  EXPECT_EQ(cells[1][0].verdict, Verdict::kEntailment);
  EXPECT_EQ(cells[1][1].verdict, Verdict::kEntailment);
  EXPECT_EQ(cells[2][0].verdict, Verdict::kNeutral);
  EXPECT_EQ(cells[2][0].reason, "the judge said Entailment, but quoted no passage sentence for it");
  EXPECT_EQ(cells[2][1].verdict, Verdict::kNeutral);
  EXPECT_EQ(cells[3][0].verdict, Verdict::kEntailment);
  EXPECT_EQ(cells[3][1].verdict, Verdict::kEntailment);
}

VerdictCell said(Verdict verdict) {
  VerdictCell cell;
  cell.verdict = verdict;
  cell.reason = "the model's reason";
  return cell;
}

// kiwi-12 of the long-passage dev rows (docs/dev/judge-measurements.md): asked with the
// passage alone, the 1.5B model said Entailment and gave the claim, reworded, as its
// evidence. Until llm-v13 the check took that Entailment away, and the grounded answer lost
// half its faithfulness.
TEST(VerdictChecksTest, AnUnquotedEntailmentStandsWhereASentenceOfThePassageStatesTheClaim) {
  const std::vector<std::string> premises = {
      "Benchmark datasets like WEBNLG and ROTOWIRE could be used for this purpose. Lastly, the "
      "Factual Error Correction approach rewrites claims to ensure they are better supported by "
      "the retrieved evidence [6].",
      "ASR systems convert speech to text. Lip reading maps video of the mouth to text."};
  const std::vector<std::string> claims = {
      "Factual Error Correction rewrites claims so that the retrieved evidence supports them "
      "better.",
      "Factual Error Correction rewrites whole documents written by human editors.",
      "ROTOWIRE rewrites claims."};
  const std::vector<std::optional<std::string>> evidence = {claims[0], claims[1], claims[2]};
  const std::vector<std::pair<std::size_t, std::size_t>> asked = {{0, 0}, {0, 1}, {1, 0},
                                                                  {1, 1}, {2, 0}, {2, 1}};
  // Claim 0: Entailment said for P2, where it is not, Contradiction for P1, where it is.
  std::vector<std::vector<VerdictCell>> cells = {{said(Verdict::kContradiction), entailment()},
                                                 {entailment(), said(Verdict::kNeutral)},
                                                 {entailment(), said(Verdict::kNeutral)}};
  auto checked = cells;
  check_quoted_evidence(evidence, claims, premises, asked, "", &checked);
  EXPECT_EQ(checked[0][0].verdict, Verdict::kEntailment);
  EXPECT_EQ(checked[0][0].reason,
            "the judge said Entailment, but its evidence is in no passage: \"Factual Error "
            "Correction rewrites claims so that the retrieved evidence supports...\"; a sentence of this "
            "passage states the claim (here the judge said Contradiction, Entailment for P2)");
  EXPECT_EQ(checked[0][1].verdict, Verdict::kNeutral);
  // The changed claim: its words are not in P1, so its Entailment goes, as before llm-v13.
  // So does a claim whose words are all in P1, but in two sentences (HaluEval dev item 36:
  // "Cia Berg was inducted into the Rock and Roll Hall of Fame").
  EXPECT_EQ(checked[1][0].verdict, Verdict::kNeutral);
  EXPECT_EQ(checked[1][1].verdict, Verdict::kNeutral);
  EXPECT_EQ(checked[1][1].reason, "the model's reason");
  EXPECT_EQ(checked[2][0].verdict, Verdict::kNeutral);
  // Only the cells asked: a claim asked against P2 alone gains nothing in P1.
  auto narrow = cells;
  check_quoted_evidence(evidence, claims, premises, {{0, 1}}, "", &narrow);
  EXPECT_EQ(narrow[0][0].verdict, Verdict::kContradiction);
  EXPECT_EQ(narrow[0][1].verdict, Verdict::kNeutral);
  // A claim the judge said Entailment for nowhere gains nothing from the offline rules.
  std::vector<std::vector<VerdictCell>> rejected = {
      {said(Verdict::kContradiction), said(Verdict::kNeutral)}};
  check_quoted_evidence({evidence[0]}, {claims[0]}, premises, {{0, 0}, {0, 1}}, "", &rejected);
  EXPECT_EQ(rejected[0][0].verdict, Verdict::kContradiction);
  // A language the offline judge has no rules for: the Entailment goes, as before.
  auto korean = cells;
  check_quoted_evidence(evidence, claims, premises, asked, "ko", &korean);
  EXPECT_EQ(korean[0][0].verdict, Verdict::kContradiction);
  EXPECT_EQ(korean[0][1].verdict, Verdict::kNeutral);
}

TEST(VerdictChecksTest, TheEvidenceLocatesTheJudgesEntailment) {
  // Seen on the 20 side-by-side rows (docs/performance.md): the 1.5B model answered
  // "P1 Entailment, P2 Contradiction" and quoted the sentence of P2 that holds the answer.
  const std::vector<std::string> premises = {
      "Emma Rose Kenney (born September 14, 1999) is an American actress.",
      "Betzy Kjelsberg was a Norwegian politician for the Liberal Party. Kjelsberg was born in "
      "Svelvik, Vestfold.",
      "Der Mond is an opera in one act by Carl Orff.", "Ali Azmat is a Pakistani singer."};
  const std::vector<std::string> labels = {"P1", "P2", "P3", "P4"};
  std::vector<std::pair<std::size_t, std::size_t>> asked;
  for (std::size_t i = 0; i < 4; ++i) {
    for (std::size_t j = 0; j < 4; ++j) asked.emplace_back(i, j);
  }
  std::vector<std::vector<VerdictCell>> cells(4);
  // 0: the Vestfold row. 1: the same, the quote's premise Neutral. 2: the judge said
  // Entailment nowhere: its quote grants nothing. 3: the quote is in P1, where the judge
  // said Entailment already: nothing moves.
  cells[0] = {entailment(), said(Verdict::kContradiction), said(Verdict::kNeutral),
              said(Verdict::kNeutral)};
  cells[1] = {entailment(), said(Verdict::kNeutral), said(Verdict::kNeutral),
              said(Verdict::kNeutral)};
  cells[2] = {said(Verdict::kNeutral), said(Verdict::kContradiction), said(Verdict::kNeutral),
              said(Verdict::kNeutral)};
  cells[3] = cells[0];
  const std::vector<VerdictCell> claim3_before = cells[3];
  const std::vector<std::optional<std::string>> evidence = {
      "Kjelsberg was born in Svelvik, Vestfold.", "Vestfold",
      "Kjelsberg was born in Svelvik, Vestfold.", "Emma Rose Kenney is an American actress"};
  locate_entailment_by_evidence(evidence, premises, asked, labels, &cells);
  EXPECT_EQ(cells[0][1].verdict, Verdict::kEntailment);
  EXPECT_EQ(cells[0][1].reason,
            "the judge said Contradiction here and Entailment for P1, quoting this passage: "
            "\"Kjelsberg was born in Svelvik, Vestfold.\"");
  EXPECT_EQ(cells[0][0].verdict, Verdict::kEntailment);  // left for vet_entailment
  EXPECT_EQ(cells[0][2], said(Verdict::kNeutral));        // the quote is not there
  EXPECT_EQ(cells[1][1].verdict, Verdict::kEntailment);  // a one-word quote is found too
  for (std::size_t j = 0; j < 4; ++j) EXPECT_FALSE(cells[2][j].supports()) << j;
  EXPECT_EQ(cells[3], claim3_before);
  // Only cells the call asked about are touched: P2 of claim 0 not asked, nothing moves.
  std::vector<std::vector<VerdictCell>> one = {{entailment(), said(Verdict::kNeutral)}};
  locate_entailment_by_evidence({evidence[0]}, {premises[0], premises[1]}, {{0, 0}}, labels, &one);
  EXPECT_EQ(one[0][1], said(Verdict::kNeutral));
}

struct VetCase {
  const char* claim;
  const char* premise;
  Verdict verdict;      // after the check
  const char* reason;   // after the check; "" when kept
};

TEST(VerdictChecksTest, AnEntailmentNeedsTheClaimsNumbersAndNamesInThePremise) {
  const VetCase cases[] = {
      // Names and numbers the premise lacks (the model's Entailments of docs/judges.md).
      {"The Oberoi family is part of a hotel company that has a head office in Mumbai.", kOberoi,
       Verdict::kNeutral, "the judge said Entailment, but name not found in the premise: 'Mumbai'"},
      {"The Zilpo Road trail is exactly 6 kilometers long.",
       "Zilpo Road is a National Forest Scenic Byway in Kentucky.", Verdict::kNeutral,
       "the judge said Entailment, but number not found in the premise: '6'"},
      // A changed year next to the same words: the offline rule's Contradiction.
      {"Joan Woodward received a star in 1996.",
       "Joan Woodward won an Academy Award. In 2006, she received a star on the Hollywood Walk of "
       "Fame.",
       Verdict::kContradiction,
       "the judge said Entailment, but the premise has '2006' where the claim has '1996'"},
      // Everything named is there: the model's verdict stands, whatever it is worth.
      {"The Oberoi Group has its head office in Delhi.", kOberoi, Verdict::kEntailment, ""},
      {"Joan Woodward received a star in 2006.",
       "In 2006, Joan Woodward received a star on the Hollywood Walk of Fame.",
       Verdict::kEntailment, ""},
  };
  for (const VetCase& c : cases) {
    const VerdictCell cell =
        vet_entailment(entailment(), OfflineClaim(c.claim), OfflinePremise(c.premise));
    EXPECT_EQ(cell.verdict, c.verdict) << c.claim;
    EXPECT_EQ(cell.reason, c.reason) << c.claim;
    EXPECT_FALSE(cell.confidence.has_value()) << c.claim;
  }
  // Only Entailments are checked: the model's Neutral stands with its own reason.
  VerdictCell neutral;
  neutral.verdict = Verdict::kNeutral;
  neutral.reason = "not said";
  EXPECT_EQ(vet_entailment(neutral, OfflineClaim(cases[0].claim), OfflinePremise(kOberoi)),
            neutral);
  // A short answer's claim carries its question, whose words are not checked: "Theodore"
  // is only in the question.
  EXPECT_EQ(vet_entailment(entailment(), OfflineClaim("Who did Theodore hire? Jane Smith"),
                           OfflinePremise("The firm hired Jane Smith in 2014."))
                .verdict,
            Verdict::kEntailment);
}

}  // namespace
}  // namespace ragmeter
