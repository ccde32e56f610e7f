// Where the unit tests find the checkout's files and the build's programs. The paths live in
// one object (test_paths.cc, compiled with them); every other test object has the same
// command line in any clone, so ccache serves it to a fresh clone (CI's) instead of
// recompiling the whole suite because a -D held the clone's path.
#pragma once

namespace ragmeter_test {
const char* source_dir();  // the checkout (CMAKE_SOURCE_DIR)
const char* binary_dir();  // the build directory (fakes/, scratch files)
}  // namespace ragmeter_test

#define RAGMETER_SOURCE_DIR (::ragmeter_test::source_dir())
#define RAGMETER_BINARY_DIR (::ragmeter_test::binary_dir())
