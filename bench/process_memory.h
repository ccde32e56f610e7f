// The process's resident set, for the benchmarks that report memory.
#pragma once

#include <fstream>
#include <string>

namespace ragmeter::bench {

// VmRSS of /proc/self/status in KiB; -1 when it cannot be read.
inline long rss_kib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

}  // namespace ragmeter::bench
