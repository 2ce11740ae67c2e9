#include "generator/emit.hpp"

#include <algorithm>

#include "generator/expr_text.hpp"

namespace kforge::generator {

std::string kernel_parameters(const Program& p, const Kernel& k) {
  std::string out;
  for (int b : k.loads)
    out += std::string(out.empty() ? "" : ", ") + "const " +
           c_type(p.buffers[static_cast<size_t>(b)].dtype) + "* __restrict__ b" + std::to_string(b);
  for (int b : k.stores)
    out += std::string(out.empty() ? "" : ", ") + c_type(p.buffers[static_cast<size_t>(b)].dtype) +
           "* __restrict__ b" + std::to_string(b);
  return out;
}

std::string kernel_arguments(const Kernel& k) {
  std::string out;
  for (int b : k.loads) out += (out.empty() ? "b" : ", b") + std::to_string(b);
  for (int b : k.stores) out += (out.empty() ? "b" : ", b") + std::to_string(b);
  return out;
}

std::string kernel_expr_text(const Kernel& k, const ExprPtr& e) {
  return expr_text(e, [&k](const Expr& l, const std::string& added) {
    if (std::count(k.local.begin(), k.local.end(), l.buffer))
      return "acc" + std::to_string(l.buffer);
    return "b" + std::to_string(l.buffer) + "[" + l.index->text + added + "]";
  });
}

}  // namespace kforge::generator
