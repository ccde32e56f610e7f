// load_documents: walks a folder, applies the include/exclude globs (fnmatch(3)), and
// loads the chosen files in sorted path order.

#include <fnmatch.h>

#include <algorithm>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "ragmeter/documents.h"

namespace ragmeter {
namespace {

namespace fs = std::filesystem;

bool matches_any(const std::vector<std::string>& globs, const std::string& relative,
                 const std::string& name) {
  for (const std::string& glob : globs) {
    if (fnmatch(glob.c_str(), relative.c_str(), 0) == 0) return true;
    if (fnmatch(glob.c_str(), name.c_str(), 0) == 0) return true;
  }
  return false;
}

struct Candidate {
  std::string relative;  // generic, relative to the root
  fs::path file;
};

// Collects the files to load; counts every regular file seen; reports directories
// that could not be listed.
std::vector<Candidate> walk(const fs::path& root, const LoadOptions& options, LoadResult* result) {
  std::vector<Candidate> candidates;
  std::error_code error;
  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, error);
  if (error) {
    result->problems.push_back({"", "cannot list " + root.string() + ": " + error.message()});
    return candidates;
  }
  for (const fs::recursive_directory_iterator end; it != end; it.increment(error)) {
    if (error) {
      result->problems.push_back({"", "cannot list a directory: " + error.message()});
      break;
    }
    const fs::path& path = it->path();
    const std::string name = path.filename().string();
    const std::string relative = path.lexically_relative(root).generic_string();
    std::error_code type_error;
    const bool is_directory = it->is_directory(type_error) && !it->is_symlink(type_error);
    if (name.starts_with(".") || matches_any(options.exclude, relative, name)) {
      if (is_directory) it.disable_recursion_pending();
      continue;
    }
    if (is_directory || !it->is_regular_file(type_error)) continue;
    ++result->files_seen;
    if (matches_any(options.include, relative, name)) candidates.push_back({relative, path});
  }
  std::sort(candidates.begin(), candidates.end(),
            [](const Candidate& a, const Candidate& b) { return a.relative < b.relative; });
  return candidates;
}

}  // namespace

LoadResult load_documents(const fs::path& root, const LoadOptions& options) {
  LoadResult result;
  try {
    std::error_code error;
    const fs::file_status status = fs::status(root, error);
    if (error || !fs::exists(status)) {
      result.problems.push_back({"", "no such file or directory: " + root.string()});
      return result;
    }
    if (!fs::is_directory(status)) {
      result.files_seen = 1;
      StatusOr<Document> document = load_document(root, root.parent_path(), options);
      if (document.ok()) {
        result.documents.push_back(std::move(document).value());
      } else {
        result.problems.push_back({root.filename().string(), document.status().message()});
      }
      return result;
    }
    for (const Candidate& candidate : walk(root, options, &result)) {
      StatusOr<Document> document = load_document(candidate.file, root, options);
      if (document.ok()) {
        result.documents.push_back(std::move(document).value());
      } else {
        result.problems.push_back({candidate.relative, document.status().message()});
      }
    }
  } catch (const std::exception& e) {
    result.problems.push_back({"", std::string("cannot walk the folder: ") + e.what()});
  }
  return result;
}

}  // namespace ragmeter
