// trec_eval's preference measures (-R prefs, -R qrels_prefs) on hand-worked cases. No
// oracle for them exists on PyPI; each expected value is derived in the comments.
#include "eval/trec_prefs.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ragmeter/trec_eval.h"

namespace ragmeter {
namespace {

constexpr double kTolerance = 1e-12;

TrecPrefCounts counts_of(const Ranking& ranking, const std::vector<TrecPref>& prefs) {
  StatusOr<TrecPrefCounts> counts = trec_pref_counts(ranking, prefs);
  EXPECT_TRUE(counts.ok()) << counts.status().to_string();
  return counts.ok() ? *counts : TrecPrefCounts{};
}

// One group, one subgroup (classes): a 2, b 1, c 0, d 0. Ranking c, a, x (not judged),
// b; d not retrieved. Internal ranks: c 0, a 1, b 2 (3 judged retrieved), d 3.
// Preferences: a>b (1 above 2: fulfilled), a>c (1 below 0: not), a>d (implied
// fulfilled), b>c (not), b>d (implied fulfilled).
class TrecPrefsClasses : public testing::Test {
 protected:
  TrecPrefCounts c_ = counts_of({"c", "a", "x", "b"}, {{"G", "0", "a", 2},
                                                       {"G", "0", "b", 1},
                                                       {"G", "0", "c", 0},
                                                       {"G", "0", "d", 0}});
};

TEST_F(TrecPrefsClasses, CountsEachPreferenceByWhereItsDocumentsRank) {
  ASSERT_EQ(c_.groups.size(), 1u);
  const TrecPrefGroup& g = c_.groups[0];
  EXPECT_EQ(c_.judged_ret, 3);
  EXPECT_EQ(c_.judged, 4);
  EXPECT_EQ(g.fulfilled_ret, 1);  // a>b
  EXPECT_EQ(g.possible_ret, 3);   // a>b, a>c, b>c
  EXPECT_EQ(g.fulfilled_imp, 2);  // a>d, b>d
  EXPECT_EQ(g.possible_imp, 2);
  EXPECT_EQ(g.possible_notoccur, 0);
  EXPECT_EQ(g.num_rel, 2);         // a, b
  EXPECT_EQ(g.num_nonrel_ret, 1);  // c
  EXPECT_EQ(trec_prefs_num_possible(c_), 5);
  EXPECT_EQ(trec_prefs_num_fulfilled(c_), 3);
  EXPECT_EQ(trec_prefs_num_fulfilled_ret(c_), 1);
}

TEST_F(TrecPrefsClasses, RatiosOverAllRetrievedAndImpliedPreferences) {
  EXPECT_NEAR(trec_prefs_simple(c_, TrecPrefScope::kAll), 3.0 / 5, kTolerance);
  EXPECT_NEAR(trec_prefs_simple(c_, TrecPrefScope::kRetrieved), 1.0 / 3, kTolerance);
  EXPECT_NEAR(trec_prefs_simple(c_, TrecPrefScope::kImplied), 3.0 / 5, kTolerance);
  // Pairs: (c,a) 0, (c,b) 0, (a,b) 1 among the retrieved; (a,d) 1, (b,d) 1 implied.
  EXPECT_NEAR(trec_prefs_pair(c_, TrecPrefScope::kAll), 3.0 / 5, kTolerance);
  EXPECT_NEAR(trec_prefs_pair(c_, TrecPrefScope::kRetrieved), 1.0 / 3, kTolerance);
  EXPECT_NEAR(trec_prefs_avg_groups(c_, TrecPrefScope::kRetrieved), 1.0 / 3, kTolerance);
}

TEST_F(TrecPrefsClasses, RnonrelAddsFulfilledPreferencesWhenNonRelevantAreFew) {
  // All: R = 2 relevant, N = 2 non-relevant: counts as they are, 3 / 5.
  EXPECT_NEAR(trec_prefs_avg_groups_rnonrel(c_, TrecPrefScope::kAll), 3.0 / 5, kTolerance);
  // Retrieved: R = 2 (a, b), N = 1 (c): fulfilled 1 + 2 * (2 - 1) = 3, possible
  // 3 + (all relevant, 2) * (2 - 1) = 5.
  EXPECT_NEAR(trec_prefs_avg_groups_rnonrel(c_, TrecPrefScope::kRetrieved), 3.0 / 5,
              kTolerance);
}

TEST(TrecPrefsRnonrel, AddedPreferencesMultiplyByAllRelevantDocuments) {
  // a 2, e 2, b 1, c 0; ranking a, e, c: ranks a 0, e 1, c 2, b 3. a>c, e>c fulfilled
  // among the retrieved; a>b, e>b implied fulfilled; b>c implied, not fulfilled.
  const TrecPrefCounts c = counts_of({"a", "e", "c"}, {{"G", "0", "a", 2},
                                                       {"G", "0", "e", 2},
                                                       {"G", "0", "b", 1},
                                                       {"G", "0", "c", 0}});
  // _ret: R = 2 retrieved relevant, N = 1: fulfilled 2 + 2 * 1 = 4; possible
  // 2 + 3 (every relevant document, as trec_eval multiplies) * 1 = 5.
  EXPECT_NEAR(trec_prefs_avg_groups_rnonrel(c, TrecPrefScope::kRetrieved), 4.0 / 5,
              kTolerance);
  // All: R = 3, N = 1: fulfilled 4 + 2 * 2 = 8; possible 5 + 3 * 2 = 11.
  EXPECT_NEAR(trec_prefs_avg_groups_rnonrel(c, TrecPrefScope::kAll), 8.0 / 11, kTolerance);
}

TEST(TrecPrefsRnonrel, TooManyNonRelevantAreCutAsTrecEvalRecountsThem) {
  // a 1; c, e, d 0. Ranking a, c, e: ranks a 0, c 1, e 2, d 3. R = 1 < N = 3: the
  // non-relevant class is cut to its first document (c, rank 1). trec_eval then pairs
  // a with c (fulfilled) and also the whole non-relevant class with c: (c,c), (e,c),
  // (d,c) none fulfilled. 1 fulfilled of 4.
  const TrecPrefCounts c = counts_of({"a", "c", "e"}, {{"G", "0", "a", 1},
                                                       {"G", "0", "c", 0},
                                                       {"G", "0", "e", 0},
                                                       {"G", "0", "d", 0}});
  EXPECT_NEAR(trec_prefs_avg_groups_rnonrel(c, TrecPrefScope::kAll), 0.25, kTolerance);
  // Retrieved: R = 1, N = 2 (c, e). Classes stop at the first unretrieved document:
  // a with c fulfilled; (c,c) and (e,c) not: 1 of 3.
  EXPECT_NEAR(trec_prefs_avg_groups_rnonrel(c, TrecPrefScope::kRetrieved), 1.0 / 3,
              kTolerance);
}

TEST(TrecPrefsMatrix, SubgroupsCombineTransitively) {
  // s1: a 3, b 2, c 1; s2: b 5, d 4: a>b, a>c, b>c, b>d, and a>d by transitivity.
  // Ranking d, b, a: d 0, b 1, a 2, c 3. a>b not (2 below 1), a>c implied fulfilled,
  // b>c implied fulfilled, b>d not, a>d not.
  const TrecPrefCounts c = counts_of({"d", "b", "a"}, {{"G", "s1", "a", 3},
                                                       {"G", "s1", "b", 2},
                                                       {"G", "s1", "c", 1},
                                                       {"G", "s2", "b", 5},
                                                       {"G", "s2", "d", 4}});
  ASSERT_EQ(c.groups.size(), 1u);
  EXPECT_EQ(c.groups[0].possible_ret, 3);  // a>b, b>d, a>d (without closure: 2)
  EXPECT_EQ(c.groups[0].fulfilled_imp, 2);
  EXPECT_NEAR(trec_prefs_simple(c, TrecPrefScope::kAll), 2.0 / 5, kTolerance);
  // Every document relevant (R = 4, N = 0): fulfilled 2 + 3 retrieved relevant * 4,
  // possible 5 + 4 * 4: 14 / 21.
  EXPECT_NEAR(trec_prefs_avg_groups_rnonrel(c, TrecPrefScope::kAll), 14.0 / 21, kTolerance);
}

TEST(TrecPrefsGroups, DisagreeingGroupsAreAveragedPerPairPreferenceAndGroup) {
  // G1: a>b. G2: b>a. G3: a>b, a>z, b>z (z not retrieved). Ranking a, b: a 0, b 1, z 2.
  const TrecPrefCounts c = counts_of({"a", "b"}, {{"G1", "0", "a", 1},
                                                  {"G1", "0", "b", 0},
                                                  {"G2", "0", "a", 0},
                                                  {"G2", "0", "b", 1},
                                                  {"G3", "0", "a", 2},
                                                  {"G3", "0", "b", 1},
                                                  {"G3", "0", "z", 0}});
  // Preferences: fulfilled 1 + 0 + 3 of 1 + 1 + 3.
  EXPECT_NEAR(trec_prefs_simple(c, TrecPrefScope::kAll), 4.0 / 5, kTolerance);
  // Groups: 1, 0, 1.
  EXPECT_NEAR(trec_prefs_avg_groups(c, TrecPrefScope::kAll), 2.0 / 3, kTolerance);
  // Pairs: (a,b) 2 of 3 groups; (a,z) 1 of 1; (b,z) 1 of 1.
  EXPECT_NEAR(trec_prefs_pair(c, TrecPrefScope::kAll), (2.0 / 3 + 1 + 1) / 3, kTolerance);
  EXPECT_NEAR(trec_prefs_pair(c, TrecPrefScope::kRetrieved), 2.0 / 3, kTolerance);
}

TEST(TrecPrefsErrors, ContradictionsAreInvalidArgument) {
  // Subgroups of one group that prefer a to b and b to a.
  const auto cycle = trec_pref_counts({"a", "b"}, {{"G", "s1", "a", 2},
                                                   {"G", "s1", "b", 1},
                                                   {"G", "s2", "b", 2},
                                                   {"G", "s2", "a", 1}});
  EXPECT_EQ(cycle.status().code(), StatusCode::kInvalidArgument);
  // One subgroup giving a two levels.
  const auto twice = trec_pref_counts({"a"}, {{"G", "0", "a", 2}, {"G", "0", "a", 1}});
  EXPECT_EQ(twice.status().code(), StatusCode::kInvalidArgument);
  // Non-relevant in one subgroup, relevant in another of the same group.
  const auto zero = trec_pref_counts({"a"}, {{"G", "s1", "a", 0},
                                             {"G", "s1", "b", 1},
                                             {"G", "s2", "a", 2}});
  EXPECT_EQ(zero.status().code(), StatusCode::kInvalidArgument);
}

TEST(TrecPrefsReaders, PrefsAndQrelsPrefsLines) {
  const auto prefs = parse_trec_prefs("# c\nq1 G s1 a 3.5\nq1 G s2 b 0\n", "p");
  ASSERT_TRUE(prefs.ok()) << prefs.status().to_string();
  EXPECT_EQ(prefs->at("q1")[0].level, 3.5);
  EXPECT_EQ(prefs->at("q1")[1].subgroup, "s2");
  const auto qrels = parse_qrels_prefs("q1 0 a 2\n", "q");
  ASSERT_TRUE(qrels.ok());
  EXPECT_EQ(qrels->at("q1")[0].subgroup, "0");  // trec_eval's single subgroup
  EXPECT_FALSE(parse_trec_prefs("q1 G a 3\n", "p").ok());
}

TEST(TrecPrefsEvaluate, AllPrefsSetThroughTrecEvaluatePrefs) {
  // The classes example above as a run: c 4, a 3, x 2, b 1.
  const TrecPrefs prefs = {{"q1", {{"G", "0", "a", 2}, {"G", "0", "b", 1},
                                   {"G", "0", "c", 0}, {"G", "0", "d", 0}}}};
  const ragmeter::Run run = {{"q1", {"c", "a", "x", "b"}}};
  const auto lines = trec_evaluate_prefs(prefs, run, {.measures = {"all_prefs"}, .run_tag = "r"});
  ASSERT_TRUE(lines.ok()) << lines.status().to_string();
  ASSERT_EQ(lines->size(), 16u);  // runid, num_q and 14 measures
  EXPECT_EQ((*lines)[2].measure, "prefs_num_prefs_poss");
  EXPECT_EQ((*lines)[2].value, 5.0);
  EXPECT_EQ((*lines)[5].measure, "prefs_simp");
  EXPECT_NEAR((*lines)[5].value, 0.6, kTolerance);
  EXPECT_EQ(lines->back().measure, "prefs_avgjg_imp");
  EXPECT_FALSE(trec_evaluate_prefs(prefs, run, {.measures = {"map"}}).ok());
}

}  // namespace
}  // namespace ragmeter
