#include "evaluation/worker/checks.hpp"

#include <dirent.h>

#include <ATen/Parallel.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>

namespace kforge::worker {
namespace {

std::string fmt(double v) {
  std::ostringstream ss;
  ss.precision(3);
  ss << v;
  return ss.str();
}

std::string shape_text(const at::Tensor& t) {
  std::ostringstream ss;
  ss << t.sizes();
  return ss.str();
}

}  // namespace

Tolerance default_tolerance(at::ScalarType dtype) {
  switch (dtype) {
    case at::kDouble:
      return {1e-8, 1e-7};
    case at::kHalf:
      return {1e-3, 1e-3};
    case at::kBFloat16:
      return {1e-2, 1e-2};
    default:
      return {1e-5, 1e-5};
  }
}

namespace {

std::vector<int64_t> without_unit_dims(at::IntArrayRef sizes) {
  std::vector<int64_t> out;
  for (auto d : sizes)
    if (d != 1) out.push_back(d);
  return out;
}

}  // namespace

namespace {

std::string output_name(size_t k, const std::vector<std::string>& names) {
  std::string which = "output " + std::to_string(k);
  if (k < names.size() && !names[k].empty()) which += " (" + names[k] + ")";
  return which;
}

/// What a floating output's comparison with the reference counts, each element in double: NaN in
/// one of them only, NaN in the output only (an element never written), elements outside the
/// tolerance (|g - e| > |e| * rtol + atol; NaN in either, or the same infinity, counts as no
/// difference), and the largest absolute and relative differences (relative to |e| floored at
/// atol, so that values near zero do not dominate; an element whose relative difference is no
/// number, an infinite one over an infinite reference, adds none).
struct ElementErrors {
  int64_t nan_wrong = 0, got_only_nan = 0, outside = 0;
  double max_abs = 0, max_rel = 0;

