// CudaKernel's pointwise kernels (generator/emit_cuda_kernel.hpp): a few elements a thread, a
// block's width apart or four consecutive ones a load, every load before its stores.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "generator/emit_cuda_kernel.hpp"

namespace kforge::generator::cuda {

bool CudaKernel::narrow_indices() const {
  const int64_t limit = (int64_t{1} << 31) - (int64_t{1} << 20);
  if (numel(k.outer_shape()) >= limit || numel(k.inner_shape()) >= limit) return false;
  for (const auto* list : {&k.loads, &k.stores})
    for (int b : *list)
      if (numel(p.buffers[static_cast<size_t>(b)].shape) >= limit) return false;
  std::function<bool(const Index&)> fits = [&](const Index& i) {
    if (i.bound >= limit || i.value <= -(int64_t{1} << 20) || i.value >= limit) return false;
    return std::all_of(i.terms.begin(), i.terms.end(), [&](const IndexPtr& t) { return fits(*t); });
  };
  std::function<bool(const ExprPtr&)> fits_expr = [&](const ExprPtr& e) {
    if (e->index && !fits(*e->index)) return false;
    return std::all_of(e->args.begin(), e->args.end(), fits_expr);
  };
  return std::all_of(k.stages.begin(), k.stages.end(), [&](const Stage& s) {
    return (!s.value || fits_expr(s.value)) && (!s.offset || fits(*s.offset));
  });
}

std::set<std::string> CudaKernel::stages_unconditional_loads() const {
  std::set<std::string> out;
  for (const auto& st : k.stages) {
    auto more = unconditional_loads(st.value);
    out.insert(more.begin(), more.end());
  }
  return out;
}

void CudaKernel::emit_pointwise() {
  const int64_t total = numel(k.space), r = numel(k.inner_shape());
  const int64_t per_block = int64_t{threads} * elements;
  const std::string type = narrow_indices() ? "int" : "int64_t";
  const std::string own = "((o * " + n(r) + ") + r)";
  auto plain = [&](std::string t) {
    for (size_t at = t.find(own); at != std::string::npos; at = t.find(own, at))
      t.replace(at, own.size(), "e");
    return t;
  };
  const std::string index = "    const " + type + " e = first + j * " + n(threads) +
                            ";\n    const " + type + " o = e / " + n(r) + ";\n    const " + type +
                            " r = e % " + n(r) + ";\n";
  const std::string unrolled =
      "#pragma unroll\n  for (int j = 0; j < " + n(elements) + "; ++j) {\n";
  out += "  const " + type + " first = static_cast<" + type + ">(blockIdx.x) * " + n(per_block) +
         " + static_cast<" + type + ">(threadIdx.x);\n";
  if (pointwise_vectors && elements % 4 == 0 && r % 4 == 0 && stores_after_loads()) {
    emit_pointwise_vectors(type);
  } else if (elements > 1 && stores_after_loads()) {
    // every element a full block reads, into registers kf_l<i>[j]; gathers, whose offsets
    // depend on loaded data, and loads under a condition that may lie outside their buffer
    // stay where they are
    const std::set<std::string> unconditional = stages_unconditional_loads();
    std::vector<std::string> loads, types;
    auto load_text = [&](const Expr& l, const std::string& added) -> std::string {
      const std::string raw = "b" + std::to_string(l.buffer) + "[" + l.index->text + "]";
      const std::string at = plain(raw);
      if (!added.empty())
        return plain("b" + std::to_string(l.buffer) + "[" + l.index->text + added + "]");
      if (!unconditional.count(raw) && may_leave_buffer(l)) return at;
      auto it = std::find(loads.begin(), loads.end(), at);
      if (it == loads.end()) {
        it = loads.insert(loads.end(), at);
        types.push_back(c_type(p.buffers[static_cast<size_t>(l.buffer)].dtype));
      }
      return "kf_l" + std::to_string(it - loads.begin()) + "[j]";
    };
    std::string body;
    for (const auto& st : k.stages)
      body += "    b" + std::to_string(st.buffer) + "[" + plain(st.offset->text) +
              "] = " + expr_text(st.value, load_text) + ";\n";
    out += "  if (static_cast<int64_t>(blockIdx.x + 1) * " + n(per_block) + " <= " + n(total) +
           ") {\n";
    for (size_t i = 0; i < loads.size(); ++i)
      out += "    " + types[i] + " kf_l" + std::to_string(i) + "[" + n(elements) + "];\n";
    if (!loads.empty()) {
      out += unrolled + index;
      for (size_t i = 0; i < loads.size(); ++i)
        out += "    kf_l" + std::to_string(i) + "[j] = " + loads[i] + ";\n";
      out += "  }\n";
    }
    out += unrolled + index + body + "  }\n  return;\n  }\n";
  }
  out += unrolled + index;
  out += "    if (e >= " + n(total) + ") return;\n";
  for (const auto& st : k.stages)
    out += "    b" + std::to_string(st.buffer) + "[" + plain(st.offset->text) +
           "] = " + plain(text(st.value)) + ";\n";
  out += "  }\n}\n\n";
}

void CudaKernel::emit_pointwise_vectors(const std::string& type) {
  const int64_t total = numel(k.space), r = numel(k.inner_shape());
  const int64_t per_block = int64_t{threads} * elements, quads = elements / 4;
  const std::set<std::string> unconditional = stages_unconditional_loads();
  // the loads into registers: text, C type, and how (0 a load each, 1 once for the four, 2 a
  // 16-byte load of the four at `text`, the row's part)
  struct Held {
    std::string text, type;
    int how = 0;
  };
  std::vector<Held> held;
  auto load_text = [&](const Expr& l, const std::string& added) -> std::string {
    const std::string raw = "b" + std::to_string(l.buffer) + "[" + l.index->text + added + "]";
    if (!added.empty() || (!unconditional.count(raw) && may_leave_buffer(l))) return raw;
    const Buffer& b = p.buffers[static_cast<size_t>(l.buffer)];
    Held h{raw, c_type(b.dtype), 0};
    if (!ix::reads(*l.index, "r")) {
      h.how = 1;
    } else if (const auto base = b.dtype == DType::f32 ? row_vector_base(*l.index) : std::nullopt) {
      h = {"b" + std::to_string(l.buffer) + " + (" + *base + ")", "float", 2};
      row_vector_buffers.insert(l.buffer);
    }
    auto it = std::find_if(held.begin(), held.end(),
                           [&](const Held& x) { return x.text == h.text && x.how == h.how; });
    if (it == held.end()) it = held.insert(held.end(), h);
    const std::string reg = "kf_l" + std::to_string(it - held.begin());
    return reg + (h.how == 1 ? "[kf_q]" : "[kf_q * 4 + kf_e]");
  };
  std::string body, stores;
  std::vector<std::string> vector_stores;
  for (const auto& st : k.stages) {
    const std::string value = expr_text(st.value, load_text);
    const Buffer& b = p.buffers[static_cast<size_t>(st.buffer)];
    const auto base =
        b.dtype == DType::f32 && b.kind != Buffer::Kind::input && st.value->dtype == DType::f32
            ? row_vector_base(*st.offset)
            : std::nullopt;
    if (!base) {
      body +=
          "        b" + std::to_string(st.buffer) + "[" + st.offset->text + "] = " + value + ";\n";
      continue;
    }
    const std::string id = n(static_cast<int64_t>(vector_stores.size()));
    vector_stores.push_back("      float kf_s" + id + "[4];\n");
    body += "        kf_s" + id + "[kf_e] = " + value + ";\n";
    stores += "      kf_row_store4(b" + std::to_string(st.buffer) + " + (" + *base +
              ") + r4, kf_s" + id + ");\n";
  }
  const std::string quad = "#pragma unroll\n    for (int kf_q = 0; kf_q < " + n(quads) +
                           "; ++kf_q) {\n      const " + type + " e4 = first4 + kf_q * " +
                           n(int64_t{threads} * 4) + ";\n      const " + type + " o = e4 / " +
                           n(r) + ";\n      const " + type + " r4 = e4 % " + n(r) + ";\n";
  const std::string each =
      "#pragma unroll\n      for (int kf_e = 0; kf_e < 4; ++kf_e) {\n        "
      "const " +
      type + " e = e4 + kf_e;\n        const " + type + " r = r4 + kf_e;\n";
  out += "  if (static_cast<int64_t>(blockIdx.x + 1) * " + n(per_block) + " <= " + n(total) +
         ") {\n    const " + type + " first4 = static_cast<" + type + ">(blockIdx.x) * " +
         n(per_block) + " + static_cast<" + type + ">(threadIdx.x) * 4;\n";
  for (size_t i = 0; i < held.size(); ++i)
    out += "    " + held[i].type + " kf_l" + std::to_string(i) + "[" +
           n(held[i].how == 1 ? quads : elements) + "];\n";
  std::string each_loads;
  out += quad;
  for (size_t i = 0; i < held.size(); ++i) {
    const std::string reg = "kf_l" + std::to_string(i);
    if (held[i].how == 1) out += "      " + reg + "[kf_q] = " + held[i].text + ";\n";
    if (held[i].how == 2)
      out += "      kf_row_load4(" + reg + " + kf_q * 4, " + held[i].text + " + r4);\n";
    if (held[i].how == 0)
      each_loads += "        " + reg + "[kf_q * 4 + kf_e] = " + held[i].text + ";\n";
  }
  if (!each_loads.empty()) out += each + each_loads + "      }\n";
  out += "    }\n" + quad;
  for (const auto& d : vector_stores) out += d;
  out += each + body + "      }\n" + stores + "    }\n    return;\n  }\n";
}

}  // namespace kforge::generator::cuda
