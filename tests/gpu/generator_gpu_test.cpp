// The kernel generator on the CUDA backend: every case of the op table is correct on the GPU,
// with the default choices and with the other group shapes (a thread, a warp, the block per
// reduced row) the built-in proposer searches, with library calls for the heavy operators, and
// with the contractions on the tensor cores (TF32) at KernelBench's tolerance.
#include <algorithm>

#include <gtest/gtest.h>

#include "tests/generator/op_cases.hpp"

namespace kforge::test {
namespace {

/// The op case's task folder, written for the CUDA cases.
std::string cuda_case(const OpCase& c) {
  return write_op_task(c, std::filesystem::temp_directory_path() / "kforge_generator_cuda_cases");
}

class GeneratedCuda : public testing::TestWithParam<OpCase> {};

TEST_P(GeneratedCuda, IsCorrectOnEveryShapeSet) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  const auto dir = cuda_case(GetParam());
  EXPECT_EQ(check_generated(dir, evaluation::Backend::cuda), "");
}

INSTANTIATE_TEST_SUITE_P(Ops, GeneratedCuda, testing::ValuesIn(op_cases()),
                         [](const auto& info) { return info.param.name; });
// Products large enough for the tiled contraction kernel, with the default choices: by size they
// are few outputs, computed untiled (GeneratedCudaTiled below runs them in tiles).
INSTANTIATE_TEST_SUITE_P(Contractions, GeneratedCuda, testing::ValuesIn(tensor_core_cases()),
                         [](const auto& info) { return info.param.name; });

// A table's launches replay as one CUDA graph (kf_graph, generator/table_graph.hpp): the timing
// calls the kernel again and again on its rotated input sets (the graph captured on the first
// call, its device table refilled with each set's pointers), then on inputs refilled in place,
// where a replay must answer the new values. The kernel trace, recorded after the timing, holds
// the graph's kernels (kX_graph), and the kernel printed no word of a refused capture.
TEST(GeneratedCudaGraphs, AReplayedTableAnswersInputsRefilledInPlace) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  OpCase c = op_cases_named({"stacked_layers"}).at(0);
  c.name += "_timed";
  EXPECT_EQ(check_generated_timed(cuda_case(c), "kf_replay.run(", "_graph", "refused"), "");
}

class GeneratedCudaTiled : public testing::TestWithParam<OpCase> {};

TEST_P(GeneratedCudaTiled, IsCorrectOnEveryShapeSetInTiles) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  const auto dir = cuda_case(GetParam());
  EXPECT_EQ(check_generated_tiled(dir), "");
}

INSTANTIATE_TEST_SUITE_P(Contractions, GeneratedCudaTiled, testing::ValuesIn(tensor_core_cases()),
                         [](const auto& info) { return info.param.name; });

// Overlapping windows with neighbouring outputs a thread (the choice `window`), 2 and 8 of them:
// every load issued whatever its border check says, at an offset kept inside its buffer.
class GeneratedCudaWindows : public testing::TestWithParam<std::tuple<OpCase, int>> {};

TEST_P(GeneratedCudaWindows, IsCorrectWithNeighbouringOutputsAThread) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  const auto& [c, window] = GetParam();
  OpCase named = c;
  named.name += "_window" + std::to_string(window);
  const auto dir = cuda_case(named);
  EXPECT_EQ(check_generated_windows(dir, window), "");
}

INSTANTIATE_TEST_SUITE_P(Ops, GeneratedCudaWindows,
                         testing::Combine(testing::ValuesIn(window_cases()), testing::Values(2, 8)),
                         [](const auto& info) {
                           return std::get<0>(info.param).name + "_" +
                                  std::to_string(std::get<1>(info.param));
                         });
// Four neighbouring outputs a thread with the choice interior: a thread whose outputs' windows all
// lie inside the input walks them without checks, the others with them.
class GeneratedCudaWindowsInterior : public testing::TestWithParam<OpCase> {};

TEST_P(GeneratedCudaWindowsInterior, IsCorrectWithNeighbouringOutputsInsideTheInputUnchecked) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  OpCase named = GetParam();
  named.name += "_window_interior";
  EXPECT_EQ(check_generated_windows(cuda_case(named), 4, true), "");
}

INSTANTIATE_TEST_SUITE_P(Ops, GeneratedCudaWindowsInterior, testing::ValuesIn(window_cases()),
                         [](const auto& info) { return info.param.name; });

