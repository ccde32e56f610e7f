// Plain text: paragraphs separated by blank lines. Also the whitespace helpers the other
// parsers share. One pass over the text; no line-length limit.

#include <string>
#include <string_view>
#include <vector>

#include "docs/document_formats.h"

namespace ragmeter::docs {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

void push_paragraph(std::string_view paragraph, int page, std::vector<DocumentBlock>* out) {
  paragraph = trim(paragraph);
  if (paragraph.empty()) return;
  DocumentBlock block;
  block.page = page;
  block.text.reserve(paragraph.size());
  // Windows line ends: keep the '\n', drop the '\r'.
  for (std::size_t i = 0; i < paragraph.size(); ++i) {
    if (paragraph[i] == '\r' && i + 1 < paragraph.size() && paragraph[i + 1] == '\n') continue;
    block.text.push_back(paragraph[i]);
  }
  out->push_back(std::move(block));
}

}  // namespace

bool is_blank(std::string_view text) {
  for (char c : text) {
    if (!is_space(c)) return false;
  }
  return true;
}

std::string_view trim(std::string_view text) {
  std::size_t begin = 0;
  std::size_t end = text.size();
  while (begin < end && is_space(text[begin])) ++begin;
  while (end > begin && is_space(text[end - 1])) --end;
  return text.substr(begin, end - begin);
}

void append_collapsed(std::string_view text, std::string* out) {
  bool in_space = out->empty() || out->back() == ' ';
  for (char c : text) {
    if (is_space(c)) {
      if (!in_space) out->push_back(' ');
      in_space = true;
    } else {
      out->push_back(c);
      in_space = false;
    }
  }
}

void append_paragraphs(std::string_view text, int page, std::vector<DocumentBlock>* out) {
  std::size_t paragraph_begin = 0;
  std::size_t line_begin = 0;
  while (line_begin <= text.size()) {
    std::size_t line_end = text.find('\n', line_begin);
    if (line_end == std::string_view::npos) line_end = text.size();
    const std::string_view line = text.substr(line_begin, line_end - line_begin);
    if (is_blank(line)) {
      push_paragraph(text.substr(paragraph_begin, line_begin - paragraph_begin), page, out);
      paragraph_begin = line_end + 1;
    }
    line_begin = line_end + 1;
  }
  if (paragraph_begin < text.size()) push_paragraph(text.substr(paragraph_begin), page, out);
}

ParsedText parse_plain_text(std::string_view text) {
  ParsedText parsed;
  append_paragraphs(text, 0, &parsed.blocks);
  return parsed;
}

}  // namespace ragmeter::docs
