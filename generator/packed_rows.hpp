// Integer tables that repeat with a stride, packed. A long host function's tables (an RNN's launch
// rows, generator/host_table.hpp; its stored tensors' shapes, generator/generate.cpp) are a few
// rows repeated step after step, each pointer a constant number of places further: KernelBench's
// 36_LSTMHn at full size wrote 14838 launch rows (987 KB) and 14843 tensors' shapes and types
// (436 KB), a 1.5 MB source past the 256 KB an experiment accepts by default. Packed, a block of
// rows repeated n times, each time moved by the same step, is written once with its step.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kforge::generator {

/// A run of fewer repeats than this is written as it is.
inline constexpr size_t kPackedRepeats = 3;
/// The most rows a repeated block holds.
inline constexpr size_t kPackedPeriod = 64;

/// The elements of a packed table (kf_unpack's argument, for a `static constexpr int64_t x[]`),
/// a line a row indented by `indent`: segments of `n, w` and then `w` integers, the rows as they
/// are where n is 1, else a block of rows and its step, the block repeated n times, its j-th
/// repeat the block plus j times the step. Unpacked, it is `rows` one after another.
std::string packed_rows(const std::vector<std::vector<int64_t>>& rows, const std::string& indent);

/// What kf_unpack makes of a packed table: the integers of `packed` (packed_rows' text), expanded
/// (for tests).
std::vector<int64_t> unpacked_rows(const std::string& packed);

/// The host's expander, kf_unpack(table), for the source's prelude.
const char* packed_rows_prelude();

}  // namespace kforge::generator
