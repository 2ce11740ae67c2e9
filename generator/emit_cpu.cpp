// CPU kernels: OpenMP threads over the outer indices; for each, the stages in order, each reduction
// a loop over the inner dimensions into a local accumulator (sums in double), the stores a loop
// that the compiler vectorises; a scan a loop that stores its running accumulator. Where the walk
// over the inner dimensions as one counter r would divide r by their sizes (a convolution's
// window and channels), it is a nest of loops, a counter a dimension.
#include <algorithm>
#include <functional>
#include <string>

#include "generator/emit.hpp"
#include "generator/expr_text.hpp"
#include "generator/index.hpp"
#include "generator/rebase.hpp"
#include "generator/schedule.hpp"

namespace kforge::generator {
namespace {

std::string n(int64_t v) {
  return std::to_string(v);
}

/// The counters of a nested walk over `k`'s inner dimensions: kf_i0, kf_i1, ..., one a dimension.
std::vector<IndexPtr> nest_counters(const Kernel& k) {
  std::vector<IndexPtr> out;
  for (int64_t extent : k.inner_shape())
    out.push_back(ix::named("kf_i" + std::to_string(out.size()), extent));
  return out;
}

/// Whether `i` divides r by a size: r read inside a quotient or a remainder.
bool divides_r(const Index& i) {
  if (i.kind == Index::Kind::div || i.kind == Index::Kind::mod)
    return ix::reads(*i.terms.front(), "r");
  return std::any_of(i.terms.begin(), i.terms.end(),
                     [](const IndexPtr& t) { return divides_r(*t); });
}

/// Whether a stage of `k` reads or stores at an offset, or computes a value, that divides r.
bool divides_r(const Kernel& k) {
  std::function<bool(const Expr&)> in_expr = [&](const Expr& e) {
    if (e.index && divides_r(*e.index)) return true;
    return std::any_of(e.args.begin(), e.args.end(), [&](const ExprPtr& a) { return in_expr(*a); });
  };
  return std::any_of(k.stages.begin(), k.stages.end(), [&](const Stage& s) {
    return (s.value && in_expr(*s.value)) || (s.offset && divides_r(*s.offset));
  });
}

struct CpuKernel {
  const Program& p;
  const Kernel& k;
  std::string out;
  /// The inner dimensions' sizes where the kernel (at_inner_index at nest_counters) walks them in
  /// nested loops; empty where one counter r walks them all.
  std::vector<int64_t> nest{};

  std::string text(const ExprPtr& e) const { return kernel_expr_text(k, e); }

  /// The walk's position along the inner dimensions, as r counts them: r itself, or the nest's
  /// counters' row-major offset.
  std::string position() const {
    return nest.empty() ? "r" : ix::linear(nest_counters(k), nest)->text;
  }

  /// A loop over the inner dimensions running `body` (given the indentation); `pragma` goes before
  /// the innermost loop of a nest.
  void inner_loop(const std::string& pragma, const std::string& body_first,
                  const std::function<std::string(const std::string&)>& body) {
    const int64_t r = numel(k.inner_shape());
    if (r == 1) {
      out += "    {\n" + body_first + body("      ") + "    }\n";
      return;
    }
    if (nest.empty()) {
      if (!pragma.empty()) out += "    " + pragma + "\n";
      out += "    for (int64_t r = 0; r < " + n(r) + "; ++r) {\n" + body("      ") + "    }\n";
      return;
    }
    std::string indent = "    ";
    for (size_t d = 0; d < nest.size(); ++d) {
      const std::string i = "kf_i" + std::to_string(d);
      if (d + 1 == nest.size() && !pragma.empty()) out += indent + pragma + "\n";
      out +=
          indent + "for (int64_t " + i + " = 0; " + i + " < " + n(nest[d]) + "; ++" + i + ") {\n";
      indent += "  ";
    }
    out += body(indent);
    for (size_t d = nest.size(); d > 0; --d) {
      indent.resize(indent.size() - 2);
      out += indent + "}\n";
    }
  }

