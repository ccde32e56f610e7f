// chrF and chrF++, compatible with sacreBLEU's CHRF (Popovic, 2015 and 2017).
//
// Pure functions, thread-safe. Scores are on a 0..1 scale: sacreBLEU's score / 100.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ragmeter {

struct ChrfOptions {
  int char_order = 6;   // sacreBLEU default
  int word_order = 0;   // 0: chrF; 2: chrF++
  double beta = 2.0;    // recall weighted beta times as much as precision
  bool lowercase = false;
  bool whitespace = false;  // keep whitespace in character n-grams
  bool eps_smoothing = false;  // sacreBLEU's eps_smoothing (off: the chrF++.py effective-order rule)
};

// Additive sufficient statistics for one segment against its best reference, as
// sacreBLEU (per order: hyp count, ref count, matches; characters first, then words).
std::vector<double> chrf_statistics(std::string_view hypothesis,
                                    const std::vector<std::string>& references,
                                    const ChrfOptions& options = {});

// chrF in 0..1 from (summed) statistics, as sacreBLEU's corpus_score.
double chrf_from_statistics(const std::vector<double>& stats, const ChrfOptions& options = {});

// Sentence chrF in 0..1 = sacreBLEU's CHRF(...).sentence_score(...).score / 100.
double sentence_chrf(std::string_view hypothesis, const std::vector<std::string>& references,
                     const ChrfOptions& options = {});

// Corpus chrF in 0..1; references[i] holds the references of hypotheses[i].
double corpus_chrf(const std::vector<std::string>& hypotheses,
                   const std::vector<std::vector<std::string>>& references,
                   const ChrfOptions& options = {});

}  // namespace ragmeter
