// CudaKernel's scans (generator/emit_cuda_kernel.hpp): a thread or a warp a row, or the warps of a
// block a row in steps of four elements a lane, each step's totals added through shared memory.
#include <cstdint>
#include <string>

#include "generator/emit_cuda_kernel.hpp"

namespace kforge::generator::cuda {

void CudaKernel::scan(const Stage& s) {
  const Buffer& b = p.buffers[static_cast<size_t>(s.buffer)];
  const bool sum = b.combine == Combine::sum;
  const std::string t = b.dtype == DType::f32 && sum ? "double" : c_type(b.dtype);
  const std::string init = t + "(" + (sum ? "0" : "1") + ")", op = sum ? " + " : " * ";
  const std::string value = "static_cast<" + t + ">(" + text(s.value) + ")";
  const std::string store = "b" + std::to_string(b.id) + "[" + s.offset->text + "] = static_cast<" +
                            c_type(b.dtype) + ">(";
  const int64_t length = numel(k.inner_shape());
  const std::string r = n(length);
  const auto element = [&](const std::string& q) {
    return "const " + ix + " r = " + (b.reverse ? r + " - 1 - (" + q + ")" : q) + ";\n";
  };
  // an exclusive scan reads all but the last element walked, and stores before it combines
  const int64_t read = b.exclusive ? length - 1 : length;
  const std::string inside = b.reverse ? "r >= 0" : "r < " + r;
  const std::string readable = b.reverse ? "r >= " + n(length - read) : "r < " + n(read);
  if (group == 1) {
    const std::string walk = b.reverse ? " r = " + r + " - 1; live && r >= 0; --r"
                                       : " r = 0; live && r < " + r + "; ++r";
    const std::string combine = "kf_c = kf_c" + op + value + ";\n    ";
    out += "  " + t + " kf_c = " + init + ";\n  for (" + ix + walk + ") {\n    " +
           (b.exclusive ? store + "kf_c);\n    if (" + readable + ") " + combine
                        : combine + store + "kf_c);\n") +
           "  }\n";
    return;
  }
  const std::string each = "#pragma unroll\n    for (int kf_j = 0; kf_j < 4; ++kf_j) {\n";
  out += "  " + t + " kf_c = " + init + ";\n  " + ix + " kf_r = 0;\n";
  scan_vectors(s, t, op);
  // the row's last elements, past the steps of scan_vectors: warp 0's where warps share it
  out += "  for (; live" + std::string(scan_warps > 1 ? " && kf_wp == 0" : "") + " && kf_r < " + r +
         "; kf_r += 128) {\n";
  out += "    " + t + " kf_u[4];\n" + each;
  out += "      " + element("kf_r + kf_j * 32 + lane");
  out += "      kf_u[kf_j] = " + readable + " ? " + value + " : " + init + ";\n    }\n" + each;
  out += "      " + t + " v = kf_u[kf_j];\n";
  out += warp_scan(t, op);
  out += "      v = kf_c" + op + "v;\n";
  std::string stored = "v";
  if (b.exclusive) {
    out += "      const " + t + " kf_x = __shfl_up_sync(0xffffffffu, v, 1);\n";
    stored = "lane == 0 ? kf_c : kf_x";
  }
  out += "      " + element("kf_r + kf_j * 32 + lane");
  out += "      if (" + inside + ") " + store + stored + ");\n";
  out += "      kf_c = __shfl_sync(0xffffffffu, v, 31);\n    }\n  }\n";
}

void CudaKernel::scan_vectors(const Stage& s, const std::string& t, const std::string& op) {
  constexpr int64_t kQuads = 4;
  // a warp's 512 elements, scan_warps of them a step
  const int64_t kStep = kQuads * 128 * scan_warps;
  const int64_t r = numel(k.inner_shape());
  const Buffer& b = p.buffers[static_cast<size_t>(s.buffer)];
  const int64_t read = b.exclusive ? r - 1 : r;  // the elements walked whose values it reads
  // warps that share the row leave no more of it to warp 0 than a warp a row leaves itself
  if (read < kStep || (b.reverse && r % 4 != 0) || (scan_warps > 1 && read % kStep >= kQuads * 128))
    return;
  const std::string vector = vector_text([&] { return text(s.value); });
  const std::string store = vector_store(s);
  if (vector.empty() && store.empty()) return;
  scan_in_steps = true;
  const std::string warp = scan_warps > 1 ? " + kf_wp * " + n(kQuads * 128) : "";
  // the loop over the step's four groups, kf_r4 the first of a lane's four elements in memory
  const auto quad = [&](const std::string& step) {
    const std::string q4 = step + warp + " + kf_k * 128 + lane * 4";
    return "#pragma unroll\n    for (int kf_k = 0; kf_k < " + n(kQuads) +
           "; ++kf_k) {\n      const " + ix +
           " kf_r4 = " + (b.reverse ? n(r - 4) + " - (" + q4 + ")" : q4) + ";\n";
  };
  const std::string each = "#pragma unroll\n      for (int kf_e = 0; kf_e < 4; ++kf_e) {\n" +
                           std::string("        const ") + ix + " r = kf_r4 + kf_e;\n";
  // the element kf_e of the four in memory is the lane's walked element `walked`
  const std::string walked = b.reverse ? "3 - kf_e" : "kf_e";
  const std::string u = std::string(c_type(s.value->dtype)) + " ";
  // the values of the step from `step` into `regs`, in the order walked
  const auto load = [&](const std::string& regs, const std::string& step) {
    return quad(step) + load_row_vectors({vector}, "      ") + each + "        " + regs +
           "[kf_k * 4 + " + walked + "] = " + (vector.empty() ? text(s.value) : vector) +
           ";\n      }\n    }\n";
  };
  const std::string four = "#pragma unroll\n      for (int kf_e = 1; kf_e < 4; ++kf_e) ";
  // A float sum's group of 128 elements (a lane's four, across the warp) is scanned in float:
  // one shuffle a level where a double took two, float adds where double ones. Only the carry
  // of the groups before is double: kf_c split into two floats, kf_ch + kf_cl, and each
  // element kf_ch + ((its sum in the group) + kf_cl), so that a lane converts four values
  // between double and float a group where it converted eight. A group's sums are of at most
  // 128 elements, so their float rounding stays far below the row's sums'.
  const bool step_in_float = t == "double" && s.value->dtype == DType::f32;
  const std::string st = step_in_float ? "float" : t;
  std::string scan = quad("kf_r");
  scan += "      " + st + " kf_q[4];\n      kf_q[0] = static_cast<" + st + ">(kf_u[kf_k * 4]);\n" +
          four + "kf_q[kf_e] = kf_q[kf_e - 1]" + op + "static_cast<" + st +
          ">(kf_u[kf_k * 4 + kf_e]);\n";
  scan += "      " + st + " v = kf_q[3];\n";
  scan += warp_scan(st, op);
  scan += "      const " + st + " kf_before = __shfl_up_sync(0xffffffffu, v, 1);\n";
  const std::string total = "__shfl_sync(0xffffffffu, v, 31)";  // the group's, in `st`
  std::string value;  // the element's output; an exclusive scan's from the elements before it
  if (scan_warps > 1) {
    // Warps that share the row: each scans its 512 elements as a warp a row does, each group
    // from its own start (kf_l, and the group's total kf_g), until the warps' totals, exchanged
    // through shared memory in `t`, give each warp the carry of those before it in the step
    // (kf_pw); then each group's outputs are its carry (kf_b, in `t`) and its values, stored as
    // with a warp a row. Two slots of totals, a step's parity apart, so that one barrier a step
    // keeps a warp from writing a slot another still reads.
    const std::string one = std::string(op == " + " ? "0" : "1"), init = t + "(" + one + ")";
    scan += "      const " + st + " kf_p = lane == 0 ? " + st + "(" + one + ") : kf_before;\n" +
            "#pragma unroll\n      for (int kf_e = 0; kf_e < 4; ++kf_e) kf_l[kf_k * 4 + kf_e] = " +
            (b.exclusive ? "kf_e == 0 ? kf_p : kf_p" + op + "kf_q[kf_e - 1]"
                         : "kf_p" + op + "kf_q[kf_e]") +
            ";\n      kf_g[kf_k] = " + total + ";\n    }\n";
    scan += "    if (lane == 0) {\n      " + t + " kf_w = " + init + ";\n#pragma unroll\n" +
            "      for (int kf_k = 0; kf_k < " + n(kQuads) + "; ++kf_k) kf_w = kf_w" + op +
            "static_cast<" + t + ">(kf_g[kf_k]);\n      kf_scan_total[kf_par][kf_wp] = kf_w;\n" +
            "    }\n    __syncthreads();\n";
    scan += "    " + t + " kf_pw = " + init + ", kf_all = " + init +
            ";\n#pragma unroll\n    for (int kf_i = 0; kf_i < " + n(scan_warps) +
            "; ++kf_i) {\n      const " + t + " kf_t = kf_scan_total[kf_par][kf_i];\n" +
            "      if (kf_i < kf_wp) kf_pw = kf_pw" + op + "kf_t;\n      kf_all = kf_all" + op +
            "kf_t;\n    }\n    kf_par ^= 1;\n    " + t + " kf_b = kf_c" + op + "kf_pw;\n";
    const std::string local = "kf_l[kf_k * 4 + " + walked + "]";
    scan += quad("kf_r");
    if (step_in_float) {
      scan += "      const float kf_ch = static_cast<float>(kf_b);\n";
      scan += "      const float kf_cl = static_cast<float>(kf_b - static_cast<double>(kf_ch));\n";
      value = "kf_ch + (" + local + " + kf_cl)";
    } else {
      value = "kf_b" + op + local;
    }
  } else if (step_in_float) {
    scan += "      const float kf_p = lane == 0 ? 0.0f : kf_before;\n";
    scan += "      const float kf_ch = static_cast<float>(kf_c);\n";
    scan += "      const float kf_cl = static_cast<float>(kf_c - static_cast<double>(kf_ch));\n";
    value = b.exclusive
                ? "kf_ch + ((" + walked + " == 0 ? kf_p : kf_p + kf_q[" + walked + " - 1]) + kf_cl)"
                : "kf_ch + ((kf_p + kf_q[" + walked + "]) + kf_cl)";
  } else {
    scan += "      const " + t + " kf_p = lane == 0 ? kf_c : kf_c" + op + "kf_before;\n";
    value = b.exclusive ? "(" + walked + " == 0 ? kf_p : kf_p" + op + "kf_q[" + walked + " - 1])"
                        : "kf_p" + op + "kf_q[" + walked + "]";
  }
  if (!store.empty()) {
    scan +=
        "      float kf_s[4];\n#pragma unroll\n      for (int kf_e = 0; kf_e < 4; ++kf_e) "
        "kf_s[kf_e] = static_cast<float>(" +
        value + ");\n      kf_row_store4(" + store + " + kf_r4, kf_s);\n";
  } else {
    scan += each + "        b" + std::to_string(b.id) + "[" + s.offset->text + "] = static_cast<" +
            c_type(b.dtype) + ">(" + value + ");\n      }\n";
  }
  const std::string regs = "[" + n(4 * kQuads) + "];\n";
  if (scan_warps > 1) {
    // the next group's carry; the step's added to the row's
    scan += "      kf_b = kf_b" + op + "static_cast<" + t + ">(kf_g[kf_k]);\n    }\n" +
            "    kf_c = kf_c" + op + "kf_all;\n";
    out += "  __shared__ " + t + " kf_scan_total[2][" + n(scan_warps) + "];\n  int kf_par = 0;\n";
    scan = "    " + st + " kf_l" + regs + "    " + st + " kf_g[" + n(kQuads) + "];\n" + scan;
  } else {
    scan += "      kf_c = kf_c" + op +
            (step_in_float ? "static_cast<double>(" + total + ")" : total) + ";\n    }\n";
  }
  if (!scan_prefetch) {
    out += "  for (; live && kf_r + " + n(kStep) + " <= " + n(read) + "; kf_r += " + n(kStep) +
           ") {\n    " + u + "kf_u" + regs + load("kf_u", "kf_r") + scan + "  }\n";
    return;
  }
  // the next step's values loaded before this step's are scanned; the last step on its own
  out += "  " + u + "kf_u" + regs + "  if (live) {\n" + load("kf_u", "kf_r") + "  }\n";
  out += "  for (; live && kf_r + " + n(2 * kStep) + " <= " + n(read) + "; kf_r += " + n(kStep) +
         ") {\n    " + u + "kf_n" + regs + load("kf_n", "(kf_r + " + n(kStep) + ")") + scan +
         "#pragma unroll\n    for (int kf_i = 0; kf_i < " + n(4 * kQuads) +
         "; ++kf_i) kf_u[kf_i] = kf_n[kf_i];\n  }\n";
  out += "  if (live) {\n" + scan + "    kf_r += " + n(kStep) + ";\n  }\n";
}

}  // namespace kforge::generator::cuda