  void add(const ElementErrors& o) {
    nan_wrong += o.nan_wrong;
    got_only_nan += o.got_only_nan;
    outside += o.outside;
    max_abs = std::max(max_abs, o.max_abs);
    max_rel = std::max(max_rel, o.max_rel);  // std::max keeps the first where o's is NaN
  }
};

/// ElementErrors with ATen's operations, in double precision, in slices: the whole tensor at once
/// took about 40 bytes of temporaries an element, 64 GB for a 1.6G-element output of KernelBench
/// level 1, and the check ran out of GPU memory where the kernel had not.
ElementErrors errors_in_slices(const at::Tensor& g, const at::Tensor& e, const Tolerance& tol) {
  const auto gf = g.reshape(-1);
  const auto ef = e.reshape(-1);
  const int64_t n = gf.numel();
  constexpr int64_t kSlice = int64_t{1} << 24;
  ElementErrors all;
  for (int64_t first = 0; first < n; first += kSlice) {
    const int64_t len = std::min(kSlice, n - first);
    auto gd = gf.narrow(0, first, len).to(at::kDouble);
    auto ed = ef.narrow(0, first, len).to(at::kDouble);
    auto g_nan = gd.isnan();
    auto e_nan = ed.isnan();
    ElementErrors slice;
    slice.nan_wrong = g_nan.logical_xor(e_nan).sum().item<int64_t>();
    slice.got_only_nan = g_nan.logical_and(e_nan.logical_not()).sum().item<int64_t>();
    auto diff = (gd - ed).abs().masked_fill(g_nan.logical_or(e_nan), 0.0);
    diff = diff.masked_fill(gd.isinf().logical_and(gd.eq(ed)), 0.0);
    slice.max_abs = diff.max().item<double>();
    // NaN quotients (an infinite difference over an infinite reference, a NaN reference's 0 / NaN)
    // taken as 0, as the one-pass comparison leaves them out
    auto rel = (diff / ed.abs().clamp_min(tol.atol)).nan_to_num(0.0, INFINITY, -INFINITY);
    slice.max_rel = rel.max().item<double>();
    // An infinite reference's tolerance is infinite too: only the same infinity meets it.
    auto wrong_infinity = ed.isinf().logical_and(gd.ne(ed)).logical_and(g_nan.logical_not());
    slice.outside = diff.gt(ed.abs() * tol.rtol + tol.atol).logical_or(wrong_infinity)
                        .sum()
                        .item<int64_t>();
    all.add(slice);
  }
  return all;
}

/// The sum (R::add) over elements 0 .. n-1 of `per_element(i, r)`, which adds element i to r: in
/// chunks of 2^16 elements on ATen's threads, each chunk into an R of its own, the chunks added
/// in order. The one passes below are written as this.
template <class R, class F>
R over_chunks(int64_t n, const F& per_element) {
  constexpr int64_t kChunk = int64_t{1} << 16;
  std::vector<R> chunks(static_cast<size_t>((n + kChunk - 1) / kChunk));
  at::parallel_for(0, static_cast<int64_t>(chunks.size()), 1, [&](int64_t begin, int64_t end) {
    for (int64_t k = begin; k < end; ++k) {
      R r;
      for (int64_t i = k * kChunk, last = std::min(n, (k + 1) * kChunk); i < last; ++i)
        per_element(i, r);
      chunks[static_cast<size_t>(k)] = r;
    }
  });
  R all;
  for (const auto& r : chunks) all.add(r);
  return all;
}

/// ElementErrors of a CPU output of float32 or float64 in one pass over both tensors, chunks of
/// them in parallel (ATen's threads), each element converted to double once: the sliced ATen
/// comparison above made about fifteen passes, each writing a temporary, and on a 2-core machine
/// took tens of seconds for one 8192 x 8192 output (bench/compare_bench.cpp).
template <class T>
ElementErrors errors_in_one_pass(const at::Tensor& got, const at::Tensor& expected,
                                 const Tolerance& tol) {
  const auto g = got.contiguous();
  const auto e = expected.contiguous();
  const T* gp = g.data_ptr<T>();
  const T* ep = e.data_ptr<T>();
  return over_chunks<ElementErrors>(g.numel(), [&](int64_t i, ElementErrors& r) {
    const double x = gp[i], y = ep[i];
    const bool x_nan = std::isnan(x), y_nan = std::isnan(y);
    r.nan_wrong += x_nan != y_nan;
    r.got_only_nan += x_nan && !y_nan;
    const double diff = x_nan || y_nan || (std::isinf(x) && x == y) ? 0.0 : std::fabs(x - y);
    r.max_abs = std::max(r.max_abs, diff);
    const double rel = diff / std::max(std::fabs(y), tol.atol);
    if (rel > r.max_rel) r.max_rel = rel;  // a NaN quotient is never greater
    // An infinite reference's tolerance is infinite too: only the same infinity meets it.
    r.outside += diff > std::fabs(y) * tol.rtol + tol.atol || (std::isinf(y) && !x_nan && x != y);
  });
}

/// One output against the reference's: sets `c.failure` where it fails, adds to its errors and
/// notes.
void compare_output(const std::string& which, at::Tensor g, const at::Tensor& e,
                    const std::optional<Tolerance>& tolerance, ErrorPass pass, Comparison& c) {
  if (!e.defined()) return;  // an output the task does not check
  if (!g.defined()) {
    c.failure = Failure{"output_undefined", which + " is an undefined tensor"};
    return;
  }
  if (g.scalar_type() != e.scalar_type()) {
    c.failure = Failure{"dtype_mismatch", which + " has dtype " +
                                              std::string(c10::toString(g.scalar_type())) +
                                              ", the reference " + c10::toString(e.scalar_type()) +
                                              " (a precision downcast is not the same function)"};
    return;
  }
  if (g.sizes() != e.sizes()) {
    if (g.numel() != e.numel() || without_unit_dims(g.sizes()) != without_unit_dims(e.sizes())) {
      c.failure = Failure{"shape_mismatch", which + " has shape " + shape_text(g) +
                                                ", the reference " + shape_text(e)};
      return;
    }
    c.notes.push_back("shape differs in dimensions of size 1: " + which + " has shape " +
                      shape_text(g) + ", the reference " + shape_text(e) +
                      ", the same elements, so it is accepted (as robust-kbench accepts it)");
    g = g.reshape(e.sizes());
  }
  if (g.device() != e.device()) {
    c.failure = Failure{"device_mismatch", which + " is on " + g.device().str() +
                                               ", the reference on " + e.device().str()};
    return;
  }
  if (g.numel() == 0) return;
  if (!at::isFloatingType(e.scalar_type())) {
    auto wrong = g.ne(e).sum().item<int64_t>();
    if (wrong) {
      c.failure = Failure{"mismatch", which + ": " + std::to_string(wrong) + " of " +
                                          std::to_string(g.numel()) +
                                          " integer values differ from the reference"};
      return;
    }
    return;
  }
  const auto tol = tolerance ? *tolerance : default_tolerance(e.scalar_type());
  const bool fused = pass == ErrorPass::fused && g.is_cpu() && e.is_cpu() &&
                     (e.scalar_type() == at::kFloat || e.scalar_type() == at::kDouble);
  const ElementErrors errors = !fused ? errors_in_slices(g, e, tol)
                               : e.scalar_type() == at::kFloat
                                   ? errors_in_one_pass<float>(g, e, tol)
                                   : errors_in_one_pass<double>(g, e, tol);
  const int64_t n = g.numel();
  const int64_t nan_wrong = errors.nan_wrong, got_only_nan = errors.got_only_nan,
                n_bad = errors.outside;
  c.max_abs_error = std::max(c.max_abs_error, errors.max_abs);
  c.max_rel_error = std::max(c.max_rel_error, errors.max_rel);
  if (nan_wrong) {
    std::string msg = which + ": " + std::to_string(nan_wrong) + " of " + std::to_string(n) +
                      " values are NaN in one of kernel and reference only";
    if (got_only_nan)
      msg += "; " + std::to_string(got_only_nan) +
             " of them NaN in the kernel's output only: kforge fills fresh allocations with NaN, "
             "so those are elements the kernel never wrote or wrote as NaN where the reference "
             "has a number (finite or infinite)";
    c.failure = Failure{got_only_nan ? "unwritten_output" : "mismatch", msg};
    return;
  }
  if (n_bad) {
    c.failure =
        Failure{"mismatch", which + ": " + std::to_string(n_bad) + " of " + std::to_string(n) +
                                " values outside atol " + fmt(tol.atol) + " + rtol " +
                                fmt(tol.rtol) + " (max abs error " + fmt(c.max_abs_error) + ")"};
    return;
  }
}

std::optional<Failure> output_count(const std::vector<at::Tensor>& got,
                                    const std::vector<at::Tensor>& expected) {
  if (got.size() == expected.size()) return std::nullopt;
  return Failure{"output_count", "the kernel returned " + std::to_string(got.size()) +
                                     " tensors, the reference " + std::to_string(expected.size())};
}

}  // namespace

Comparison compare_outputs(const std::vector<at::Tensor>& got,
                           const std::vector<at::Tensor>& expected,
                           const std::optional<Tolerance>& tolerance,
                           const std::vector<std::string>& names, ErrorPass pass) {
  Comparison c;
  if ((c.failure = output_count(got, expected))) return c;
  for (size_t k = 0; k < got.size() && !c.failure; ++k)
    compare_output(output_name(k, names), got[k], expected[k], tolerance, pass, c);
  return c;
}

namespace {

/// How far `x` misses the exact values `t` beyond the tolerance. An element misses infinitely
/// where it is NaN and `t` is not (or the other way round), or where either is infinite and the
/// other is not the same infinity; else where |x - t| exceeds |t| * rtol + atol, by the
/// difference. NaN on both sides, or the same infinity, is no miss. An infinite miss of `x` is
/// excused (left out of `infinite`, still counted in `outside`) where `excuse`, if given, misses
/// `t` infinitely at the same element: a kernel may be NaN or infinite only where eager's float32
/// result is.
struct Miss {
  double worst = -std::numeric_limits<double>::infinity();  ///< of the finite misses
  int64_t outside = 0;                                      ///< elements that miss
  int64_t infinite = 0;                                     ///< infinite misses not excused
  bool any_infinite = false;                                ///< excused ones included

