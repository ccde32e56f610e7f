// The run loop's parts that bindings rely on: the time limit of make_deadline_target,
// RunOptions::cancel with its heartbeat, the record's writer thread, and context ids
// given beside the contexts. Targets here are FAKES (a BlockingTarget answering from a
// table, sleeping as told).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <thread>

#include "ragmeter/run.h"
#include "run/answer_record.h"

namespace ragmeter {
namespace {

using nlohmann::ordered_json;
using namespace std::chrono_literals;

// Answers "answer to Q" after sleeping the row's "sleep_ms"; counts calls.
class FakeSleepyTarget final : public BlockingTarget {
 public:
  TargetOutcome answer(const TargetRequest& request, int) override {
    calls_.fetch_add(1);
    int ms = request.row->value("sleep_ms", 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    TargetOutcome outcome;
    outcome.answer.emplace().response = "answer to " + request.question;
    return outcome;
  }
  std::string identity() const override { return "fake sleepy"; }
  int calls() const { return calls_.load(); }

 private:
  std::atomic<int> calls_{0};
};

class CollectRows final : public RunSink {
 public:
  Status on_row(const RunRow& row) override {
    rows.push_back(row);
    return ok_status();
  }
  std::vector<RunRow> rows;
};

std::vector<ordered_json> questions(const std::vector<int>& sleeps_ms) {
  std::vector<ordered_json> rows;
  for (std::size_t i = 0; i < sleeps_ms.size(); ++i) {
    rows.push_back({{"user_input", "q" + std::to_string(i)}, {"sleep_ms", sleeps_ms[i]}});
  }
  return rows;
}

TEST(DeadlineTargetTest, AnAttemptPastTheLimitEndsAsRetryableTimeoutAndTheLateAnswerIsDropped) {
  auto fake = std::make_shared<FakeSleepyTarget>();
  auto target = make_deadline_target(make_pooled_target(fake, 2), 0.1);
  auto reader = make_memory_row_reader(questions({400, 0}));
  RunOptions options;
  options.retry.max_attempts = 1;
  CollectRows sink;
  auto summary = run_target(*reader, *target, options, sink);
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  ASSERT_EQ(sink.rows.size(), 2u);
  ASSERT_FALSE(sink.rows[0].outcome.ok());
  EXPECT_EQ(sink.rows[0].outcome.failure.kind, "timeout");
  EXPECT_TRUE(sink.rows[0].outcome.failure.retryable);
  EXPECT_EQ(sink.rows[0].outcome.failure.message, "no answer within 0.1 s");
  ASSERT_TRUE(sink.rows[1].outcome.ok());
  EXPECT_EQ(sink.rows[1].outcome.answer->response, "answer to q1");
  target.reset();  // waits for the sleeping call; its answer goes nowhere
  EXPECT_EQ(fake->calls(), 2);
}

TEST(DeadlineTargetTest, ATimeoutIsRetriedAndTheRetryCanAnswer) {
  // The first attempt of q0 sleeps past the limit, the second is quick: a row field
  // cannot change between attempts, so the fake counts.
  class SlowOnce final : public BlockingTarget {
   public:
    TargetOutcome answer(const TargetRequest&, int) override {
      if (calls_.fetch_add(1) == 0) std::this_thread::sleep_for(300ms);
      TargetOutcome outcome;
      outcome.answer.emplace().response = "late but fine";
      return outcome;
    }
    std::string identity() const override { return "slow once"; }
    std::atomic<int> calls_{0};
  };
  auto fake = std::make_shared<SlowOnce>();
  auto target = make_deadline_target(make_pooled_target(fake, 2), 0.1);
  auto reader = make_memory_row_reader(questions({0}));
  RunOptions options;
  options.retry.initial_backoff_seconds = 0.01;
  CollectRows sink;
  auto summary = run_target(*reader, *target, options, sink);
  ASSERT_TRUE(summary.ok());
  ASSERT_TRUE(sink.rows[0].outcome.ok());
  EXPECT_EQ(sink.rows[0].attempts, 2);
  EXPECT_EQ(summary->retries, 1);
}

TEST(DeadlineTargetTest, AnAttemptWhoseTargetDropsDoneUncalledStillEndsAtItsDeadline) {
  // A binding's target can lose an attempt: the Python callback that should call `done`
  // raised inside asyncio's future callbacks (which only log) and was freed. The deadline
  // must still end the attempt. A cancel after 10 s keeps a regression from hanging: the
  // row then ends "interrupted", not "timeout".
  class DropsDone final : public Target {
   public:
    void ask(const TargetRequest&, Done done) override {
      asked_.fetch_add(1);
      Done dropped = std::move(done);  // destroyed here, never called
    }
    std::string identity() const override { return "drops done"; }
    std::atomic<int> asked_{0};
  };
  auto inner = std::make_unique<DropsDone>();
  DropsDone* fake = inner.get();
  auto target = make_deadline_target(std::move(inner), 0.1);
  auto reader = make_memory_row_reader(questions({0}));
  std::atomic<bool> cancel{false};
  RunOptions options;
  options.retry.max_attempts = 2;
  options.retry.initial_backoff_seconds = 0.01;
  options.cancel = &cancel;
  CollectRows sink;
  std::atomic<bool> returned{false};
  std::thread guard([&] {
    for (int i = 0; i < 1000 && !returned.load(); ++i) std::this_thread::sleep_for(10ms);
    cancel.store(true);
  });
  auto summary = run_target(*reader, *target, options, sink);
  returned.store(true);
  guard.join();
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  ASSERT_EQ(sink.rows.size(), 1u);
  ASSERT_FALSE(sink.rows[0].outcome.ok());
  EXPECT_EQ(sink.rows[0].outcome.failure.kind, "timeout");
  EXPECT_EQ(sink.rows[0].attempts, 2);
  EXPECT_EQ(fake->asked_.load(), 2);
}

TEST(RunCancelTest, CancelEndsUnfinishedRowsAsInterruptedAndKeepsTheFinished) {
  auto fake = std::make_shared<FakeSleepyTarget>();
  auto target = make_pooled_target(fake, 1);
  auto reader = make_memory_row_reader(questions({0, 0, 2000, 0, 0}));
  std::atomic<bool> cancel{false};
  RunOptions options;
  options.concurrency = 1;
  options.cancel = &cancel;
  CollectRows sink;
  int heartbeats = 0;
  auto started = std::chrono::steady_clock::now();
  auto summary = run_target(*reader, *target, options, sink, [&](std::int64_t done, std::int64_t) {
    ++heartbeats;
    if (done == 2) cancel.store(true);  // while q2 sleeps
  });
  auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  ASSERT_TRUE(summary.ok());
  EXPECT_TRUE(summary->cancelled);
  EXPECT_LT(seconds, 1.5);  // q2 2 s call was abandoned, not waited for
  ASSERT_EQ(sink.rows.size(), 3u);  // rows read so far; q3 and q4 were never read
  EXPECT_TRUE(sink.rows[0].outcome.ok());
  EXPECT_TRUE(sink.rows[1].outcome.ok());
  EXPECT_EQ(sink.rows[2].outcome.failure.kind, "interrupted");
  EXPECT_GE(heartbeats, 2);
  EXPECT_EQ(run_summary_json(*summary)["cancelled"], true);
}

TEST(RunCancelTest, WithoutCancelThereIsNoHeartbeatOnlyOneCallPerRow) {
  auto fake = std::make_shared<FakeSleepyTarget>();
  auto target = make_pooled_target(fake, 1);
  auto reader = make_memory_row_reader(questions({300, 0}));
  RunOptions options;
  CollectRows sink;
  int calls = 0;
  auto summary = run_target(*reader, *target, options, sink, [&](std::int64_t, std::int64_t) { ++calls; });
  ASSERT_TRUE(summary.ok());
  EXPECT_EQ(calls, 2);  // the CLI's progress: once per finished row
  EXPECT_FALSE(summary->cancelled);
}

class AnswerRecordTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (std::filesystem::temp_directory_path() /
             ("ragmeter_record_" + std::to_string(::getpid()) + "_" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".db"))
                .string();
    std::filesystem::remove(path_);
  }
  void TearDown() override {
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path_ + suffix);
  }
  std::string path_;
};

