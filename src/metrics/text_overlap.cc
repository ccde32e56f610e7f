// Token-overlap metrics.
//
// SQuAD: official evaluation script v2.0 (normalize_answer, compute_exact, compute_f1).
// K-Precision and answer token recall: Adlakha et al., "Evaluating Correctness and
// Faithfulness of Instruction-Following Models for Question Answering", TACL 2024:
// precision of the response's tokens against the knowledge, and recall of the
// reference's tokens in the response, each as the precision / recall half of token F1.
// Outside SQuAD's normalisation (OverlapTokens::kWords) the tokens are ragmeter's words:
// ICU's word break with its dictionaries, each word NFKC case-folded (words.h).
#include "ragmeter/text_overlap.h"

#include <algorithm>
#include <array>
#include <span>
#include <string>
#include <vector>

#include <unicode/uchar.h>
#include <unicode/utf8.h>

#include "metrics/ngram_matches.h"
#include "metrics/sacrebleu_text.h"
#include "ragmeter/words.h"

namespace ragmeter {
namespace {

// string.punctuation: the ASCII bytes that C's ispunct() accepts. ASCII bytes never
// occur inside a multi-byte UTF-8 character, so they can be dropped byte by byte.
constexpr bool is_ascii_punctuation(unsigned char c) {
  return (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60) ||
         (c >= 0x7B && c <= 0x7E);
}

// Python's \w under re.UNICODE: '_' and str.isalnum() (letters, and characters with a
// numeric value: digits, but also '²', '½', 'Ⅻ').
bool is_word_char(UChar32 c) {
  if (c < 0x80) {
    return c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  }
  return u_isalpha(c) || u_getIntPropertyValue(c, UCHAR_NUMERIC_TYPE) != U_NT_NONE;
}

// Whether the character at text[pos] is a word character; false at the end.
bool word_char_at(std::string_view text, std::size_t pos) {
  if (pos >= text.size()) return false;
  const auto byte = static_cast<unsigned char>(text[pos]);
  if (byte < 0x80) return is_word_char(byte);
  UChar32 c;
  auto i = static_cast<int32_t>(pos);
  U8_NEXT(text.data(), i, static_cast<int32_t>(text.size()), c);
  return c >= 0 && is_word_char(c);
}

// The length of the article ("a", "an" or "the") that starts at text[pos] and ends
// before a non-word character or the end, else 0.
std::size_t article_at(std::string_view text, std::size_t pos) {
  const std::string_view rest = text.substr(pos);
  if (rest.starts_with('a')) {
    if (!word_char_at(text, pos + 1)) return 1;
    if (rest.starts_with("an") && !word_char_at(text, pos + 2)) return 2;
    return 0;
  }
  if (rest.starts_with("the") && !word_char_at(text, pos + 3)) return 3;
  return 0;
}

// SQuAD's normalize_answer(text).split(): the tokens are the units of `units`, views
// into `text`, which it owns; as units, the n-gram matcher counts their overlap.
struct SquadTokens {
  std::string text;
  sacrebleu_internal::NGramSequence units;
  std::vector<std::string_view> split;  // scratch for the general path
  std::vector<std::size_t> key_ends;    // scratch for the word path: where each key ends

  std::size_t size() const { return units.size(); }
  bool empty() const { return units.size() == 0; }
  std::string_view token(std::size_t i) const { return units.unit(i); }
};

bool same_tokens(const SquadTokens& a, const SquadTokens& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a.token(i) != b.token(i)) return false;
  }
  return true;
}

// What the ASCII fast path does with each byte: drops it (kDrop), makes it a space
// (kSpace), or gives up (kGiveUp: a control character, around which \b can split a
// token, or a non-ASCII byte); any other value is the byte to keep, lowercased.
constexpr unsigned char kDrop = 0;
constexpr unsigned char kSpace = ' ';
constexpr unsigned char kGiveUp = 0xFF;

constexpr std::array<unsigned char, 256> kAsciiActions = [] {
  std::array<unsigned char, 256> actions{};
  for (int c = 0; c < 256; ++c) {
    const auto byte = static_cast<unsigned char>(c);
    if (c >= 0x80 || c < 0x09 || (c > 0x0D && c < 0x1C) || c == 0x7F) {
      actions[c] = kGiveUp;
    } else if ((c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20)) {
      actions[c] = kSpace;  // Python's str.split() separators
    } else if (is_ascii_punctuation(byte)) {
      actions[c] = kDrop;
    } else {
      actions[c] = (c >= 'A' && c <= 'Z') ? static_cast<unsigned char>(c - 'A' + 'a') : byte;
    }
  }
  return actions;
}();

