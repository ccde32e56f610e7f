// XLM-RoBERTa's SentencePiece unigram tokenizer, read from a Hugging Face tokenizer.json:
// the tokenizer of the local multilingual sentence embedder (sentence_embedder.h),
// multilingual-e5-small. The segmentation and the Unicode normalisation run in
// libsentencepiece (Debian's libsentencepiece-dev); what this class adds is what the
// `tokenizers` package does around them with such a file, in this order:
//  1. special tokens: the file's added tokens marked special and not normalised ("<s>",
//     "<pad>", "</s>", "<unk>", "<mask>") are found in the raw text (leftmost, longest
//     first) and become their ids whole; the text between them is tokenised piece by piece;
//  2. normaliser Precompiled: the file's precompiled_charsmap (SentencePiece's nmt_nfkc
//     rules compiled into a trie: NFKC, control characters removed, other spaces to " "),
//     applied by libsentencepiece with no whitespace handling of its own;
//  3. normaliser Replace: every run of two or more spaces becomes one space;
//  4. pre-tokeniser Metaspace: spaces become U+2581 ("▁"), and one is put in front when
//     the text does not start with it (add_prefix_space / prepend_scheme "always");
//  5. model Unigram: the most probable segmentation into the vocabulary's pieces (Viterbi
//     over the pieces' log probabilities, libsentencepiece), characters no piece covers
//     becoming the unknown id, a run of them one unknown id;
//  6. <s> ... </s> around the ids (the post-processor's template).
// The ids are the file's own (fairseq's order: <s> 0, <pad> 1, </s> 2, <unk> 3, then the
// SentencePiece vocabulary).
//
// Why libsentencepiece reads a model built here: the package that ships the weights ships
// no sentencepiece.bpe.model, and the tokenizer.json holds the same vocabulary, scores and
// normalisation trie. The model is written in SentencePiece's protobuf format (its field
// numbers) and loaded with LoadFromSerializedProto, twice: once with the charsmap and a
// vocabulary of no real pieces (the normaliser: every character unknown, so the pieces
// spell the normalised text), once with the vocabulary and no normalisation (the
// segmenter), so that steps 3 and 4 can run between them as `tokenizers` runs them.
//
// One known difference from `tokenizers`: its Precompiled normaliser looks up a whole
// grapheme cluster (of fewer than 6 bytes) in the trie and, when only a prefix of it is
// there, keeps that prefix's replacement and drops the rest of the cluster (for example a
// combining accent after a full-width or presentation-form letter); libsentencepiece
// normalises the rest too. tests/oracle/test_multilingual_embedder.py measures how often
// that happens: never on the OCNLI, JNLI and HaluEval texts, on some random strings with
// combining marks.
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

class SentencePieceTokenizer {
 public:
  // Reads `path` (a tokenizer.json). NotFound when it cannot be read; InvalidArgument
  // naming the file and the field when it is not JSON or not an XLM-RoBERTa unigram
  // tokenizer (normalizer Precompiled then Replace of " {2,}" by " ", pre_tokenizer
  // Metaspace with "▁" and a prefix, model Unigram without byte fallback, a template
  // <s> $A </s>), or when libsentencepiece refuses the model built from it.
  static StatusOr<SentencePieceTokenizer> load(const std::string& path);
  // The same from the file's text; `name` stands for the file in messages.
  static StatusOr<SentencePieceTokenizer> parse(std::string_view json_text, const std::string& name);

  // The ids of `text` (UTF-8; libsentencepiece reads an invalid byte as U+FFFD), starting
  // with <s> and ending with </s>. With max_length > 0 and more ids than that, the pieces
  // are cut at the end to max_length - 2 so that the result, </s> included, has max_length
  // ids (truncation to max_length as `tokenizers` and sentence-transformers do). Never
  // fails: text with no character gives <s> </s>.
  std::vector<std::int32_t> encode(std::string_view text, std::size_t max_length = 0) const;

  std::int32_t bos_id() const;
  std::int32_t eos_id() const;
  std::int32_t unknown_id() const;
  std::size_t vocabulary_size() const;

  SentencePieceTokenizer(SentencePieceTokenizer&&) noexcept;
  SentencePieceTokenizer& operator=(SentencePieceTokenizer&&) noexcept;
  ~SentencePieceTokenizer();

 private:
  struct Impl;
  explicit SentencePieceTokenizer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace ragmeter