TEST_F(AnswerRecordTest, FlushedAnswersAreReadBackByAnotherOpening) {
  {
    auto record = run::AnswerRecord::open(path_);
    ASSERT_TRUE(record.ok());
    for (int i = 0; i < 1000; ++i) {
      ASSERT_TRUE((*record)->put("k" + std::to_string(i), "v" + std::to_string(i)).ok());
    }
    ASSERT_TRUE((*record)->flush().ok());
    auto seen = (*record)->get("k999");  // the second connection sees what was committed
    ASSERT_TRUE(seen.ok());
    EXPECT_EQ(seen->value_or("none"), "v999");
  }
  auto again = run::AnswerRecord::open(path_);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ((*again)->get("k0")->value_or("none"), "v0");
  EXPECT_EQ((*again)->get("k500")->value_or("none"), "v500");
  EXPECT_FALSE((*again)->get("k1000")->has_value());
}

TEST_F(AnswerRecordTest, ClosingCommitsWhatIsStillQueued) {
  {
    run::AnswerRecordOptions slow;
    slow.min_commit_interval_seconds = 10;  // the writer would wait: closing must not
    auto record = run::AnswerRecord::open(path_, slow);
    ASSERT_TRUE(record.ok());
    ASSERT_TRUE((*record)->put("a", "1").ok());
    ASSERT_TRUE((*record)->put("b", "2").ok());
  }
  auto again = run::AnswerRecord::open(path_);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ((*again)->get("b")->value_or("none"), "2");
}

