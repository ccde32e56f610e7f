// ragmeter_cache_dir (cache_dir.h).
#include "core/cache_dir.h"

#include <cstdlib>

namespace ragmeter {

std::string ragmeter_cache_dir() {
  if (const char* cache = std::getenv("RAGMETER_CACHE"); cache != nullptr && *cache != '\0') {
    return cache;
  }
  const char* home = std::getenv("HOME");
  return std::string(home != nullptr ? home : ".") + "/.cache/ragmeter";
}

}  // namespace ragmeter
