// Internals of the document loaders (src/docs/); not part of the API.
//
// Each format's parser turns a file's bytes into blocks (and maybe a title). The bytes
// of text formats are valid UTF-8 without a BOM when they get here; the PDF parser gets
// the raw file. A parser returns an error Status only for a file it cannot read at all;
// an empty result is turned into the "empty" problem by the caller.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ragmeter/documents.h"
#include "ragmeter/status.h"

namespace poppler {
class page;
}

namespace ragmeter {
class OcrReader;
}

namespace ragmeter::docs {

// Blocks and title parsed from one file. `title` empty means "use the file stem".
struct ParsedText {
  std::vector<DocumentBlock> blocks;
  std::string title;
};

// Plain text: paragraphs separated by blank lines, line breaks kept, '\r' before '\n'
// dropped, each paragraph trimmed.
ParsedText parse_plain_text(std::string_view text);

// Markdown (CommonMark, via cmark).
StatusOr<ParsedText> parse_markdown(std::string_view text);

// HTML (via gumbo), boilerplate dropped.
StatusOr<ParsedText> parse_html(std::string_view text);

// PDF (via poppler-cpp). Errors: "encrypted PDF", "not a readable PDF",
// "no text layer (scanned PDF?)".
// In a build without these libraries (RAGMETER_WITH_DOCUMENT_FORMATS=OFF,
// without_document_formats.cc) the three parsers return FailedPrecondition naming it.
// `ocr` (may be null) reads the pages that have no text layer (LoadOptions::ocr).
StatusOr<ParsedText> parse_pdf(const std::string& bytes, OcrReader* ocr = nullptr,
                               const std::string& ocr_language = {});

// The text OCR reads on one PDF page rendered at `dpi`. Internal to pdf_text.cc.
StatusOr<std::string> ocr_pdf_page(const poppler::page& page, OcrReader& ocr,
                                   const std::string& language, double dpi = 300.0);

// Appends `text` split into paragraphs at blank lines (lines of only spaces and tabs)
// to `out`, each trimmed, empty ones skipped, with the given page and headings.
void append_paragraphs(std::string_view text, int page, std::vector<DocumentBlock>* out);

// True when `text` has only ASCII whitespace.
bool is_blank(std::string_view text);

// `text` without leading and trailing ASCII whitespace.
std::string_view trim(std::string_view text);

// Appends `text` to `out` with each run of ASCII whitespace made one space; a run at the
// start is dropped when `out` is empty or already ends with a space.
void append_collapsed(std::string_view text, std::string* out);

}  // namespace ragmeter::docs
