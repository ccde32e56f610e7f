// The two paths of test_paths.h, given by CMake to this file alone.
#include "tests/unit/test_paths.h"

namespace ragmeter_test {
const char* source_dir() { return RAGMETER_TEST_SOURCE_DIR; }
const char* binary_dir() { return RAGMETER_TEST_BINARY_DIR; }
}  // namespace ragmeter_test
