// Words by ICU's word BreakIterator over UTF-8 (UText, no conversion to UTF-16), and
// their NFKC case-folded keys; text in the Latin characters latin_words.h covers takes its
// fast path, which gives the same words and keys. Behaviour: include/ragmeter/words.h.
#include "ragmeter/words.h"

#include <memory>

#include <unicode/brkiter.h>
#include <unicode/bytestream.h>
#include <unicode/normalizer2.h>
#include <unicode/utext.h>

#include "core/latin_words.h"
#include "core/words_icu.h"

namespace ragmeter {
namespace {

// One thread's word iterator and the UText it reads through, made on first use: the
// root-locale word instance loads its rules and dictionaries once per thread (cloning
// is not cheaper than creating, and an iterator is not shareable across threads).
class WordBreaker {
 public:
  WordBreaker() {
    UErrorCode status = U_ZERO_ERROR;
    iterator_.reset(icu::BreakIterator::createWordInstance(icu::Locale::getRoot(), status));
    if (U_FAILURE(status)) iterator_.reset();
  }
  ~WordBreaker() { utext_close(text_); }
  WordBreaker(const WordBreaker&) = delete;
  WordBreaker& operator=(const WordBreaker&) = delete;

  // Points the iterator at `text`; false when it cannot (no iterator, text too long).
  bool set_text(std::string_view text) {
    if (!iterator_ || text.size() > static_cast<std::size_t>(INT32_MAX)) return false;
    UErrorCode status = U_ZERO_ERROR;
    text_ = utext_openUTF8(text_, text.data(), static_cast<int64_t>(text.size()), &status);
    if (U_FAILURE(status)) return false;
    iterator_->setText(text_, status);
    return U_SUCCESS(status);
  }
  icu::BreakIterator& iterator() { return *iterator_; }

 private:
  std::unique_ptr<icu::BreakIterator> iterator_;
  UText* text_ = nullptr;
};

WordBreaker& word_breaker() {
  thread_local WordBreaker breaker;
  return breaker;
}

// ICU's rule status of a segment: below UBRK_WORD_NONE_LIMIT it is spaces, punctuation
// or symbols; numbers, letters, kana and ideographs are above.
bool is_word_segment(int32_t rule_status) { return rule_status >= UBRK_WORD_NONE_LIMIT; }

bool is_ascii(std::string_view text) {
  for (char c : text) {
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  }
  return true;
}

// Appends `text` normalised by `normalizer`, or as it is when ICU fails.
void append_normalized(const icu::Normalizer2* normalizer, std::string_view text,
                       std::string* out) {
  if (normalizer == nullptr) {
    out->append(text);
    return;
  }
  const std::size_t before = out->size();
  UErrorCode status = U_ZERO_ERROR;
  icu::StringByteSink<std::string> sink(out);
  normalizer->normalizeUTF8(0, icu::StringPiece(text.data(), static_cast<int32_t>(text.size())),
                            sink, nullptr, status);
  if (U_FAILURE(status)) {
    out->resize(before);
    out->append(text);
  }
}

const icu::Normalizer2* nfkc_casefold() {
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* normalizer = icu::Normalizer2::getNFKCCasefoldInstance(status);
  return U_SUCCESS(status) ? normalizer : nullptr;
}

}  // namespace

void icu_split_words_into(std::string_view text, std::vector<std::string_view>* words) {
  words->clear();
  if (text.empty()) return;
  WordBreaker& breaker = word_breaker();
  if (!breaker.set_text(text)) return;
  icu::BreakIterator& it = breaker.iterator();
  int32_t start = it.first();
  for (int32_t end = it.next(); end != icu::BreakIterator::DONE; start = end, end = it.next()) {
    if (is_word_segment(it.getRuleStatus())) {
      words->push_back(text.substr(static_cast<std::size_t>(start),
                                   static_cast<std::size_t>(end - start)));
    }
  }
}

void split_words_into(std::string_view text, std::vector<std::string_view>* words) {
  if (!latin_words::split(text, words)) icu_split_words_into(text, words);
}

std::vector<std::string_view> split_words(std::string_view text) {
  std::vector<std::string_view> words;
  split_words_into(text, &words);
  return words;
}

std::string nfkc(std::string_view text) {
  if (is_ascii(text)) return std::string(text);
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* normalizer = icu::Normalizer2::getNFKCInstance(status);
  std::string out;
  append_normalized(U_SUCCESS(status) ? normalizer : nullptr, text, &out);
  return out;
}

void icu_append_word_key(std::string_view word, std::string* out) {
  if (is_ascii(word)) {
    for (char c : word) out->push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
    return;
  }
  static const icu::Normalizer2* const kNormalizer = nfkc_casefold();
  append_normalized(kNormalizer, word, out);
}

void append_word_key(std::string_view word, std::string* out) {
  if (is_ascii(word) || !latin_words::append_key(word, out)) icu_append_word_key(word, out);
}

std::vector<std::string> word_keys(std::string_view text) {
  std::vector<std::string> keys;
  for (std::string_view word : split_words(text)) {
    std::string key;
    append_word_key(word, &key);
    keys.push_back(std::move(key));
  }
  return keys;
}

}  // namespace ragmeter