  void reduce(const Stage& s) {
    const Buffer& b = p.buffers[static_cast<size_t>(s.buffer)];
    const std::string id = std::to_string(b.id);
    const DType in = s.value->dtype;
    const std::string x = text(s.value);
    const bool real = in == DType::f32 || in == DType::f64;
    switch (b.combine) {
      case Combine::sum:
      case Combine::prod: {
        const bool sum = b.combine == Combine::sum;
        const std::string acc_t = real ? "double" : "int64_t";
        out += "    " + acc_t + " s" + id + " = " + (sum ? "0" : "1") + ";\n";
        const std::string term =
            real ? double_term_text(s.value, [&](const ExprPtr& e) { return text(e); })
                 : "static_cast<int64_t>(" + x + ")";
        inner_loop(sum ? "#pragma omp simd reduction(+ : s" + id + ")" : "", "",
                   [&](const std::string& i) {
                     return i + "s" + id + (sum ? " += " : " *= ") + term + ";\n";
                   });
        std::string v = "s" + id;
        if (b.scale != 1) v = "(" + v + " * " + constant_text(b.scale, DType::f32) + ")";
        out += "    const " + std::string(c_type(b.dtype)) + " acc" + id + " = static_cast<" +
               c_type(b.dtype) + ">(" + v + ");\n";
        break;
      }
      case Combine::max:
      case Combine::min: {
        const bool max = b.combine == Combine::max;
        const std::string t = c_type(in);
        const std::string init =
            real ? (max ? "(-INFINITY)" : "INFINITY") : (max ? "INT64_MIN" : "INT64_MAX");
        out += "    " + t + " s" + id + " = " + init + ";\n";
        inner_loop("", "", [&](const std::string& i) {
          return i + "s" + id + " = kf_" + (max ? "max2" : "min2") + "(s" + id + ", static_cast<" +
                 t + ">(" + x + "));\n";
        });
        out += "    const " + t + " acc" + id + " = s" + id + ";\n";
        break;
      }
      case Combine::argmax:
      case Combine::argmin: {
        const bool max = b.combine == Combine::argmax;
        const std::string t = c_type(in);
        out += "    " + t + " best" + id + " = 0;\n    int64_t s" + id + " = -1;\n";
        inner_loop("", "", [&](const std::string& i) {
          return i + "{\n" + i + "  const " + t + " x = " + x + ";\n" + i + "  if (s" + id +
                 " < 0 || x " + (max ? ">" : "<") + " best" + id + " || (x != x && best" + id +
                 " == best" + id + ")) {\n" + i + "    best" + id + " = x;\n" + i + "    s" + id +
                 " = " + (numel(k.inner_shape()) == 1 ? "0" : position()) + ";\n" + i + "  }\n" +
                 i + "}\n";
        });
        out += "    const int64_t acc" + id + " = s" + id + ";\n";
        break;
      }
    }
    if (std::count(k.stores.begin(), k.stores.end(), b.id))
      out += "    b" + id + "[" + s.offset->text + "] = acc" + id + ";\n";
  }

  /// A cumulative sum or product along the inner dimension: one running accumulator (float sums
  /// in double, as the reductions), stored at each element; from the row's end for a suffix scan.
  void scan(const Stage& s) {
    const Buffer& b = p.buffers[static_cast<size_t>(s.buffer)];
    const std::string id = std::to_string(b.id);
    const bool sum = b.combine == Combine::sum;
    const std::string acc_t = b.dtype == DType::f32 && sum ? "double" : c_type(b.dtype);
    out += "    " + acc_t + " s" + id + " = " + (sum ? "0" : "1") + ";\n";
    const int64_t r = numel(k.inner_shape());
    const std::string combine =
        "s" + id + (sum ? " += " : " *= ") + "static_cast<" + acc_t + ">(" + text(s.value) + ");\n";
    const std::string store = "b" + id + "[" + s.offset->text + "] = static_cast<" +
                              c_type(b.dtype) + ">(s" + id + ");\n";
    // an exclusive scan stores before it combines, and reads all but the last element walked
    const std::string last = b.reverse ? "r > 0" : "r < " + n(r - 1);
    out +=
        "    for (int64_t r = " +
        (b.reverse ? n(r - 1) + "; r >= 0; --r" : "0; r < " + n(r) + "; ++r") + ") {\n      " +
        (b.exclusive ? store + "      if (" + last + ") " + combine : combine + "      " + store) +
        "    }\n";
  }

