// Output paths of the CLI: "-" is standard output, as Unix tools take it, never a file
// named "-".
#pragma once

#include <fstream>
#include <iostream>
#include <string>

namespace ragmeter::cli {

inline bool is_standard_output(const std::string& path) { return path == "-"; }

// The stream to write `path` to: std::cout for "-", else `file` opened on it (binary,
// truncated). Null when the file cannot be opened.
inline std::ostream* open_output(const std::string& path, std::ofstream* file) {
  if (is_standard_output(path)) return &std::cout;
  file->open(path, std::ios::binary);
  return file->is_open() ? file : nullptr;
}

}  // namespace ragmeter::cli
