#include "search/random_stream.hpp"

namespace kforge::search {
namespace {

uint64_t splitmix64(uint64_t& x) {
  uint64_t z = (x += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint64_t rotl(uint64_t x, int k) {
  return (x << k) | (x >> (64 - k));
}

}  // namespace

uint64_t derive_seed(uint64_t seed, std::string_view purpose, uint64_t index) {
  // FNV-1a of the purpose, mixed with the seed and the index through SplitMix64.
  uint64_t h = 0xCBF29CE484222325ull;
  for (unsigned char c : purpose) h = (h ^ c) * 0x100000001B3ull;
  uint64_t x = seed ^ h;
  uint64_t a = splitmix64(x);
  x = a ^ index;
  return splitmix64(x);
}

RandomStream::RandomStream(uint64_t seed) {
  for (auto& s : s_) s = splitmix64(seed);
}

uint64_t RandomStream::next() {
  const uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

uint64_t RandomStream::below(uint64_t n) {
  // Rejection keeps the draw uniform for every n.
  const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  for (;;) {
    uint64_t x = next();
    if (x < limit) return x % n;
  }
}

double RandomStream::unit() {
  return static_cast<double>(next() >> 11) * 0x1.0p-53;
}

}  // namespace kforge::search
