// HTML via gumbo (an HTML5-conformant parser: entities decoded, broken markup repaired).
//
// Boilerplate is removed by element (script, nav, footer, ...), by ARIA role and by
// class/id names; when the page marks its main content (<main>, role="main", Sphinx's
// <div class="body">) only that is read. Text is gathered into an inline buffer that is
// flushed as a block whenever a block-level element starts or ends, so "a<p>b</p>c" is
// three blocks and inline elements never split a block.

#include <gumbo.h>

#include <algorithm>
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "docs/document_formats.h"

namespace ragmeter::docs {
namespace {

bool ascii_iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return (x | 0x20) == (y | 0x20);
         });
}

std::string_view attribute(const GumboElement& element, const char* name) {
  const GumboAttribute* attr = gumbo_get_attribute(&element.attributes, name);
  return attr == nullptr ? std::string_view() : std::string_view(attr->value);
}

bool has_class(const GumboElement& element, std::string_view wanted) {
  std::string_view classes = attribute(element, "class");
  while (!classes.empty()) {
    const std::size_t space = classes.find_first_of(" \t\n\r\f");
    if (ascii_iequals(classes.substr(0, space), wanted)) return true;
    if (space == std::string_view::npos) break;
    classes.remove_prefix(space + 1);
  }
  return false;
}

bool is_dropped_tag(GumboTag tag) {
  switch (tag) {
    case GUMBO_TAG_SCRIPT:
    case GUMBO_TAG_STYLE:
    case GUMBO_TAG_NOSCRIPT:
    case GUMBO_TAG_TEMPLATE:
    case GUMBO_TAG_NAV:
    case GUMBO_TAG_HEADER:
    case GUMBO_TAG_FOOTER:
    case GUMBO_TAG_ASIDE:
    case GUMBO_TAG_FORM:
    case GUMBO_TAG_BUTTON:
    case GUMBO_TAG_SELECT:
    case GUMBO_TAG_TEXTAREA:
    case GUMBO_TAG_IFRAME:
    case GUMBO_TAG_SVG:
    case GUMBO_TAG_MATH:
    case GUMBO_TAG_HEAD:
      return true;
    default:
      return false;
  }
}

// A class or id names navigation when one of its parts (split at space, '-' and '_')
// starts with one of these.
constexpr std::array<std::string_view, 8> kNavigationNameParts = {
    "nav", "sidebar", "sphinxsidebar", "related", "footer", "breadcrumb", "toc", "headerlink"};

bool names_navigation(std::string_view names) {
  std::size_t begin = 0;
  while (begin < names.size()) {
    std::size_t end = names.find_first_of(" \t\n\r\f-_", begin);
    if (end == std::string_view::npos) end = names.size();
    const std::string_view part = names.substr(begin, end - begin);
    for (std::string_view prefix : kNavigationNameParts) {
      if (part.size() >= prefix.size() && ascii_iequals(part.substr(0, prefix.size()), prefix)) {
        return true;
      }
    }
    begin = end + 1;
  }
  return false;
}

bool is_boilerplate(const GumboElement& element) {
  if (is_dropped_tag(element.tag)) return true;
  const std::string_view role = attribute(element, "role");
  for (std::string_view dropped : {"navigation", "banner", "contentinfo", "complementary", "search"}) {
    if (ascii_iequals(role, dropped)) return true;
  }
  return names_navigation(attribute(element, "class")) || names_navigation(attribute(element, "id"));
}

bool is_main_content(const GumboElement& element) {
  return element.tag == GUMBO_TAG_MAIN || ascii_iequals(attribute(element, "role"), "main") ||
         (element.tag == GUMBO_TAG_DIV && has_class(element, "body"));
}

// Tags whose start and end end the current block of text.
bool is_block_tag(GumboTag tag) {
  switch (tag) {
    case GUMBO_TAG_P: case GUMBO_TAG_DIV: case GUMBO_TAG_SECTION: case GUMBO_TAG_ARTICLE:
    case GUMBO_TAG_MAIN: case GUMBO_TAG_BODY: case GUMBO_TAG_BLOCKQUOTE: case GUMBO_TAG_PRE:
    case GUMBO_TAG_UL: case GUMBO_TAG_OL: case GUMBO_TAG_LI: case GUMBO_TAG_DL:
    case GUMBO_TAG_DT: case GUMBO_TAG_DD: case GUMBO_TAG_TABLE: case GUMBO_TAG_TR:
    case GUMBO_TAG_TD: case GUMBO_TAG_TH: case GUMBO_TAG_CAPTION: case GUMBO_TAG_THEAD:
    case GUMBO_TAG_TBODY: case GUMBO_TAG_TFOOT: case GUMBO_TAG_FIGURE:
    case GUMBO_TAG_FIGCAPTION: case GUMBO_TAG_ADDRESS: case GUMBO_TAG_DETAILS:
    case GUMBO_TAG_SUMMARY: case GUMBO_TAG_HR: case GUMBO_TAG_CENTER:
    case GUMBO_TAG_H1: case GUMBO_TAG_H2: case GUMBO_TAG_H3:
    case GUMBO_TAG_H4: case GUMBO_TAG_H5: case GUMBO_TAG_H6:
      return true;
    default:
      return false;
  }
}

