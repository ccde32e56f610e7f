// The chunker (rules in include/ragmeter/chunker.h).
//
// Each section's text is scanned once: for a chunk starting at `start`, `limit` is the
// furthest offset that keeps it within `size` units, and the end is the best boundary
// in the back half of [start, limit]. ICU's break iterators run over the section's
// UTF-8 bytes directly (UText), so every offset here is a byte offset, and they are asked
// only about the window at hand (isBoundary/preceding/following), which keeps the whole
// pass linear in the text even for a 5 MB paragraph without a single space.

#include <openssl/evp.h>
#include <unicode/brkiter.h>
#include <unicode/locid.h>
#include <unicode/utext.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "docs/document_formats.h"
#include "ragmeter/chunker.h"

namespace ragmeter {
namespace {

using icu::BreakIterator;

std::unique_ptr<BreakIterator> new_iterator(bool sentences) {
  UErrorCode status = U_ZERO_ERROR;
  std::unique_ptr<BreakIterator> iterator(
      sentences ? BreakIterator::createSentenceInstance(icu::Locale::getRoot(), status)
                : BreakIterator::createWordInstance(icu::Locale::getRoot(), status));
  if (U_FAILURE(status)) iterator.reset();
  return iterator;
}

// Iterators are made once per thread: creating one costs more than segmenting a
// paragraph. The chunker holds its word and sentence iterators on a section while it
// counts the units of chunks with a third one.
BreakIterator* word_iterator() {
  thread_local std::unique_ptr<BreakIterator> iterator = new_iterator(false);
  return iterator.get();
}
BreakIterator* counting_iterator() {
  thread_local std::unique_ptr<BreakIterator> iterator = new_iterator(false);
  return iterator.get();
}
BreakIterator* sentence_iterator() {
  thread_local std::unique_ptr<BreakIterator> iterator = new_iterator(true);
  return iterator.get();
}

bool is_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

std::size_t count_code_points(std::string_view text) {
  std::size_t count = 0;
  for (char c : text) count += is_continuation(c) ? 0 : 1;
  return count;
}

// Points `iterator` at `text` for as long as the object lives.
class IteratorText {
 public:
  IteratorText(BreakIterator* iterator, std::string_view text) : iterator_(iterator) {
    UErrorCode status = U_ZERO_ERROR;
    utext_ = utext_openUTF8(nullptr, text.data(), static_cast<int64_t>(text.size()), &status);
    if (U_SUCCESS(status) && iterator_ != nullptr) iterator_->setText(utext_, status);
    ok_ = U_SUCCESS(status) && iterator_ != nullptr;
  }
  ~IteratorText() {
    if (iterator_ != nullptr) {
      // Detach before the UText goes: the iterator is reused by the next caller.
      UErrorCode status = U_ZERO_ERROR;
      UText empty = UTEXT_INITIALIZER;
      UText* none = utext_openUTF8(&empty, "", 0, &status);
      iterator_->setText(none, status);
      utext_close(none);
    }
    utext_close(utext_);
  }
  IteratorText(const IteratorText&) = delete;
  IteratorText& operator=(const IteratorText&) = delete;
  bool ok() const { return ok_; }

