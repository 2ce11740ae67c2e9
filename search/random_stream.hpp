// Seeded random streams: every random choice of an experiment draws from a stream derived from
// the experiment's seed, a purpose and an index, so a choice never depends on the order in which
// other work happened to finish. SplitMix64 derives the streams; xoshiro256** generates.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace kforge::search {

/// A 64-bit seed for (seed, purpose, index): "propose" 17 and "select" 17 are unrelated.
uint64_t derive_seed(uint64_t seed, std::string_view purpose, uint64_t index);

class RandomStream {
 public:
  explicit RandomStream(uint64_t seed);
  uint64_t next();
  /// Uniform in [0, n); n must be positive.
  uint64_t below(uint64_t n);
  /// Uniform in [0, 1).
  double unit();
  /// True with probability p.
  bool chance(double p) { return unit() < p; }

 private:
  uint64_t s_[4];
};

}  // namespace kforge::search