// Neighbouring outputs a thread whose vector loads hold their windows' padding wherever they may
// (the choice `window_fills` 1: 1-D pools, dilated or not), 4 and 8 of them: the groups of four
// outside the row replaced by the padding's value, the taps unchecked.
class GeneratedCudaWindowFills : public testing::TestWithParam<std::tuple<OpCase, int>> {};

TEST_P(GeneratedCudaWindowFills, IsCorrectWithThePaddingInTheLoadedGroups) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  const auto& [c, window] = GetParam();
  OpCase named = c;
  named.name += "_window_fills" + std::to_string(window);
  EXPECT_EQ(check_generated_windows(cuda_case(named), window, false, false, 1, 1), "");
}

INSTANTIATE_TEST_SUITE_P(Ops, GeneratedCudaWindowFills,
                         testing::Combine(testing::ValuesIn(window_cases()), testing::Values(4, 8)),
                         [](const auto& info) {
                           return std::get<0>(info.param).name + "_" +
                                  std::to_string(std::get<1>(info.param));
                         });

// Neighbouring outputs a thread stored by their warp together through shared memory (the choice
// `window_stores`), 4 and 8 of them: the threads past the last output compute the last thread's
// again and store nothing.
class GeneratedCudaWindowStores : public testing::TestWithParam<std::tuple<OpCase, int>> {};

TEST_P(GeneratedCudaWindowStores, IsCorrectWithTheWarpsOutputsStoredTogether) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  const auto& [c, window] = GetParam();
  OpCase named = c;
  named.name += "_window_stores" + std::to_string(window);
  EXPECT_EQ(check_generated_windows(cuda_case(named), window, false, true), "");
}

INSTANTIATE_TEST_SUITE_P(Ops, GeneratedCudaWindowStores,
                         testing::Combine(testing::ValuesIn(window_cases()), testing::Values(4, 8)),
                         [](const auto& info) {
                           return std::get<0>(info.param).name + "_" +
                                  std::to_string(std::get<1>(info.param));
                         });

// Rows of window outputs a thread (the choice `window_rows`), 2 and 4 of them at 4 outputs a row:
// the last group of a plane computes the rows past its end and stores none; rows not 16-byte
// aligned take scalar loads.
class GeneratedCudaWindowRows : public testing::TestWithParam<std::tuple<OpCase, int>> {};

TEST_P(GeneratedCudaWindowRows, IsCorrectWithRowsOfOutputsAThread) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  const auto& [c, rows] = GetParam();
  OpCase named = c;
  named.name += "_window_rows" + std::to_string(rows);
  EXPECT_EQ(check_generated_windows(cuda_case(named), 4, false, false, rows), "");
}

INSTANTIATE_TEST_SUITE_P(Ops, GeneratedCudaWindowRows,
                         testing::Combine(testing::ValuesIn(window_cases()), testing::Values(2, 4)),
                         [](const auto& info) {
                           return std::get<0>(info.param).name + "_" +
                                  std::to_string(std::get<1>(info.param));
                         });

// Output rows a block walks with its windows' input rows through rings in shared memory (the
// choice `window_ring`), 1 and 8 of them: bands of a plane, the last shorter; threads past a
// row's end compute its last column and store nothing; rows that are not a multiple of 4 elements
// (no ring) as without the choice.
class GeneratedCudaWindowRing : public testing::TestWithParam<std::tuple<OpCase, int>> {};

TEST_P(GeneratedCudaWindowRing, IsCorrectWithInputRowsThroughRings) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  const auto& [c, rows] = GetParam();
  OpCase named = c;
  named.name += "_window_ring" + std::to_string(rows);
  EXPECT_EQ(check_generated_ring(cuda_case(named), rows), "");
}

INSTANTIATE_TEST_SUITE_P(Ops, GeneratedCudaWindowRing,
                         testing::Combine(testing::ValuesIn(ring_cases()), testing::Values(1, 8)),
                         [](const auto& info) {
                           return std::get<0>(info.param).name + "_" +
                                  std::to_string(std::get<1>(info.param));
                         });

// Output rows a thread computes at each step of a ring's band (the choice `window_rows` with
// `window_ring`), 2 and 4 of them in bands of 7 rows: the band's last step computes rows past it
// (from whatever their ring slots hold) and stores none of them.
class GeneratedCudaRingSteps : public testing::TestWithParam<std::tuple<OpCase, int>> {};

