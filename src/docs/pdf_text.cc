// PDF via poppler-cpp: the text layer of each page in reading order (the layout
// pdftotext uses by default), split into paragraphs at blank lines, lines joined with
// spaces and words hyphenated across a line end joined again.
//
// poppler-cpp reports problems through exceptions only in rare cases and through a
// process-wide error printer otherwise; the printer is silenced once (a damaged PDF is a
// LoadProblem, not noise on stderr) and every call is inside a try block.

#include <poppler/cpp/poppler-document.h>
#include <poppler/cpp/poppler-global.h>
#include <poppler/cpp/poppler-page.h>

#include <climits>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "docs/document_formats.h"
#include "ragmeter/dataset.h"
#include "ragmeter/ocr.h"

namespace ragmeter::docs {
namespace {

void ignore_poppler_message(const std::string& /*message*/, void* /*closure*/) {}

void silence_poppler() {
  static std::once_flag once;
  std::call_once(once, [] { poppler::set_debug_error_function(ignore_poppler_message, nullptr); });
}

std::string to_utf8(const poppler::ustring& text) {
  const poppler::byte_array bytes = text.to_utf8();
  return std::string(bytes.begin(), bytes.end());
}

bool is_ascii_lower(char c) { return c >= 'a' && c <= 'z'; }
bool is_ascii_alpha(char c) { return is_ascii_lower(c) || (c >= 'A' && c <= 'Z'); }

// One paragraph's lines joined: "exam-" + "ple" -> "example" when a letter precedes the
// hyphen and a lower-case letter follows the break; otherwise a space.
std::string join_lines(std::string_view paragraph) {
  std::string joined;
  joined.reserve(paragraph.size());
  std::size_t begin = 0;
  while (begin <= paragraph.size()) {
    std::size_t end = paragraph.find('\n', begin);
    if (end == std::string_view::npos) end = paragraph.size();
    const std::string_view line = trim(paragraph.substr(begin, end - begin));
    if (!line.empty()) {
      const std::size_t n = joined.size();
      if (n >= 2 && joined[n - 1] == '-' && is_ascii_alpha(joined[n - 2]) && is_ascii_lower(line[0])) {
        joined.pop_back();
      } else if (n > 0) {
        joined.push_back(' ');
      }
      joined.append(line);
    }
    begin = end + 1;
  }
  return joined;
}

void append_page(std::string_view text, int page, std::vector<DocumentBlock>* out) {
  std::vector<DocumentBlock> paragraphs;
  append_paragraphs(text, page, &paragraphs);
  for (DocumentBlock& block : paragraphs) {
    block.text = join_lines(block.text);
    if (!block.text.empty()) out->push_back(std::move(block));
  }
}

StatusOr<ParsedText> parse_loaded_pdf(poppler::document& document, OcrReader* ocr,
                                      const std::string& ocr_language) {
  if (document.is_locked()) return invalid_argument("encrypted PDF");
  ParsedText parsed;
  parsed.title = std::string(trim(to_utf8(document.get_title())));
  const int pages = document.pages();
  for (int i = 0; i < pages; ++i) {
    std::unique_ptr<poppler::page> page(document.create_page(i));
    if (page == nullptr) continue;
    std::string text = to_utf8(page->text());
    // Form feeds separate pages in poppler's output; within a page they are noise.
    for (char& c : text) {
      if (c == '\f') c = '\n';
    }
    if (!is_valid_utf8(text)) return invalid_argument("text layer is not valid UTF-8");
    if (trim(text).empty() && ocr != nullptr) {  // a scanned page: its text by OCR
      auto read = ocr_pdf_page(*page, *ocr, ocr_language);
      if (!read.ok()) return invalid_argument("page " + std::to_string(i + 1) + ": " + read.status().message());
      text = std::move(read).value();
    }
    append_page(text, i + 1, &parsed.blocks);
  }
  if (parsed.blocks.empty()) {
    return invalid_argument(ocr != nullptr ? "no text, neither in a text layer nor by OCR"
                                           : "no text layer (scanned PDF?)");
  }
  return parsed;
}

}  // namespace

StatusOr<ParsedText> parse_pdf(const std::string& bytes, OcrReader* ocr,
                               const std::string& ocr_language) {
  silence_poppler();
  if (bytes.size() > static_cast<std::size_t>(INT_MAX)) return invalid_argument("PDF too large");
  try {
    // load_from_raw_data does not copy: `bytes` outlives `document`.
    std::unique_ptr<poppler::document> document(
        poppler::document::load_from_raw_data(bytes.data(), static_cast<int>(bytes.size())));
    if (document == nullptr) return invalid_argument("not a readable PDF");
    return parse_loaded_pdf(*document, ocr, ocr_language);
  } catch (const std::exception& e) {
    return invalid_argument(std::string("not a readable PDF: ") + e.what());
  }
}

}  // namespace ragmeter::docs
