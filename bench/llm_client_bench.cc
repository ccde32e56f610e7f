// Judge-client orchestration throughput against the FAKE server answering after a
// fixed delay: requests per second at 1..1024 in flight versus the ideal
// (in_flight / delay), the client's CPU time per request (getrusage of this process,
// so the fake's own CPU is excluded and shown separately) and peak RSS.
//
//   llm_client_bench [--server PATH] [--delay-ms 200] [--rounds 10] [--levels 1,16,64,256,1024]
//
// Each level first runs one unmeasured round (connections opened), then `rounds`
// rounds of in_flight calls, all submitted at once; the limiter keeps in_flight going.
// Calls use a JSON schema, so reply parsing and schema checks are in the measurement;
// the cache is off and traces are not kept (both are measured elsewhere).
// Targets (docs/product): >= 95% of ideal up to 256 in flight, <= 100 us CPU per request.
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <string>
#include <vector>

#include "../tests/fakes/fake_llm_server_process.h"
#include "ragmeter/llm.h"

namespace {

using ragmeter::StatusOr;
using namespace ragmeter::llm;
using Clock = std::chrono::steady_clock;
using ragmeter::fakes::FakeLlmServerProcess;

struct Options {
  std::string server;
  int delay_ms = 200;
  int rounds = 10;
  std::vector<int> levels = {1, 16, 64, 256, 1024};
};

double cpu_seconds(const rusage& usage) {
  auto seconds = [](const timeval& t) { return t.tv_sec + t.tv_usec / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// utime + stime of another process, from /proc/PID/stat.
double process_cpu_seconds(pid_t pid) {
  std::ifstream file("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  std::istringstream fields(stat.substr(stat.rfind(')') + 2));
  std::string field;
  double ticks = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i == 14 || i == 15) ticks += std::stod(field);
  }
  return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

ChatRequest judge_request(int i) {
  ChatRequest request;
  request.messages = {
      {"system", "You check whether each claim is supported by the context. Reply in JSON."},
      {"user", "Context: The Eiffel Tower was completed in 1889 for the World's Fair in Paris.\n"
               "Claim " + std::to_string(i) + ": The tower was finished in 1889."}};
  request.max_tokens = 64;
  request.format = ReplyFormat::kJsonSchema;
  request.schema = {{"type", "object"},
                    {"properties", {{"verdict", {{"type", "integer"}}}}},
                    {"required", {"verdict"}}};
  return request;
}

// Runs `count` calls at once; returns how many failed.
int run_calls(Client& client, int first, int count) {
  std::vector<std::future<StatusOr<ChatResponse>>> calls;
  calls.reserve(count);
  for (int i = 0; i < count; ++i) calls.push_back(client.chat(judge_request(first + i)));
  int failed = 0;
  for (auto& call : calls) failed += call.get().ok() ? 0 : 1;
  return failed;
}

bool run_level(const Options& options, const FakeLlmServerProcess& fake, int in_flight) {
  ClientOptions client_options;
  client_options.endpoint.base_url = fake.base_url();
  client_options.endpoint.model = "fake-model";
  client_options.endpoint.api_key_env = "";
  client_options.limits.max_in_flight = in_flight;
  client_options.cache.mode = CacheMode::kOff;
  client_options.keep_traces = false;
  auto client = make_client(client_options);
  if (!client.ok()) {
    std::fprintf(stderr, "make_client: %s\n", client.status().to_string().c_str());
    return false;
  }
  int failed = run_calls(**client, 0, in_flight);  // warm-up: connections opened
  int requests = in_flight * options.rounds;
  rusage before{}, after{};
  getrusage(RUSAGE_SELF, &before);
  double server_before = process_cpu_seconds(fake.pid());
  Clock::time_point start = Clock::now();
  failed += run_calls(**client, in_flight, requests);
  double wall = std::chrono::duration<double>(Clock::now() - start).count();
  getrusage(RUSAGE_SELF, &after);
  double server_cpu = process_cpu_seconds(fake.pid()) - server_before;
  double rate = requests / wall;
  double ideal = in_flight / (options.delay_ms / 1000.0);
  std::printf("%9d %9d %8.2f %9.0f %9.0f %7.1f%% %11.1f %10.0f %8.1f%% %7d\n", in_flight, requests,
              wall, rate, ideal, 100.0 * rate / ideal,
              1e6 * (cpu_seconds(after) - cpu_seconds(before)) / requests, after.ru_maxrss / 1024.0,
              100.0 * server_cpu / wall, failed);
  std::fflush(stdout);
  return true;
}

std::vector<int> parse_levels(const std::string& text) {
  std::vector<int> levels;
  std::istringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) levels.push_back(std::stoi(item));
  return levels;
}

Options parse_options(int argc, char** argv) {
  Options options;
  std::filesystem::path self = std::filesystem::absolute(argv[0]).parent_path();
  options.server = (self.parent_path() / "fakes" / "fake_llm_server").string();
  if (const char* path = std::getenv("RAGMETER_FAKE_LLM_SERVER")) options.server = path;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--server") options.server = value;
    if (flag == "--delay-ms") options.delay_ms = std::stoi(value);
    if (flag == "--rounds") options.rounds = std::stoi(value);
    if (flag == "--levels") options.levels = parse_levels(value);
  }
  return options;
}

}  // namespace

int main(int argc, char** argv) {
  Options options = parse_options(argc, argv);
  FakeLlmServerProcess fake;
  if (!fake.start(options.server, {"--delay-ms", std::to_string(options.delay_ms)})) {
    std::fprintf(stderr, "cannot start the fake server %s\n", options.server.c_str());
    return 1;
  }
  std::printf("fake server delay %d ms, %d measured rounds per level\n", options.delay_ms,
              options.rounds);
  std::printf("%9s %9s %8s %9s %9s %8s %11s %10s %9s %7s\n", "in_flight", "requests", "wall_s",
              "req/s", "ideal", "of_ideal", "cpu_us/req", "peak_rss_MB", "fake_cpu", "failed");
  for (int level : options.levels) {
    if (!run_level(options, fake, level)) return 1;
  }
  return 0;
}
