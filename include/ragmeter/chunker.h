// Splitting a Document into chunks for retrieval and question generation.
//
// The rules, in order:
//   1. Sections. A heading block starts a new section; a chunk never spans two sections,
//      except that a section shorter than `min_size` units (a heading with a line under
//      it, or a heading alone) is joined to the section after it (the last such section
//      to the one before it), so short sections are kept instead of dropped.
//   2. Within a section, blocks are joined with "\n\n" and cut into chunks of at most
//      `size` units. A chunk ends at the last paragraph end that fits; if that would
//      leave the chunk under half the room it has, at the last sentence end that fits
//      (ICU sentence boundaries), then the last word boundary (ICU word boundaries),
//      then the last code point that fits (never inside a UTF-8 sequence).
//   3. Overlap. The next chunk of the same section starts at most `overlap` units
//      before the previous one ended: at the earliest sentence start in that window,
//      else the earliest word boundary in it, else (inside one long word) the window's
//      first code point. So it shares about `overlap` units, fewer when a sentence
//      straddles the window's start.
//   4. Chunk text is trimmed of surrounding whitespace; a chunk shorter than `min_size`
//      units after trimming is dropped. Nothing is prefixed to the text: the title and
//      heading path are fields of the DocumentChunk.
//
// The type is DocumentChunk, not Chunk: ragmeter::Chunk is the claim ledger's retrieved
// chunk (claim_ledger.h), and two definitions of one name break the build (or, in
// separate translation units, the one-definition rule, silently).
// Units: kCharacters counts Unicode code points; kTokens counts ICU word-boundary
// segments that are words (letters, numbers, kana, ideographs: rule status not
// UBRK_WORD_NONE), so spaces and punctuation are free. Both are count_units().
//
// Pure functions; thread-safe. Time is linear in the document's size.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "ragmeter/documents.h"
#include "ragmeter/status.h"

namespace ragmeter {

enum class ChunkUnit { kCharacters, kTokens };

struct ChunkerOptions {
  // Upper bound of a chunk, in `unit`s; never exceeded. Larger chunks mean fewer
  // embeddings and longer generation prompts.
  std::size_t size = 1000;
  // Units shared by consecutive chunks of a section; must be below `size`. Each unit of
  // overlap repeats text in the index (overlap/size more chunks).
  std::size_t overlap = 100;
  ChunkUnit unit = ChunkUnit::kCharacters;
  // Chunks shorter than this (after trimming) are dropped; sections shorter than this are
  // joined to a neighbour (rule 1). 0 keeps every non-empty chunk.
  std::size_t min_size = 50;
};

struct DocumentChunk {
  // Hex SHA-256 of source_path, '\0', the decimal ordinal, '\0', text: stable across
  // runs and machines for the same document and options.
  std::string id;
  std::string text;                   // UTF-8, valid, trimmed, at most `size` units
  std::string source_path;            // Document::path
  std::string title;                  // Document::title
  std::vector<std::string> headings;  // heading path of the chunk's first block
  int page = 0;                       // PDF page of the chunk's first character, else 0
  std::size_t ordinal = 0;            // 0, 1, ... over the chunks kept for this document
};

// Splits `doc` into chunks (rules above), in document order.
// Returns InvalidArgument when size is 0 or overlap >= size; otherwise the chunks,
// possibly none (every chunk under min_size).
StatusOr<std::vector<DocumentChunk>> chunk_document(const Document& doc,
                                                    const ChunkerOptions& options);

// The length of `text` in `unit`s (see the file comment); `text` must be valid UTF-8.
std::size_t count_units(std::string_view text, ChunkUnit unit);

// The chunk id for (source_path, ordinal, text), as in DocumentChunk::id.
std::string chunk_id(std::string_view source_path, std::size_t ordinal, std::string_view text);

}  // namespace ragmeter