 private:
  BreakIterator* iterator_;
  UText* utext_ = nullptr;
  bool ok_ = false;
};

std::size_t count_words(std::string_view text) {
  BreakIterator* iterator = counting_iterator();
  IteratorText attached(iterator, text);
  if (!attached.ok()) return count_code_points(text);  // ICU data missing: a safe overcount
  std::size_t count = 0;
  for (int32_t at = iterator->next(); at != BreakIterator::DONE; at = iterator->next()) {
    if (iterator->getRuleStatus() != UBRK_WORD_NONE) ++count;
  }
  return count;
}

// A run of blocks chunked together: their texts joined with "\n\n".
struct Section {
  std::string text;
  std::vector<std::size_t> block_starts;  // offset of each block's text in `text`
  std::vector<std::size_t> block_ends;
  std::vector<std::size_t> blocks;        // index in Document::blocks of each block
};

std::vector<Section> split_sections(const Document& doc) {
  std::vector<Section> sections;
  for (std::size_t i = 0; i < doc.blocks.size(); ++i) {
    const DocumentBlock& block = doc.blocks[i];
    if (sections.empty() || block.is_heading) sections.emplace_back();
    Section& section = sections.back();
    if (!section.text.empty()) section.text += "\n\n";
    section.block_starts.push_back(section.text.size());
    section.text += block.text;
    section.block_ends.push_back(section.text.size());
    section.blocks.push_back(i);
  }
  return sections;
}

void append_section(Section* to, const Section& from) {
  const std::size_t shift = to->text.empty() ? 0 : to->text.size() + 2;
  if (!to->text.empty()) to->text += "\n\n";
  to->text += from.text;
  for (std::size_t start : from.block_starts) to->block_starts.push_back(start + shift);
  for (std::size_t end : from.block_ends) to->block_ends.push_back(end + shift);
  to->blocks.insert(to->blocks.end(), from.blocks.begin(), from.blocks.end());
}

// Rule 1: a section shorter than min_size joins the next one (the last, the previous).
std::vector<Section> join_short_sections(std::vector<Section> sections, const ChunkerOptions& options) {
  std::vector<Section> joined;
  Section pending;
  for (Section& section : sections) {
    if (!pending.text.empty()) {
      append_section(&pending, section);
      section = std::move(pending);
      pending = Section();
    }
    if (count_units(section.text, options.unit) < options.min_size) {
      pending = std::move(section);
    } else {
      joined.push_back(std::move(section));
    }
  }
  if (!pending.text.empty()) {
    if (joined.empty()) {
      joined.push_back(std::move(pending));
    } else {
      append_section(&joined.back(), pending);
    }
  }
  return joined;
}

// Cuts one section into chunk texts; see the file comment.
class SectionChunker {
 public:
  SectionChunker(const Section& section, const ChunkerOptions& options)
      : text_(section.text),
        paragraph_ends_(section.block_ends),
        options_(options),
        words_(word_iterator()),
        sentences_(sentence_iterator()),
        words_text_(words_, text_),
        sentences_text_(sentences_, text_) {}

  // Calls emit(start, end) for each chunk's byte range, in order.
  template <typename Emit>
  void run(Emit emit) {
    std::size_t start = 0;
    std::size_t previous_end = 0;
    while (start < text_.size()) {
      const std::size_t limit = limit_from(start);
      const std::size_t end = limit == text_.size() ? limit : best_end(start, previous_end, limit);
      emit(start, end);
      if (end >= text_.size()) break;
      start = overlap_start(start, end);
      previous_end = end;
    }
  }

 private:
  // The furthest offset with at most `size` units in [start, offset).
  std::size_t limit_from(std::size_t start) {
    if (options_.unit == ChunkUnit::kCharacters || !words_text_.ok()) {
      std::size_t at = start;
      for (std::size_t units = 0; at < text_.size() && units < options_.size; ++units) {
        ++at;
        while (at < text_.size() && is_continuation(text_[at])) ++at;
      }
      return at;
    }
    std::size_t count = 0;
    std::size_t at = start;
    while (true) {
      const int32_t next = words_->following(static_cast<int32_t>(at));
      if (next == BreakIterator::DONE) return text_.size();
      if (words_->getRuleStatus() != UBRK_WORD_NONE && ++count > options_.size) return at;
      at = static_cast<std::size_t>(next);
    }
  }

  // The last boundary of `iterator` in (low, limit], or 0 when there is none.
  static std::size_t last_boundary(BreakIterator* iterator, std::size_t low, std::size_t limit) {
    int32_t at = static_cast<int32_t>(limit);
    if (!iterator->isBoundary(at)) at = iterator->preceding(at);
    return at != BreakIterator::DONE && static_cast<std::size_t>(at) > low ? static_cast<std::size_t>(at) : 0;
  }

  // The first boundary of `iterator` in [low, high), or 0 when there is none.
  static std::size_t first_boundary(BreakIterator* iterator, std::size_t low, std::size_t high) {
    int32_t at = static_cast<int32_t>(low);
    if (!iterator->isBoundary(at)) at = iterator->following(at);
    return at != BreakIterator::DONE && static_cast<std::size_t>(at) < high ? static_cast<std::size_t>(at) : 0;
  }

  std::size_t best_end(std::size_t start, std::size_t previous_end, std::size_t limit) {
    const std::size_t low = std::max(previous_end, start + (limit - start) / 2);
    auto paragraph = std::upper_bound(paragraph_ends_.begin(), paragraph_ends_.end(), limit);
    if (paragraph != paragraph_ends_.begin() && *std::prev(paragraph) > low) return *std::prev(paragraph);
    if (sentences_text_.ok()) {
      if (const std::size_t end = last_boundary(sentences_, low, limit)) return end;
    }
    if (words_text_.ok()) {
      if (const std::size_t end = last_boundary(words_, low, limit)) return end;
    }
    return limit;  // a code point boundary (limit_from walks whole code points)
  }