  void emit(const std::string& name) {
    const int64_t outer = numel(k.outer_shape());
    const int64_t work = numel(k.space);
    out += "static void " + name + "(" + kernel_parameters(p, k) + ") {\n";
    if (outer > 1)
      out += "#pragma omp parallel for schedule(static)" +
             std::string(work < 32768 ? " if (false)" : "") + "\n";
    out += "  for (int64_t o = 0; o < " + n(outer) + "; ++o) {\n";
    for (size_t i = 0; i < k.stages.size(); ++i) {
      const Stage& s = k.stages[i];
      if (s.kind == Stage::Kind::reduce) {
        reduce(s);
      } else if (s.kind == Stage::Kind::scan) {
        scan(s);
      } else if (s.kind == Stage::Kind::outer_store) {
        out += "    b" + std::to_string(s.buffer) + "[" + s.offset->text + "] = " + text(s.value) +
               ";\n";
      } else {  // consecutive row stores share one loop
        size_t last = i;
        while (last + 1 < k.stages.size() && k.stages[last + 1].kind == Stage::Kind::row_store)
          ++last;
        inner_loop("#pragma omp simd", "", [&](const std::string& in) {
          std::string body;
          for (size_t j = i; j <= last; ++j)
            body += in + "b" + std::to_string(k.stages[j].buffer) + "[" + k.stages[j].offset->text +
                    "] = " + text(k.stages[j].value) + ";\n";
          return body;
        });
        i = last;
      }
    }
    out += "  }\n}\n\n";
  }
};

}  // namespace

EmittedKernels emit_cpu(const EmitInput& in) {
  EmittedKernels e;
  Rebaser rebaser(*in.program);
  for (size_t i = 0; i < in.kernels->size(); ++i) {
    const Kernel& k = (*in.kernels)[i];
    if (k.library >= 0) {
      e.calls += library_call_text(*in.program, k);
      e.step_ends.push_back(e.calls.size());
      continue;
    }
    const std::string name = in.prefix + "k" + std::to_string(i);
    const auto rebased = rebaser.rebase(k);
    // One counter r over several inner dimensions that the stages divide by their sizes: walked
    // as a nest instead, so that each term's offset is a sum of the counters' multiples, not
    // divisions and remainders of r (KernelBench's level-2 78, a transposed 3-D convolution
    // summing 432 terms for each of 7.6 million outputs at --shrink 16). An arg reduction's index
    // is then the counters' offset (position): max pooling's backward takes the argmax of a 2 x 2
    // window (robust-kbench's rkb_maxpool). Not a scan: scan() writes its own loop over r, and a
    // scan walks one dimension anyway.
    const Kernel& r = rebased.kernel;
    const Program& p = *rebased.program;
    const bool scans = std::any_of(r.stages.begin(), r.stages.end(),
                                   [](const Stage& s) { return s.kind == Stage::Kind::scan; });
    std::string function;
    if (r.inner_shape().size() > 1 && !scans && divides_r(r)) {
      const Kernel moved = at_inner_index(p, r, nest_counters(r));
      CpuKernel nested{p, moved, "", r.inner_shape()};
      nested.emit(name);
      function = nested.out;
    } else {
      CpuKernel c{p, r, ""};
      c.emit(name);
      function = c.out;
    }
    add_kernel(e, r, name, function,
               Rebaser::with_arguments("  " + name + "(" + kernel_arguments(r) + ");\n",
                                       rebased.arguments));
  }
  return e;
}

}  // namespace kforge::generator
