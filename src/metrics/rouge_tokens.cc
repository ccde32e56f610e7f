// rouge-score's tokenizer for ROUGE (see rouge_tokens.h and rouge.cc's file comment):
// the string tokens, the Unicode variant, and token ids from a bit per byte of text.
#include "metrics/rouge_tokens.h"

#include <array>
#include <memory>
#include <stdexcept>
#include <utility>

#include <unicode/brkiter.h>
#include <unicode/locid.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>

#include "metrics/byte_masks.h"

namespace ragmeter::rouge_internal {
namespace {

// Tokens longer than 3 characters are stemmed, as rouge-score's tokenize.tokenize.
void push_token(std::string token, bool use_stemmer, std::vector<std::string>& out) {
  if (token.empty()) return;
  if (use_stemmer && token.size() > 3) token = porter_stem(token);
  out.push_back(std::move(token));
}

constexpr std::array<bool, 256> kIsTokenByte = [] {
  std::array<bool, 256> table{};
  for (int c = 'a'; c <= 'z'; ++c) table[c] = true;
  for (int c = 'A'; c <= 'Z'; ++c) table[c] = true;
  for (int c = '0'; c <= '9'; ++c) table[c] = true;
  return table;
}();

// Lowercases a byte of [A-Za-z0-9]: setting bit 0x20 maps A-Z to a-z and keeps a-z and 0-9.
constexpr char kLowercaseBit = 0x20;

std::string lowercase_token(std::string_view raw) {
  std::string token(raw);
  for (char& c : token) c |= kLowercaseBit;
  return token;
}

// rouge-score's tokenizer without the stemmer: calls emit(raw) for each token in order,
// `raw` a view of bytes of [A-Za-z0-9] (of `text` or of `scratch`, valid during the call)
// that lowercased are the token. Python's str.lower() maps exactly two non-ASCII
// characters to [a-z]: U+0130 (I with dot above) to "i" + U+0307 (a separator), and U+212A
// (Kelvin sign) to "k"; every other non-ASCII character only separates tokens.
template <typename Emit>
void scan_default_tokens(std::string_view text, std::string& scratch, Emit&& emit) {
  // `scratch` holds a token only when it has a character from outside [A-Za-z0-9].
  scratch.clear();
  // One pass per run of [A-Za-z0-9] and the separator after it; i == text.size() is one
  // more pass, to emit a token that ends the text.
  std::size_t i = 0;
  while (i <= text.size()) {
    std::size_t end = i;
    while (end < text.size() && kIsTokenByte[static_cast<unsigned char>(text[end])]) ++end;
    std::string_view token = text.substr(i, end - i);
    const bool non_ascii = end < text.size() && static_cast<unsigned char>(text[end]) >= 0x80;
    if (non_ascii && text.substr(end, 3) == "\xE2\x84\xAA") {
      scratch += token;
      scratch += 'k';
      i = end + 3;
      continue;
    }
    if (non_ascii && text.substr(end, 2) == "\xC4\xB0") {
      scratch += token;
      scratch += 'i';
      i = end + 2;
    } else {
      if (!scratch.empty()) scratch += token;
      i = end + 1;
    }
    if (!scratch.empty()) token = scratch;
    if (!token.empty()) emit(token);
    scratch.clear();
  }
}

std::vector<std::string> default_tokens(std::string_view text, bool use_stemmer) {
  std::vector<std::string> tokens;
  std::string scratch;
  scan_default_tokens(text, scratch, [&](std::string_view raw) {
    push_token(lowercase_token(raw), use_stemmer, tokens);
  });
  return tokens;
}

icu::BreakIterator& word_breaker() {
  // Creating a break iterator loads rules; one per thread keeps the call thread-safe.
  thread_local std::unique_ptr<icu::BreakIterator> breaker = [] {
    UErrorCode status = U_ZERO_ERROR;
    std::unique_ptr<icu::BreakIterator> created(
        icu::BreakIterator::createWordInstance(icu::Locale::getRoot(), status));
    if (U_FAILURE(status) || !created) {
      throw std::runtime_error(std::string("ICU word break iterator: ") + u_errorName(status));
    }
    return created;
  }();
  return *breaker;
}

bool is_plain_ascii_word(std::string_view token) {
  return std::all_of(token.begin(), token.end(),
                     [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); });
}

// Keeps a piece of a word only if it has a letter or digit; only ASCII words are stemmed
// (the Porter stemmer is for English).
void push_unicode_token(const icu::UnicodeString& piece, bool use_stemmer,
                        std::vector<std::string>& out) {
  bool has_alnum = false;
  for (int32_t i = 0; i < piece.length() && !has_alnum; i += U16_LENGTH(piece.char32At(i))) {
    UChar32 c = piece.char32At(i);
    has_alnum = u_isalnum(c) || u_hasBinaryProperty(c, UCHAR_ALPHABETIC);
  }
  if (!has_alnum) return;
  std::string token;
  piece.toUTF8String(token);
  bool stem = use_stemmer && is_plain_ascii_word(token);
  push_token(std::move(token), stem, out);
}

// Splits one ICU word into tokens: each ideograph alone (ICU's dictionary words for
// Chinese and Japanese vary between ICU versions), the rest in runs.
void push_word_pieces(const icu::UnicodeString& text, int32_t start, int32_t end,
                      bool use_stemmer, std::vector<std::string>& out) {
  icu::UnicodeString run;
  for (int32_t i = start; i < end;) {
    UChar32 c = text.char32At(i);
    int32_t next = i + U16_LENGTH(c);
    if (u_hasBinaryProperty(c, UCHAR_IDEOGRAPHIC)) {
      push_unicode_token(run, use_stemmer, out);
      run.remove();
      push_unicode_token(icu::UnicodeString(text, i, next - i), use_stemmer, out);
    } else {
      run.append(c);
    }
    i = next;
  }
  push_unicode_token(run, use_stemmer, out);
}

std::vector<std::string> unicode_tokens(std::string_view text, bool use_stemmer) {
  icu::UnicodeString folded = icu::UnicodeString::fromUTF8(
      icu::StringPiece(text.data(), static_cast<int32_t>(text.size())));
  folded.foldCase();
  icu::BreakIterator& breaker = word_breaker();
  breaker.setText(folded);
  std::vector<std::string> tokens;
  int32_t start = breaker.first();
  for (int32_t end = breaker.next(); end != icu::BreakIterator::DONE; end = breaker.next()) {
    push_word_pieces(folded, start, end, use_stemmer, tokens);
    start = end;
  }
  return tokens;
}

// The high bits of the eight bytes of `marks` as eight bits, byte k's as bit k: the
// multiplication moves bit 8k to bit 56 + k, and its other products land below bit 56
// or above bit 63 without carries.
std::uint64_t gather_high_bits(std::uint64_t marks) {
  return ((marks >> 7) * 0x0102040810204080u) >> 56;
}

// A text as one bit per byte, set for the bytes of [A-Za-z0-9] (byte i is bit i % 64 of
// word i / 64), with a zero word after the last. ORs every byte into `any_byte`.
void mark_token_bytes(std::string_view text, std::vector<std::uint64_t>& bits,
                      std::uint64_t& any_byte) {
  bits.assign(text.size() / 64 + 2, 0);
  const std::size_t whole = text.size() / 8 * 8;
  std::uint64_t seen = 0;
  auto add = [&](std::size_t i, std::uint64_t bytes) {
    seen |= bytes;
    bits[i / 64] |= gather_high_bits(byte_masks::ascii_alnum(bytes)) << (i % 64);
  };
  for (std::size_t i = 0; i < whole; i += 8) {
    std::uint64_t bytes;
    std::memcpy(&bytes, text.data() + i, 8);
    add(i, bytes);
  }
  if (whole < text.size()) {
    std::uint64_t bytes = 0;  // zero bytes past the end: separators
    std::memcpy(&bytes, text.data() + whole, text.size() - whole);
    add(whole, bytes);
  }
  any_byte = seen;
}

}  // namespace

