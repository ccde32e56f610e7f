// SQuAD EM/F1 on hand-checked cases (each worked out from the official v2.0 script's
// rules: lowercase, drop ASCII punctuation, drop a/an/the, collapse whitespace).
#include "ragmeter/text_overlap.h"

#include <gtest/gtest.h>

namespace ragmeter {
namespace {

TEST(SquadNormalizeTest, LowercasesDropsPunctuationAndArticles) {
  EXPECT_EQ(squad_normalize("The  Quick, brown fox!"), "quick brown fox");
  EXPECT_EQ(squad_normalize("An apple a day"), "apple day");
  // Articles inside words stay: "theory", "ant", "bathe".
  EXPECT_EQ(squad_normalize("theory ant bathe"), "theory ant bathe");
  // Punctuation is removed before articles: "the-end" -> "theend".
  EXPECT_EQ(squad_normalize("the-end"), "theend");
  // Unicode lowercasing: "ÉCOLE" -> "école".
  EXPECT_EQ(squad_normalize("ÉCOLE"), "école");
}

TEST(SquadExactMatchTest, MatchesAfterNormalisationAndTakesMaxOverReferences) {
  EXPECT_EQ(squad_exact_match("The Eiffel Tower.", {"eiffel tower"}), 1.0);
  EXPECT_EQ(squad_exact_match("Eiffel", {"eiffel tower"}), 0.0);
  EXPECT_EQ(squad_exact_match("Paris", {"London", "paris"}), 1.0);
}

TEST(SquadTokenF1Test, HandCheckedPartialOverlap) {
  // pred tokens: [barack, obama] ; gold: [obama] -> common 1, P = 1/2, R = 1, F1 = 2/3.
  EXPECT_DOUBLE_EQ(squad_token_f1("Barack Obama", {"Obama"}), 2.0 / 3.0);
  // pred: [in, 1998, in, paris] gold: [paris, in, 1998] -> common = in,1998,paris = 3;
  // P = 3/4, R = 1, F1 = 6/7.
  EXPECT_DOUBLE_EQ(squad_token_f1("in 1998 in Paris", {"Paris in 1998"}), 6.0 / 7.0);
  // Repeated tokens count once per occurrence on each side (Counter intersection).
  // pred: [a? no: "the" dropped] [cat, cat, cat] gold: [cat] -> P = 1/3, R = 1, F1 = 0.5.
  EXPECT_DOUBLE_EQ(squad_token_f1("cat cat cat", {"the cat"}), 0.5);
}

TEST(SquadTokenF1Test, EmptySidesFollowTheV2Rule) {
  EXPECT_EQ(squad_token_f1("", {""}), 1.0);
  EXPECT_EQ(squad_token_f1("the", {"a"}), 1.0);  // both normalise to no tokens
  EXPECT_EQ(squad_token_f1("Paris", {"the"}), 0.0);
  EXPECT_EQ(squad_token_f1("", {"Paris"}), 0.0);
}

// The official script drops the references that normalise to nothing before taking the
// max; only when none is left does an empty reference count.
TEST(SquadTokenF1Test, ReferencesWithoutTokensAreDroppedUnlessAllAre) {
  EXPECT_EQ(squad_token_f1("...", {"...", "songs"}), 0.0);
  EXPECT_EQ(squad_exact_match("...", {"...", "songs"}), 0.0);
  EXPECT_EQ(squad_token_f1("!", {"The.", "suburbs"}), 0.0);
  EXPECT_EQ(squad_token_f1("songs", {"...", "songs"}), 1.0);
  EXPECT_EQ(squad_exact_match("The songs", {"a", "songs"}), 1.0);
  EXPECT_EQ(squad_token_f1("!", {"The.", "«»"}), 0.0);  // "«»" keeps a token
  EXPECT_EQ(squad_token_f1("!", {"The.", "..."}), 1.0);  // none keeps one
  EXPECT_EQ(squad_exact_match("!", {"The.", "..."}), 1.0);
  EXPECT_EQ(squad_exact_match("x", {"The.", "..."}), 0.0);
}

TEST(SquadTokenF1Test, MaxOverReferences) {
  EXPECT_DOUBLE_EQ(squad_token_f1("Barack Obama", {"Trump", "Obama"}), 2.0 / 3.0);
}

TEST(KPrecisionTest, ShareOfResponseTokensInContexts) {
  // response tokens [paris, is, capital, of, france] (article dropped); context tokens
  // [frances, capital, paris, capital, city] ("France's" loses its apostrophe and so
  // does not match "france") -> paris, capital found: 2/5.
  EXPECT_DOUBLE_EQ(k_precision("Paris is the capital of France",
                               {"France's capital: Paris.", "capital city"}),
                   0.4);
  EXPECT_DOUBLE_EQ(k_precision("Paris is the capital of France",
                               {"France: capital Paris", "is of"}),
                   1.0);
  EXPECT_EQ(k_precision("", {"anything"}), 0.0);
}

TEST(AnswerTokenRecallTest, ShareOfReferenceTokensInResponse) {
  // reference [eiffel, tower, paris]; response has eiffel, tower -> 2/3.
  EXPECT_DOUBLE_EQ(answer_token_recall("The Eiffel Tower", "Eiffel Tower, Paris"), 2.0 / 3.0);
  EXPECT_EQ(answer_token_recall("x", "the"), 0.0);
}

TEST(ExactMatchTest, ByteForByte) {
  EXPECT_EQ(exact_match("Paris", "Paris"), 1.0);
  EXPECT_EQ(exact_match("Paris", "paris"), 0.0);
  EXPECT_EQ(string_presence("It is Paris.", "Paris"), 1.0);
  EXPECT_EQ(string_presence("It is Paris.", "paris"), 0.0);
}

}  // namespace
}  // namespace ragmeter