TEST_P(GeneratedCudaRingSteps, IsCorrectWithSeveralRowsAStep) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  const auto& [c, step] = GetParam();
  OpCase named = c;
  named.name += "_ring_step" + std::to_string(step);
  EXPECT_EQ(check_generated_ring(cuda_case(named), 7, step), "");
}

INSTANTIATE_TEST_SUITE_P(Ops, GeneratedCudaRingSteps,
                         testing::Combine(testing::ValuesIn(ring_cases()), testing::Values(2, 4)),
                         [](const auto& info) {
                           return std::get<0>(info.param).name + "_" +
                                  std::to_string(std::get<1>(info.param));
                         });

// Outputs a block's width apart a thread (the choice `spread`), 2 and 8 of them: the last
// block's threads past the outputs compute the last one and store nothing.
class GeneratedCudaSpread : public testing::TestWithParam<std::tuple<OpCase, int>> {};

TEST_P(GeneratedCudaSpread, IsCorrectWithOutputsABlockApartAThread) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  const auto& [c, spread] = GetParam();
  OpCase named = c;
  named.name += "_spread" + std::to_string(spread);
  EXPECT_EQ(check_generated_spread(cuda_case(named), spread), "");
}

INSTANTIATE_TEST_SUITE_P(Ops, GeneratedCudaSpread,
                         testing::Combine(testing::ValuesIn(window_cases()), testing::Values(2, 8)),
                         [](const auto& info) {
                           return std::get<0>(info.param).name + "_" +
                                  std::to_string(std::get<1>(info.param));
                         });
// Scans four elements a lane with the next step's values loaded before this step's are scanned
// (the choice scan_prefetch): the first step's loaded before the loop, the last one scanned after.
class GeneratedCudaScanPrefetch : public testing::TestWithParam<OpCase> {};
TEST_P(GeneratedCudaScanPrefetch, IsCorrectWithTheNextStepLoadedAhead) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  OpCase named = GetParam();
  named.name += "_scan_prefetch";
  EXPECT_EQ(check_generated_scan_prefetch(cuda_case(named)), "");
}
INSTANTIATE_TEST_SUITE_P(Ops, GeneratedCudaScanPrefetch,
                         testing::ValuesIn(op_cases_named({"scans_long_rows", "scans_far_from_zero",
                                                           "scans_reversed_and_shorter",
                                                           "scans_suffix_and_exclusive"})),
                         [](const auto& info) { return info.param.name; });

// Scans along the last dimension with a warp a row (the choice scan_warps 1, the rule before it)
// and with 4 warps sharing a row (rows of 8192: steps of 2048; rows of 1028 halve it to 2 warps,
// steps of 1024 and the last 4 elements warp 0's), plain, reversed, exclusive and far from zero.
class GeneratedCudaScanWarps : public testing::TestWithParam<int> {};
TEST_P(GeneratedCudaScanWarps, IsCorrectWithTheRowsWarpsSharingIt) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  for (const auto& c :
       op_cases_named({"scans_long_rows", "scans_far_from_zero", "scans_reversed_and_shorter",
                       "scans_suffix_and_exclusive"})) {
    OpCase named = c;
    named.name += "_scan_warps" + std::to_string(GetParam());
    // 4 warps share the rows of 8192; those of 1028 (or 1027) the 2 that fit them
    const int sharing = GetParam() == 4 && c.name != "scans_far_from_zero" ? 2 : GetParam();
    EXPECT_EQ(check_generated_scan_warps(cuda_case(named), GetParam(), sharing), "") << c.name;
  }
}
INSTANTIATE_TEST_SUITE_P(Ops, GeneratedCudaScanWarps, testing::Values(1, 4));

// Column walks launched in slices of 1 and 2 blocks an SM (the choice column_launch): the column
// walks case's grids of 273 and 59 blocks end in a partial slice, or fit one.
class GeneratedCudaColumnLaunch : public testing::TestWithParam<int> {};

TEST_P(GeneratedCudaColumnLaunch, IsCorrectInSlicesOfTheGrid) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  OpCase named = op_cases_named({"column_walks"}).front();
  named.name += "_column_launch" + std::to_string(GetParam());
  EXPECT_EQ(check_generated_column_launch(cuda_case(named), GetParam()), "");
}