std::uint64_t hash_bytes(std::string_view bytes) {
  constexpr std::uint64_t kOdd = 0x9E3779B97F4A7C15u;
  std::uint64_t hash = bytes.size();
  std::size_t i = 0;
  for (; i + 8 <= bytes.size(); i += 8) {
    std::uint64_t chunk;
    std::memcpy(&chunk, bytes.data() + i, 8);
    hash = std::rotl((hash ^ chunk) * kOdd, 31);
  }
  std::uint64_t rest = 0;
  std::memcpy(&rest, bytes.data() + i, bytes.size() - i);
  return (hash ^ rest) * kOdd;
}

std::vector<std::string> string_tokens(std::string_view text, const RougeOptions& options) {
  if (options.tokenizer == RougeTokenizer::kUnicode) return unicode_tokens(text, options.use_stemmer);
  return default_tokens(text, options.use_stemmer);
}

// The id of the token that `raw` (bytes of [A-Za-z0-9]) lowercased is, stemmed if asked.
int TokenIdReader::default_token_id(std::string_view raw, bool use_stemmer) {
  if (raw.size() <= TokenTable::kMaxPackedBytes && !(use_stemmer && raw.size() > 3)) {
    // Lowercased in the packed key: every byte gets the lowercase bit.
    const std::uint64_t lowercase_bits = 0x2020202020202020u >> (8 * (8 - raw.size()));
    return tokens_.id_of_packed(TokenTable::pack(raw) | lowercase_bits, raw.size());
  }
  lowered_.assign(raw);
  for (char& c : lowered_) c |= kLowercaseBit;
  return use_stemmer && lowered_.size() > 3 ? stemmed_id(lowered_) : tokens_.id_of(lowered_);
}

