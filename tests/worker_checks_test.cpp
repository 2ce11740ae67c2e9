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

// An infinite reference is met only by the same infinity (its tolerance, |e| * rtol + atol, is
// infinite too): a finite value or the other infinity there is a mismatch. Both passes counted
// them as within the tolerance before.
TEST(WorkerChecks, AnInfiniteReferenceIsMetOnlyByTheSameInfinity) {
  const double inf = std::numeric_limits<double>::infinity();
  for (auto dtype : {at::kFloat, at::kDouble}) {
    auto [got, expected] = near(1000, dtype);
    expected[10] = -inf;
    got[10] = -inf;
    const Tolerance tolerance{1e-5, 1e-5};
    expect_same(got, expected, "the same infinity", tolerance);
    EXPECT_FALSE(compare_outputs({got}, {expected}, tolerance).failure);
    for (double wrong : {1e30, inf}) {
      auto off = got.clone();
      off[10] = wrong;
      expect_same(off, expected, "another value at an infinite reference", tolerance);
      for (auto pass : {ErrorPass::fused, ErrorPass::aten}) {
        const auto c = compare_outputs({off}, {expected}, tolerance, {"x"}, pass);
        ASSERT_TRUE(c.failure) << wrong;
        EXPECT_EQ(c.failure->kind, "mismatch");
        EXPECT_NE(c.failure->message.find("1 of 1000 values"), std::string::npos)
            << c.failure->message;
      }
    }
  }
}

/// compare_outputs with a float64 reference, both passes: the same verdict and words.
Comparison judged(const at::Tensor& got, const at::Tensor& expected, const at::Tensor& exact,
                  const std::string& what) {
  const ExactReference reference = [&] { return std::vector<at::Tensor>{exact}; };
  const auto fused = compare_outputs({got}, {expected}, std::nullopt, {"x"}, reference,
                                     ErrorPass::fused);
  const auto aten =
      compare_outputs({got}, {expected}, std::nullopt, {"x"}, reference, ErrorPass::aten);
  EXPECT_EQ(fused.failure.has_value(), aten.failure.has_value()) << what;
  if (fused.failure && aten.failure) {
    EXPECT_EQ(fused.failure->message, aten.failure->message) << what;
  }
  EXPECT_EQ(fused.notes, aten.notes) << what;
  return fused;
}

// Against the float64 reference (asked for where an output misses eager's): a kernel as far from
// it as eager is accepted with a note, one more than twice as far is not, in one pass on the CPU
// and in ATen's slices alike. NaN on both sides is no miss (it once made a slice's worst miss NaN,
// and eager's real misses beside it were not seen); where eager overflows (infinite, the float64
// value finite) a kernel may be infinite too, but nothing else there excuses the rest of it: a
// kernel of zeros was accepted, eager's infinite miss being more than twice any.
TEST(WorkerChecks, AKernelIsJudgedAgainstFloat64AsFarAsEagerMissesIt) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  at::manual_seed(11);
  const int64_t n = 200003;  // several chunks of the one pass
  auto exact = at::randn({n}, at::kDouble);
  auto eager = exact.to(at::kFloat);
  eager[70000] = eager[70000].item<double>() + 1e-3;  // eager misses float64 here, by 1e-3
  exact[5] = nan;
  eager[5] = nan;  // NaN on both sides: no miss
  auto kernel = exact.to(at::kFloat);
  kernel[123] = kernel[123].item<double>() + 1.5e-3;  // the kernel misses eager and float64
  kernel[5] = nan;
  auto near_as_eager = judged(kernel, eager, exact, "a kernel about as far as eager");
  EXPECT_FALSE(near_as_eager.failure) << near_as_eager.failure->message;
  ASSERT_EQ(near_as_eager.notes.size(), 1u);
  EXPECT_NE(near_as_eager.notes[0].find("misses atol 1e-05 + rtol 1e-05 of the float64 reference "
                                        "at 1 of 200003 values"),
            std::string::npos)
      << near_as_eager.notes[0];

  auto far = kernel.clone();
  far[124] = far[124].item<double>() + 3e-3;
  auto too_far = judged(far, eager, exact, "a kernel three times as far as eager");
  ASSERT_TRUE(too_far.failure);
  EXPECT_NE(too_far.failure->message.find("more than twice as far"), std::string::npos)
      << too_far.failure->message;

  // Eager overflows at one element (infinite where float64 is finite).
  auto overflowing = exact.to(at::kFloat);
  overflowing[9] = inf;
  auto also_infinite = exact.to(at::kFloat);
  also_infinite[9] = inf;
  also_infinite[10] = also_infinite[10].item<double>() + 1e-2;
  auto zeros = at::zeros_like(overflowing);
  zeros[5] = nan;
  auto infinite_elsewhere = exact.to(at::kFloat);
  infinite_elsewhere[11] = -inf;
  // Exact where eager overflows: within float64, so accepted.
  auto exact_there = judged(exact.to(at::kFloat), overflowing, exact, "a kernel exact there");
  EXPECT_FALSE(exact_there.failure) << exact_there.failure->message;
  const std::vector<std::pair<at::Tensor, std::string>> wrong_kernels = {
      {also_infinite, "off elsewhere"},
      {zeros, "zeros"},
      {infinite_elsewhere, "infinite elsewhere"}};
  for (const auto& [wrong, what] : wrong_kernels) {
    auto c = judged(wrong, overflowing, exact, what);
    EXPECT_TRUE(c.failure) << what << " " << (c.notes.empty() ? "" : c.notes[0]);
  }
  auto elsewhere = judged(infinite_elsewhere, overflowing, exact, "infinite elsewhere");
  ASSERT_TRUE(elsewhere.failure);
  EXPECT_NE(elsewhere.failure->message.find("NaN or infinite at 1 values where eager's is not"),
            std::string::npos)
      << elsewhere.failure->message;
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
