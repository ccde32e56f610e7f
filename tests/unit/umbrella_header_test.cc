// include/ragmeter/ragmeter.h holds every public header, and compiles on its own (this
// file includes it first).
#include "ragmeter/ragmeter.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "tests/unit/test_paths.h"

namespace {

TEST(UmbrellaHeader, IncludesEveryPublicHeader) {
  const std::filesystem::path dir = std::filesystem::path(RAGMETER_SOURCE_DIR) / "include" / "ragmeter";
  std::ifstream umbrella(dir / "ragmeter.h");
  ASSERT_TRUE(umbrella.is_open());
  std::set<std::string> included;
  for (std::string line; std::getline(umbrella, line);) {
    const std::string prefix = "#include \"ragmeter/";
    if (line.starts_with(prefix)) included.insert(line.substr(prefix.size(), line.size() - prefix.size() - 1));
  }
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name == "ragmeter.h") continue;
    EXPECT_TRUE(included.contains(name)) << "ragmeter.h does not include " << name;
  }
}

TEST(UmbrellaHeader, GivesTheLibrarysEntryPoints) {
  auto metrics = ragmeter::parse_metric_list("token_f1");
  ASSERT_TRUE(metrics.ok());
  EXPECT_EQ(metrics->size(), 1u);
}

}  // namespace
