// load_document: reads one file, checks its size and encoding, and hands the bytes to
// the parser of its format (src/docs/*_text.cc).

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>
#include <system_error>

#include "docs/document_formats.h"
#include "ragmeter/dataset.h"
#include "ragmeter/documents.h"

namespace ragmeter {
namespace {

namespace fs = std::filesystem;

std::string lower_ascii(std::string text) {
  for (char& c : text) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return text;
}

std::string relative_path(const fs::path& file, const fs::path& root) {
  if (!root.empty() && file != root) {
    const fs::path relative = file.lexically_relative(root);
    if (!relative.empty() && *relative.begin() != "..") return relative.generic_string();
  }
  return file.filename().generic_string();
}

// The whole file, or NotFound / Unavailable / ResourceExhausted.
StatusOr<std::string> read_file(const fs::path& file, std::size_t max_bytes) {
  std::error_code error;
  const fs::file_status status = fs::status(file, error);
  if (error || !fs::exists(status)) return not_found("no such file");
  if (!fs::is_regular_file(status)) return invalid_argument("not a regular file");
  const std::uintmax_t size = fs::file_size(file, error);
  if (error) return unavailable("cannot read: " + error.message());
  if (size > max_bytes) {
    return Status(StatusCode::kResourceExhausted,
                  "larger than " + std::to_string(max_bytes) + " bytes (max_file_bytes)");
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) return unavailable(std::string("cannot open: ") + std::strerror(errno));
  std::string bytes(static_cast<std::size_t>(size), '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(size));
  if (static_cast<std::uintmax_t>(in.gcount()) != size) {
    return unavailable(std::string("cannot read: ") + std::strerror(errno));
  }
  return bytes;
}

// Checks and parses a text format's bytes: BOM stripped, UTF-8 validated.
StatusOr<docs::ParsedText> parse_text_format(std::string_view bytes, DocumentFormat format) {
  constexpr std::string_view kBom = "\xEF\xBB\xBF";
  std::size_t bom = 0;
  if (bytes.substr(0, kBom.size()) == kBom) bom = kBom.size();
  const std::string_view text = bytes.substr(bom);
  std::size_t bad_offset = 0;
  if (!is_valid_utf8(text, &bad_offset)) {
    return invalid_argument("not valid UTF-8 (first bad byte at offset " +
                            std::to_string(bad_offset + bom) + ")");
  }
  switch (format) {
    case DocumentFormat::kMarkdown:
      return docs::parse_markdown(text);
    case DocumentFormat::kHtml:
      return docs::parse_html(text);
    default:
      return docs::parse_plain_text(text);
  }
}

}  // namespace

DocumentFormat document_format_for(const fs::path& file) {
  const std::string extension = lower_ascii(file.extension().string());
  if (extension == ".md" || extension == ".markdown") return DocumentFormat::kMarkdown;
  if (extension == ".html" || extension == ".htm") return DocumentFormat::kHtml;
  if (extension == ".pdf") return DocumentFormat::kPdf;
  return DocumentFormat::kText;
}

const char* document_format_name(DocumentFormat format) {
  switch (format) {
    case DocumentFormat::kText: return "text";
    case DocumentFormat::kMarkdown: return "markdown";
    case DocumentFormat::kHtml: return "html";
    case DocumentFormat::kPdf: return "pdf";
  }
  return "text";
}

StatusOr<Document> load_document(const fs::path& file, const fs::path& root,
                                 const LoadOptions& options) {
  try {
    Document document;
    document.path = relative_path(file, root);
    document.format = document_format_for(file);
    RAGMETER_ASSIGN_OR_RETURN(const std::string bytes, read_file(file, options.max_file_bytes));
    if (docs::is_blank(bytes)) return invalid_argument("empty");
    RAGMETER_ASSIGN_OR_RETURN(docs::ParsedText parsed,
                              document.format == DocumentFormat::kPdf
                                  ? docs::parse_pdf(bytes, options.ocr.get(), options.ocr_language)
                                  : parse_text_format(bytes, document.format));
    if (parsed.blocks.empty()) return invalid_argument("empty");
    document.blocks = std::move(parsed.blocks);
    document.title = parsed.title.empty() ? file.stem().string() : std::move(parsed.title);
    return document;
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kResourceExhausted, "out of memory");
  } catch (const std::exception& e) {
    return internal_error(std::string("unexpected error: ") + e.what());
  }
}

}  // namespace ragmeter
