// String similarity measures equal to rapidfuzz's (rapidfuzz.distance.*).
//
// Strings are UTF-8 and compared by Unicode code point, as Python compares str.
// Invalid UTF-8 bytes are compared as single units, each equal only to the same byte (as
// Python's bytes.decode("utf-8", "surrogateescape") makes them). Pure functions, thread-safe.
// No Unicode normalization: "é" (U+00E9) and "e" + U+0301 differ, as in rapidfuzz.
#pragma once

#include <cstddef>
#include <string_view>

namespace ragmeter {

// Edit distance with unit costs (insert, delete, substitute).
std::size_t levenshtein_distance(std::string_view a, std::string_view b);
// 1 - distance / max(len a, len b); 1 for two empty strings
// (= rapidfuzz Levenshtein.normalized_similarity).
double levenshtein_similarity(std::string_view a, std::string_view b);
// Jaro similarity (= rapidfuzz Jaro.similarity); 1 for two empty strings, 0 if one is empty.
double jaro_similarity(std::string_view a, std::string_view b);
// Jaro-Winkler similarity (= rapidfuzz JaroWinkler.similarity): when Jaro > 0.7, adds
// l * prefix_weight * (1 - Jaro) for a common prefix of l <= 4 code points.
// Throws std::invalid_argument unless 0 <= prefix_weight <= 1 (rapidfuzz's ValueError).
double jaro_winkler_similarity(std::string_view a, std::string_view b, double prefix_weight = 0.1);
// Hamming distance; strings of different length are padded (rapidfuzz's pad=True).
std::size_t hamming_distance(std::string_view a, std::string_view b);
// 1 - distance / max(len a, len b) (= rapidfuzz Hamming.normalized_similarity).
double hamming_similarity(std::string_view a, std::string_view b);

}  // namespace ragmeter
