#include "evaluation/worker/checks.hpp"

#include <dirent.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
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

Comparison compare_outputs(const std::vector<at::Tensor>& got,
                           const std::vector<at::Tensor>& expected,
                           const std::optional<Tolerance>& tolerance,
                           const std::vector<std::string>& names) {
  Comparison c;
  if (got.size() != expected.size()) {
    c.failure =
        Failure{"output_count", "the kernel returned " + std::to_string(got.size()) +
                                    " tensors, the reference " + std::to_string(expected.size())};
    return c;
  }
  for (size_t k = 0; k < got.size(); ++k) {
    at::Tensor g = got[k];
    const auto& e = expected[k];
    std::string which = "output " + std::to_string(k);
    if (k < names.size() && !names[k].empty()) which += " (" + names[k] + ")";
    if (!e.defined()) continue;  // an output the task does not check
    if (!g.defined()) {
      c.failure = Failure{"output_undefined", which + " is an undefined tensor"};
      return c;
    }
    if (g.scalar_type() != e.scalar_type()) {
      c.failure = Failure{"dtype_mismatch",
                          which + " has dtype " + std::string(c10::toString(g.scalar_type())) +
                              ", the reference " + c10::toString(e.scalar_type()) +
                              " (a precision downcast is not the same function)"};
      return c;
    }
    if (g.sizes() != e.sizes()) {
      if (g.numel() != e.numel() || without_unit_dims(g.sizes()) != without_unit_dims(e.sizes())) {
        c.failure = Failure{"shape_mismatch", which + " has shape " + shape_text(g) +
                                                  ", the reference " + shape_text(e)};
        return c;
      }
      c.notes.push_back(which + " has shape " + shape_text(g) + ", the reference " + shape_text(e) +
                        ": the same elements, so it is accepted (as robust-kbench accepts it)");
      g = g.reshape(e.sizes());
    }
    if (g.device() != e.device()) {
      c.failure = Failure{"device_mismatch", which + " is on " + g.device().str() +
                                                 ", the reference on " + e.device().str()};
      return c;
    }
    if (g.numel() == 0) continue;
    if (!at::isFloatingType(e.scalar_type())) {
      auto wrong = g.ne(e).sum().item<int64_t>();
      if (wrong) {
        c.failure = Failure{"mismatch", which + ": " + std::to_string(wrong) + " of " +
                                            std::to_string(g.numel()) +
                                            " integer values differ from the reference"};
        return c;
      }
      continue;
    }
    const auto tol = tolerance ? *tolerance : default_tolerance(e.scalar_type());
    // In double precision, in slices: the whole tensor at once took about 40 bytes of temporaries
    // an element, 64 GB for a 1.6G-element output of KernelBench level 1, and the check ran out of
    // GPU memory where the kernel had not.
    const auto gf = g.reshape(-1);
    const auto ef = e.reshape(-1);
    const int64_t n = gf.numel();
    constexpr int64_t kSlice = int64_t{1} << 24;
    int64_t nan_wrong = 0, got_only_nan = 0, n_bad = 0;
    for (int64_t first = 0; first < n; first += kSlice) {
      const int64_t len = std::min(kSlice, n - first);
      auto gd = gf.narrow(0, first, len).to(at::kDouble);
      auto ed = ef.narrow(0, first, len).to(at::kDouble);
      auto g_nan = gd.isnan();
      auto e_nan = ed.isnan();
      nan_wrong += g_nan.logical_xor(e_nan).sum().item<int64_t>();
      got_only_nan += g_nan.logical_and(e_nan.logical_not()).sum().item<int64_t>();
      auto diff = (gd - ed).abs().masked_fill(g_nan.logical_or(e_nan), 0.0);
      diff = diff.masked_fill(gd.isinf().logical_and(gd.eq(ed)), 0.0);
      c.max_abs_error = std::max(c.max_abs_error, diff.max().item<double>());
      // Relative to |reference|, floored at atol so that values near zero do not dominate.
      c.max_rel_error =
          std::max(c.max_rel_error, (diff / ed.abs().clamp_min(tol.atol)).max().item<double>());
      n_bad += diff.gt(ed.abs() * tol.rtol + tol.atol).sum().item<int64_t>();
    }
    if (nan_wrong) {
      std::string msg = which + ": " + std::to_string(nan_wrong) + " of " + std::to_string(n) +
                        " values are NaN in one of kernel and reference only";
      if (got_only_nan)
        msg +=
            "; kforge fills fresh allocations with NaN, so NaN where the reference is finite means "
            "part of "
            "the output was never written";
      c.failure = Failure{got_only_nan ? "unwritten_output" : "mismatch", msg};
      return c;
    }
    if (n_bad) {
      c.failure =
          Failure{"mismatch", which + ": " + std::to_string(n_bad) + " of " + std::to_string(n) +
                                  " values outside atol " + fmt(tol.atol) + " + rtol " +
                                  fmt(tol.rtol) + " (max abs error " + fmt(c.max_abs_error) + ")"};
      return c;
    }
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
