// Runs a few blocking jobs at once (a row's judge calls: verdict tables, re-asks, votes).
#ifndef RAGMETER_SRC_CORE_CONCURRENT_JOBS_H_
#define RAGMETER_SRC_CORE_CONCURRENT_JOBS_H_

#include <cstddef>
#include <future>
#include <type_traits>
#include <vector>

namespace ragmeter {

// Runs job(0) ... job(n - 1) at once and returns their results in that order. Jobs 1 to
// n - 1 each get a thread of their own (std::async); job 0 runs on the calling thread,
// which would otherwise only wait for them. So a row with one call to make blocks one
// thread, not two (docs/performance.md, "Threads per request in flight"). An exception
// of a job is rethrown once every job has ended.
template <typename Job>
auto run_concurrently(std::size_t n, Job&& job) -> std::vector<std::invoke_result_t<Job&, std::size_t>> {
  using Result = std::invoke_result_t<Job&, std::size_t>;
  std::vector<Result> results;
  if (n == 0) return results;
  std::vector<std::future<Result>> others;
  others.reserve(n - 1);
  for (std::size_t i = 1; i < n; ++i) {
    others.push_back(std::async(std::launch::async, [&job, i] { return job(i); }));
  }
  results.reserve(n);
  results.push_back(job(0));  // the futures' destructors wait for the others if this throws
  for (std::future<Result>& other : others) results.push_back(other.get());
  return results;
}

}  // namespace ragmeter

#endif  // RAGMETER_SRC_CORE_CONCURRENT_JOBS_H_
