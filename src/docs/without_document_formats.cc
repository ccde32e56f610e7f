// The PDF, HTML and Markdown parsers of a build without poppler-cpp, gumbo and cmark
// (RAGMETER_WITH_DOCUMENT_FORMATS=OFF; docs/library.md, "Building without a
// dependency"): each file of those formats is skipped with this reason, plain text is
// read as always.
#include "docs/document_formats.h"

namespace ragmeter::docs {
namespace {

Status built_without(std::string_view format, std::string_view library) {
  return failed_precondition("reading " + std::string(format) + " needs " + std::string(library) +
                             ", which this ragmeter was built without "
                             "(RAGMETER_WITH_DOCUMENT_FORMATS=OFF)");
}

}  // namespace

StatusOr<ParsedText> parse_markdown(std::string_view) { return built_without("Markdown", "cmark"); }

StatusOr<ParsedText> parse_html(std::string_view) { return built_without("HTML", "gumbo"); }

StatusOr<ParsedText> parse_pdf(const std::string&, OcrReader*, const std::string&) {
  return built_without("PDF", "poppler-cpp");
}

}  // namespace ragmeter::docs
