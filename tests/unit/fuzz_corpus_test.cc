// Replays every file of the fuzz corpora (tests/fuzz/corpus/<target>/: seeds and the
// inputs libFuzzer kept, crashes it found included) through the same entry points the
// fuzzers run, so the default test suite (and its sanitizer build) keeps them fixed
// without needing clang. A broken invariant aborts the test program, naming the target.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_targets.h"
#include "tests/unit/test_paths.h"

namespace ragmeter::fuzz {
namespace {

std::filesystem::path corpus_dir(std::string_view target) {
  return std::filesystem::path(RAGMETER_SOURCE_DIR) / "tests" / "fuzz" / "corpus" /
         std::string(target);
}

class FuzzCorpusReplay : public testing::TestWithParam<FuzzTargetInfo> {};

TEST_P(FuzzCorpusReplay, EveryCorpusFileRunsThroughTheTarget) {
  const FuzzTargetInfo& target = GetParam();
  const std::filesystem::path dir = corpus_dir(target.name);
  ASSERT_TRUE(std::filesystem::is_directory(dir)) << dir;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.is_regular_file()) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  ASSERT_FALSE(files.empty()) << "no corpus for " << target.name;
  for (const std::filesystem::path& file : files) {
    SCOPED_TRACE(file.string());
    std::ifstream in(file, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    target.run(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, FuzzCorpusReplay, testing::ValuesIn(fuzz_targets().begin(),
                                                                       fuzz_targets().end()),
                         [](const testing::TestParamInfo<FuzzTargetInfo>& info) {
                           return std::string(info.param.name);
                         });

}  // namespace
}  // namespace ragmeter::fuzz
