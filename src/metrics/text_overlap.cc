// Token-overlap metrics.
//
// SQuAD: official evaluation script v2.0 (normalize_answer, compute_exact, compute_f1).
// K-Precision and answer token recall: Adlakha et al., "Evaluating Correctness and
// Faithfulness of Instruction-Following Models for Question Answering", TACL 2024:
// precision of the response's tokens against the knowledge, and recall of the
// reference's tokens in the response, each as the precision / recall half of token F1.
#include "ragmeter/text_overlap.h"

#include <algorithm>
#include <unordered_map>

#include <unicode/uchar.h>
#include <unicode/unistr.h>

namespace ragmeter {
namespace {

bool is_ascii_punctuation(char32_t c) {
  return c < 128 && std::ispunct(static_cast<int>(c));
}

// Python's \w under re.UNICODE: letters, digits and underscore.
bool is_word_char(char32_t c) { return c == U'_' || u_isalnum(static_cast<UChar32>(c)); }

std::u32string to_lower_code_points(std::string_view text) {
  icu::UnicodeString u = icu::UnicodeString::fromUTF8(
      icu::StringPiece(text.data(), static_cast<int32_t>(text.size())));
  u.toLower();
  std::u32string out;
  out.reserve(static_cast<std::size_t>(u.length()));
  for (int32_t i = 0; i < u.length();) {
    UChar32 c = u.char32At(i);
    out.push_back(static_cast<char32_t>(c));
    i += U16_LENGTH(c);
  }
  return out;
}

// Replaces \b(a|an|the)\b by a space, as the SQuAD script's regex does.
std::u32string remove_articles(const std::u32string& s) {
  static const std::u32string kArticles[] = {U"the", U"an", U"a"};
  std::u32string out;
  out.reserve(s.size());
  std::size_t i = 0;
  while (i < s.size()) {
    bool at_boundary = i == 0 || !is_word_char(s[i - 1]);
    bool replaced = false;
    if (at_boundary) {
      for (const auto& article : kArticles) {
        std::size_t end = i + article.size();
        if (s.compare(i, article.size(), article) == 0 &&
            (end == s.size() || !is_word_char(s[end]))) {
          out.push_back(U' ');
          i = end;
          replaced = true;
          break;
        }
      }
    }
    if (!replaced) out.push_back(s[i++]);
  }
  return out;
}

std::string to_utf8(const std::u32string& s) {
  icu::UnicodeString u = icu::UnicodeString::fromUTF32(
      reinterpret_cast<const UChar32*>(s.data()), static_cast<int32_t>(s.size()));
  std::string out;
  u.toUTF8String(out);
  return out;
}

// Python's str.split(): runs of Unicode whitespace separate tokens.
std::vector<std::u32string> split_whitespace(const std::u32string& s) {
  std::vector<std::u32string> tokens;
  std::u32string current;
  for (char32_t c : s) {
    if (u_isUWhiteSpace(static_cast<UChar32>(c))) {
      if (!current.empty()) tokens.push_back(std::move(current));
      current.clear();
    } else {
      current.push_back(c);
    }
  }
  if (!current.empty()) tokens.push_back(std::move(current));
  return tokens;
}

std::vector<std::u32string> normalized_tokens(std::string_view text) {
  std::u32string lowered = to_lower_code_points(text);
  std::u32string no_punct;
  no_punct.reserve(lowered.size());
  for (char32_t c : lowered) {
    if (!is_ascii_punctuation(c)) no_punct.push_back(c);
  }
  return split_whitespace(remove_articles(no_punct));
}

// Number of tokens of `a` matched in `b`, counting multiplicity (Counter & Counter).
std::size_t multiset_overlap(const std::vector<std::u32string>& a,
                             const std::vector<std::u32string>& b) {
  std::unordered_map<std::u32string, std::size_t> counts;
  for (const auto& t : b) ++counts[t];
  std::size_t common = 0;
  for (const auto& t : a) {
    auto it = counts.find(t);
    if (it != counts.end() && it->second > 0) {
      --it->second;
      ++common;
    }
  }
  return common;
}

double token_f1(const std::vector<std::u32string>& pred, const std::vector<std::u32string>& gold) {
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
  std::u32string joined;
  for (const auto& token : normalized_tokens(text)) {
    if (!joined.empty()) joined.push_back(U' ');
    joined += token;
  }
  return to_utf8(joined);
}

std::vector<std::string> squad_tokens(std::string_view text) {
  std::vector<std::string> out;
  for (const auto& token : normalized_tokens(text)) out.push_back(to_utf8(token));
  return out;
}

double squad_exact_match(std::string_view response, const std::vector<std::string>& references) {
  const auto pred = normalized_tokens(response);
  double best = 0.0;
  for (const auto& reference : references) {
    if (normalized_tokens(reference) == pred) best = 1.0;
  }
  return best;
}

double squad_token_f1(std::string_view response, const std::vector<std::string>& references) {
  const auto pred = normalized_tokens(response);
  double best = 0.0;
  for (const auto& reference : references) {
    best = std::max(best, token_f1(pred, normalized_tokens(reference)));
  }
  return best;
}

double k_precision(std::string_view response, const std::vector<std::string>& contexts) {
  const auto pred = normalized_tokens(response);
  if (pred.empty()) return 0.0;
  std::vector<std::u32string> knowledge;
  for (const auto& context : contexts) {
    auto tokens = normalized_tokens(context);
    knowledge.insert(knowledge.end(), tokens.begin(), tokens.end());
  }
  return static_cast<double>(multiset_overlap(pred, knowledge)) / static_cast<double>(pred.size());
}

double answer_token_recall(std::string_view response, std::string_view reference) {
  const auto gold = normalized_tokens(reference);
  if (gold.empty()) return 0.0;
  return static_cast<double>(multiset_overlap(gold, normalized_tokens(response))) /
         static_cast<double>(gold.size());
}

}  // namespace ragmeter
