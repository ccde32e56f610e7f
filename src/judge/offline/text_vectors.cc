// Sparse bag-of-stems vectors and capitalised-run entities for the offline judge.
// Behaviour is documented in src/judge/offline/text_vectors.h.
#include "judge/offline/text_vectors.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "ragmeter/language.h"
#include "ragmeter/offline_judge.h"
#include "ragmeter/words.h"

namespace ragmeter {
namespace {

// True when only spaces or hyphens separate two tokens: they can belong to one name.
bool joined(std::string_view text, const OfflineToken& left, const OfflineToken& right) {
  std::string_view gap = text.substr(left.end, right.begin - left.end);
  return !gap.empty() && gap.find_first_not_of(" -") == std::string_view::npos;
}

// True when the token starts a sentence: nothing but white space before it, or the last
// non-space character before it ends a sentence.
bool starts_sentence(std::string_view text, const OfflineToken& token) {
  std::size_t i = token.begin;
  while (i > 0 && (text[i - 1] == ' ' || text[i - 1] == '\t')) --i;
  if (i == 0) return true;
  char before = text[i - 1];
  return before == '.' || before == '!' || before == '?' || before == '\n' || before == ':' ||
         before == '"';
}

bool all_capitals(std::string_view word) {
  int letters = 0;
  for (char c : word) {
    if (c >= 'a' && c <= 'z') return false;
    if (c >= 'A' && c <= 'Z') ++letters;
  }
  return letters >= 2;
}

bool name_connector(const std::string& folded) {
  return folded == "of" || folded == "the" || folded == "de" ||
         folded == "von" || folded == "van";
}

std::string surface(std::string_view text, const OfflineToken& token) {
  std::string word = offline_fold_case(text.substr(token.begin, token.end - token.begin));
  if (word.ends_with("'s")) word.resize(word.size() - 2);
  return word;
}

}  // namespace

std::vector<std::string> content_terms(std::string_view text) {
  std::vector<std::string> terms;
  const bool unspaced = has_unspaced_letters(text);
  for (OfflineToken& token : offline_tokenize(text)) {
    const std::string_view span = text.substr(token.begin, token.end - token.begin);
    if (unspaced && has_unspaced_letters(span)) {
      for (std::string_view word : split_words(span)) {
        std::string key;
        append_word_key(word, &key);
        terms.push_back(std::move(key));
      }
    } else if (!token.stopword && !token.key.empty()) {
      terms.push_back(std::move(token.key));
    }
  }
  return terms;
}

TextVector offline_text_vector(std::string_view text) {
  std::map<std::string, int> counts;
  for (std::string& term : content_terms(text)) ++counts[std::move(term)];
  TextVector vector;
  double norm = 0.0;
  for (const auto& [term, count] : counts) {
    double weight = 1.0 + std::log(static_cast<double>(count));
    vector.terms.emplace_back(term, weight);
    norm += weight * weight;
  }
  norm = std::sqrt(norm);
  for (auto& term : vector.terms) term.second /= norm;
  return vector;
}

double cosine_similarity(const TextVector& a, const TextVector& b) {
  double dot = 0.0;
  auto i = a.terms.begin();
  auto j = b.terms.begin();
  while (i != a.terms.end() && j != b.terms.end()) {
    if (i->first < j->first) {
      ++i;
    } else if (j->first < i->first) {
      ++j;
    } else {
      dot += i->second * j->second;
      ++i;
      ++j;
    }
  }
  return std::clamp(dot, -1.0, 1.0);
}

double offline_similarity(std::string_view a, std::string_view b) {
  return cosine_similarity(offline_text_vector(a), offline_text_vector(b));
}

std::vector<std::string> offline_entities(std::string_view text) {
  const std::vector<OfflineToken> tokens = offline_tokenize(text);
  std::vector<std::string> out;
  auto add = [&](std::string entity) {
    if (!entity.empty() && std::find(out.begin(), out.end(), entity) == out.end()) {
      out.push_back(std::move(entity));
    }
  };
  auto is_name_word = [&](std::size_t i) {
    const OfflineToken& token = tokens[i];
    if (!token.capitalized || token.number != NumberKind::kNone) return false;
    if (!starts_sentence(text, token)) return !token.stopword;
    std::string_view word = text.substr(token.begin, token.end - token.begin);
    if (all_capitals(word)) return true;
    return i + 1 < tokens.size() && tokens[i + 1].capitalized && joined(text, token, tokens[i + 1]) &&
           !token.stopword;
  };
  std::size_t i = 0;
  while (i < tokens.size()) {
    if (tokens[i].number != NumberKind::kNone) {
      add(tokens[i].key);
      ++i;
      continue;
    }
    if (!is_name_word(i)) {
      ++i;
      continue;
    }
    std::string entity = surface(text, tokens[i]);
    std::size_t j = i + 1;
    while (j < tokens.size() && joined(text, tokens[j - 1], tokens[j])) {
      if (tokens[j].capitalized && tokens[j].number == NumberKind::kNone) {
        entity += " " + surface(text, tokens[j]);
        ++j;
        continue;
      }
      // "Bank of America": a connector between two capitalised words stays inside.
      std::string folded = surface(text, tokens[j]);
      if (name_connector(folded) && j + 1 < tokens.size() && tokens[j + 1].capitalized &&
          joined(text, tokens[j], tokens[j + 1])) {
        entity += " " + folded + " " + surface(text, tokens[j + 1]);
        j += 2;
        continue;
      }
      break;
    }
    add(std::move(entity));
    i = j;
  }
  return out;
}

}  // namespace ragmeter