int heading_level(GumboTag tag) {
  switch (tag) {
    case GUMBO_TAG_H1: return 1;
    case GUMBO_TAG_H2: return 2;
    case GUMBO_TAG_H3: return 3;
    case GUMBO_TAG_H4: return 4;
    case GUMBO_TAG_H5: return 5;
    case GUMBO_TAG_H6: return 6;
    default: return 0;
  }
}

// The first element in document order for which is_main_content holds, or null.
const GumboNode* find_main(const GumboNode* node) {
  if (node->type != GUMBO_NODE_ELEMENT) return nullptr;
  if (is_main_content(node->v.element)) return node;
  if (is_boilerplate(node->v.element)) return nullptr;
  const GumboVector& children = node->v.element.children;
  for (unsigned i = 0; i < children.length; ++i) {
    if (const GumboNode* found = find_main(static_cast<const GumboNode*>(children.data[i]))) {
      return found;
    }
  }
  return nullptr;
}

const GumboNode* find_tag(const GumboNode* node, GumboTag tag) {
  if (node->type != GUMBO_NODE_ELEMENT) return nullptr;
  if (node->v.element.tag == tag) return node;
  const GumboVector& children = node->v.element.children;
  for (unsigned i = 0; i < children.length; ++i) {
    if (const GumboNode* found = find_tag(static_cast<const GumboNode*>(children.data[i]), tag)) {
      return found;
    }
  }
  return nullptr;
}

void append_all_text(const GumboNode* node, std::string* out) {
  if (node->type == GUMBO_NODE_TEXT || node->type == GUMBO_NODE_CDATA ||
      node->type == GUMBO_NODE_WHITESPACE) {
    append_collapsed(node->v.text.text, out);
    return;
  }
  if (node->type != GUMBO_NODE_ELEMENT && node->type != GUMBO_NODE_TEMPLATE) return;
  const GumboVector& children = node->v.element.children;
  for (unsigned i = 0; i < children.length; ++i) {
    append_all_text(static_cast<const GumboNode*>(children.data[i]), out);
  }
}

class HtmlWalker {
 public:
  void walk(const GumboNode* node) {
    switch (node->type) {
      case GUMBO_NODE_TEXT:
      case GUMBO_NODE_CDATA:
      case GUMBO_NODE_WHITESPACE:
        if (in_pre_ > 0) {
          buffer_.append(node->v.text.text);
        } else {
          append_collapsed(node->v.text.text, &buffer_);
        }
        return;
      case GUMBO_NODE_ELEMENT:
      case GUMBO_NODE_TEMPLATE:
        walk_element(node->v.element);
        return;
      default:  // document, comment
        return;
    }
  }

  void flush() { flush_block(false); }
  ParsedText take() { return std::move(parsed_); }
  void set_title(std::string title) { parsed_.title = std::move(title); }
  const std::string& title() const { return parsed_.title; }
  const std::string& first_h1() const { return first_h1_; }

 private:
  void walk_element(const GumboElement& element) {
    if (is_boilerplate(element)) return;
    if (element.tag == GUMBO_TAG_BR) {
      buffer_.push_back(in_pre_ > 0 ? '\n' : ' ');
      return;
    }
    const bool block = is_block_tag(element.tag);
    if (block) flush_block(false);
    if (element.tag == GUMBO_TAG_PRE) ++in_pre_;
    for (unsigned i = 0; i < element.children.length; ++i) {
      walk(static_cast<const GumboNode*>(element.children.data[i]));
    }
    if (element.tag == GUMBO_TAG_PRE) --in_pre_;
    if (const int level = heading_level(element.tag); level > 0) {
      enter_heading(level);
    } else if (block) {
      flush_block(false);
    }
  }

  // The buffer holds a heading's text: it becomes the innermost entry of the path.
  void enter_heading(int level) {
    const std::string text(trim(buffer_));
    if (text.empty()) return;
    while (!levels_.empty() && levels_.back() >= level) {
      levels_.pop_back();
      headings_.pop_back();
    }
    levels_.push_back(level);
    headings_.push_back(text);
    if (level == 1 && first_h1_.empty()) first_h1_ = text;
    flush_block(true);
  }

  void flush_block(bool is_heading) {
    const std::string_view text = trim(buffer_);
    if (!text.empty()) {
      DocumentBlock block;
      block.text = std::string(text);
      block.headings = headings_;
      block.is_heading = is_heading;
      parsed_.blocks.push_back(std::move(block));
    }
    buffer_.clear();
  }

  ParsedText parsed_;
  std::string buffer_;
  int in_pre_ = 0;
  std::vector<int> levels_;
  std::vector<std::string> headings_;
  std::string first_h1_;
};

}  // namespace

StatusOr<ParsedText> parse_html(std::string_view text) {
  GumboOptions options = kGumboDefaultOptions;
  GumboOutput* output = gumbo_parse_with_options(&options, text.data(), text.size());
  HtmlWalker walker;
  if (output != nullptr) {
    if (const GumboNode* title = find_tag(output->root, GUMBO_TAG_TITLE)) {
      std::string title_text;
      append_all_text(title, &title_text);
      walker.set_title(std::string(trim(title_text)));
    }
    const GumboNode* main = find_main(output->root);
    walker.walk(main != nullptr ? main : output->root);
    walker.flush();
    if (walker.title().empty()) walker.set_title(walker.first_h1());
    gumbo_destroy_output(&options, output);
  }
  return walker.take();
}

}  // namespace ragmeter::docs