TEST_F(AnswerRecordTest, AtLowRatesAnAnswerIsCommittedWithinMilliseconds) {
  auto record = run::AnswerRecord::open(path_);
  ASSERT_TRUE(record.ok());
  auto reader = run::AnswerRecord::open(path_);  // another connection, as a resumed run
  ASSERT_TRUE(reader.ok());
  ASSERT_TRUE((*record)->put("x", "y").ok());
  bool seen = false;
  for (int i = 0; i < 200 && !seen; ++i) {  // up to 2 s on a loaded machine
    std::this_thread::sleep_for(10ms);
    seen = (*reader)->get("x")->has_value();
  }
  EXPECT_TRUE(seen);
}

TEST(AnswerFromReplyTest, IdsBesideStringContextsAreTakenAndMustMatchTheirLength) {
  TargetOutcome o = answer_from_reply(
      R"({"response": "r", "retrieved_contexts": ["a", "b"], "retrieved_context_ids": ["d1", 2]})", {});
  ASSERT_TRUE(o.ok()) << o.failure.message;
  EXPECT_EQ(*o.answer->context_ids, (std::vector<std::string>{"d1", "2"}));
  TargetOutcome bad = answer_from_reply(
      R"({"response": "r", "retrieved_contexts": ["a", "b"], "retrieved_context_ids": ["d1"]})", {});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.failure.kind, "bad_contexts");
  // Ids inside context objects win over a list beside them.
  TargetOutcome objects = answer_from_reply(
      R"({"response": "r", "contexts": [{"text": "a", "id": "in"}], "retrieved_context_ids": ["beside"]})", {});
  ASSERT_TRUE(objects.ok());
  EXPECT_EQ(*objects.answer->context_ids, (std::vector<std::string>{"in"}));
}

}  // namespace
}  // namespace ragmeter
