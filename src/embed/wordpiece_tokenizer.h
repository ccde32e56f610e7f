// BERT's WordPiece tokenizer, read from a Hugging Face tokenizer.json: the tokenizer of
// the local sentence embedder (sentence_embedder.h), all-MiniLM-L6-v2.
//
// It does what the `tokenizers` package does with such a file, in this order:
//  1. special tokens: the file's added tokens marked special and not normalised
//     ("[CLS]", "[SEP]", "[PAD]", "[UNK]", "[MASK]") are found in the raw text (leftmost,
//     longest first) and become their ids whole;
//  2. BertNormalizer, between them: clean_text drops U+0000, U+FFFD and every code point
//     of category Cc, Cf, Co or Cs except tab, newline and carriage return, and turns
//     every White_Space code point into " "; handle_chinese_chars puts spaces around CJK
//     ideographs (the ranges BERT lists); strip_accents (when the file says so, or says
//     null and lowercase is on) takes NFD and drops marks of category Mn; lowercase
//     maps each code point by its full lowercase mapping on its own, so no final sigma
//     ("ΟΔΟΣ" -> "οδοσ") and "İ" -> "i" (its dot is an accent stripped before);
//  3. BertPreTokenizer: words split at White_Space, and each punctuation character
//     (Unicode category P*, or ASCII punctuation such as $ + < = > ^ ` | ~) alone;
//  4. WordPiece: a word of more than max_input_chars_per_word code points is the unknown
//     token; otherwise greedy longest match from the left, later pieces with the
//     continuing prefix ("##"); a word with a part no piece matches is the unknown token;
//  5. [CLS] ... [SEP] around the ids.
// Unicode facts (categories, White_Space, NFD, case mappings) come from ICU.
// tests/oracle/test_wordpiece_tokenizer.py checks the ids against `tokenizers` on
// thousands of texts.
//
// Thread-safety: a loaded tokenizer is immutable; encode() may be called from any number
// of threads at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ragmeter/status.h"

namespace ragmeter {

class WordPieceTokenizer {
 public:
  // Reads `path` (a tokenizer.json). NotFound when it cannot be read; InvalidArgument
  // naming the file and the field when it is not JSON or is not a BERT WordPiece tokenizer
  // (normalizer BertNormalizer, pre_tokenizer BertPreTokenizer, model WordPiece, and the
  // vocabulary holding [CLS], [SEP] and the unknown token).
  static StatusOr<WordPieceTokenizer> load(const std::string& path);
  // The same from the file's text; `name` stands for the file in messages.
  static StatusOr<WordPieceTokenizer> parse(std::string_view json_text, const std::string& name);

  // The ids of `text` (UTF-8; invalid bytes read as U+FFFD, which clean_text drops),
  // starting with [CLS] and ending with [SEP]. With max_length > 0 and more ids than
  // that, the word pieces are cut at the end to max_length - 2 so that the result,
  // [SEP] included, has max_length ids (what `tokenizers` does with truncation to
  // max_length, and sentence-transformers with max_seq_length). Never fails: text with
  // no word gives [CLS] [SEP].
  std::vector<std::int32_t> encode(std::string_view text, std::size_t max_length = 0) const;

  // The normalised words of `text` after steps 1-3 (special tokens as written), for tests.
  std::vector<std::string> pre_tokenize(std::string_view text) const;

  std::int32_t cls_id() const;
  std::int32_t sep_id() const;
  std::int32_t unknown_id() const;
  std::size_t vocabulary_size() const;

  WordPieceTokenizer(WordPieceTokenizer&&) noexcept;
  WordPieceTokenizer& operator=(WordPieceTokenizer&&) noexcept;
  ~WordPieceTokenizer();

 private:
  struct Impl;
  explicit WordPieceTokenizer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace ragmeter