INSTANTIATE_TEST_SUITE_P(Ops, GeneratedCudaColumnLaunch, testing::Values(1, 2));

// Column walks' columns split across 2 and 4 lanes a block apart (the choice column_split): sums,
// maxima, an argmin (pairs of value and index), a variance and norms over columns of 41, 7, 64 and
// 37, the lanes' shares unequal where the column is not a multiple of them.
class GeneratedCudaColumnSplit : public testing::TestWithParam<int> {};

TEST_P(GeneratedCudaColumnSplit, IsCorrectAcrossLanesABlockApart) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  for (const auto& c : op_cases_named({"column_walks", "column_norms"})) {
    OpCase named = c;
    named.name += "_column_split" + std::to_string(GetParam());
    EXPECT_EQ(check_generated_column_split(cuda_case(named), GetParam()), "") << c.name;
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, GeneratedCudaColumnSplit, testing::Values(2, 4));

// Column walks whose row cache holds the column, four neighbouring outputs a thread (the choice
// column_vectors, on by default) with the rule's lanes and with one (column_quads' 16 channels: a
// thread four outputs' whole columns), and one output a thread: norms, a softmax and a maximum
// over channels, with loads at the output and at the channel beside the cached column.
class GeneratedCudaColumnVectors : public testing::TestWithParam<std::tuple<bool, int>> {};

TEST_P(GeneratedCudaColumnVectors, IsCorrectWithFourOutputsAThreadOrOne) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  const auto& [on, lanes] = GetParam();
  for (const auto& c : lanes == 1 ? op_cases_named({"column_quads"})
                                  : op_cases_named({"column_quads", "column_norms"})) {
    OpCase named = c;
    named.name += (on ? "_quads" : "_single") + std::to_string(lanes);
    EXPECT_EQ(check_generated_column_vectors(cuda_case(named), on, lanes), "") << c.name;
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, GeneratedCudaColumnVectors,
                         testing::Values(std::tuple(true, 0), std::tuple(true, 1),
                                         std::tuple(false, 0)),
                         [](const auto& info) {
                           return std::string(std::get<0>(info.param) ? "four" : "one") + "_lanes" +
                                  std::to_string(std::get<1>(info.param));
                         });

// Rows too long for a cluster's registers at blocks of 32 threads (20001: 40 elements a thread of
// 16 blocks), cached in a cluster's shared memory: its groups of four, heads and tails, four
// outputs, and its maxima and sums of exponentials in two passes or (online 1) one.
class GeneratedCudaSharedCache : public testing::TestWithParam<int> {};

TEST_P(GeneratedCudaSharedCache, IsCorrectWithTheRowInSharedMemory) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  OpCase named = op_cases_named({"rows_across_a_cluster_in_groups_of_four"}).front();
  named.name += "_shared_online" + std::to_string(GetParam());
  EXPECT_EQ(check_generated_shared_cache(cuda_case(named), 32, GetParam()), "");
}

INSTANTIATE_TEST_SUITE_P(Ops, GeneratedCudaSharedCache, testing::Values(0, 1),
                         [](const auto& info) { return "online" + std::to_string(info.param); });

// Rows of 300001 at the default choices: blocks of 512 threads, whose clusters cache the rows in
// shared memory (a softmax, a log-softmax and a layer norm of rows starting anywhere in 16 bytes).
TEST(GeneratedCudaSharedCache, IsCorrectInTheWiderBlocksTheRowTakes) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  EXPECT_EQ(check_generated_wide_shared_cache(cuda_case(wide_shared_cache_case())), "");
}

// The choice interior: the outputs whose windows lie inside the input walk them unchecked.
class GeneratedCudaInterior : public testing::TestWithParam<OpCase> {};

TEST_P(GeneratedCudaInterior, IsCorrectWithTheInteriorUnchecked) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  OpCase named = GetParam();
  named.name += "_interior";
  EXPECT_EQ(check_generated_interior(cuda_case(named)), "");
}

INSTANTIATE_TEST_SUITE_P(Ops, GeneratedCudaInterior, testing::ValuesIn(window_cases()),
                         [](const auto& info) { return info.param.name; });
// With the default choices (a thread an output).
INSTANTIATE_TEST_SUITE_P(Windows, GeneratedCuda, testing::ValuesIn(window_cases()),
                         [](const auto& info) { return info.param.name; });
