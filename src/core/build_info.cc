// build_info.h: read from the file CMake writes (cmake/optional_parts.cmake).
#include "ragmeter/build_info.h"

#include "ragmeter_left_out.inc"

namespace ragmeter {

std::string_view dependencies_left_out() { return generated::kDependenciesLeftOut; }

}  // namespace ragmeter