  void add(const Miss& o) {
    worst = std::max(worst, o.worst);
    outside += o.outside;
    infinite += o.infinite;
    any_infinite = any_infinite || o.any_infinite;
  }
  double shown_worst() const {
    return any_infinite ? std::numeric_limits<double>::infinity() : worst;
  }
};

/// The elements of `x` (in double) that miss `t` infinitely.
at::Tensor infinite_misses(const at::Tensor& xd, const at::Tensor& td) {
  auto x_nan = xd.isnan(), t_nan = td.isnan();
  return x_nan.logical_xor(t_nan).logical_or(
      xd.isinf().logical_or(td.isinf()).logical_and(xd.ne(td)).logical_and(x_nan.logical_not()));
}

/// Miss with ATen's operations over slices (a GPU's tensors, other dtypes), for their memory as
/// errors_in_slices.
Miss miss_in_slices(const at::Tensor& x, const at::Tensor& t, const at::Tensor& excuse,
                    const Tolerance& tol) {
  const auto xf = x.reshape(-1);
  const auto tf = t.reshape(-1);
  const auto ef = excuse.defined() ? excuse.reshape(-1) : excuse;
  const int64_t n = xf.numel();
  constexpr int64_t kSlice = int64_t{1} << 24;
  Miss all;
  for (int64_t first = 0; first < n; first += kSlice) {
    const int64_t len = std::min(kSlice, n - first);
    auto xd = xf.narrow(0, first, len).to(at::kDouble);
    auto td = tf.narrow(0, first, len).to(at::kDouble);
    auto infinite = infinite_misses(xd, td);
    // The finite misses; NaN or an infinity on either side (missed or met, counted above) are
    // none.
    auto beyond = (xd - td).abs() - (td.abs() * tol.rtol + tol.atol);
    beyond = beyond.masked_fill(xd.isfinite().logical_and(td.isfinite()).logical_not(), -INFINITY);
    Miss slice;
    slice.any_infinite = infinite.any().item<bool>();
    slice.outside = infinite.sum().item<int64_t>() + beyond.gt(0).sum().item<int64_t>();
    slice.worst = beyond.max().item<double>();
    if (ef.defined() && slice.any_infinite) {
      auto excused = infinite_misses(ef.narrow(0, first, len).to(at::kDouble), td);
      slice.infinite = infinite.logical_and(excused.logical_not()).sum().item<int64_t>();
    } else {
      slice.infinite = infinite.sum().item<int64_t>();
    }
    all.add(slice);
  }
  return all;
}

/// Whether `a` misses `b` infinitely, as infinite_misses.
inline bool misses_infinitely(double a, double b) {
  const bool a_nan = std::isnan(a);
  return a_nan != std::isnan(b) || ((std::isinf(a) || std::isinf(b)) && !a_nan && a != b);
}

/// Miss of a CPU tensor of float32 or float64 against float64 values in one pass, chunks in
/// parallel, as errors_in_one_pass: the sliced operations took 12.6 s of a 2-core machine for one
/// 8192 x 8192 output (the test WorkerComparison.AWrongValueInAnySliceOfALargeOutputIsFound).
template <class T>
Miss miss_in_one_pass(const at::Tensor& x, const at::Tensor& t, const at::Tensor& excuse,
                      const Tolerance& tol) {
  const auto xc = x.contiguous();
  const auto tc = t.contiguous();
  const auto ec = excuse.defined() ? excuse.contiguous() : excuse;
  const T* xp = xc.data_ptr<T>();
  const double* tp = tc.data_ptr<double>();
  const T* ep = ec.defined() ? ec.data_ptr<T>() : nullptr;
  return over_chunks<Miss>(xc.numel(), [&](int64_t i, Miss& m) {
    const double a = xp[i], b = tp[i];
    if (misses_infinitely(a, b)) {
      m.any_infinite = true;
      ++m.outside;
      m.infinite += !ep || !misses_infinitely(ep[i], b);
      return;
    }
    if (!std::isfinite(a) || !std::isfinite(b)) return;
    const double beyond = std::fabs(a - b) - (std::fabs(b) * tol.rtol + tol.atol);
    m.worst = std::max(m.worst, beyond);
    m.outside += beyond > 0;
  });
}

Miss miss_of(const at::Tensor& x, const at::Tensor& t, const Tolerance& tol, ErrorPass pass,
             const at::Tensor& excuse = {}) {
  const bool fused = pass == ErrorPass::fused && x.is_cpu() && t.is_cpu() &&
                     t.scalar_type() == at::kDouble &&
                     (x.scalar_type() == at::kFloat || x.scalar_type() == at::kDouble) &&
                     (!excuse.defined() || excuse.scalar_type() == x.scalar_type());
  if (!fused) return miss_in_slices(x, t, excuse, tol);
  return x.scalar_type() == at::kFloat ? miss_in_one_pass<float>(x, t, excuse, tol)
                                       : miss_in_one_pass<double>(x, t, excuse, tol);
}

/// An output that missed the float32 reference, judged against the float64 one: nothing where it
/// is accepted (a note is added), else the words for the failure's message. Accepted where the
/// kernel's worst finite miss is at most twice eager's (none where eager's misses are all
/// infinite) and it misses infinitely only where eager does.
std::optional<std::string> judge_against_exact(const std::string& which, at::Tensor g,
                                               const at::Tensor& e, const at::Tensor& exact,
                                               const Tolerance& tol, ErrorPass pass,
                                               Comparison& c) {
  if (!exact.defined() || exact.numel() != e.numel() || !at::isFloatingType(exact.scalar_type()))
    return "the float64 reference has no matching output";
  const auto t = exact.to(e.device()).reshape(e.sizes());
  const auto reference = miss_of(e, t, tol, pass);
  const std::string within =
      "atol " + fmt(tol.atol) + " + rtol " + fmt(tol.rtol) + " of the float64 reference";
  if (reference.outside == 0)
    return "the float32 reference is itself within " + within + ", so it stands";
  const auto kernel = miss_of(g.reshape(e.sizes()), t, tol, pass, e);
  const std::string reference_words =
      "eager's float32 result misses " + within + " at " + std::to_string(reference.outside) +
      " of " + std::to_string(e.numel()) + " values, by up to " + fmt(reference.shown_worst());
  const std::string kernel_words =
      kernel.outside == 0 ? "the kernel is within it"
                          : "the kernel misses it at " + std::to_string(kernel.outside) +
                                " values, by up to " + fmt(kernel.shown_worst());
  if (kernel.infinite > 0)
    return reference_words + "; " + kernel_words + ", NaN or infinite at " +
           std::to_string(kernel.infinite) + " values where eager's is not";
  // Twice the reference's miss: a float32 kernel that sums in another order misses by about as
  // much as eager, at other elements, more or less.
  if (kernel.worst > 2 * std::max(reference.worst, 0.0))
    return reference_words + "; " + kernel_words + ", more than twice as far";
  c.notes.push_back("judged against float64: " + which + ": " + reference_words + "; " +
                    kernel_words);
  return std::nullopt;
}

}  // namespace

Comparison compare_outputs(const std::vector<at::Tensor>& got,
                           const std::vector<at::Tensor>& expected,
                           const std::optional<Tolerance>& tolerance,
                           const std::vector<std::string>& names, const ExactReference& exact,
                           ErrorPass pass) {
  Comparison c;
  if ((c.failure = output_count(got, expected))) return c;
  std::optional<std::vector<at::Tensor>> exact_outputs;
  std::string exact_error;
  for (size_t k = 0; k < got.size() && !c.failure; ++k) {
    const std::string which = output_name(k, names);
    Comparison one;
    compare_output(which, got[k], expected[k], tolerance, pass, one);
    c.max_abs_error = std::max(c.max_abs_error, one.max_abs_error);
    c.max_rel_error = std::max(c.max_rel_error, one.max_rel_error);
    c.notes.insert(c.notes.end(), one.notes.begin(), one.notes.end());
    c.failure = one.failure;
    // Any size of miss: one that rounding could explain is small against the terms of the sums
    // that made the output, which the checker does not see. Against the output's own largest
    // magnitude (a 1e-3 gate, before) a column of sums that cancel to nearly zero (a weight's
    // gradient) was never judged against float64, and a kernel exact there was rejected because
    // eager was not. A wrong kernel costs the float64 reference's run, no more.
    if (!c.failure || c.failure->kind != "mismatch" || !exact ||
        !at::isFloatingType(expected[k].scalar_type()))
      continue;
    if (!exact_outputs && exact_error.empty()) {
      try {
        exact_outputs = exact();
      } catch (const std::exception& error) {
        exact_error = error.what();
        exact_error = exact_error.substr(0, exact_error.find('\n'));
      }
    }
    std::optional<std::string> why;
    if (!exact_outputs)
      why = "the float64 reference could not be computed (" + exact_error + ")";
    else if (exact_outputs->size() != expected.size())
      why = "the float64 reference has " + std::to_string(exact_outputs->size()) + " outputs";
    else
      why = judge_against_exact(
          which, got[k], expected[k], (*exact_outputs)[k],
          tolerance ? *tolerance : default_tolerance(expected[k].scalar_type()), pass, c);
    if (why)
      c.failure->message += "; " + *why;
    else
      c.failure.reset();
  }
  return c;
}

std::optional<Failure> check_inputs_unchanged(const std::vector<at::Tensor>& now,
                                              const std::vector<at::Tensor>& pristine,
                                              const std::vector<std::string>& names) {
  for (size_t i = 0; i < now.size(); ++i) {
    bool same = now[i].sizes() == pristine[i].sizes() &&
                now[i].strides() == pristine[i].strides() &&
                now[i].scalar_type() == pristine[i].scalar_type();
    if (same) {
      // Bitwise, so that NaN written into an input is seen too.
      auto a = now[i].contiguous().view({-1}).view(at::kByte);
      auto b = pristine[i].contiguous().view({-1}).view(at::kByte);
      same = at::equal(a, b);
    }
    if (!same)
      return Failure{"input_mutated",
                     "the kernel changed its input `" + names[i] +
                         "`; kernels must leave their arguments as they found them"};
  }
  return std::nullopt;
}

std::optional<Failure> check_no_aliasing(const std::vector<at::Tensor>& outputs,
                                         const std::vector<at::Tensor>& inputs,
                                         const std::vector<std::string>& names) {
  for (size_t k = 0; k < outputs.size(); ++k) {
    if (!outputs[k].defined() || !outputs[k].has_storage()) continue;
    auto o_begin = reinterpret_cast<uintptr_t>(outputs[k].storage().data());
    auto o_end = o_begin + outputs[k].storage().nbytes();
    for (size_t i = 0; i < inputs.size(); ++i) {
      auto i_begin = reinterpret_cast<uintptr_t>(inputs[i].storage().data());
      auto i_end = i_begin + inputs[i].storage().nbytes();
      if (o_begin < i_end && i_begin < o_end && o_end > o_begin)
        return Failure{"output_aliases_input",
                       "output " + std::to_string(k) + " shares memory with input `" + names[i] +
                           "`; the task does not allow outputs to alias inputs"};
    }
  }
  return std::nullopt;
}

std::set<int> thread_ids() {
  std::set<int> ids;
  if (DIR* d = ::opendir("/proc/self/task")) {
    while (dirent* e = ::readdir(d))
      if (e->d_name[0] != '.') ids.insert(std::atoi(e->d_name));
    ::closedir(d);
  }
  return ids;
}

}  // namespace kforge::worker
