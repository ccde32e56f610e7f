#include "core/concurrent_jobs.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>

namespace ragmeter {
namespace {

TEST(RunConcurrently, ReturnsTheResultsInJobOrder) {
  const std::vector<std::string> results = run_concurrently(4, [](std::size_t i) {
    // The later jobs finish first: the order is the jobs', not the finishing order.
    std::this_thread::sleep_for(std::chrono::milliseconds(40 - 10 * static_cast<int>(i)));
    return "job " + std::to_string(i);
  });
  EXPECT_EQ(results, (std::vector<std::string>{"job 0", "job 1", "job 2", "job 3"}));
}

TEST(RunConcurrently, NoJobsNoResults) {
  int calls = 0;
  EXPECT_TRUE(run_concurrently(0, [&calls](std::size_t) { return ++calls; }).empty());
  EXPECT_EQ(calls, 0);
}

TEST(RunConcurrently, TheFirstJobRunsOnTheCallingThreadTheOthersOnTheirOwn) {
  const std::thread::id caller = std::this_thread::get_id();
  const std::vector<std::thread::id> ids =
      run_concurrently(3, [](std::size_t) { return std::this_thread::get_id(); });
  ASSERT_EQ(ids.size(), 3u);
  EXPECT_EQ(ids[0], caller);
  EXPECT_NE(ids[1], caller);
  EXPECT_NE(ids[2], caller);
  EXPECT_NE(ids[1], ids[2]);
}

TEST(RunConcurrently, JobsRunAtTheSameTime) {
  // Each job waits (at most 10 s) until all three have started and says whether they did:
  // run one after another, the first would give up waiting and say no.
  std::atomic<int> started{0};
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  const std::vector<bool> overlapped = run_concurrently(3, [&](std::size_t) {
    ++started;
    while (started.load() < 3 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::yield();
    }
    return started.load() == 3;
  });
  EXPECT_EQ(overlapped, (std::vector<bool>{true, true, true}));
}

TEST(RunConcurrently, AnExceptionComesBackAfterEveryJobEnded) {
  std::atomic<int> ended{0};
  EXPECT_THROW(run_concurrently(3,
                                [&ended](std::size_t i) {
                                  if (i == 0) throw std::runtime_error("job 0 failed");
                                  std::this_thread::sleep_for(std::chrono::milliseconds(30));
                                  ++ended;
                                  return 1;
                                }),
               std::runtime_error);
  EXPECT_EQ(ended.load(), 2);
}

}  // namespace
}  // namespace ragmeter
