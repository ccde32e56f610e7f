// Document loading for `ragmeter gen`: a folder of text, Markdown, HTML and PDF files
// becomes a list of Documents, each a sequence of text blocks with the structure they
// came from (heading path, PDF page).
//
// Every function here is thread-safe: they share no state (poppler's error printer is
// silenced once, process-wide). A Document owns all its strings.
//
// What a block is, per format:
//   text      a paragraph (lines up to a blank line), its line breaks kept.
//   Markdown  a paragraph, a heading, a fenced or indented code block (kept verbatim),
//             or an HTML block, parsed with cmark (CommonMark). Inline markup is
//             reduced to its text: [t](u) -> t, ![alt](u) -> alt, *e* -> e, `c` -> c;
//             inline HTML tags are dropped. Soft line breaks become spaces.
//   HTML      the text of a block-level element (p, li, pre, td, dt, dd, h1-h6, a div's
//             own text, ...), whitespace collapsed except inside <pre>. Boilerplate is
//             dropped first: script, style, noscript, template, nav, header, footer,
//             aside, form, and any element whose role is navigation/banner/contentinfo/
//             complementary/search or whose class or id names navigation (a token
//             containing "nav", "sidebar", "related", "footer", "breadcrumb", "toc",
//             "headerlink"). When the page has a <main>, an element with role="main" or
//             a <div class="body"> (Sphinx), only the first such element is read.
//   PDF       a paragraph of one page (split on blank lines), lines joined with spaces,
//             a word hyphenated across a line break ("exam-\nple") joined again.
// Headings (Markdown '#' and setext, HTML h1-h6) set the heading path of the blocks
// below them; a heading block's own path ends with itself.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "ragmeter/status.h"

namespace ragmeter {

class OcrReader;

enum class DocumentFormat { kText, kMarkdown, kHtml, kPdf };

// A run of text with the structure it came from.
struct DocumentBlock {
  std::string text;                   // UTF-8, valid, not empty, not only whitespace
  std::vector<std::string> headings;  // heading path above this block, outermost first
  int page = 0;                       // 1-based PDF page, 0 otherwise
  bool is_heading = false;            // this block is itself a heading line
};

struct Document {
  std::string path;   // relative to the root it was found under, '/' separators
  std::string title;  // HTML <title> or first h1, Markdown first level-1 heading,
                      // PDF metadata title; else the file name without its extension
  DocumentFormat format = DocumentFormat::kText;
  std::vector<DocumentBlock> blocks;  // in reading order; never empty for a loaded document
};

// A file that was found but not loaded, and why.
struct LoadProblem {
  std::string path;    // relative to the root, like Document::path
  std::string reason;  // e.g. "not valid UTF-8 (first bad byte at offset 12)", "empty"
};

struct LoadOptions {
  // Globs (fnmatch(3), no flags: '*' also matches '/') tried against a file's path
  // relative to the root and against its name; a file is loaded when one matches.
  std::vector<std::string> include = {"*.txt", "*.md", "*.markdown", "*.html", "*.htm", "*.pdf"};
  // Globs tried the same way; a matching file is skipped, and a matching directory is not
  // entered (so "drafts" or "*/old" prune whole subtrees). Skipped files are not problems.
  std::vector<std::string> exclude;
  // Larger files are reported as problems without being read. Memory while loading a
  // file is a few times its size (bytes, parse tree, blocks).
  std::size_t max_file_bytes = 64u << 20;
  // A PDF page without a text layer (a scan) is rendered at 300 dpi and its text read
  // with this reader (ocr.h), cached by the rendered page's SHA-256. Null: such pages are
  // left out (a PDF with no text at all is a problem, "no text layer").
  std::shared_ptr<OcrReader> ocr;
  // The OCR language of those pages (ISO 639-1; "" : English).
  std::string ocr_language;
};

struct LoadResult {
  std::vector<Document> documents;    // sorted by path
  std::vector<LoadProblem> problems;  // sorted by path
  // Regular files found under the root, hidden and excluded ones left out, whether
  // `include` matched them or not (so files_seen - documents - problems were not matched).
  std::size_t files_seen = 0;
};

// The format a file name's extension names (case-insensitive): .txt -> text, .md and
// .markdown -> Markdown, .html and .htm -> HTML, .pdf -> PDF; any other extension is
// read as plain text.
DocumentFormat document_format_for(const std::filesystem::path& file);

// The lower-case name of `format`: "text", "markdown", "html", "pdf".
const char* document_format_name(DocumentFormat format);

// Loads one file, its format from its extension (document_format_for), its path
// relative to `root` (the file name when `root` is empty or not above `file`).
// Returns the Document, or an error Status whose message is the problem without the
// path: NotFound (missing), Unavailable (cannot be opened or read: the OS reason),
// ResourceExhausted "larger than N bytes (max_file_bytes)", InvalidArgument for content: "not valid UTF-8 (first bad byte at offset N)" (offset after a stripped BOM
// counts from the file's first byte), "empty" (nothing but whitespace or markup),
// "no text layer (scanned PDF?)", "encrypted PDF", "not a readable PDF".
// A UTF-8 byte order mark is stripped. Never throws.
StatusOr<Document> load_document(const std::filesystem::path& file,
                                 const std::filesystem::path& root,
                                 const LoadOptions& options = {});

// Loads every file under `root` (recursively; a single file is also accepted and then
// loaded whatever the globs) that LoadOptions::include matches and ::exclude does not.
// Hidden files and directories (name starting with '.') are skipped, and directory
// symlinks are not followed. Files are loaded in sorted path order, so the result does
// not depend on the file system's listing order. A file that cannot be loaded becomes a
// LoadProblem and the walk goes on; a missing root is one problem with an empty path.
// Never throws.
LoadResult load_documents(const std::filesystem::path& root, const LoadOptions& options = {});

}  // namespace ragmeter
