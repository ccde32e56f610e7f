// The offline judge: claim segmentation, lexical entailment verdicts, noncommittal
// detection, and a ledger filled end to end from a HaluEval row.
#include "ragmeter/offline_judge.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "ragmeter/ledger_metrics.h"
#include "tests/unit/test_paths.h"

namespace ragmeter {
namespace {

using Claims = std::vector<std::string>;

// ---- Segmentation ----------------------------------------------------------------------

TEST(ClaimSegmentTest, SplitsSentencesWithIcu) {
  const auto sentences =
      split_sentences("  Paris is the capital of France. It has 2.1 million people!  Is it big?");
  ASSERT_EQ(sentences.size(), 3u);
  EXPECT_EQ(sentences[0], "Paris is the capital of France.");
  EXPECT_EQ(sentences[1], "It has 2.1 million people!");
  EXPECT_EQ(sentences[2], "Is it big?");
}

TEST(ClaimSegmentTest, NoSentenceEndsAtAnInitialOrATitle) {
  // HaluEval's passage (dev half): ICU's root rules made "A." and "J." sentences, so the
  // copied first sentence scored 2 of 3 claims.
  EXPECT_EQ(split_sentences("A. J. McClung Memorial Stadium is a 15,000-seat sports stadium "
                            "located in Columbus, Georgia. It was built in 1916."),
            (std::vector<std::string_view>{
                "A. J. McClung Memorial Stadium is a 15,000-seat sports stadium located in "
                "Columbus, Georgia.",
                "It was built in 1916."}));
  EXPECT_EQ(split_sentences("Dr. Jones met Mr. Smith in the U.S. Army. They talked."),
            (std::vector<std::string_view>{"Dr. Jones met Mr. Smith in the U.S. Army.",
                                           "They talked."}));
  EXPECT_EQ(split_sentences("А. С. Пушкин родился в Москве. Он поэт."),
            (std::vector<std::string_view>{"А. С. Пушкин родился в Москве.", "Он поэт."}));
  // A word of two letters or more before the period still ends the sentence.
  EXPECT_EQ(split_sentences("He joined the UN. It grew."),
            (std::vector<std::string_view>{"He joined the UN.", "It grew."}));
}

TEST(ClaimSegmentTest, ASentenceWithInitialsCopiedFromThePassageIsOneSupportedClaim) {
  const std::string copied =
      "A. J. McClung Memorial Stadium is a 15,000-seat sports stadium located in Columbus, "
      "Georgia.";
  EXPECT_EQ(extract_claims(copied), (Claims{copied}));
  const VerdictCell verdict = judge_claim(copied, copied + " It was built in 1916.");
  EXPECT_EQ(verdict.verdict, Verdict::kEntailment) << verdict.reason;
}

TEST(ClaimSegmentTest, EverySentenceIsAClaim) {
  EXPECT_EQ(extract_claims("The cat sat. The dog barked loudly."),
            (Claims{"The cat sat.", "The dog barked loudly."}));
}

TEST(ClaimSegmentTest, SplitsLongSentenceAtClauses) {
  EXPECT_EQ(extract_claims("The company was founded in 1850 by two brothers, and it was sold "
                           "to a German group in 1990."),
            (Claims{"The company was founded in 1850 by two brothers",
                    "it was sold to a German group in 1990."}));
  EXPECT_EQ(extract_claims("The bridge crosses the river near the old town; it was opened by "
                           "the king in 1932."),
            (Claims{"The bridge crosses the river near the old town",
                    "it was opened by the king in 1932."}));
}

TEST(ClaimSegmentTest, SplitsBeforeWhichAndKeepsIt) {
  EXPECT_EQ(extract_claims("First for Women is a magazine published by Bauer Media Group, which "
                           "is based in Hamburg."),
            (Claims{"First for Women is a magazine published by Bauer Media Group",
                    "which is based in Hamburg."}));
}

TEST(ClaimSegmentTest, KeepsListsAndShortSentencesWhole) {
  const std::string list = "Tom, Dick, and Harry met at the old station near the river on Sunday.";
  EXPECT_EQ(extract_claims(list), (Claims{list}));
  const std::string short_sentence = "It rained, and we stayed in.";
  EXPECT_EQ(extract_claims(short_sentence), (Claims{short_sentence}));
}

TEST(ClaimSegmentTest, ShortAnswerTakesTheQuestionAsContext) {
  EXPECT_EQ(extract_claims(" Delhi ", "In what city is the head office? "),
            (Claims{"In what city is the head office? Delhi"}));
  EXPECT_EQ(extract_claims("Arthur's Magazine", "Which magazine was started first?"),
            (Claims{"Which magazine was started first? Arthur's Magazine"}));
}

TEST(ClaimSegmentTest, ShortAnswerWithoutQuestionIsItsOwnClaim) {
  EXPECT_EQ(extract_claims("Delhi"), (Claims{"Delhi"}));
}

TEST(ClaimSegmentTest, SentenceAnswerIgnoresTheQuestion) {
  EXPECT_EQ(extract_claims("First for Women was started first.", "Which was started first?"),
            (Claims{"First for Women was started first."}));
}

TEST(ClaimSegmentTest, DropsEmptyAndPunctuationOnlyPieces) {
  EXPECT_TRUE(extract_claims("").empty());
  EXPECT_TRUE(extract_claims("  ... !? ").empty());
  EXPECT_TRUE(extract_claims("...", "What?").empty());
}

// ---- Tokens ------------------------------------------------------------------------------

TEST(LexicalEntailTest, TokenizerKeepsNumbersContractionsAndSplitsDashes) {
  const auto tokens = offline_tokenize("Arthur's (1844\u20131846) didn't cost 1,000 in the 19th");
  std::vector<std::string> keys;
  for (const auto& token : tokens) keys.push_back(token.key);
  EXPECT_EQ(keys, (std::vector<std::string>{"arthur", "1844", "1846", "didn't", "cost", "1000",
                                            "in", "the", "19"}));
  EXPECT_EQ(tokens[1].number, NumberKind::kYear);
  EXPECT_TRUE(tokens[3].negation);
  EXPECT_EQ(tokens[5].number, NumberKind::kInteger);
  EXPECT_EQ(tokens[8].number, NumberKind::kOrdinal);
}

TEST(LexicalEntailTest, CitationAndListMarkersAreNotTokens) {
  auto keys_of = [](std::string_view text) {
    std::vector<std::string> keys;
    for (const auto& token : offline_tokenize(text)) keys.push_back(token.key);
    return keys;
  };
  EXPECT_EQ(keys_of("Lip reading improved [0]. It helps [1, 2] and [3-5]."),
            (std::vector<std::string>{"lip", "read", "improv", "it", "help", "and"}));
  EXPECT_EQ(keys_of("Options:\n1. Books\n  12) Web pages"),
            (std::vector<std::string>{"option", "book", "web", "page"}));
  // Not markers: numbers in text, brackets holding words, a number alone on its line.
  EXPECT_EQ(keys_of("It cost 1. Then [a 2] came\n3."),
            (std::vector<std::string>{"it", "cost", "1", "then", "a", "2", "came", "3"}));
}

TEST(LexicalEntailTest, CapitalisedNegationInsideASentenceIsAName) {
  const auto tokens = offline_tokenize("No, it was \"Tell No One\". Never again.");
  ASSERT_EQ(tokens.size(), 8u);
  EXPECT_TRUE(tokens[0].negation);   // "No," opens the sentence
  EXPECT_FALSE(tokens[4].negation);  // "No" in the title
  EXPECT_TRUE(tokens[4].stopword);
  EXPECT_TRUE(tokens[6].negation);  // "Never" opens the next sentence
  EXPECT_EQ(judge_claim("The ceremony was chaired by Isabelle Mergault.",
                        "The ceremony was chaired by Isabelle Mergault. \"Tell No One\" won.")
                .verdict,
            Verdict::kEntailment);
}

// ---- Verdicts ------------------------------------------------------------------------------

TEST(LexicalEntailTest, ParaphraseWithStemsEntails) {
  const VerdictCell cell = judge_claim("The brothers founded the museum in Lyon.",
                                       "The museum was founded by two brothers in Lyon in 1901.");
  EXPECT_EQ(cell.verdict, Verdict::kEntailment) << cell.reason;
  ASSERT_TRUE(cell.confidence.has_value());
  EXPECT_GE(*cell.confidence, 0.5);
  EXPECT_LE(*cell.confidence, 1.0);
  EXPECT_TRUE(cell.reason.empty());
}

TEST(LexicalEntailTest, MissingNumberIsNeutralAndNamed) {
  const VerdictCell cell =
      judge_claim("The bridge opened in 1932.", "The bridge opened to traffic in the spring.");
  EXPECT_EQ(cell.verdict, Verdict::kNeutral);
  EXPECT_NE(cell.reason.find("1932"), std::string::npos) << cell.reason;
}

TEST(LexicalEntailTest, ChangedYearContradicts) {
  const VerdictCell cell = judge_claim(
      "Arthur's Magazine was first published in 1850.",
      "Arthur's Magazine (1844\u20131846) was an American literary periodical published in "
      "Philadelphia.");
  EXPECT_EQ(cell.verdict, Verdict::kContradiction) << cell.reason;
  EXPECT_NE(cell.reason.find("1850"), std::string::npos) << cell.reason;
}

TEST(LexicalEntailTest, ChangedBirthYearContradicts) {
  const VerdictCell cell = judge_claim("Allie Goertz was born in 1990.",
                                       "Allison Beth \"Allie\" Goertz (born March 2, 1991) is an "
                                       "American musician.");
  EXPECT_EQ(cell.verdict, Verdict::kContradiction) << cell.reason;
}

TEST(LexicalEntailTest, NegationMismatchContradicts) {
  const std::string premise = "The drug was approved by the agency in 2001.";
  const VerdictCell negated_claim =
      judge_claim("The drug was not approved by the agency in 2001.", premise);
  EXPECT_EQ(negated_claim.verdict, Verdict::kContradiction) << negated_claim.reason;
  const VerdictCell negated_premise = judge_claim("The drug was approved by the agency.",
                                                  "The drug wasn't approved by the agency.");
  EXPECT_EQ(negated_premise.verdict, Verdict::kContradiction) << negated_premise.reason;
  EXPECT_EQ(
      judge_claim("The drug was never approved.", "The drug was never approved by anyone.").verdict,
      Verdict::kEntailment);
}

TEST(LexicalEntailTest, ASentenceCopiedWordForWordIsSupportedWhateverFollowsIt) {
  // HaluEval's passage (dev half): the next sentence's "never" sits near "mine" and the
  // window rule called the copied sentence negated.
  const std::string premise =
      "Conditions attributed to World War II halted development at Camlaren in 1939.Barton "
      "Mine, also known as Net Lake Mine, is an abandoned surface and underground mine in "
      "Northeastern Ontario, Canada. Barton was the site of a fire in the early 1900s, after "
      "which it never had active mining again.";
  const VerdictCell copied = judge_claim(
      "Barton Mine, also known as Net Lake Mine, is an abandoned surface and underground mine "
      "in Northeastern Ontario, Canada.",
      premise);
  EXPECT_EQ(copied.verdict, Verdict::kEntailment) << copied.reason;
  // Case and the punctuation between words aside, word for word.
  EXPECT_EQ(judge_claim("barton mine also known as net lake mine is an abandoned surface and "
                        "underground mine in northeastern ontario canada",
                        premise)
                .verdict,
            Verdict::kEntailment);
  // Words of the claim the premise has otherwise ("mines") are not a copy: the usual rules,
  // which read the negation near them.
  EXPECT_EQ(judge_claim("Barton had active mining again after the fire.", premise).verdict,
            Verdict::kContradiction);
  // Copied words inside a sentence that negates them are not supported by the copy.
  const VerdictCell negated =
      judge_claim("The moon is made of cheese.", "It is not true that the moon is made of cheese.");
  EXPECT_NE(negated.verdict, Verdict::kEntailment) << negated.reason;
}

TEST(LexicalEntailTest, EntitySwapIsNotEntailed) {
  const std::string premise = "Paris is the capital of France.";
  const VerdictCell swapped_country = judge_claim("Paris is the capital of Germany.", premise);
  EXPECT_NE(swapped_country.verdict, Verdict::kEntailment);
  EXPECT_NE(swapped_country.reason.find("Germany"), std::string::npos) << swapped_country.reason;
  EXPECT_NE(judge_claim("Berlin is the capital of France.", premise).verdict, Verdict::kEntailment);
}

TEST(LexicalEntailTest, LowCoverageIsNeutralNamingTheWords) {
  const VerdictCell cell = judge_claim("The orchestra toured Japan with a famous violinist.",
                                       "The orchestra played in Vienna.");
  EXPECT_EQ(cell.verdict, Verdict::kNeutral);
  EXPECT_NE(cell.reason.find("Japan"), std::string::npos) << cell.reason;
}

TEST(LexicalEntailTest, BestWindowOfALongPremiseDecides) {
  std::string filler;
  for (int i = 0; i < 30; ++i) filler += "Filler sentence number " + std::to_string(i) + " here. ";
  const std::string claim = "The lighthouse keeper painted the tower red.";
  const std::string together = filler + "The lighthouse keeper painted the tower red. " + filler;
  EXPECT_EQ(judge_claim(claim, together).verdict, Verdict::kEntailment);
  // Every word is in the premise, but no window of three sentences holds enough of them.
  const std::string scattered = filler + "The lighthouse was old. " + filler +
                                "The keeper painted the wall red. " + filler +
                                "The tower was tall.";
  const VerdictCell cell = judge_claim(claim, scattered);
  EXPECT_EQ(cell.verdict, Verdict::kNeutral);
  EXPECT_NE(cell.reason.find("lighthouse"), std::string::npos) << cell.reason;
}

TEST(LexicalEntailTest, LongClaimsMayMissMoreWords) {
  // 4 content keys: all required.
  EXPECT_EQ(
      judge_claim("The brothers founded the museum quickly.", "The brothers founded the museum.")
          .verdict,
      Verdict::kNeutral);
  // 10 content keys: 10 - floor(0.4 * 8) = 7 required; 7 found entail, 6 do not.
  const std::string premise =
      "Researchers trained large language models on web text, books and code.";
  EXPECT_EQ(judge_claim("Researchers trained large language models on web text and papers with "
                        "careful filtering.",
                        premise)
                .verdict,
            Verdict::kEntailment);
  const VerdictCell cell = judge_claim(
      "Researchers trained large language models on web papers, careful filtering and "
      "deduplication.",
      premise);
  EXPECT_EQ(cell.verdict, Verdict::kNeutral);
  EXPECT_NE(cell.reason.find("deduplication"), std::string::npos) << cell.reason;
}

TEST(LexicalEntailTest, QuestionOfAShortAnswerIsContext) {
  const std::string claim =
      "Which magazine was started first, Arthur's Magazine or First for Women? Arthur's Magazine";
  EXPECT_EQ(question_context_length(claim), claim.rfind("Arthur's Magazine"));
  EXPECT_EQ(question_context_length("Arthur's Magazine"), 0u);
  EXPECT_EQ(question_context_length("It was founded. It was sold in 1990."), 0u);
  const OfflineClaim analysed(claim);
  ASSERT_EQ(analysed.content().size(), 2u);  // "arthur", "magazin": the answer's words
  EXPECT_FALSE(analysed.context().empty());  // "start", "first", "women", ...
  // The passage need not repeat the question ("started", "Women") to support the answer.
  const std::string passage =
      "Arthur's Magazine (1844-1846) was an American literary periodical published in "
      "Philadelphia.";
  EXPECT_EQ(judge_claim(claim, passage).verdict, Verdict::kEntailment);
  // An answer the passage does not hold is still not supported.
  EXPECT_EQ(judge_claim("Where is the head office? Mumbai", "The head office is in Delhi.").verdict,
            Verdict::kNeutral);
  // A yes/no answer has no content word: the whole text is the claim, as before.
  const OfflineClaim yes_no("Are both cocktails based on tequila? no");
  EXPECT_TRUE(yes_no.context().empty());
  EXPECT_TRUE(yes_no.negated());
}

TEST(LexicalEntailTest, ClaimWithoutContentWordsIsNeutral) {
  EXPECT_EQ(judge_claim("It is what it is.", "It is what it is.").verdict, Verdict::kNeutral);
}

TEST(LexicalEntailTest, OddInputNeverCrashes) {
  for (const char* text :
       {"\xff\xfe\xe2\x80", "rock' n' roll'", "'", "1, 2. 3,4 5.x \xe2\x80", "\xe2\x80\x99twas",
        "\xe5\x8c\x97\xe4\xba\xac\xe3\x80\x82", "a;b, and c"}) {
    const VerdictCell cell = judge_claim(text, text);
    EXPECT_TRUE(cell.judged()) << text;
    EXPECT_NO_FATAL_FAILURE(extract_claims(text, text));
    EXPECT_NO_FATAL_FAILURE(is_noncommittal(text));
  }
}

// ---- Noncommittal ------------------------------------------------------------------------

TEST(NoncommittalTest, RecognisesDeclines) {
  for (const char* text :
       {"I don't know.", "I don\u2019t know who founded it.", "The context does not say.",
        "The provided context doesn't mention the founder.",
        "This cannot be determined from "
        "the documents.",
        "There is no information about the founder.", "Unknown", "I'm not sure. It might be Paris.",
        "N/A", ""}) {
    EXPECT_TRUE(is_noncommittal(text)) << text;
  }
}

TEST(NoncommittalTest, CommittedAnswersAreNot) {
  for (const char* text : {"Paris is the capital of France.", "Delhi",
                           "The founder was Jane Doe. I am not sure "
                           "about the year.",
                           "Nobody knows the nonsense words of this poem, which is famous.",
                           "The unknown soldier is buried in Arlington."}) {
    EXPECT_FALSE(is_noncommittal(text)) << text;
  }
}

// ---- The ledger ------------------------------------------------------------------------------

TEST(OfflineJudgeTest, FillsAllFourTables) {
  const std::vector<std::string> chunks = {
      "The Eiffel Tower was completed in 1889. It stands in Paris.",
      "Bananas are rich in potassium."};
  const std::vector<std::string> ids = {"d1", "d2"};
  OfflineJudgeInput input;
  input.question = "When was the Eiffel Tower completed?";
  input.response = "The Eiffel Tower was completed in 1889. It is made of iron.";
  input.reference = "The Eiffel Tower was completed in 1889.";
  input.chunks = chunks;
  input.chunk_ids = ids;
  ClaimLedger ledger;
  ASSERT_TRUE(fill_ledger_offline(input, &ledger).ok());
  ASSERT_TRUE(validate_claim_ledger(ledger).ok());
  EXPECT_EQ(ledger.provenance.judge, "offline");
  EXPECT_EQ(ledger.provenance.prompt_version, kOfflineJudgeVersion);
  ASSERT_EQ(ledger.response_claims.size(), 2u);
  ASSERT_EQ(ledger.reference_claims.size(), 1u);
  EXPECT_EQ(ledger.chunks[1].doc_id, "d2");
  EXPECT_TRUE(ledger.response_vs_chunks.at(0, 0).supports());
  EXPECT_FALSE(ledger.response_vs_chunks.at(0, 1).supports());
  EXPECT_FALSE(ledger.response_vs_chunks.at(1, 0).supports());
  EXPECT_TRUE(ledger.reference_vs_chunks.at(0, 0).supports());
  EXPECT_TRUE(ledger.response_vs_reference[0].supports());
  EXPECT_FALSE(ledger.response_vs_reference[1].supports());
  EXPECT_TRUE(ledger.reference_vs_response[0].supports());
  for (std::size_t r = 0; r < 2; ++r) {
    for (const VerdictCell& cell : ledger.response_vs_chunks.row(r)) EXPECT_TRUE(cell.judged());
  }
  const MetricResult faithfulness = ledger_faithfulness(ledger);
  ASSERT_EQ(faithfulness.outcome, Outcome::kOk);
  EXPECT_DOUBLE_EQ(faithfulness.score, 0.5);
}

TEST(OfflineJudgeTest, RejectsNullLedgerAndMismatchedIds) {
  OfflineJudgeInput input;
  EXPECT_EQ(fill_ledger_offline(input, nullptr).code(), StatusCode::kInvalidArgument);
  const std::vector<std::string> chunks = {"a", "b"};
  const std::vector<std::string> ids = {"only one"};
  input.chunks = chunks;
  input.chunk_ids = ids;
  ClaimLedger ledger;
  ledger.provenance.judge = "untouched";
  EXPECT_EQ(fill_ledger_offline(input, &ledger).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ledger.provenance.judge, "untouched");
}

TEST(OfflineJudgeTest, BuildsFromASample) {
  Sample sample;
  sample.user_input = "Where is the head office?";
  sample.response = "Delhi";
  sample.retrieved_contexts = std::vector<std::string>{"The head office is in Delhi."};
  const StatusOr<ClaimLedger> ledger = offline_claim_ledger(sample);
  ASSERT_TRUE(ledger.ok()) << ledger.status().to_string();
  ASSERT_EQ(ledger->response_claims.size(), 1u);
  EXPECT_TRUE(ledger->reference_claims.empty());
  EXPECT_TRUE(ledger->response_vs_chunks.at(0, 0).supports());
}

TEST(OfflineJudgeTest, SameLedgerOnEveryThread) {
  const std::vector<std::string> chunks = {
      "The Oberoi Group is a hotel company with its head office in Delhi.",
      "Mumbai is the financial capital of India; it was not the head office in 1990."};
  OfflineJudgeInput input;
  input.question =
      "The Oberoi family is part of a hotel company that has a head office in what "
      "city?";
  input.response = "Mumbai, the financial capital of India.";
  input.reference = "Delhi";
  input.chunks = chunks;
  ClaimLedger expected;
  ASSERT_TRUE(fill_ledger_offline(input, &expected).ok());
  std::vector<ClaimLedger> ledgers(4);
  std::vector<std::thread> threads;
  for (auto& ledger : ledgers) {
    threads.emplace_back([&input, &ledger] {
      for (int i = 0; i < 50; ++i) {
        if (!fill_ledger_offline(input, &ledger).ok()) return;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (const auto& ledger : ledgers) EXPECT_EQ(ledger, expected);
}

// Row `index` (from 0) of the HaluEval QA sample shipped with the tests.
nlohmann::json halueval_row(std::size_t index) {
  std::ifstream file(std::string(RAGMETER_SOURCE_DIR) + "/tests/data/halueval_qa_one_turn.jsonl");
  std::string line;
  for (std::size_t i = 0; std::getline(file, line); ++i) {
    if (i == index) return nlohmann::json::parse(line);
  }
  return nullptr;
}

double faithfulness_of(const nlohmann::json& row, const std::string& answer_field) {
  const std::vector<std::string> chunks = {row["knowledge"].get<std::string>()};
  const std::string question = row["question"].get<std::string>();
  const std::string answer = row[answer_field].get<std::string>();
  OfflineJudgeInput input;
  input.question = question;
  input.response = answer;
  input.chunks = chunks;
  ClaimLedger ledger;
  EXPECT_TRUE(fill_ledger_offline(input, &ledger).ok());
  const MetricResult result = ledger_faithfulness(ledger);
  EXPECT_EQ(result.outcome, Outcome::kOk) << result.reason;
  return result.score;
}

TEST(OfflineJudgeTest, HaluEvalRightAnswerIsMoreFaithfulThanTheHallucination) {
  const nlohmann::json row = halueval_row(1);  // the Oberoi family: Delhi vs Mumbai
  ASSERT_TRUE(row.is_object());
  EXPECT_GT(faithfulness_of(row, "right_answer"), faithfulness_of(row, "hallucinated_answer"));
}

// The window judge_claim's coverage rule reads, as text: the LLM judge asks a claim again
// against it (llm_verdict_fill.cc). Hand-counted: a premise of eight sentences and more
// than 120 tokens; the claim's words are in the fifth and sixth, so the best windows of
// three start at the fourth and the fifth, and the earliest wins.
TEST(ClaimWindowTest, IsTheSentencesTheCoverageRuleReads) {
  const std::string passage =
      "The old city lies on a wide river that floods in the spring and runs low in the late "
      "summer months, when the boats of the fishermen wait in the shallow water near the "
      "northern shore for the first rains of the autumn. Its harbour is among the oldest on the coast, with quays of grey stone "
      "and wooden cranes. Trade in grain, wool and timber grew quickly during the early "
      "nineteenth century. Several mills were built along the banks to grind the grain. "
      "The tower was built by Gustave Eiffel. It stands in Paris near the river. "
      "Thousands of visitors come every year to walk across the bridges and the gardens. "
      "The museum of local history opens daily except on public holidays.";
  const OfflineClaim claim("Gustave Eiffel built the tower in Paris.");
  const OfflinePremise premise(passage);
  ASSERT_GT(premise.tokens().size(), 120u);
  EXPECT_EQ(judge_claim(claim, premise).verdict, Verdict::kEntailment);
  EXPECT_EQ(claim_window(claim, premise),
            "Several mills were built along the banks to grind the grain. The tower was built by "
            "Gustave Eiffel. It stands in Paris near the river.");
  // A premise of at most three sentences is read whole (white space at its end left out).
  const OfflinePremise short_premise("The tower was built by Gustave Eiffel.  It is in Paris.  ");
  EXPECT_EQ(claim_window(claim, short_premise), "The tower was built by Gustave Eiffel.  It is in Paris.");
}

}  // namespace
}  // namespace ragmeter
