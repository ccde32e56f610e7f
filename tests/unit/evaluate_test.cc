// The evaluation loop with an in-memory reader (a fake RowReader) and a recording sink.
#include "ragmeter/evaluate.h"

#include <gtest/gtest.h>

#include <deque>
#include <variant>

namespace ragmeter {
namespace {

using Json = nlohmann::ordered_json;

// Yields scripted rows and errors in order.
class FakeReader : public RowReader {
 public:
  void add_row(Json fields) { items_.emplace_back(std::move(fields)); }
  void add_error(std::string message) { items_.emplace_back(std::move(message)); }
  Result next(Row* row, RowError* error) override {
    if (items_.empty()) return Result::kEnd;
    auto item = std::move(items_.front());
    items_.pop_front();
    ++line_;
    if (auto* fields = std::get_if<Json>(&item)) {
      row->fields = std::move(*fields);
      row->line = line_;
      row->index = line_ - 1;
      return Result::kRow;
    }
    error->file = "fake.jsonl";
    error->line = line_;
    error->message = std::get<std::string>(item);
    return Result::kError;
  }

 private:
  std::deque<std::variant<Json, std::string>> items_;
  std::int64_t line_ = 0;
};

class RecordingSink : public ResultSink {
 public:
  Status on_row(const Row& row, const std::vector<MetricResult>& results) override {
    lines.push_back(row.line);
    scores.push_back(results.at(0).outcome == Outcome::kOk ? results[0].score : -1.0);
    return ok_status();
  }
  Status on_rejected(const RowError& error) override {
    rejected.push_back(error);
    lines.push_back(error.line);
    scores.push_back(-2.0);
    return ok_status();
  }
  std::vector<std::int64_t> lines;
  std::vector<double> scores;
  std::vector<RowError> rejected;
};

Json pair(const std::string& response, const std::string& reference) {
  return {{"response", response}, {"reference", reference}};
}

EvalOptions token_f1_options(int threads) {
  EvalOptions options;
  options.metrics = *parse_metric_list("token_f1");
  options.threads = threads;
  options.batch_rows = 7;  // several batches, one partly filled
  return options;
}

TEST(EvaluateTest, ResultsComeInInputOrderWithManyThreads) {
  FakeReader reader;
  for (int i = 0; i < 50; ++i) reader.add_row(pair(i % 2 ? "x y" : "x", "x y"));
  RecordingSink sink;
  auto summary = evaluate(reader, "fake.jsonl", token_f1_options(4), sink);
  ASSERT_TRUE(summary.ok());
  ASSERT_EQ(sink.lines.size(), 50u);
  for (int i = 0; i < 50; ++i) {
    EXPECT_EQ(sink.lines[i], i + 1);
    EXPECT_DOUBLE_EQ(sink.scores[i], i % 2 ? 1.0 : 2.0 / 3.0);
  }
  EXPECT_EQ(summary->metrics[0].stats.n, 50);
  EXPECT_DOUBLE_EQ(summary->metrics[0].stats.mean, (1.0 + 2.0 / 3.0) / 2.0);
}

TEST(EvaluateTest, BadRowsAreReportedAndTheRunGoesOn) {
  FakeReader reader;
  reader.add_row(pair("a", "a"));
  reader.add_error("not JSON");
  reader.add_row({{"response", {{"x", 1}}}, {"reference", "a"}});  // wrong type
  reader.add_row(pair("a", ""));                                      // empty: skipped
  RecordingSink sink;
  auto summary = evaluate(reader, "fake.jsonl", token_f1_options(1), sink);
  ASSERT_TRUE(summary.ok());
  EXPECT_EQ(summary->rows_read, 4);
  EXPECT_EQ(summary->rows_rejected, 2);
  ASSERT_EQ(sink.rejected.size(), 2u);
  EXPECT_EQ(sink.rejected[0].line, 2);
  EXPECT_EQ(sink.rejected[1].line, 3);
  EXPECT_EQ(sink.rejected[1].field, "response");
  // The field is named once: in `field`, not again inside the message.
  EXPECT_EQ(sink.rejected[1].to_string().find("field 'response'"),
            sink.rejected[1].to_string().rfind("field 'response'"));
  EXPECT_EQ(summary->metrics[0].stats.n, 1);
  EXPECT_EQ(summary->metrics[0].skipped, 1);
  // Rejected rows reach the sink at their place in input order.
  EXPECT_EQ(sink.lines, (std::vector<std::int64_t>{1, 2, 3, 4}));
  EXPECT_EQ(sink.scores[1], -2.0);
  EXPECT_EQ(sink.scores[2], -2.0);
}

TEST(EvaluateTest, StrictStopsAtTheFirstBadRow) {
  FakeReader reader;
  reader.add_row(pair("a", "a"));
  reader.add_error("broken");
  reader.add_row(pair("a", "a"));
  RecordingSink sink;
  EvalOptions options = token_f1_options(1);
  options.strict = true;
  auto summary = evaluate(reader, "fake.jsonl", options, sink);
  ASSERT_FALSE(summary.ok());
  EXPECT_NE(summary.status().message().find("fake.jsonl:2"), std::string::npos)
      << summary.status().message();
}

TEST(EvaluateTest, LimitCountsAcceptedRows) {
  FakeReader reader;
  for (int i = 0; i < 10; ++i) reader.add_row(pair("a", "a"));
  RecordingSink sink;
  EvalOptions options = token_f1_options(2);
  options.limit = 3;
  auto summary = evaluate(reader, "fake.jsonl", options, sink);
  ASSERT_TRUE(summary.ok());
  EXPECT_EQ(sink.lines.size(), 3u);
}

TEST(EvaluateTest, CorpusBleuSumsStatisticsAcrossRows) {
  FakeReader reader;
  std::vector<std::string> hyps = {"the cat sat on the mat", "a dog ran in the park today"};
  std::vector<std::string> refs = {"the cat sat on a mat", "the dog ran in the park"};
  for (int i = 0; i < 2; ++i) reader.add_row(pair(hyps[i], refs[i]));
  RecordingSink sink;
  EvalOptions options;
  options.metrics = *parse_metric_list("bleu");
  auto summary = evaluate(reader, "fake.jsonl", options, sink);
  ASSERT_TRUE(summary.ok());
  ASSERT_TRUE(summary->metrics[0].corpus.has_value());
  EXPECT_DOUBLE_EQ(*summary->metrics[0].corpus, corpus_bleu(hyps, {{refs[0]}, {refs[1]}}));
}

}  // namespace
}  // namespace ragmeter
