// SHA-256 of a string (internal: the file's hash is file_sha256 in dataset.h).
#pragma once

#include <string>
#include <string_view>

namespace ragmeter {

// Lowercase hex SHA-256 of `data`; empty only when memory runs out. Thread-safe.
std::string sha256_hex(std::string_view data);

}  // namespace ragmeter
