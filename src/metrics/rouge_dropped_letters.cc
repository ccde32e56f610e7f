// rouge_dropped_letters_note (rouge.h): what rouge-score's default tokenizer drops.
//
// rouge-score's tokenize.py lowercases the text and replaces every character outside
// [a-z0-9] with a space, so a letter or digit of any other script (a Chinese answer, the
// é of "café") is gone before the n-grams are counted. Two non-ASCII letters survive as
// ASCII after lowercasing: U+0130 (İ -> i + a combining dot) and U+212A (the Kelvin sign
// -> k); they are not counted as dropped.
#include <unicode/uchar.h>
#include <unicode/uscript.h>
#include <unicode/utf8.h>

#include <cstdint>
#include <string>

#include "ragmeter/rouge.h"

namespace ragmeter {
namespace {

struct LetterCount {
  std::int64_t kept = 0;     // ASCII letters and digits
  std::int64_t dropped = 0;  // other letters and digits
  UChar32 first_dropped = 0;
};

// Most texts are ASCII, where the tokenizer drops no letter: one pass the compiler vectorises.
bool is_ascii(std::string_view text) {
  unsigned char any = 0;
  for (char c : text) any |= static_cast<unsigned char>(c);
  return any < 0x80;
}

bool is_letter_or_digit(UChar32 c) {
  return (U_GET_GC_MASK(c) & (U_GC_L_MASK | U_GC_N_MASK)) != 0;
}

LetterCount count_letters(std::string_view text) {
  LetterCount count;
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(text.data());
  const std::int64_t size = static_cast<std::int64_t>(text.size());
  for (std::int64_t i = 0; i < size;) {
    UChar32 c;
    U8_NEXT(bytes, i, size, c);
    if (c < 0 || !is_letter_or_digit(c)) continue;
    if (c < 0x80 || c == 0x130 || c == 0x212A) {
      ++count.kept;
    } else {
      if (count.dropped == 0) count.first_dropped = c;
      ++count.dropped;
    }
  }
  return count;
}

std::string script_name(UChar32 c) {
  UErrorCode error = U_ZERO_ERROR;
  const UScriptCode script = uscript_getScript(c, &error);
  const char* name = U_SUCCESS(error) ? uscript_getName(script) : nullptr;
  return name != nullptr ? name : "non-ASCII";
}

// "the response", "the reference" or "the response and the reference".
std::string which_texts(bool response, bool reference) {
  if (response && reference) return "the response and the reference";
  return response ? "the response" : "the reference";
}

}  // namespace

std::string rouge_dropped_letters_note(std::string_view response, std::string_view reference,
                                       const RougeOptions& options) {
  if (options.tokenizer != RougeTokenizer::kDefault) return {};
  if (is_ascii(response) && is_ascii(reference)) return {};
  const LetterCount r = count_letters(response);
  const LetterCount g = count_letters(reference);
  if (r.dropped == 0 && g.dropped == 0) return {};
  const bool all_r = r.dropped > 0 && r.kept == 0;
  const bool all_g = g.dropped > 0 && g.kept == 0;
  const std::string script = script_name(r.dropped > 0 ? r.first_dropped : g.first_dropped);
  std::string note = "rouge-score's default tokenizer keeps ASCII letters and digits only: ";
  if (all_r || all_g) {
    note += "it dropped every letter of " + which_texts(all_r, all_g) + " (" + script +
            "), so the score counts nothing of " + (all_r && all_g ? "them" : "it");
  } else {
    note += "it dropped the " + script + " letters of " +
            which_texts(r.dropped > 0, g.dropped > 0);
  }
  return note + "; --rouge-tokenizer unicode keeps every script";
}

}  // namespace ragmeter
