// Which kernels compute a program, in order: each reduction opens a kernel over its iteration
// space (or joins the open one, when it combines over the same dimensions of the same space and
// reads the open one's reductions only at its own outer index: a variance after its mean); the
// elementwise buffers after it join it as long as they read its reductions only at their own
// outer index (softmax's division, layer norm's affine output), so each such group is one pass
// over memory. A library buffer (a cuBLAS/cuDNN call) is a step of its own that nothing joins, its
// operands stored for it. What a later kernel reads, or the function returns, is stored.
#pragma once

#include <set>
#include <vector>

#include "generator/ir.hpp"

namespace kforge::generator {

std::vector<Kernel> schedule(const Program& program);

/// The buffers the program's outputs need (the outputs and what their elements read, down to the
/// inputs): the ones schedule computes; any other is neither computed nor allocated.
std::set<int> needed(const Program& program);

/// `k` with its stages' values and offsets computed at another outer index: `outer`, one index
/// per outer dimension (a thread that computes several neighbouring outputs names the last one
/// apart from the others: generator/emit_cuda_windows.cpp's window outputs).
Kernel at_outer_index(const Program& program, const Kernel& k, const std::vector<IndexPtr>& outer);

/// `k` with its stages computed at another inner index: `inner`, one index per inner dimension (a
/// thread that walks a long window in two nested loops names their counters apart:
/// generator/emit_cuda_kernel.hpp's window_nest).
Kernel at_inner_index(const Program& program, const Kernel& k, const std::vector<IndexPtr>& inner);

}  // namespace kforge::generator
