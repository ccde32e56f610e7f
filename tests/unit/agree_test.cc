#include "ragmeter/agree.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "io/sha256.h"
#include "ragmeter/dataset.h"

namespace ragmeter {
namespace {

using Json = nlohmann::ordered_json;

// A run of `scores` per metric; row i has id "r<i>"; a NaN score is a skipped result.
ResultTable run_of(const std::vector<std::string>& metrics,
                   const std::vector<std::vector<double>>& scores) {
  ResultTable table;
  table.metrics = metrics;
  for (std::size_t i = 0; i < scores.size(); ++i) {
    RowResult row;
    row.index = static_cast<std::int64_t>(i);
    row.fields = {{"id", "r" + std::to_string(i)}};
    for (double s : scores[i]) {
      row.results.push_back(std::isnan(s) ? MetricResult::skipped("no contexts")
                                          : MetricResult::ok(s));
    }
    table.rows.push_back(std::move(row));
  }
  return table;
}

LabelSet labels_of(std::vector<Json> rows, const std::vector<std::string>& metrics,
                   const std::string& scale = "binary") {
  LabelOptions options;
  options.scale = parse_label_scale(scale).value();
  auto reader = make_memory_row_reader(std::move(rows), "labels.jsonl");
  return read_labels(*reader, "labels.jsonl", metrics, options);
}

AgreeOptions quick(const std::string& scale = "binary") {
  AgreeOptions options;
  options.labels.scale = parse_label_scale(scale).value();
  options.bootstrap.resamples = 200;
  return options;
}

const AgreementStatistic* find_stat(const MetricAgreement& m, const std::string& name) {
  for (const auto& s : m.statistics) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

TEST(LabelScaleTest, ParsesTheDeclaredForms) {
  EXPECT_EQ(parse_label_scale("binary")->kind, LabelKind::kBinary);
  auto ordinal = parse_label_scale("ordinal:1..5");
  ASSERT_TRUE(ordinal.ok());
  EXPECT_EQ(ordinal->low, 1);
  EXPECT_EQ(ordinal->high, 5);
  EXPECT_EQ(parse_label_scale("pairwise")->to_string(), "pairwise:-1..1");
  EXPECT_EQ(parse_label_scale("pairwise:-2..2")->to_string(), "pairwise:-2..2");
  EXPECT_FALSE(parse_label_scale("ordinal:5..1").ok());
  EXPECT_FALSE(parse_label_scale("pairwise:0..2").ok());
  EXPECT_FALSE(parse_label_scale("likert").ok());
}

TEST(LabelsReaderTest, EveryBadCellIsAnErrorWithLineAndFieldAndTheRestIsKept) {
  LabelSet set = labels_of({{{"id", "r0"}, {"label", 1}, {"note", "fine"}},
                            {{"id", "r1"}, {"label", 7}},
                            {{"label", 0}},
                            {{"id", "r3"}, {"label", "true"}, {"faithfulness", "maybe"}},
                            {{"id", "r4"}, {"other", 1}}},
                           {"faithfulness"});
  ASSERT_EQ(set.labels.size(), 2u);
  EXPECT_EQ(set.labels[0].id, "r0");
  EXPECT_EQ(set.labels[1].value, 1.0);  // "true"
  ASSERT_EQ(set.errors.size(), 4u);
  EXPECT_EQ(set.errors[0].line, 2);
  EXPECT_EQ(set.errors[0].field, "label");
  EXPECT_NE(set.errors[0].message.find("outside the declared scale binary"), std::string::npos);
  EXPECT_EQ(set.errors[1].field, "id");
  EXPECT_EQ(set.errors[2].field, "faithfulness");
  EXPECT_EQ(set.errors[3].line, 5);
  EXPECT_NE(set.errors[3].message.find("no label column"), std::string::npos);
  EXPECT_EQ(set.ignored_columns, (std::vector<std::string>{"note", "other"}));
}

TEST(LabelsReaderTest, AnnotatorsComeFromTheColumnAndFromSuffixes) {
  LabelSet set = labels_of({{{"id", "r0"}, {"label:ann", 1}, {"label:bob", 0}},
                            {{"id", "r1"}, {"annotator", "cy"}, {"faithfulness", 1}},
                            {{"id", "r1"}, {"annotator", "cy"}, {"faithfulness", 0}}},
                           {"faithfulness"});
  ASSERT_EQ(set.labels.size(), 3u);
  EXPECT_EQ(set.labels[0].annotator, "ann");
  EXPECT_EQ(set.labels[1].annotator, "bob");
  EXPECT_EQ(set.labels[2].target, "faithfulness");
  ASSERT_EQ(set.errors.size(), 1u);  // cy labelled r1 twice
  EXPECT_EQ(set.errors[0].line, 3);
  EXPECT_NE(set.errors[0].message.find("first is on line 2"), std::string::npos);
}

TEST(LabelsReaderTest, OrdinalLabelsMustBeWholeLevelsOfTheScale) {
  LabelSet set = labels_of({{{"id", "a"}, {"label", 3}},
                            {{"id", "b"}, {"label", "5"}},
                            {{"id", "c"}, {"label", 2.5}},
                            {{"id", "d"}, {"label", 0}}},
                           {}, "ordinal:1..5");
  EXPECT_EQ(set.labels.size(), 2u);
  EXPECT_EQ(set.errors.size(), 2u);
}

TEST(AgreeTest, BadLabelsAreListedAndTheRestIsComputed) {
  // Scores rise with the label: every statistic is defined on the good labels.
  std::vector<std::vector<double>> scores;
  std::vector<Json> labels;
  for (int i = 0; i < 40; ++i) {
    scores.push_back({i % 2 ? 0.9 : (i % 7) / 20.0});
    labels.push_back({{"id", "r" + std::to_string(i)}, {"label", i % 2}});
  }
  labels.push_back({{"id", "nowhere"}, {"label", 1}});
  labels.push_back({{"id", "r3"}, {"label", 2}});
  ResultTable run = run_of({"faithfulness"}, scores);
  auto report = agree(run, "results.jsonl", labels_of(labels, run.metrics), quick());
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_TRUE(report->has_errors());
  ASSERT_EQ(report->errors.size(), 2u);
  EXPECT_EQ(report->errors[0].line, 42);  // outside the scale, found while reading
  EXPECT_EQ(report->errors[1].line, 41);  // matches no row, found while joining
  EXPECT_NE(report->errors[1].message.find("'nowhere' matches no row of results.jsonl"),
            std::string::npos);
  const MetricAgreement& m = report->metrics.at(0);
  EXPECT_EQ(m.labels, 40);
  EXPECT_EQ(m.dev_items + m.test_items, 40);
  ASSERT_TRUE(m.threshold.has_value());
  EXPECT_DOUBLE_EQ(*find_stat(m, "roc_auc")->metric.value, 1.0);
  EXPECT_DOUBLE_EQ(*find_stat(m, "accuracy")->metric.value, 1.0);
  EXPECT_EQ(find_stat(m, "accuracy")->subset, "test");
  EXPECT_EQ(find_stat(m, "accuracy")->metric.n, m.test_items);
  EXPECT_FALSE(find_stat(m, "accuracy")->ceiling.has_value());  // one label per item
}

TEST(AgreeTest, AMetricWithoutVarianceIsAnErrorAndOthersAreStillMeasured) {
  std::vector<std::vector<double>> scores;
  std::vector<Json> labels;
  for (int i = 0; i < 20; ++i) {
    scores.push_back({1.0, i % 2 ? 0.9 : 0.1});
    labels.push_back({{"id", "r" + std::to_string(i)}, {"label", i % 2}});
  }
  ResultTable run = run_of({"exact_match", "token_f1"}, scores);
  auto report = agree(run, "results.jsonl", labels_of(labels, run.metrics), quick());
  ASSERT_TRUE(report.ok());
  ASSERT_EQ(report->metrics.size(), 2u);
  ASSERT_EQ(report->metrics[0].errors.size(), 1u);
  EXPECT_NE(report->metrics[0].errors[0].find("every one of its 20 labelled rows has score 1"),
            std::string::npos);
  EXPECT_TRUE(report->metrics[0].statistics.empty());
  EXPECT_TRUE(report->metrics[1].errors.empty());
  EXPECT_DOUBLE_EQ(*find_stat(report->metrics[1], "pearson")->metric.value, 1.0);
}

TEST(AgreeTest, NoMatchingLabelIsUnusableInput) {
  ResultTable run = run_of({"faithfulness"}, {{0.5}, {0.7}});
  auto report =
      agree(run, "results.jsonl", labels_of({{{"id", "x"}, {"label", 1}}}, run.metrics), quick());
  ASSERT_FALSE(report.ok());
  EXPECT_NE(report.status().message().find("by the 'id' column"), std::string::npos);
}

TEST(AgreeTest, LowerIsBetterMetricsAreNegatedAndTheirPassMarkIsAnUpperBound) {
  std::vector<std::vector<double>> scores;
  std::vector<Json> labels;
  for (int i = 0; i < 60; ++i) {
    bool good = i % 3 != 0;
    scores.push_back({good ? 0.1 * (i % 3) : 0.6 + 0.01 * i});  // good rows: low noise
    labels.push_back({{"id", "r" + std::to_string(i)}, {"label", good ? 1 : 0}});
  }
  ResultTable run = run_of({"noise_sensitivity_relevant"}, scores);
  auto report = agree(run, "results.jsonl", labels_of(labels, run.metrics), quick());
  ASSERT_TRUE(report.ok());
  const MetricAgreement& m = report->metrics.at(0);
  EXPECT_FALSE(m.higher_is_better);
  EXPECT_DOUBLE_EQ(*find_stat(m, "roc_auc")->metric.value, 1.0);
  EXPECT_GT(*find_stat(m, "pearson")->metric.value, 0.0);
  ASSERT_TRUE(m.threshold.has_value());
  EXPECT_DOUBLE_EQ(m.threshold->value, 0.2);  // the highest good score: pass at or below
  EXPECT_NE(agreement_to_json(*report)["metrics"][0]["threshold"]["gate"].get<std::string>().find(
                "--fail-over noise_sensitivity_relevant=0.2"),
            std::string::npos);
}

TEST(AgreeTest, TwoAnnotatorsGiveThePeoplesCeiling) {
  // Two people per row who disagree on every fourth row; the metric follows person one.
  std::vector<std::vector<double>> scores;
  std::vector<Json> labels;
  for (int i = 0; i < 40; ++i) {
    int one = i % 2, two = i % 4 == 0 ? 1 - one : one;
    scores.push_back({static_cast<double>(one)});
    labels.push_back({{"id", "r" + std::to_string(i)}, {"label:one", one}, {"label:two", two}});
  }
  ResultTable run = run_of({"faithfulness"}, scores);
  auto report = agree(run, "results.jsonl", labels_of(labels, run.metrics), quick());
  ASSERT_TRUE(report.ok());
  const MetricAgreement& m = report->metrics.at(0);
  EXPECT_EQ(m.most_labels_per_item, 2);
  const AgreementStatistic* acc = find_stat(m, "roc_auc");
  ASSERT_TRUE(acc->ceiling.has_value());
  EXPECT_EQ(acc->ceiling->n, 80);  // 40 items, 2 ordered pairs each
  // Pearson of two 0/1 columns is phi = (n11 n00 - n10 n01) / sqrt(n1. n0. n.1 n.0).
  // Metric vs each label (80 points): n11 40, n00 30, n10 0, n01 10: sqrt(0.6).
  // Person vs person (80 ordered pairs): n11 40, n00 20, n10 10, n01 10: 700 / 1500.
  const AgreementStatistic* pearson_stat = find_stat(m, "pearson");
  EXPECT_NEAR(*pearson_stat->metric.value, std::sqrt(0.6), 1e-12);
  EXPECT_NEAR(*pearson_stat->ceiling->value, 7.0 / 15.0, 1e-12);
  EXPECT_TRUE(find_stat(m, "krippendorff_alpha")->ceiling->value.has_value());
}

TEST(AgreeTest, PairwisePreferencesAreScoredByTheDifference) {
  // Row 2i is system a, 2i+1 system b; b is better on even i and the metric agrees on 3/4.
  std::vector<std::vector<double>> scores;
  std::vector<Json> labels;
  for (int i = 0; i < 20; ++i) {
    bool b_better = i % 2 == 0;
    bool metric_agrees = i % 4 != 1;
    double a = 0.5, b = (b_better == metric_agrees) ? 0.8 : 0.2;
    scores.push_back({a});
    scores.push_back({b});
    labels.push_back({{"id_a", "r" + std::to_string(2 * i)},
                      {"id_b", "r" + std::to_string(2 * i + 1)},
                      {"label", b_better ? "b" : "a"}});
  }
  ResultTable run = run_of({"answer_correctness"}, scores);
  auto report =
      agree(run, "results.jsonl", labels_of(labels, run.metrics, "pairwise"), quick("pairwise"));
  ASSERT_TRUE(report.ok()) << report.status().message();
  const MetricAgreement& m = report->metrics.at(0);
  EXPECT_EQ(m.items, 20);
  EXPECT_DOUBLE_EQ(*find_stat(m, "pairwise_accuracy")->metric.value, 15.0 / 20.0);
}

TEST(AgreeTest, PreferencesAllOneWayAreMeasuredButAMetricThatTiesEveryPairIsAnError) {
  std::vector<std::vector<double>> scores;
  std::vector<Json> labels;
  for (int i = 0; i < 10; ++i) {
    scores.push_back({0.2, 0.5});
    scores.push_back({i < 8 ? 0.9 : 0.1, 0.5});  // b better by the first metric on 8 of 10
    labels.push_back({{"id_a", "r" + std::to_string(2 * i)},
                      {"id_b", "r" + std::to_string(2 * i + 1)},
                      {"label", 1}});
  }
  ResultTable run = run_of({"token_f1", "bleu"}, scores);
  auto report =
      agree(run, "results.jsonl", labels_of(labels, run.metrics, "pairwise"), quick("pairwise"));
  ASSERT_TRUE(report.ok());
  const MetricAgreement& f1 = report->metrics.at(0);
  EXPECT_TRUE(f1.errors.empty());
  EXPECT_DOUBLE_EQ(*find_stat(f1, "pairwise_accuracy")->metric.value, 0.8);
  EXPECT_FALSE(find_stat(f1, "pearson")->metric.value.has_value());  // the labels are all 1
  ASSERT_EQ(report->metrics.at(1).errors.size(), 1u);
  EXPECT_NE(
      report->metrics.at(1).errors[0].find("every one of its 10 labelled pairs has difference 0"),
      std::string::npos);
}

TEST(AgreeTest, TheSplitDependsOnTheItemAndTheSeedOnly) {
  EXPECT_EQ(is_dev_item("q1", 0), is_dev_item("q1", 0));
  int dev = 0, changed = 0;
  for (int i = 0; i < 1000; ++i) {
    std::string item = "item" + std::to_string(i);
    dev += is_dev_item(item, 0);
    changed += is_dev_item(item, 0) != is_dev_item(item, 1);
  }
  EXPECT_NEAR(dev, 500, 60);
  EXPECT_NEAR(changed, 500, 60);
  // sha256("ragmeter-agree:0:q1") = bec4bed1... (Python hashlib): 0xbec4bed1 is odd: test.
  EXPECT_EQ(sha256_hex("ragmeter-agree:0:q1").substr(0, 8), "bec4bed1");
  EXPECT_FALSE(is_dev_item("q1", 0));
}

TEST(AgreeCalibrationTest, WilsonIntervalsEqualScipys) {
  // scipy.stats.binomtest(k, n).proportion_ci(method="wilson"), scipy 1.17.1.
  auto three = wilson_interval(3, 10);
  ASSERT_TRUE(three.has_value());
  EXPECT_NEAR(three->first, 0.10779126740630102, 1e-12);
  EXPECT_NEAR(three->second, 0.6032218525388546, 1e-12);
  EXPECT_NEAR(wilson_interval(0, 10)->first, 0.0, 1e-12);
  EXPECT_NEAR(wilson_interval(0, 10)->second, 0.27753279986288926, 1e-12);
  EXPECT_NEAR(wilson_interval(10, 10)->first, 0.7224672001371109, 1e-12);
  EXPECT_NEAR(wilson_interval(1, 1)->first, 0.20654931437723745, 1e-12);
  EXPECT_FALSE(wilson_interval(0, 0).has_value());
}

TEST(AgreeCalibrationTest, BinsHoldTheShareLabelledGoodPerScoreRange) {
  // Hand-built: scores 0.05 (x4, labels 0 0 0 1), 0.55 (x2, labels 1 0), 1.0 (x4, labels
  // 1 1 1 1). Bins of width 0.1 over faithfulness's [0, 1]; 1.0 falls in the last bin.
  std::vector<double> s = {0.05, 0.05, 0.05, 0.05, 0.55, 0.55, 1.0, 1.0, 1.0, 1.0};
  std::vector<int> l = {0, 0, 0, 1, 1, 0, 1, 1, 1, 1};
  std::vector<std::vector<double>> scores;
  std::vector<Json> labels;
  for (std::size_t i = 0; i < s.size(); ++i) {
    scores.push_back({s[i]});
    labels.push_back({{"id", "r" + std::to_string(i)}, {"label", l[i]}});
  }
  ResultTable run = run_of({"faithfulness"}, scores);
  auto report = agree(run, "results.jsonl", labels_of(labels, run.metrics), quick());
  ASSERT_TRUE(report.ok()) << report.status().message();
  const auto& bins = report->metrics.at(0).calibration;
  ASSERT_EQ(bins.size(), 10u);
  EXPECT_DOUBLE_EQ(bins[0].low, 0.0);
  EXPECT_DOUBLE_EQ(bins[9].high, 1.0);
  EXPECT_EQ(bins[0].n, 4);
  EXPECT_DOUBLE_EQ(*bins[0].mean_score, 0.05);
  EXPECT_DOUBLE_EQ(*bins[0].mean_label, 0.25);
  EXPECT_NEAR(bins[0].label_ci95->first, wilson_interval(1, 4)->first, 1e-15);
  EXPECT_EQ(bins[5].n, 2);
  EXPECT_DOUBLE_EQ(*bins[5].mean_label, 0.5);
  EXPECT_EQ(bins[9].n, 4);
  EXPECT_DOUBLE_EQ(*bins[9].mean_label, 1.0);
  EXPECT_EQ(bins[3].n, 0);
  EXPECT_FALSE(bins[3].mean_label.has_value());
  Json json = agreement_to_json(*report)["metrics"][0]["calibration"];
  EXPECT_EQ(json.size(), 10u);
  EXPECT_EQ(json[9]["n"], 4);
  EXPECT_TRUE(json[3]["mean_label"].is_null());
}

TEST(AgreeCalibrationTest, ALowerIsBetterMetricIsBinnedInItsOwnUnits) {
  // Hallucination rates 0.0 (labels good) and 0.9 (labels bad): the bins hold the rates
  // themselves, not the negated scores the statistics use.
  std::vector<std::vector<double>> scores;
  std::vector<Json> labels;
  for (int i = 0; i < 12; ++i) {
    scores.push_back({i % 2 ? 0.9 : 0.0});
    labels.push_back({{"id", "r" + std::to_string(i)}, {"label", i % 2 ? 0 : 1}});
  }
  ResultTable run = run_of({"ragchecker_hallucination"}, scores);
  auto report = agree(run, "results.jsonl", labels_of(labels, run.metrics), quick());
  ASSERT_TRUE(report.ok()) << report.status().message();
  const auto& bins = report->metrics.at(0).calibration;
  ASSERT_EQ(bins.size(), 10u);
  EXPECT_EQ(bins[0].n, 6);
  EXPECT_DOUBLE_EQ(*bins[0].mean_label, 1.0);
  EXPECT_EQ(bins[9].n, 6);
  EXPECT_DOUBLE_EQ(*bins[9].mean_score, 0.9);
  EXPECT_DOUBLE_EQ(*bins[9].mean_label, 0.0);
}

}  // namespace
}  // namespace ragmeter
