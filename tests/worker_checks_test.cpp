// The worker's output comparison (evaluation/worker/checks.hpp): its one pass over CPU float32 and
// float64 outputs must reach the verdict, the counts and the largest errors that ATen's sliced
// operations reach, on the values that decide verdicts: NaN on either side or both, infinities of
// either sign, values at the tolerance's edge, subnormals, non-contiguous outputs, and outputs of
// several of the pass's chunks.
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <cmath>
#include <limits>

#include "evaluation/worker/checks.hpp"

namespace kforge::worker {
namespace {

/// Both passes over the same outputs; their verdicts, messages and errors must be the same.
void expect_same(const at::Tensor& got, const at::Tensor& expected, const std::string& what,
                 const std::optional<Tolerance>& tolerance = std::nullopt) {
  const auto fused = compare_outputs({got}, {expected}, tolerance, {what}, ErrorPass::fused);
  const auto aten = compare_outputs({got}, {expected}, tolerance, {what}, ErrorPass::aten);
  ASSERT_EQ(fused.failure.has_value(), aten.failure.has_value()) << what;
  if (fused.failure) {
    EXPECT_EQ(fused.failure->kind, aten.failure->kind) << what;
    EXPECT_EQ(fused.failure->message, aten.failure->message) << what;
  }
  EXPECT_EQ(fused.max_abs_error, aten.max_abs_error) << what;
  EXPECT_EQ(fused.max_rel_error, aten.max_rel_error) << what;
}

/// A reference of `n` values and an output within the tolerance of it (float32's defaults).
std::pair<at::Tensor, at::Tensor> near(int64_t n, at::ScalarType dtype) {
  at::manual_seed(7);
  auto expected = at::randn({n}, at::TensorOptions().dtype(dtype));
  auto got = expected + at::randn({n}, expected.options()) * 1e-7;
  return {got, expected};
}

TEST(WorkerChecks, OnePassAndAtenAgreeOnEveryKindOfValue) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (auto dtype : {at::kFloat, at::kDouble}) {
    const std::string type = dtype == at::kFloat ? "float32" : "float64";
    const int64_t n = 300001;  // five chunks of the one pass, the last one short
    auto [got, expected] = near(n, dtype);
    expect_same(got, expected, type + " within the tolerance");
    // Equal infinities, NaN on both sides, subnormals: no difference.
    for (int64_t i : {0, 65535, 65536, 300000}) {
      got[i] = inf;
      expected[i] = inf;
    }
    got[17] = -inf;
    expected[17] = -inf;
    got[18] = nan;
    expected[18] = nan;
    got[19] = 1e-40;
    expected[19] = 0;
    expect_same(got, expected, type + " with equal infinities and NaN on both sides");
    // At the tolerance's edge and past it, in several chunks.
    auto edge = got.clone();
    edge[1000] = expected[1000].item<double>() + 2e-5;
    edge[70000] = expected[70000].item<double>() * (1 + 3e-5) + 1e-5;
    edge[299999] = 1e6;
    expect_same(edge, expected, type + " outside the tolerance", Tolerance{1e-5, 1e-5});
    // Infinities that differ, and an infinite reference against a finite value (no relative
    // error: an infinite difference over an infinite reference).
    auto infinite = got.clone();
    infinite[5] = -inf;
    expected[5] = inf;
    infinite[6] = 3;
    expected[6] = -inf;
    expect_same(infinite, expected, type + " with infinities that differ");
    // NaN in the output only (unwritten) and in the reference only.
    auto unwritten = got.clone();
    unwritten[100] = nan;
    unwritten[200000] = nan;
    expect_same(unwritten, expected, type + " with NaN where the reference has a number");
    auto reference_nan = expected.clone();
    reference_nan[300] = nan;
    expect_same(got, reference_nan, type + " with NaN in the reference only");
  }
}

TEST(WorkerChecks, OnePassReadsANonContiguousOutputInTheReferencesOrder) {
  at::manual_seed(3);
  auto expected = at::randn({300, 500});
  auto stored = expected.t().contiguous().clone();
  stored[499][299] += 1.0f;     // the reference's last element, transposed
  const auto got = stored.t();  // non-contiguous, the reference's shape
  ASSERT_FALSE(got.is_contiguous());
  expect_same(got, expected, "a transposed output");
  const auto c = compare_outputs({got}, {expected}, std::nullopt, {"x"}, ErrorPass::fused);
  ASSERT_TRUE(c.failure);
  EXPECT_NE(c.failure->message.find("1 of 150000 values"), std::string::npos) << c.failure->message;
}

TEST(WorkerChecks, IntegersAndOtherFloatTypesAreComparedAsBefore) {
  auto ints = at::arange(1000, at::kLong);
  auto wrong = ints.clone();
  wrong[999] = 0;
  expect_same(wrong, ints, "int64");
  auto half = at::randn({1000}).to(at::kHalf);
  auto off = half.clone();
  off[3] = 100;
  expect_same(off, half, "float16");
}

}  // namespace
}  // namespace kforge::worker
