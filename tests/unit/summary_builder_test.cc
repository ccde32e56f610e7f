// The summary of results merged from shards (summary_builder.h): scoring the rows in two
// shards, each its own evaluate_rows call as a Ray worker makes it, and building the
// summary from their tables in input order gives the bytes of one run over all rows
// (means, std, the bootstrap interval, counts, corpus values, reasons).
#include "ragmeter/summary_builder.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ragmeter/evaluate_rows.h"
#include "ragmeter/results.h"

namespace ragmeter {
namespace {

using Json = nlohmann::ordered_json;

// 40 rows: varied overlap, a row without reference every 7th (skipped), a rejected row
// every 11th (a field of the wrong type).
std::vector<Json> rows() {
  const std::vector<std::string> words = {"the", "cat", "sat", "on", "a", "mat", "dog", "ran"};
  std::vector<Json> out;
  for (int i = 0; i < 40; ++i) {
    std::string response, reference;
    for (int w = 0; w < 3 + i % 5; ++w) response += words[(i * 3 + w) % words.size()] + " ";
    for (int w = 0; w < 4 + i % 3; ++w) reference += words[(i + w * 5) % words.size()] + " ";
    Json row = {{"user_input", "q" + std::to_string(i)}, {"response", response}};
    if (i % 7 != 3) row["reference"] = reference;
    if (i % 11 == 5) row["response"] = Json::array({1, 2});
    out.push_back(row);
  }
  return out;
}

EvalOptions options() {
  EvalOptions options;
  options.metrics = *parse_metric_list("token_f1,bleu,chrf,rouge_l");
  options.threads = 2;
  options.bootstrap.seed = 7;
  return options;
}

std::string summary_text(const EvalSummary& summary) { return summary_json_text(summary, RunInfo{}); }

TEST(SummaryBuilderTest, TwoShardsMergedInOrderGiveTheSingleRunsSummary) {
  std::vector<Json> all = rows();
  auto whole = evaluate_rows(all, options());
  ASSERT_TRUE(whole.ok()) << whole.status().to_string();
  ASSERT_GT(whole->summary.rows_rejected, 0);
  ASSERT_GT(whole->summary.metrics[0].skipped, 0);

  SummaryBuilder builder(options());
  for (auto [begin, end] : {std::pair{0, 17}, std::pair{17, 40}}) {
    EvalOptions shard_options = options();
    shard_options.bootstrap.resamples = 0;  // a worker needs no interval of its own
    auto shard = evaluate_rows(std::vector<Json>(all.begin() + begin, all.begin() + end), shard_options);
    ASSERT_TRUE(shard.ok()) << shard.status().to_string();
    for (const RowResult& row : shard->table.rows) {
      if (row.error) {
        builder.add_rejected();
      } else {
        ASSERT_TRUE(builder.add_row(row.results, row.fields.at("language").get<std::string>()).ok());
      }
    }
  }
  EvalSummary merged = std::move(builder).finish();
  EXPECT_EQ(summary_text(merged), summary_text(whole->summary));
  ASSERT_TRUE(merged.metrics[1].corpus.has_value());  // corpus BLEU, summed row by row
  EXPECT_EQ(*merged.metrics[1].corpus, *whole->summary.metrics[1].corpus);
  EXPECT_EQ(merged.metrics[0].top_skip_reason, whole->summary.metrics[0].top_skip_reason);
}

TEST(SummaryBuilderTest, RowsInAnotherOrderChangeTheIntervalNotTheMean) {
  // The interval depends on the order of the scores (the bootstrap draws indices), so
  // a merge must keep input order: reversed rows keep the mean, not the interval.
  std::vector<Json> all = rows();
  auto whole = evaluate_rows(all, options());
  ASSERT_TRUE(whole.ok());
  SummaryBuilder reversed(options());
  for (auto it = whole->table.rows.rbegin(); it != whole->table.rows.rend(); ++it) {
    if (it->error) {
      reversed.add_rejected();
    } else {
      ASSERT_TRUE(reversed.add_row(it->results).ok());
    }
  }
  EvalSummary summary = std::move(reversed).finish();
  const SummaryStats& a = summary.metrics[0].stats;
  const SummaryStats& b = whole->summary.metrics[0].stats;
  EXPECT_NEAR(a.mean, b.mean, 1e-12);
  EXPECT_NE(std::pair(a.ci_low, a.ci_high), std::pair(b.ci_low, b.ci_high));
}

TEST(SummaryBuilderTest, ARowWithTheWrongNumberOfResultsIsRefused) {
  SummaryBuilder builder(options());
  EXPECT_EQ(builder.add_row({MetricResult::ok(1.0)}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(std::move(builder).finish().rows_read, 0);
}

TEST(SummaryBuilderTest, NotesAreCountedAndShownWithTheMostCommonText) {
  EvalOptions rouge;
  rouge.metrics = *parse_metric_list("rouge_l");
  SummaryBuilder builder(rouge);
  MetricResult noted = MetricResult::ok(0.0);
  noted.note = "the tokenizer dropped every letter";
  ASSERT_TRUE(builder.add_row({noted}).ok());
  ASSERT_TRUE(builder.add_row({noted}).ok());
  ASSERT_TRUE(builder.add_row({MetricResult::ok(0.5)}).ok());
  const EvalSummary summary = std::move(builder).finish();
  EXPECT_EQ(summary.metrics[0].noted, 2);
  EXPECT_EQ(summary.metrics[0].top_note, "the tokenizer dropped every letter");
  const Json json = summary_to_json(summary, RunInfo{});
  EXPECT_EQ(json["metrics"]["rouge_l"]["note"],
            Json({{"rows", 2}, {"text", "the tokenizer dropped every letter"}}));
  EXPECT_NE(format_summary_table(summary).find(
                "note: rouge_l on 2 of 3 scored rows: the tokenizer dropped every letter"),
            std::string::npos);
}

}  // namespace
}  // namespace ragmeter
