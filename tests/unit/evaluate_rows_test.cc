// Evaluating rows held in memory (evaluate_rows.h), the result table and reading a
// results file back: the same outcomes and bytes as a run over the same rows in a file.
#include "ragmeter/evaluate_rows.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "ragmeter/result_table.h"
#include "ragmeter/results.h"

namespace ragmeter {
namespace {

using Json = nlohmann::ordered_json;

// Rows in every shape a caller may hand over: ragas names, legacy names, a renamed
// column, a field of the wrong type, a row that is not an object, a missing field.
std::vector<Json> mixed_rows() {
  return {
      {{"user_input", "q"}, {"response", "x"}, {"reference", "x y"}},
      {{"question", "q"}, {"answer", "x y"}, {"ground_truth", "x y"}},
      {{"pred", "y"}, {"reference", "x y"}},  // pred -> response through the column map
      {{"response", {{"nested", 1}}}, {"reference", "x"}},
      Json::array({"not", "an", "object"}),
      {{"response", "x"}},
      {{"answer", "x z"}, {"ground_truths", Json::array({"w", "x z w"})}},
  };
}

EvalOptions options_for(const std::string& metrics) {
  EvalOptions options;
  options.metrics = *parse_metric_list(metrics);
  options.column_map["pred"] = "response";
  options.threads = 2;
  return options;
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("ragmeter_evaluate_rows_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

TEST(EvaluateRowsTest, ScoresEachRowAsTheHandCountedTokenF1) {
  auto run = evaluate_rows(mixed_rows(), options_for("token_f1"), {}, "rows");
  ASSERT_TRUE(run.ok()) << run.status().message();
  const ResultTable& table = run->table;
  ASSERT_EQ(table.metrics, std::vector<std::string>{"token_f1"});
  ASSERT_EQ(table.rows.size(), 7u);
  // "x" against "x y": precision 1, recall 1/2, F1 2/3.
  EXPECT_DOUBLE_EQ(table.rows[0].results[0].score, 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(table.rows[1].results[0].score, 1.0);  // legacy names
  EXPECT_DOUBLE_EQ(table.rows[2].results[0].score, 2.0 / 3.0);  // mapped column
  // Rejected rows keep their place, every metric failed with the error as reason.
  ASSERT_TRUE(table.rows[3].error.has_value());
  EXPECT_EQ(table.rows[3].error->field, "response");
  EXPECT_EQ(table.rows[3].results[0].outcome, Outcome::kFailed);
  EXPECT_EQ(table.rows[3].results[0].reason,
            "row rejected: rows:4: field 'response': expected a string, got an object");
  ASSERT_TRUE(table.rows[4].error.has_value());
  EXPECT_EQ(table.rows[4].error->message, "expected a JSON object, got a JSON array");
  EXPECT_EQ(table.rows[5].results[0].outcome, Outcome::kSkipped);
  EXPECT_EQ(table.rows[5].results[0].reason, "field 'reference' is missing");
  // The best of two references: "x z" against "x z w" is P 1, R 2/3, F1 0.8.
  EXPECT_DOUBLE_EQ(table.rows[6].results[0].score, 0.8);
  EXPECT_EQ(run->summary.rows_read, 7);
  EXPECT_EQ(run->summary.rows_rejected, 2);
  EXPECT_EQ(run->summary.metrics[0].stats.n, 4);
  // The row's own fields, unchanged, then its language ("q", "x y": too little to tell).
  Json expected = mixed_rows()[1];
  expected["language"] = "und";
  EXPECT_EQ(table.rows[1].fields, expected);
}

TEST(EvaluateRowsTest, WritesTheSameBytesAsARunOverTheFile) {
  // Every row but the one that is not an object, whose error has a column in a file.
  std::vector<Json> rows = mixed_rows();
  rows.erase(rows.begin() + 4);
  const std::string path = temp_path("rows.jsonl");
  {
    std::ofstream file(path, std::ios::binary);
    for (const Json& row : rows) file << row.dump() << "\n";
  }
  const EvalOptions options = options_for("token_f1,bleu,rouge_l,exact_match");
  auto reader = open_dataset(path);
  ASSERT_TRUE(reader.ok());
  std::ostringstream from_file;
  auto writer = make_jsonl_result_writer(from_file, options.metrics);
  auto file_summary = evaluate(**reader, path, options, *writer);
  ASSERT_TRUE(file_summary.ok());

  auto run = evaluate_rows(rows, options, {}, path);
  ASSERT_TRUE(run.ok());
  std::ostringstream from_memory;
  ASSERT_TRUE(write_results_jsonl(run->table, from_memory).ok());
  EXPECT_EQ(from_memory.str(), from_file.str());
  const RunInfo info{"offline", path, {}, nullptr};
  EXPECT_EQ(summary_json_text(run->summary, info), summary_json_text(*file_summary, info));
  std::filesystem::remove(path);
}

TEST(EvaluateRowsTest, AResultsFileReadsBackToTheSameTable) {
  auto run = evaluate_rows(mixed_rows(), options_for("rouge_l,token_f1"), {}, "rows");
  ASSERT_TRUE(run.ok());
  std::ostringstream written;
  ASSERT_TRUE(write_results_jsonl(run->table, written).ok());
  std::istringstream in(written.str());
  auto read = read_results_jsonl(in, "results.jsonl");
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(read->metrics, run->table.metrics);
  ASSERT_EQ(read->rows.size(), run->table.rows.size());
  for (std::size_t i = 0; i < read->rows.size(); ++i) {
    const RowResult& a = read->rows[i];
    const RowResult& b = run->table.rows[i];
    EXPECT_EQ(a.error.has_value(), b.error.has_value()) << i;
    if (!a.error) {
      EXPECT_EQ(a.fields, b.fields) << i;
    }
    for (std::size_t m = 0; m < a.results.size(); ++m) {
      EXPECT_EQ(a.results[m].outcome, b.results[m].outcome);
      EXPECT_EQ(a.results[m].score, b.results[m].score);  // the JSON keeps every bit
      EXPECT_EQ(a.results[m].reason, b.results[m].reason);
      EXPECT_EQ(a.results[m].evidence, b.results[m].evidence);
    }
  }
  std::ostringstream rewritten;
  ASSERT_TRUE(write_results_jsonl(*read, rewritten).ok());
  EXPECT_EQ(rewritten.str(), written.str());
}

TEST(EvaluateRowsTest, ABrokenResultsLineIsNamed) {
  std::istringstream in(
      "{\"response\":\"x\",\"scores\":{\"bleu\":0.5},\"status\":{\"bleu\":\"ok\"}}\n"
      "{\"response\":\"y\",\"scores\":{\"bleu\":null},\"status\":{\"bleu\":\"fine\"}}\n");
  auto read = read_results_jsonl(in, "r.jsonl");
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().message(), "r.jsonl:2: unknown status \"fine\"");
  EXPECT_EQ(read_results_jsonl("/nonexistent/r.jsonl").status().code(), StatusCode::kNotFound);
}

TEST(EvaluateRowsTest, InvalidUtf8InAMemoryRowRejectsThatRowNamingTheField) {
  std::vector<Json> rows = {{{"response", "ok"}, {"reference", "ok"}},
                            {{"response", std::string("bad \xff")}, {"reference", "x"}}};
  EvalOptions options = options_for("exact_match");
  options.column_map.clear();  // these rows have no "pred": a map naming it is an error
  auto run = evaluate_rows(std::move(rows), options, {}, "rows");
  ASSERT_TRUE(run.ok()) << run.status().message();
  ASSERT_EQ(run->table.rows.size(), 2u);
  EXPECT_DOUBLE_EQ(run->table.rows[0].results[0].score, 1.0);
  ASSERT_TRUE(run->table.rows[1].error.has_value());
  EXPECT_EQ(run->table.rows[1].error->field, "response");
  EXPECT_EQ(run->table.rows[1].error->line, 2);
  EXPECT_NE(run->table.rows[1].error->message.find("invalid UTF-8"), std::string::npos);
}

TEST(EvaluateRowsTest, CancellingKeepsTheRowsFinishedBeforeIt) {
  std::vector<Json> rows;
  for (int i = 0; i < 50; ++i) rows.push_back({{"response", "x"}, {"reference", "x y"}});
  std::atomic<bool> cancel{false};
  EvalOptions options = options_for("token_f1");
  options.column_map.clear();  // these rows have no "pred": a map naming it is an error
  options.batch_rows = 7;
  options.cancel = &cancel;
  std::vector<std::int64_t> seen;
  // The progress callback stops the run once a first batch is done (as a binding that
  // sees Ctrl-C there would).
  auto run = evaluate_rows(std::move(rows), options, [&](std::int64_t rows_seen) {
    seen.push_back(rows_seen);
    if (rows_seen >= 7) cancel = true;
  });
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_TRUE(run->summary.cancelled);
  EXPECT_EQ(run->table.rows.size(), 7u);
  EXPECT_EQ(run->summary.rows_read, 7);
  EXPECT_EQ(run->summary.metrics[0].stats.n, 7);
  EXPECT_DOUBLE_EQ(run->summary.metrics[0].stats.mean, 2.0 / 3.0);
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.back(), 7);
  EXPECT_EQ(summary_to_json(run->summary, RunInfo{})["cancelled"], true);
}

TEST(EvaluateRowsTest, ARunCancelledBeforeItStartsScoresNothing) {
  std::atomic<bool> cancel{true};
  EvalOptions options = options_for("token_f1");
  options.cancel = &cancel;
  auto run = evaluate_rows({{{"response", "x"}, {"reference", "x"}}}, options);
  ASSERT_TRUE(run.ok());
  EXPECT_TRUE(run->summary.cancelled);
  EXPECT_TRUE(run->table.rows.empty());
  EXPECT_EQ(run->summary.metrics[0].stats.n, 0);
}

TEST(EvaluateRowsTest, StrictStopsAtTheFirstBadRow) {
  EvalOptions options = options_for("token_f1");
  options.strict = true;
  auto run = evaluate_rows(mixed_rows(), options, {}, "rows");
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.status().message(), "rows:4: field 'response': expected a string, got an object");
}

}  // namespace
}  // namespace ragmeter