// normalize_into for ASCII text without control characters, in two passes: lowercase
// without punctuation and with one kind of space, then the words but for the
// articles. Without control characters every character left is a word character or a
// space, so \b(a|an|the)\b can only match a whole word. Returns false, having
// changed nothing in `out` but its text, for any other text.
bool normalize_ascii_into(std::string_view text, SquadTokens* out) {
  std::string& s = out->text;
  s.resize(text.size());
  std::size_t write = 0;
  unsigned char give_up = 0;
  for (char c : text) {
    const unsigned char action = kAsciiActions[static_cast<unsigned char>(c)];
    give_up |= action == kGiveUp ? 1 : 0;
    s[write] = static_cast<char>(action);
    write += action != kDrop ? 1 : 0;
  }
  if (give_up != 0) return false;
  s.resize(write);
  out->units.clear();
  for (std::size_t i = 0; i < s.size();) {
    if (s[i] == ' ') {
      ++i;
      continue;
    }
    const std::size_t end = std::min(s.find(' ', i), s.size());
    const std::string_view word(s.data() + i, end - i);
    if (word != "a" && word != "an" && word != "the") sacrebleu_internal::append_word(word, &out->units);
    i = end;
  }
  return true;
}

// normalize_answer: lower(), then every ASCII punctuation character removed, then
// \b(a|an|the)\b replaced by a space, then split on Python's whitespace. In place in
// out->text: each step only shortens the text.
void normalize_into(std::string_view text, SquadTokens* out) {
  if (normalize_ascii_into(text, out)) return;
  std::string& s = out->text;
  sacrebleu_internal::python_lower(text, &s);
  s.erase(std::remove_if(s.begin(), s.end(),
                         [](char c) { return is_ascii_punctuation(static_cast<unsigned char>(c)); }),
          s.end());
  // The \b before an article depends on the character before it in the text being
  // rewritten, so that character's kind is carried along instead of read back.
  std::size_t read = 0;
  std::size_t write = 0;
  bool after_word_char = false;
  while (read < s.size()) {
    if (!after_word_char) {
      if (const std::size_t length = article_at(s, read)) {
        s[write++] = ' ';
        read += length;
        after_word_char = true;  // the article's last letter
        continue;
      }
    }
    const auto byte = static_cast<unsigned char>(s[read]);
    if (byte < 0x80) {
      after_word_char = is_word_char(byte);
      s[write++] = s[read++];
      continue;
    }
    UChar32 c;
    auto next = static_cast<int32_t>(read);
    U8_NEXT(s.data(), next, static_cast<int32_t>(s.size()), c);
    after_word_char = c >= 0 && is_word_char(c);
    while (read < static_cast<std::size_t>(next)) s[write++] = s[read++];
  }
  s.resize(write);
  sacrebleu_internal::python_split(s, &out->split);
  out->units.clear();
  for (std::string_view token : out->split) sacrebleu_internal::append_word(token, &out->units);
}

// The word path: `text`'s words (split_words), each as its key (append_word_key), the
// keys held one after another in out->text.
void words_into(std::string_view text, SquadTokens* out) {
  split_words_into(text, &out->split);
  std::string& keys = out->text;
  keys.clear();
  out->key_ends.clear();
  for (std::string_view word : out->split) {
    append_word_key(word, &keys);
    out->key_ends.push_back(keys.size());
  }
  out->units.clear();
  std::size_t start = 0;
  for (std::size_t end : out->key_ends) {  // views taken once `keys` no longer grows
    sacrebleu_internal::append_word(std::string_view(keys).substr(start, end - start), &out->units);
    start = end;
  }
}

void tokens_into(std::string_view text, OverlapTokens tokens, SquadTokens* out) {
  if (tokens == OverlapTokens::kWords) {
    words_into(text, out);
  } else {
    normalize_into(text, out);
  }
}

// Per-thread buffers: the response's and a reference's tokens, reused from call to call.
struct SquadWorkspace {
  SquadTokens first;
  SquadTokens second;
  sacrebleu_internal::NGramMatches matches;
  std::string contexts;  // k_precision: the contexts joined
};

SquadWorkspace& workspace() {
  thread_local SquadWorkspace buffers;
  return buffers;
}

