// String similarity measures equal to rapidfuzz's (rapidfuzz.distance.*).
//
// Strings are UTF-8 and compared by Unicode code point, as Python compares str.
// Invalid UTF-8 bytes are compared as single units. Pure functions, thread-safe.
#pragma once

#include <cstddef>
#include <string_view>

namespace ragmeter {

// Edit distance with unit costs (insert, delete, substitute).
std::size_t levenshtein_distance(std::string_view a, std::string_view b);
// 1 - distance / max(len a, len b); 1 for two empty strings
// (= rapidfuzz Levenshtein.normalized_similarity).
double levenshtein_similarity(std::string_view a, std::string_view b);
// Jaro similarity (= rapidfuzz Jaro.similarity).
double jaro_similarity(std::string_view a, std::string_view b);
// Jaro-Winkler similarity with prefix weight (= rapidfuzz JaroWinkler.similarity).
double jaro_winkler_similarity(std::string_view a, std::string_view b, double prefix_weight = 0.1);
// Hamming distance; strings of different length are padded (rapidfuzz's pad=True).
std::size_t hamming_distance(std::string_view a, std::string_view b);
// 1 - distance / max(len a, len b) (= rapidfuzz Hamming.normalized_similarity).
double hamming_similarity(std::string_view a, std::string_view b);

}  // namespace ragmeter
