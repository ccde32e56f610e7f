// OnceMap (src/judge/llm/once_map.h): a value per key computed once, however many threads ask.
// The claim and verdict stores rely on find_or_start_all being all-or-none for a set of
// keys that nobody else holds: two rows asking for the same sentences at the same time
// must not end up with one sentence each (two calls for one text, the race seen in
// ClaimsByTextTest when keys were started one at a time).
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "judge/llm/once_map.h"

namespace ragmeter {
namespace {

TEST(OnceMapTest, TheFirstAskerStartsEveryKeyAndTheSecondWaitsForEveryOne) {
  OnceMap<int> map;
  const std::vector<std::string> keys = {"a", "b", "c"};
  auto first = map.find_or_start_all(keys);
  ASSERT_EQ(first.size(), 3u);
  for (const auto& entry : first) EXPECT_FALSE(entry.has_value());
  auto second = map.find_or_start_all(keys);
  ASSERT_EQ(second.size(), 3u);
  for (const auto& entry : second) ASSERT_TRUE(entry.has_value());
  map.finish("a", 1, true);
  map.finish("b", 2, true);
  map.finish("c", 3, true);
  EXPECT_EQ(second[0]->get(), 1);
  EXPECT_EQ(second[1]->get(), 2);
  EXPECT_EQ(second[2]->get(), 3);
}

TEST(OnceMapTest, AKeyNotKeptIsStartedAgainByTheNextAsker) {
  OnceMap<int> map;
  ASSERT_FALSE(map.find_or_start_all({"a"})[0].has_value());
  map.finish("a", -1, /*keep=*/false);
  EXPECT_FALSE(map.find_or_start_all({"a"})[0].has_value());  // computed again
}

TEST(OnceMapTest, PastItsBoundFinishedEntriesAreForgottenAndThoseInFlightKept) {
  OnceMap<int> map(/*max_finished=*/2);
  ASSERT_FALSE(map.find_or_start_all({"in flight"})[0].has_value());  // never finished here
  for (const char* key : {"a", "b"}) {
    ASSERT_FALSE(map.find_or_start_all({key})[0].has_value());
    map.finish(key, 1, true);
  }
  EXPECT_TRUE(map.find_or_start_all({"a"})[0].has_value());  // still known: 2 finished
  // A new key passes the bound: "a" and "b" are forgotten, the one in flight is not.
  ASSERT_FALSE(map.find_or_start_all({"c"})[0].has_value());
  EXPECT_TRUE(map.find_or_start_all({"in flight"})[0].has_value());
  EXPECT_FALSE(map.find_or_start_all({"a"})[0].has_value());  // computed again
  map.finish("in flight", 2, true);
  map.finish("c", 3, true);
  map.finish("a", 4, true);
}

TEST(OnceMapTest, ManyThreadsAskingForTheSameKeysInDifferentOrdersStartEachSetOnce) {
  // Each round, threads ask for the same two keys (half of them in reverse order); the
  // set must be started by exactly one of them, never split.
  for (int round = 0; round < 200; ++round) {
    OnceMap<int> map;
    std::atomic<int> starters{0}, partial{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&, t] {
        const std::vector<std::string> keys =
            t % 2 ? std::vector<std::string>{"x", "y"} : std::vector<std::string>{"y", "x"};
        auto entries = map.find_or_start_all(keys);
        const int started = !entries[0].has_value() + !entries[1].has_value();
        if (started == 2) ++starters;
        if (started == 1) ++partial;
        if (started == 2) {
          map.finish("x", round, true);
          map.finish("y", round, true);
        }
      });
    }
    for (auto& thread : threads) thread.join();
    ASSERT_EQ(starters.load(), 1) << "round " << round;
    ASSERT_EQ(partial.load(), 0) << "round " << round;
  }
}

}  // namespace
}  // namespace ragmeter
