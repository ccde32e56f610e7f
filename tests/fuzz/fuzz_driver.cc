// libFuzzer entry point of one fuzz target: the build compiles this file once per
// target with RAGMETER_FUZZ_TARGET naming its function (CMake option RAGMETER_FUZZ).
#include <cstddef>
#include <cstdint>

#include "tests/fuzz/fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  RAGMETER_FUZZ_TARGET(data, size);
  return 0;
}
