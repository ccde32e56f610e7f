// What this build of the library holds.
#pragma once

#include <string_view>

namespace ragmeter {

// The optional dependencies this build left out (CMake's RAGMETER_WITH_*=OFF,
// docs/library.md "Building without a dependency"), by name and comma-separated:
// "libcurl, MeCab"; empty for a build with all of them. `ragmeter --version` prints it.
std::string_view dependencies_left_out();

}  // namespace ragmeter