INSTANTIATE_TEST_SUITE_P(LongWindows, GeneratedCuda, testing::ValuesIn(long_window_cases()),
                         [](const auto& info) { return info.param.name; });
// Unpadded windows at the default choices: by rule those of 2 or 3 columns and rows through
// rings.
INSTANTIATE_TEST_SUITE_P(Rings, GeneratedCuda, testing::ValuesIn(ring_cases()),
                         [](const auto& info) { return info.param.name; });

class GeneratedCudaLibrary : public testing::TestWithParam<OpCase> {};

TEST_P(GeneratedCudaLibrary, IsCorrectWithLibraryCalls) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  const auto dir = cuda_case(GetParam());
  EXPECT_EQ(check_generated(dir, evaluation::Backend::cuda, true), "");
}

INSTANTIATE_TEST_SUITE_P(Ops, GeneratedCudaLibrary, testing::ValuesIn(library_cases()),
                         [](const auto& info) { return info.param.name; });

// A transposed convolution of stride above 1 summed the ways CUDA does not by default: every
// offset guarded (an implicit GEMM over all of them), the offsets found from each output.
class GeneratedCudaTransposed
    : public testing::TestWithParam<std::tuple<OpCase, generator::TransposedSum>> {};

TEST_P(GeneratedCudaTransposed, IsCorrectSummedEachWay) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  const auto dir = cuda_case(std::get<0>(GetParam()));
  EXPECT_EQ(check_generated_transposed(dir, evaluation::Backend::cuda, std::get<1>(GetParam())),
            "");
}

INSTANTIATE_TEST_SUITE_P(Ops, GeneratedCudaTransposed,
                         testing::Combine(testing::ValuesIn(transposed_cases()),
                                          testing::Values(generator::TransposedSum::every_offset,
                                                          generator::TransposedSum::output_phases)),
                         [](const auto& info) { return transposed_case_name(info.param); });

class GeneratedCudaTf32 : public testing::TestWithParam<OpCase> {};

TEST_P(GeneratedCudaTf32, IsCorrectWithinKernelBenchsToleranceOnTheTensorCores) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  const auto dir = cuda_case(GetParam());
  EXPECT_EQ(check_generated_tf32(dir), "");
}

INSTANTIATE_TEST_SUITE_P(Ops, GeneratedCudaTf32, testing::ValuesIn(tensor_core_cases()),
                         [](const auto& info) { return info.param.name; });

// exp and log on the GPU's approximations (the choice fast_math) within a tolerance of 1e-3, the
// least at which the built-in proposer offers them.
class GeneratedCudaFastMath : public testing::TestWithParam<OpCase> {};

TEST_P(GeneratedCudaFastMath, IsCorrectWithinAToleranceOfOneInAThousand) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  EXPECT_EQ(check_generated_fast_math(cuda_case(GetParam())), "");
}

INSTANTIATE_TEST_SUITE_P(Ops, GeneratedCudaFastMath, testing::ValuesIn(fast_math_cases()),
                         [](const auto& info) { return info.param.name; });

// Backward kernels from the gradients' graph, on the GPU (the same cases run on the CPU in
// tests/generator/generator_cpu_test.cpp).
class GeneratedCudaBackward : public testing::TestWithParam<std::string> {};

TEST_P(GeneratedCudaBackward, IsCorrectOnEveryConfig) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  EXPECT_EQ(check_generated(backward_task_copy(GetParam(), evaluation::Backend::cuda),
                            evaluation::Backend::cuda, false, "backward"),
            "");
}

INSTANTIATE_TEST_SUITE_P(RobustKbenchShaped, GeneratedCudaBackward,
                         testing::ValuesIn(backward_cases()),
                         [](const auto& info) { return info.param; });

// A backward case with products of 16 x 16 outputs and more (the multi configs of rkb_linear),
// every one tiled (by size, some of them are few outputs, computed untiled).
class GeneratedCudaBackwardTiled : public testing::TestWithParam<std::string> {};

TEST_P(GeneratedCudaBackwardTiled, IsCorrectOnEveryConfigInTiles) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  EXPECT_EQ(
      check_generated_tiled(backward_task_copy(GetParam(), evaluation::Backend::cuda), "backward"),
      "");
}

INSTANTIATE_TEST_SUITE_P(RobustKbenchShaped, GeneratedCudaBackwardTiled,
                         testing::Values("rkb_linear"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace kforge::test
