// Packed tables (generator/packed_rows.hpp): what the generated host function's kf_unpack expands
// is the rows as they were, whatever repeats among them, and a block of rows repeated with a
// constant step is written once.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "generator/packed_rows.hpp"

namespace kforge::generator {
namespace {

std::vector<int64_t> flat(const std::vector<std::vector<int64_t>>& rows) {
  std::vector<int64_t> out;
  for (const auto& row : rows) out.insert(out.end(), row.begin(), row.end());
  return out;
}

// An RNN's launch rows: three kernels a step, each step's pointers further by a stride, between
// rows that repeat nothing; then a block whose repeats stop matching halfway.
TEST(PackedRows, StepsRepeatedWithAStrideAreWrittenOnce) {
  std::vector<std::vector<int64_t>> rows = {{7, 1, 2}, {8, 5}};
  for (int64_t t = 0; t < 500; ++t) {
    rows.push_back({0, 1280, 256, 100 + t, 0, 14844, 768 * t});
    rows.push_back({1, 3, 256, 100 + t, 0});
    rows.push_back({2, 1280, 256, 600 + 2 * t, 0, 7, 0, 9, 64 * t});
  }
  rows.push_back({-3, 4});
  for (int64_t t = 0; t < 10; ++t) rows.push_back({5, t < 6 ? 2 * t : 100 + t});
  const std::string packed = packed_rows(rows, "  ");
  EXPECT_EQ(unpacked_rows(packed), flat(rows)) << packed;
  EXPECT_NE(packed.find("  500, 21,\n    0, 1280, 256, 100, 0, 14844, 0,\n"), std::string::npos)
      << packed;
  EXPECT_NE(packed.find("    0, 0, 0, 1, 0, 0, 768,\n"), std::string::npos)
      << "the step: " << packed;
  EXPECT_NE(packed.find("  6, 2,\n    5, 0,\n    0, 2,\n"), std::string::npos) << packed;
  EXPECT_LT(packed.size(), 400u) << packed;
}

// Rows of random widths and values, some runs of them repeated with random steps, others
// repeated almost: unpacked, always the rows.
TEST(PackedRows, UnpackedTheyAreTheRowsWhateverRepeats) {
  std::mt19937_64 random(36);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<std::vector<int64_t>> rows;
    while (rows.size() < 300) {
      const size_t period = 1 + random() % 5, repeats = random() % 8;
      std::vector<std::vector<int64_t>> block(period), step(period);
      for (size_t r = 0; r < period; ++r)
        for (size_t k = 1 + random() % 6; k > 0; --k) {
          block[r].push_back(static_cast<int64_t>(random() % 2000) - 1000);
          step[r].push_back(static_cast<int64_t>(random() % 3) *
                            static_cast<int64_t>(random() % 400));
        }
      for (size_t j = 0; j < repeats; ++j)
        for (size_t r = 0; r < period; ++r) {
          auto row = block[r];
          for (size_t k = 0; k < row.size(); ++k) row[k] += static_cast<int64_t>(j) * step[r][k];
          if (random() % 50 == 0) row.back() += 1;  // a repeat that is not quite one
          rows.push_back(row);
        }
    }
    const std::string packed = packed_rows(rows, "");
    ASSERT_EQ(unpacked_rows(packed), flat(rows)) << "trial " << trial << ":\n" << packed;
  }
}

}  // namespace
}  // namespace kforge::generator
