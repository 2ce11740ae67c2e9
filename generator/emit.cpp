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

std::string library_call_text(const Program& p, const Kernel& k) {
  const Buffer& b = p.buffers[static_cast<size_t>(k.library)];
  const std::string id = std::to_string(b.id);
  const std::string type = c_type(b.dtype);
  return "  auto t" + id + " = " + b.call + ".contiguous();\n  " + type + "* b" + id + " = t" + id +
         ".data_ptr<" + type + ">();\n  (void)b" + id + ";\n";
}

}  // namespace kforge::generator
