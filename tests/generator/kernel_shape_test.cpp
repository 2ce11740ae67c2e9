// Kernels written once: kernel_shape renames a kernel's buffers by their place among its
// parameters, so that two kernels of the same shape compare equal, and nothing else (a number in
// the code, a helper's name outside the function, inline PTX) is renamed; add_kernel calls the
// first of them in place of the second.
#include <gtest/gtest.h>

#include "generator/emit.hpp"

namespace kforge::generator {
namespace {

Kernel with_buffers(std::vector<int> loads, std::vector<int> stores) {
  Kernel k;
  k.loads = std::move(loads);
  k.stores = std::move(stores);
  return k;
}

/// A kernel function over buffers a, b (loads) and c (a store), with `extra` in its body.
std::string function(const std::string& name, int a, int b, int c, const std::string& extra = "") {
  const auto n = [](int i) { return std::to_string(i); };
  return "static void " + name + "(const float* __restrict__ b" + n(a) +
         ", const float* __restrict__ b" + n(b) + ", float* __restrict__ b" + n(c) +
         ") {\n  float s" + n(c) + " = 0.0f;  // b" + n(a) + "'s row\n  s" + n(c) + " += b" + n(a) +
         "[7] * b" + n(b) + "[7];\n  const float acc" + n(c) + " = s" + n(c) + ";\n  b" + n(c) +
         "[0] = acc" + n(c) + ";\n" + extra + "}\n";
}

TEST(KernelShape, KernelsThatDifferInTheirBuffersAloneHaveOneShape) {
  const Kernel first = with_buffers({3, 7}, {9}), second = with_buffers({4, 12}, {30});
  const std::string a = kernel_shape(first, "k1", function("k1", 3, 7, 9));
  EXPECT_EQ(a, kernel_shape(second, "k5", function("k5", 4, 12, 30)));
  EXPECT_EQ(a.find("k1"), std::string::npos) << a;
  EXPECT_NE(a.find("b#0[7] * b#1[7]"), std::string::npos) << a;
  // the loads in the other order: another kernel (the call passes them in its own order)
  EXPECT_NE(a, kernel_shape(second, "k5", function("k5", 12, 4, 30)));
}

TEST(KernelShape, NumbersHelpersAndInlinePtxKeepTheirNames) {
  const Kernel first = with_buffers({3, 4}, {9}), second = with_buffers({4, 8}, {30});
  // kf_load4 and kf_load8: helpers outside the function, whose numbers are no buffer's
  EXPECT_NE(kernel_shape(first, "k1", function("k1", 3, 4, 9, "  kf_load4(b9);\n")),
            kernel_shape(second, "k2", function("k2", 4, 8, 30, "  kf_load8(b30);\n")));
  // a constant in the code that differs (an RNN step's offset into its input)
  EXPECT_NE(kernel_shape(first, "k1", function("k1", 3, 4, 9, "  b9[3] = 1;\n")),
            kernel_shape(second, "k2", function("k2", 4, 8, 30, "  b30[4] = 1;\n")));
  // a string (inline PTX) is not code: b32 and b16 there are no buffers
  EXPECT_NE(kernel_shape(first, "k1", function("k1", 3, 4, 9, "  asm(\"mov.b9 %0;\");\n")),
            kernel_shape(second, "k2", function("k2", 4, 8, 30, "  asm(\"mov.b30 %0;\");\n")));
  // a buffer that is not the kernel's keeps its number
  EXPECT_NE(kernel_shape(first, "k1", function("k1", 3, 4, 9, "  b5[0] = 0;\n")),
            kernel_shape(second, "k2", function("k2", 4, 8, 30, "  b6[0] = 0;\n")));
}

TEST(KernelShape, ASecondKernelOfTheSameShapeCallsTheFirst) {
  EmittedKernels e;
  const Kernel first = with_buffers({3, 7}, {9}), second = with_buffers({4, 12}, {30});
  add_kernel(e, first, "c0_k1", function("c0_k1", 3, 7, 9) + function("c0_k1_plain", 3, 7, 9),
             "  c0_k1<<<4, 256>>>(b3, b7, b9);\n");
  add_kernel(e, second, "c0_k2", function("c0_k2", 4, 12, 30) + function("c0_k2_plain", 4, 12, 30),
             "  if (!c0_k2(b4, b12, b30)) c0_k2_plain<<<8, 256>>>(b4, b12, b30);\n");
  EXPECT_EQ(e.functions, function("c0_k1", 3, 7, 9) + function("c0_k1_plain", 3, 7, 9));
  EXPECT_EQ(e.calls,
            "  c0_k1<<<4, 256>>>(b3, b7, b9);\n"
            "  if (!c0_k1(b4, b12, b30)) c0_k1_plain<<<8, 256>>>(b4, b12, b30);\n");
  // another shape is written
  add_kernel(e, second, "c0_k3", function("c0_k3", 12, 4, 30), "  c0_k3(b12, b4, b30);\n");
  EXPECT_NE(e.functions.find("c0_k3("), std::string::npos) << e.functions;
}

}  // namespace
}  // namespace kforge::generator