// The id of the stem of `token`; each distinct token is stemmed once per call.
int TokenIdReader::stemmed_id(std::string_view token) {
  const int index = unstemmed_.id_of(token);
  if (static_cast<std::size_t>(index) == stem_ids_.size()) {
    stem_ids_.push_back(tokens_.id_of(porter_stem(token)));
  }
  return stem_ids_[static_cast<std::size_t>(index)];
}


// scan_default_tokens with the token ids appended to `out`, from a bit per byte: the
// tokens' starts and lengths come from bit operations rather than a byte loop, whose
// mispredicted exit at each word end was most of the cost; a token of up to 8 bytes is
// its packed key read in one load. Returns false, with `out` unchanged, for a text with
// U+0130 or U+212A, which only the scalar scan handles; every other non-ASCII byte only
// separates tokens, as it does there.
bool TokenIdReader::append_ascii_ids(std::string_view text, bool use_stemmer, TokenIds& out) {
  if constexpr (std::endian::native != std::endian::little) return false;
  std::vector<std::uint64_t>& bits = token_bits_;
  std::uint64_t any_byte = 0;
  mark_token_bytes(text, bits, any_byte);
  if ((any_byte & byte_masks::kHighs) != 0 &&
      (text.find("\xC4\xB0") != text.npos || text.find("\xE2\x84\xAA") != text.npos)) {
    return false;
  }
  const std::uint64_t lowercase = byte_masks::kOnes * static_cast<unsigned char>(kLowercaseBit);
  std::uint64_t previous_last = 0;  // the bit of the byte before word w
  for (std::size_t w = 0; w + 1 < bits.size(); ++w) {
    std::uint64_t starts = bits[w] & ~((bits[w] << 1) | previous_last);
    previous_last = bits[w] >> 63;
    for (; starts != 0; starts &= starts - 1) {
      const auto offset = static_cast<unsigned>(__builtin_ctzll(starts));
      const std::size_t start = w * 64 + offset;
      // The 64 bits from the token's start on (two shifts: one by 64 would be undefined).
      const std::uint64_t ahead = (bits[w] >> offset) | ((bits[w + 1] << 1) << (63 - offset));
      std::size_t length;
      if (~ahead != 0) {
        length = static_cast<std::size_t>(__builtin_ctzll(~ahead));
      } else {  // a token of 64 bytes or more
        length = 64;
        while (start + length < text.size() &&
               kIsTokenByte[static_cast<unsigned char>(text[start + length])]) {
          ++length;
        }
      }
      if (length <= TokenTable::kMaxPackedBytes && start + 8 <= text.size() &&
          !(use_stemmer && length > 3)) {
        std::uint64_t bytes;
        std::memcpy(&bytes, text.data() + start, 8);
        // Every byte is in [A-Za-z0-9]: the lowercase bit on each lowercases the token.
        const std::uint64_t key = (bytes | lowercase) & (~std::uint64_t{0} >> (64 - 8 * length));
        out.push_back(tokens_.id_of_packed(key, length));
      } else {
        out.push_back(default_token_id(text.substr(start, length), use_stemmer));
      }
    }
  }
  return true;
}

void TokenIdReader::append_ids(std::string_view text, const RougeOptions& options, TokenIds& out) {
  if (options.tokenizer == RougeTokenizer::kUnicode) {
    for (const std::string& token : unicode_tokens(text, options.use_stemmer)) {
      out.push_back(tokens_.id_of(token));
    }
    return;
  }
  if (append_ascii_ids(text, options.use_stemmer, out)) return;
  scan_default_tokens(text, scratch_, [&](std::string_view raw) {
    out.push_back(default_token_id(raw, options.use_stemmer));
  });
}

}  // namespace ragmeter::rouge_internal
