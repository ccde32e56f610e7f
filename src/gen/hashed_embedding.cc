// Feature hashing of the offline judge's term vectors; see include/ragmeter/hashed_embedding.h.
#include "ragmeter/hashed_embedding.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "judge/offline/text_vectors.h"

namespace ragmeter {
namespace {

std::uint64_t fnv1a_64(std::string_view bytes) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

// FNV-1a's low bits depend only on the low bits of each step, so a dimension taken
// modulo a power of two would see a weak 9-bit hash; the finaliser spreads every bit.
std::uint64_t fmix64(std::uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ULL;
  k ^= k >> 33;
  return k;
}

}  // namespace

std::vector<float> hashed_embedding(std::string_view text, int dimensions) {
  if (dimensions <= 0) return {};
  std::vector<double> sum(static_cast<std::size_t>(dimensions), 0.0);
  for (const auto& [term, weight] : offline_text_vector(text).terms) {
    const std::uint64_t hash = fmix64(fnv1a_64(term));
    const double sign = (hash >> 63) != 0 ? -1.0 : 1.0;
    sum[hash % static_cast<std::uint64_t>(dimensions)] += sign * weight;
  }
  double norm = 0.0;
  for (double x : sum) norm += x * x;
  norm = std::sqrt(norm);
  std::vector<float> out(sum.size(), 0.0f);
  if (norm == 0.0) return out;  // no content word, or terms that cancelled exactly
  for (std::size_t i = 0; i < sum.size(); ++i) out[i] = static_cast<float>(sum[i] / norm);
  return out;
}

}  // namespace ragmeter
