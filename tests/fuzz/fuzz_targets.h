// Fuzz targets: each feeds arbitrary bytes to one parser of untrusted input and checks
// the invariants its header promises (abort() when one breaks, so that libFuzzer and
// the replay test both report it). Built twice: into one libFuzzer program per target
// (tests/fuzz/fuzz_driver.cc, CMake option RAGMETER_FUZZ with clang) and into the unit
// tests, which replay every file of tests/fuzz/corpus/<target>/ (fuzz_corpus_test.cc).
// docs/fuzzing.md has the commands and the figures.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace ragmeter::fuzz {

using FuzzTarget = void (*)(const std::uint8_t* data, std::size_t size);

struct FuzzTargetInfo {
  std::string_view name;  // also the corpus directory and the program: fuzz_<name>
  FuzzTarget run;
};

void fuzz_jsonl(const std::uint8_t* data, std::size_t size);        // JSONL dataset reader
void fuzz_json_array(const std::uint8_t* data, std::size_t size);   // JSON array reader
void fuzz_csv(const std::uint8_t* data, std::size_t size);          // CSV reader
void fuzz_list_literal(const std::uint8_t* data, std::size_t size);  // list cells
void fuzz_trec(const std::uint8_t* data, std::size_t size);  // qrels/run readers + trec_eval
void fuzz_judge_reply(const std::uint8_t* data, std::size_t size);  // model replies
void fuzz_toml_config(const std::uint8_t* data, std::size_t size);  // judge config

// Every target, in the order above.
std::span<const FuzzTargetInfo> fuzz_targets();

}  // namespace ragmeter::fuzz
