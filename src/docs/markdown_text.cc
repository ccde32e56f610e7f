// Markdown via cmark (CommonMark): walks the syntax tree, turning paragraphs, headings,
// code blocks and HTML blocks into DocumentBlocks. Headings (ATX and setext) maintain the
// heading path; inline markup is reduced to its text.

#include <cmark.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "docs/document_formats.h"

namespace ragmeter::docs {
namespace {

struct NodeDeleter {
  void operator()(cmark_node* node) const { cmark_node_free(node); }
};

std::string_view literal(cmark_node* node) {
  const char* text = cmark_node_get_literal(node);
  return text == nullptr ? std::string_view() : std::string_view(text);
}

// The text of an inline subtree: text and code spans kept, soft breaks as spaces, hard
// breaks as newlines, inline HTML dropped, links and images reduced to their text.
void append_inline_text(cmark_node* node, std::string* out) {
  for (cmark_node* child = cmark_node_first_child(node); child != nullptr;
       child = cmark_node_next(child)) {
    switch (cmark_node_get_type(child)) {
      case CMARK_NODE_TEXT:
      case CMARK_NODE_CODE:
        out->append(literal(child));
        break;
      case CMARK_NODE_SOFTBREAK:
        out->push_back(' ');
        break;
      case CMARK_NODE_LINEBREAK:
        out->push_back('\n');
        break;
      case CMARK_NODE_HTML_INLINE:
        break;
      default:  // emphasis, strong, link, image, custom inline: their children
        append_inline_text(child, out);
        break;
    }
  }
}

class MarkdownWalker {
 public:
  ParsedText take() { return std::move(parsed_); }

  void walk_blocks(cmark_node* parent) {
    for (cmark_node* node = cmark_node_first_child(parent); node != nullptr;
         node = cmark_node_next(node)) {
      switch (cmark_node_get_type(node)) {
        case CMARK_NODE_HEADING:
          add_heading(node);
          break;
        case CMARK_NODE_PARAGRAPH: {
          std::string text;
          append_inline_text(node, &text);
          add_block(text, false);
          break;
        }
        case CMARK_NODE_CODE_BLOCK:
        case CMARK_NODE_HTML_BLOCK:
          add_block(literal(node), false);
          break;
        case CMARK_NODE_THEMATIC_BREAK:
          break;
        default:  // block quote, list, item, custom block: their children
          walk_blocks(node);
          break;
      }
    }
  }

 private:
  void add_heading(cmark_node* node) {
    const int level = cmark_node_get_heading_level(node);
    std::string text;
    append_inline_text(node, &text);
    const std::string_view trimmed = trim(text);
    if (trimmed.empty()) return;
    while (!levels_.empty() && levels_.back() >= level) {
      levels_.pop_back();
      headings_.pop_back();
    }
    levels_.push_back(level);
    headings_.emplace_back(trimmed);
    if (level == 1 && parsed_.title.empty()) parsed_.title = std::string(trimmed);
    add_block(trimmed, true);
  }

  void add_block(std::string_view text, bool is_heading) {
    text = trim(text);
    if (text.empty()) return;
    DocumentBlock block;
    block.text = std::string(text);
    block.headings = headings_;
    block.is_heading = is_heading;
    parsed_.blocks.push_back(std::move(block));
  }

  ParsedText parsed_;
  std::vector<int> levels_;  // heading level of each entry of headings_
  std::vector<std::string> headings_;
};

}  // namespace

StatusOr<ParsedText> parse_markdown(std::string_view text) {
  std::unique_ptr<cmark_node, NodeDeleter> root(
      cmark_parse_document(text.data(), text.size(), CMARK_OPT_DEFAULT));
  MarkdownWalker walker;
  if (root != nullptr) walker.walk_blocks(root.get());
  return walker.take();
}

}  // namespace ragmeter::docs
