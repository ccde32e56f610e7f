// The offline judge's embeddings and entities: classical, deterministic, no model.
//
// A text's vector is a sparse bag of its content words (content_terms: offline_tokenize's
// keys, lowercased, Snowball-stemmed, numbers normalised, stopwords dropped; in a script
// written without spaces, ragmeter's words), each weighted
// 1 + ln(count) and the whole vector scaled to unit length. Similarity is the cosine of
// two such vectors: 1 for the same content words in the same proportions, 0 for no word
// in common. It sees words, not meaning: "car" and "automobile" are unrelated. The
// vectors are not fitted on the dataset (no IDF), so one sample's score never depends
// on the other rows; docs/judges.md reports how well this agrees with human labels.
//
// Thread-safe: every function here is pure (per-thread stemmers).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ragmeter {

// A sparse unit vector: (term, weight) pairs sorted by term, no repeats. Empty for a
// text with no content word.
struct TextVector {
  std::vector<std::pair<std::string, double>> terms;
};

// The content words of `text` in order, repeats kept: offline_tokenize's keys of its
// tokens that are not stopwords; a token holding letters of a script written without
// spaces (Chinese, Japanese, Thai, ...: is_unspaced_script, language.h), which
// offline_tokenize would keep as one "word" up to the next space or punctuation, is
// split by ICU's word break instead, each word as append_word_key makes it (words.h;
// no stopwords are dropped there). Text without such letters costs one extra byte scan.
std::vector<std::string> content_terms(std::string_view text);

TextVector offline_text_vector(std::string_view text);

// Cosine of two vectors; 0 when either is empty.
double cosine_similarity(const TextVector& a, const TextVector& b);

// Convenience: cosine of the two texts' offline vectors.
double offline_similarity(std::string_view a, std::string_view b);

// The entities of `text`, normalised for matching, in order of first occurrence, no
// repeats: maximal runs of capitalised words ("Arthur's Magazine", "New York City";
// a sentence's first word only when the next word is capitalised too or it is written
// in capitals, "NASA"), each lowercased with a possessive "'s" removed and words
// joined by one space; and every number (offline_tokenize's normalised digits: "1,000"
// -> "1000", "19th" -> "19"). Punctuation or a lowercase word ends a run, except "of",
// "the", "de", "von" and "van" between two capitalised words ("Bank of America"); "and"
// always ends it ("Paris and London" are two entities, so "Procter and Gamble" is too).
std::vector<std::string> offline_entities(std::string_view text);

}  // namespace ragmeter