// Number of tokens of `a` matched in `b`, counting multiplicity (Counter & Counter):
// the unigram matches of BLEU's matcher.
std::size_t multiset_overlap(const SquadTokens& a, const SquadTokens& b) {
  SquadWorkspace& buffers = workspace();
  sacrebleu_internal::match_ngrams(a.units, std::span<const sacrebleu_internal::NGramSequence>(&b.units, 1), 1,
                                   &buffers.matches);
  return static_cast<std::size_t>(buffers.matches.max_reference[0]);
}

double token_f1(const SquadTokens& pred, const SquadTokens& gold) {
  if (pred.empty() || gold.empty()) return pred.empty() && gold.empty() ? 1.0 : 0.0;
  std::size_t common = multiset_overlap(pred, gold);
  if (common == 0) return 0.0;
  double precision = static_cast<double>(common) / static_cast<double>(pred.size());
  double recall = static_cast<double>(common) / static_cast<double>(gold.size());
  return 2.0 * precision * recall / (precision + recall);
}

}  // namespace

double exact_match(std::string_view response, std::string_view reference) {
  return response == reference ? 1.0 : 0.0;
}

double string_presence(std::string_view response, std::string_view reference) {
  return response.find(reference) != std::string_view::npos ? 1.0 : 0.0;
}

std::string squad_normalize(std::string_view text) {
  SquadTokens normalized;
  normalize_into(text, &normalized);
  std::string joined;
  for (std::size_t i = 0; i < normalized.size(); ++i) {
    if (i > 0) joined.push_back(' ');
    joined += normalized.token(i);
  }
  return joined;
}

std::vector<std::string> squad_tokens(std::string_view text) {
  SquadTokens normalized;
  normalize_into(text, &normalized);
  std::vector<std::string> tokens;
  for (std::size_t i = 0; i < normalized.size(); ++i) tokens.emplace_back(normalized.token(i));
  return tokens;
}

double squad_exact_match(std::string_view response, const std::vector<std::string>& references) {
  SquadWorkspace& buffers = workspace();
  normalize_into(response, &buffers.first);
  bool any_reference = false;  // with a token, that is
  for (const auto& reference : references) {
    normalize_into(reference, &buffers.second);
    if (buffers.second.empty()) continue;
    any_reference = true;
    if (same_tokens(buffers.second, buffers.first)) return 1.0;
  }
  // Against the empty reference that stands in for none.
  return !any_reference && buffers.first.empty() ? 1.0 : 0.0;
}

OverlapTokens overlap_tokens_for(std::string_view language) {
  const bool english = language.empty() || language == "en" || language == "und";
  return english ? OverlapTokens::kSquad : OverlapTokens::kWords;
}

double squad_token_f1(std::string_view response, const std::vector<std::string>& references) {
  return token_f1(response, references, OverlapTokens::kSquad);
}

double token_f1(std::string_view response, const std::vector<std::string>& references,
                OverlapTokens tokens) {
  SquadWorkspace& buffers = workspace();
  tokens_into(response, tokens, &buffers.first);
  double best = 0.0;
  bool any_reference = false;  // with a token, that is
  for (const auto& reference : references) {
    tokens_into(reference, tokens, &buffers.second);
    if (buffers.second.empty()) continue;
    any_reference = true;
    best = std::max(best, token_f1(buffers.first, buffers.second));
  }
  // Against the empty reference that stands in for none.
  if (!any_reference) return buffers.first.empty() ? 1.0 : 0.0;
  return best;
}

double k_precision(std::string_view response, const std::vector<std::string>& contexts,
                   OverlapTokens tokens) {
  SquadWorkspace& buffers = workspace();
  tokens_into(response, tokens, &buffers.first);
  if (buffers.first.empty()) return 0.0;
  // Every context's tokens at once: the contexts joined by a space (a separator, so
  // no token spans two contexts; normalization never joins across whitespace).
  std::string& joined = buffers.contexts;
  joined.clear();
  for (const auto& context : contexts) {
    joined += context;
    joined += ' ';
  }
  tokens_into(joined, tokens, &buffers.second);
  return static_cast<double>(multiset_overlap(buffers.first, buffers.second)) /
         static_cast<double>(buffers.first.size());
}

double answer_token_recall(std::string_view response, std::string_view reference,
                           OverlapTokens tokens) {
  SquadWorkspace& buffers = workspace();
  tokens_into(reference, tokens, &buffers.first);
  if (buffers.first.empty()) return 0.0;
  tokens_into(response, tokens, &buffers.second);
  return static_cast<double>(multiset_overlap(buffers.first, buffers.second)) /
         static_cast<double>(buffers.first.size());
}

}  // namespace ragmeter