  // Rule 3: the start of the next chunk.
  std::size_t overlap_start(std::size_t start, std::size_t end) {
    if (options_.overlap == 0) return end;
    std::size_t window = std::max(start + 1, window_start(start, end));
    while (window < end && is_continuation(text_[window])) ++window;
    if (window >= end) return end;
    if (sentences_text_.ok()) {
      if (const std::size_t at = first_boundary(sentences_, window, end)) return at;
    }
    if (words_text_.ok()) {
      if (const std::size_t at = first_boundary(words_, window, end)) return at;
    }
    // Inside one long word: a code point, as rule 2 cuts it (in tokens the word is one
    // unit, so no overlap).
    return options_.unit == ChunkUnit::kCharacters ? window : end;
  }

  // The earliest offset in [start, end] with at most `overlap` units in [offset, end).
  std::size_t window_start(std::size_t start, std::size_t end) {
    if (options_.unit == ChunkUnit::kCharacters || !words_text_.ok()) {
      std::size_t at = end;
      for (std::size_t units = 0; at > start && units < options_.overlap; ++units) {
        --at;
        while (at > start && is_continuation(text_[at])) --at;
      }
      return at;
    }
    // Word boundaries going back from `end`; a segment's status is read at its end.
    std::size_t at = end;
    std::size_t count = 0;
    while (at > start) {
      const int32_t previous = words_->preceding(static_cast<int32_t>(at));
      if (previous == BreakIterator::DONE || static_cast<std::size_t>(previous) < start) break;
      words_->following(previous);
      if (words_->getRuleStatus() != UBRK_WORD_NONE && ++count > options_.overlap) break;
      at = static_cast<std::size_t>(previous);
    }
    return at;
  }

  std::string_view text_;
  const std::vector<std::size_t>& paragraph_ends_;
  const ChunkerOptions& options_;
  BreakIterator* words_;
  BreakIterator* sentences_;
  IteratorText words_text_;
  IteratorText sentences_text_;
};

std::string hex(const unsigned char* bytes, unsigned int size) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(size * 2);
  for (unsigned int i = 0; i < size; ++i) {
    out.push_back(kHex[bytes[i] >> 4]);
    out.push_back(kHex[bytes[i] & 0x0f]);
  }
  return out;
}

}  // namespace

std::size_t count_units(std::string_view text, ChunkUnit unit) {
  return unit == ChunkUnit::kCharacters ? count_code_points(text) : count_words(text);
}

std::string chunk_id(std::string_view source_path, std::size_t ordinal, std::string_view text) {
  std::string data;
  data.reserve(source_path.size() + text.size() + 24);
  data.append(source_path);
  data.push_back('\0');
  data.append(std::to_string(ordinal));
  data.push_back('\0');
  data.append(text);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  // EVP_Digest fails only when it cannot allocate; an empty id is then visible, not aliased.
  if (EVP_Digest(data.data(), data.size(), digest, &size, EVP_sha256(), nullptr) != 1) return "";
  return hex(digest, size);
}

StatusOr<std::vector<DocumentChunk>> chunk_document(const Document& doc, const ChunkerOptions& options) {
  if (options.size == 0) return invalid_argument("chunk size must be positive");
  if (options.overlap >= options.size) {
    return invalid_argument("chunk overlap (" + std::to_string(options.overlap) +
                            ") must be smaller than the chunk size (" + std::to_string(options.size) + ")");
  }
  std::vector<DocumentChunk> chunks;
  for (const Section& section : join_short_sections(split_sections(doc), options)) {
    SectionChunker chunker(section, options);
    chunker.run([&](std::size_t start, std::size_t end) {
      std::string_view raw = std::string_view(section.text).substr(start, end - start);
      const std::string_view text = docs::trim(raw);
      if (text.empty() || count_units(text, options.unit) < options.min_size) return;
      const std::size_t first = start + static_cast<std::size_t>(text.data() - raw.data());
      const auto block = std::upper_bound(section.block_starts.begin(), section.block_starts.end(), first);
      const std::size_t index = static_cast<std::size_t>(block - section.block_starts.begin());
      const DocumentBlock& source = doc.blocks[section.blocks[index == 0 ? 0 : index - 1]];
      DocumentChunk chunk;
      chunk.text = std::string(text);
      chunk.source_path = doc.path;
      chunk.title = doc.title;
      chunk.headings = source.headings;
      chunk.page = source.page;
      chunk.ordinal = chunks.size();
      chunk.id = chunk_id(chunk.source_path, chunk.ordinal, chunk.text);
      chunks.push_back(std::move(chunk));
    });
  }
  return chunks;
}

}  // namespace ragmeter
