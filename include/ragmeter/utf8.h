// UTF-8 validity, for the readers and the sample's own parsing (core; dataset.h includes it).
// Thread-safe.
#pragma once

#include <cstddef>
#include <string_view>

namespace ragmeter {

// Returns true when `text` is valid UTF-8; otherwise false and, if `bad_offset` is
// given, the byte offset of the first invalid sequence.
bool is_valid_utf8(std::string_view text, std::size_t* bad_offset = nullptr);

}  // namespace ragmeter
