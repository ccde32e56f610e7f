// Krippendorff's alpha over a coincidence matrix (Krippendorff, 2011, "Computing
// Krippendorff's alpha-reliability", sections B and C):
//   o_ck = sum over units u of (the ordered pairs of u's values that are (c, k)) / (m_u - 1)
//   n_c = sum_k o_ck, n = sum_c n_c
//   alpha = 1 - (n - 1) sum_ck o_ck d_ck / sum_ck n_c n_k d_ck
// with the distance d of the level of measurement (agreement.h). The matrix is over the
// distinct values of the pairable units, so it is meant for few levels (a label scale),
// not for thousands of distinct continuous values.
#include <algorithm>
#include <vector>

#include "ragmeter/agreement.h"

namespace ragmeter {
namespace {

// d_ck for every pair of value indices; `marginals` are the n_c in value order.
std::vector<double> distances(const std::vector<double>& domain,
                              const std::vector<double>& marginals, AlphaLevel level) {
  const std::size_t v = domain.size();
  std::vector<double> prefix(v + 1, 0.0);  // prefix[i] = n_0 + ... + n_(i-1)
  for (std::size_t i = 0; i < v; ++i) prefix[i + 1] = prefix[i] + marginals[i];
  std::vector<double> d(v * v, 0.0);
  for (std::size_t c = 0; c < v; ++c) {
    for (std::size_t k = 0; k < v; ++k) {
      if (level == AlphaLevel::kNominal) {
        d[c * v + k] = c == k ? 0.0 : 1.0;
      } else if (level == AlphaLevel::kInterval) {
        double diff = domain[c] - domain[k];
        d[c * v + k] = diff * diff;
      } else {
        std::size_t lo = std::min(c, k), hi = std::max(c, k);
        double between = prefix[hi + 1] - prefix[lo] - (marginals[lo] + marginals[hi]) / 2.0;
        d[c * v + k] = between * between;
      }
    }
  }
  return d;
}

}  // namespace

std::optional<double> krippendorff_alpha(const std::vector<std::vector<double>>& units,
                                         AlphaLevel level) {
  std::vector<double> domain;
  for (const auto& unit : units) {
    if (unit.size() >= 2) domain.insert(domain.end(), unit.begin(), unit.end());
  }
  std::sort(domain.begin(), domain.end());
  domain.erase(std::unique(domain.begin(), domain.end()), domain.end());
  if (domain.empty()) return std::nullopt;
  const std::size_t v = domain.size();
  auto index_of = [&](double value) {
    return static_cast<std::size_t>(std::lower_bound(domain.begin(), domain.end(), value) -
                                    domain.begin());
  };
  std::vector<double> coincidences(v * v, 0.0);
  std::vector<std::size_t> indices;
  for (const auto& unit : units) {
    if (unit.size() < 2) continue;
    indices.clear();
    for (double value : unit) indices.push_back(index_of(value));
    const double weight = 1.0 / static_cast<double>(unit.size() - 1);
    for (std::size_t i = 0; i < indices.size(); ++i) {
      for (std::size_t j = 0; j < indices.size(); ++j) {
        if (i != j) coincidences[indices[i] * v + indices[j]] += weight;
      }
    }
  }
  std::vector<double> marginals(v, 0.0);
  double total = 0.0;
  for (std::size_t c = 0; c < v; ++c) {
    for (std::size_t k = 0; k < v; ++k) marginals[c] += coincidences[c * v + k];
    total += marginals[c];
  }
  const std::vector<double> d = distances(domain, marginals, level);
  double observed = 0.0, expected = 0.0;
  for (std::size_t c = 0; c < v; ++c) {
    for (std::size_t k = 0; k < v; ++k) {
      observed += coincidences[c * v + k] * d[c * v + k];
      expected += marginals[c] * marginals[k] * d[c * v + k];
    }
  }
  if (expected == 0.0) return std::nullopt;
  return 1.0 - (total - 1.0) * observed / expected;
}

}  // namespace ragmeter
