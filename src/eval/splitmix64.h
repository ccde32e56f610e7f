// The project's small reproducible generator (internal to src/eval): splitmix64 with
// Lemire's multiply-shift bounded draw. Used instead of <random>'s distributions, whose
// output differs between standard libraries: a seed gives the same draws everywhere.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ragmeter {

class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n) by Lemire's multiply-shift (bias < n / 2^64, negligible here).
  std::size_t below(std::size_t n) {
    return static_cast<std::size_t>((static_cast<unsigned __int128>(next()) * n) >> 64);
  }

 private:
  std::uint64_t state_;
};

// The generator of bootstrap resample `index` under `seed`: each resample has its own,
// so resamples can run on any number of threads and still draw the same values.
inline SplitMix64 resample_generator(std::uint64_t seed, std::size_t index) {
  return SplitMix64(SplitMix64(seed ^ (0xD1B54A32D192ED03ULL * (index + 1))).next());
}

}  // namespace ragmeter
