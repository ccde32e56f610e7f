// The CMRC 2018 scorer, from its official evaluate script (cmrc2018_evaluate.py, v5;
// ymcui/cmrc2018), read as the script runs under Python 3:
//
//   segments(t) = for each character c of t.lower().strip(): c in PUNCT -> dropped;
//                 U+4E00 <= c <= U+9FA5 -> a token; else -> added to the current run,
//                 and each run (between those characters, and at the end) becomes
//                 nltk.word_tokenize(run)
//   F1(pred, ans) = L = longest run of consecutive segments common to both (find_lcs);
//                   0 if L = 0, else 2PR / (P + R), P = L / |pred|, R = L / |ans|
//   cmrc_f1 = max over answers of F1;   cmrc_em = 1 if some answer equals the
//   prediction once both are lowercased, stripped and cleared of PUNCT
//
// PUNCT is the script's sp_char list; its "……" entry is two characters and never equals
// one, so the ellipsis is not removed. Python 3's lower() and strip() are used (the script
// was written for Python 2, whose unicode.lower() maps the few characters with multi-
// character lowercase forms, like U+0130, differently).
#include "ragmeter/cmrc.h"

#include <unicode/utf8.h>

#include <algorithm>
#include <cstdint>

#include "metrics/nltk_words.h"
#include "metrics/sacrebleu_text.h"

namespace ragmeter {
namespace {

constexpr char32_t kPunctuation[] = U"-:_*^/\\~`+=，。：？！“”；’《》·、「」（）－～『』";

bool is_punctuation(UChar32 c) {
  return std::find(std::begin(kPunctuation), std::end(kPunctuation) - 1,
                   static_cast<char32_t>(c)) != std::end(kPunctuation) - 1;
}

bool is_segment_character(UChar32 c) { return c >= 0x4E00 && c <= 0x9FA5; }

// Calls visit(c, bytes) for each character of text.lower().strip().
template <typename Visit>
void for_each_normalised_character(std::string_view text, Visit visit) {
  std::string lowered;
  sacrebleu_internal::python_lower(text, &lowered);
  const std::string_view stripped = sacrebleu_internal::python_strip(lowered);
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(stripped.data());
  const std::int64_t size = static_cast<std::int64_t>(stripped.size());
  for (std::int64_t i = 0; i < size;) {
    const std::int64_t start = i;
    UChar32 c;
    U8_NEXT(bytes, i, size, c);
    visit(c, stripped.substr(static_cast<std::size_t>(start), static_cast<std::size_t>(i - start)));
  }
}

std::string without_punctuation(std::string_view text) {
  std::string out;
  for_each_normalised_character(text, [&](UChar32 c, std::string_view bytes) {
    if (!is_punctuation(c)) out.append(bytes);
  });
  return out;
}

// find_lcs: the length of the longest common run of consecutive segments.
std::size_t longest_common_run(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::vector<std::size_t> previous(b.size() + 1, 0);
  std::vector<std::size_t> current(b.size() + 1, 0);
  std::size_t longest = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    for (std::size_t j = 0; j < b.size(); ++j) {
      current[j + 1] = a[i] == b[j] ? previous[j] + 1 : 0;
      longest = std::max(longest, current[j + 1]);
    }
    std::swap(previous, current);
  }
  return longest;
}

}  // namespace

std::vector<std::string> cmrc_segments(std::string_view text) {
  std::vector<std::string> segments;
  std::string run;
  const auto flush = [&] {
    if (run.empty()) return;
    for (std::string& word : nltk_internal::nltk_word_tokenize(run)) segments.push_back(std::move(word));
    run.clear();
  };
  for_each_normalised_character(text, [&](UChar32 c, std::string_view bytes) {
    if (is_punctuation(c)) return;
    if (is_segment_character(c)) {
      flush();
      segments.emplace_back(bytes);
    } else {
      run.append(bytes);
    }
  });
  flush();
  return segments;
}

double cmrc_f1(std::string_view prediction, const std::vector<std::string>& answers) {
  const std::vector<std::string> predicted = cmrc_segments(prediction);
  double best = 0.0;
  for (const std::string& answer : answers) {
    const std::vector<std::string> expected = cmrc_segments(answer);
    const std::size_t common = longest_common_run(expected, predicted);
    if (common == 0) continue;
    const double precision = 1.0 * static_cast<double>(common) / static_cast<double>(predicted.size());
    const double recall = 1.0 * static_cast<double>(common) / static_cast<double>(expected.size());
    best = std::max(best, (2 * precision * recall) / (precision + recall));
  }
  return best;
}

double cmrc_exact_match(std::string_view prediction, const std::vector<std::string>& answers) {
  const std::string predicted = without_punctuation(prediction);
  for (const std::string& answer : answers) {
    if (without_punctuation(answer) == predicted) return 1.0;
  }
  return 0.0;
}

}  // namespace ragmeter
