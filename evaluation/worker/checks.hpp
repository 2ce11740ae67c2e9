// The correctness checks of one candidate call against the reference: values within tolerance,
// NaN never passing, dtype and shape, inputs unchanged, outputs not aliasing inputs.
#pragma once

#include <ATen/ATen.h>

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace kforge::worker {

/// Why a check failed: a stable kind (for tests and statistics) and a message for people.
struct Failure {
  std::string kind;
  std::string message;
};

struct Tolerance {
  double atol = 1e-5;
  double rtol = 1e-5;
};
/// kforge's defaults per dtype (float32 as robust-kbench: 1e-5 / 1e-5).
Tolerance default_tolerance(at::ScalarType dtype);

struct Comparison {
  std::optional<Failure> failure;
  double max_abs_error = 0;
  double max_rel_error = 0;
  /// Differences that were accepted but deserve a flag (an output whose shape differs from the
  /// reference's only in dimensions of size 1, an output judged against float64), each a
  /// headline, ": " and the details.
  std::vector<std::string> notes;
};

/// How a floating output's errors are computed: `fused`, in one pass over the elements where both
/// tensors are float32 or float64 in CPU memory, else (a GPU's tensors, other dtypes) as `aten`:
/// ATen's operations over slices of the tensors. The verdict's counts are the same either way
/// (bench/compare_bench.cpp times both; tests/worker_checks_test.cpp compares them).
enum class ErrorPass { fused, aten };

/// Compares outputs with the expected ones. `std::nullopt` tolerance means per-dtype defaults.
/// An undefined expected tensor is an output the task does not check (its count still must
/// match). `names` (optional) says what each output is, for messages. An output holding the same
/// elements as the reference in a shape that differs only in dimensions of size 1 ([1] against
/// [], [n, 1] against [n]) is compared as the reference's shape and noted, as robust-kbench's
/// allclose accepts it; any other shape difference fails.
Comparison compare_outputs(const std::vector<at::Tensor>& got,
                           const std::vector<at::Tensor>& expected,
                           const std::optional<Tolerance>& tolerance,
                           const std::vector<std::string>& names = {},
                           ErrorPass pass = ErrorPass::fused);

/// The reference computed in float64 on the same inputs, asked for only where an output misses
/// the reference; it may throw where the task cannot run in double.
using ExactReference = std::function<std::vector<at::Tensor>()>;

/// compare_outputs, and where a floating output misses the reference beyond the tolerance, the
/// reference's own rounding is looked at: if the reference itself misses the float64 values
/// beyond the tolerance, the output is judged against them and accepted (with a note saying so)
/// where its worst miss beyond the tolerance is at most twice the reference's and it is NaN or
/// infinite (where the float64 values are not) only where the reference is too. A long float32
/// sum (a convolution's weight gradient over 43,264 products) is rounded by more than 1e-5, and a
/// kernel that sums more exactly than eager differs from eager by eager's own error. `pass` as
/// for the comparison, for both judgements.
Comparison compare_outputs(const std::vector<at::Tensor>& got,
                           const std::vector<at::Tensor>& expected,
                           const std::optional<Tolerance>& tolerance,
                           const std::vector<std::string>& names, const ExactReference& exact,
                           ErrorPass pass = ErrorPass::fused);

/// Bitwise comparison of a case's tensors with their pristine copies.
std::optional<Failure> check_inputs_unchanged(const std::vector<at::Tensor>& now,
                                              const std::vector<at::Tensor>& pristine,
                                              const std::vector<std::string>& names);

/// An output whose storage overlaps the storage of any input.
std::optional<Failure> check_no_aliasing(const std::vector<at::Tensor>& outputs,
                                         const std::vector<at::Tensor>& inputs,
                                         const std::vector<std::string>& names);

/// The ids of this process's threads right now (from /proc/self/task).
std::set<int> thread_ids();

}  // namespace kforge::worker
