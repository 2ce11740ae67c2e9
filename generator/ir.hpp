// The generator's IR. A task direction's graph lowers to buffers (generator/lowering.hpp): the
// function's tensor arguments, and the tensors the kernel computes, each by an expression per
// element (pointwise) or by combining an expression over some dimensions of an iteration space
// (reduction). Views and broadcasts are not buffers: they change the index an expression loads
// at. The schedule (generator/schedule.hpp) then groups buffers into kernels, each one pass over
// an iteration space: its reductions kept in registers, the elementwise work that reads them fused
// behind them.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "generator/index.hpp"

namespace kforge::generator {

/// f64 is never a task's tensor: it holds the partial results of a float32 sum split into chunks
/// (Lowerer::split_reduction), kept as the chunks' double accumulators left them.
enum class DType { f32, i64, b8, f64 };

const char* c_type(DType t);      ///< "float", "int64_t", "bool", "double"
const char* torch_type(DType t);  ///< "torch::kFloat32", ...
int64_t element_bytes(DType t);   ///< 4, 8, 1, 8

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

/// One value an element's computation produces.
struct Expr {
  enum class Kind { constant, load, call, index };
  Kind kind = Kind::constant;
  DType dtype = DType::f32;
  double value = 0;  ///< constant
  int buffer = -1;   ///< load: the buffer read
  IndexPtr index;    ///< load: the row-major offset read in it; index: the value (int64)
  /// load: args[0], when given, is an int64 element added to the offset times this (a gather:
  /// the offset depends on data, as nll_loss reads the target's column)
  int64_t dynamic_stride = 0;
  std::string fn;  ///< call: the operation (generator/expr_text.cpp lists them)
  std::vector<ExprPtr> args;
  size_t size = 1;  ///< nodes in the tree: what inlining it again would cost
};

namespace ex {
ExprPtr constant(double value, DType dtype = DType::f32);
ExprPtr load(int buffer, IndexPtr index, DType dtype);
/// The element at index + dynamic * stride of the buffer.
ExprPtr gather(int buffer, IndexPtr index, ExprPtr dynamic, int64_t stride, DType dtype);
/// A call of `fn` (its result type `dtype`).
ExprPtr call(std::string fn, std::vector<ExprPtr> args, DType dtype = DType::f32);
ExprPtr cast(ExprPtr e, DType to);
/// An index's value as an int64 element (a window's bounds check).
ExprPtr index(IndexPtr i);
}  // namespace ex

using Loader = std::function<ExprPtr(const std::vector<IndexPtr>&)>;

/// How a reduction combines its elements.
enum class Combine { sum, max, min, prod, argmax, argmin };

struct Buffer {
  /// library: a tensor a library computes (cuBLAS through at::mm, cuDNN through at::convolution;
  /// offered to the search as an alternative to the generator's own contraction kernels).
  /// scan: a cumulative sum or product along one dimension (`reduced` marks it in `space`, which
  /// is `shape`): the element at an index combines those up to it along that dimension (from it to
  /// the end where `reverse`).
  enum class Kind { input, pointwise, reduction, library, scan };
  Kind kind = Kind::input;
  int id = 0;
  std::vector<int64_t>
      shape;  ///< as the graph sees it (a reduction's keeps its reduced dims or not)
  DType dtype = DType::f32;
  int arg = -1;  ///< input: which argument of the function
  int element = -1;  ///< input: which tensor of that argument, when it is a list of tensors
  /// input: where it is buffer `base` read from an offset on, through a pointer moved that far, by
  /// one kernel (generator/rebase.hpp); -1: a tensor of its own.
  int base = -1;
  /// pointwise: the element at an index of `shape`; reduction: the element combined at an index
  /// of `space`.
  Loader compute;
  std::vector<int64_t> space;  ///< reduction: the iteration space
  std::vector<bool> reduced;   ///< reduction: which dimensions of `space` it combines
  Combine combine = Combine::sum;
  double scale = 1;  ///< reduction: the result is multiplied by it (a mean)
  /// scan: a suffix scan, walked from the dimension's end: the flip of a scan along its dimension
  /// (KernelBench's 91_cumsum_reverse, `cumsum(x.flip(d), d).flip(d)`, one pass, no copy).
  bool reverse = false;
  /// scan: an exclusive one, the element at an index combining those before it (after it where
  /// `reverse`), the first one walked the identity; `compute` is read at all but the last walked
  /// (92_cumsum_exclusive's `cat((zeros, cumsum(x[:, :-1])), 1)`).
  bool exclusive = false;
  /// library: the C++ expression that computes it ("at::mm(t0, t1.t())"), which reads the buffers
  /// `operands` by their tensors' names (t<id>, as generator/generate.cpp names them).
  std::string call;
  std::vector<int> operands;
  /// library: `call` is a view of its one operand, another library result whose elements it is in
  /// order (bmm's result in the output's shape): no library call, no copy.
  bool view = false;
  /// pointwise, reduction, scan: a piece of a stack placed in the stack's buffer, its elements
  /// those of buffer `within` at index `within_index` along dimension `within_dim` (contiguous
  /// there: the dimensions before it have one index): the kernel that computes it stores it there
  /// (generator/generate.cpp allocates it as that view, `select`); -1: its own memory.
  int within = -1;
  int64_t within_dim = 0, within_index = 0;
  /// pointwise: a stack whose pieces, in order, are placed in it (`within`): no kernel computes
  /// it, it is complete once they are (`compute` still reads them). An RNN's output sequence was
  /// one kernel reading each step's output again (KernelBench's 39_GRU: 513 arguments, a 512-way
  /// selection an element).
  std::vector<int> pieces;
};

/// What a graph lowers to: its buffers in an order that computes each after what it reads.
struct Program {
  std::vector<Buffer> buffers;
  std::vector<int> outputs;  ///< the function's outputs, in order
};

/// One pass over an iteration space: for each index of its outer (not reduced) dimensions, its
/// stages in order.
struct Stage {
  enum class Kind {
    reduce,       ///< a reduction's accumulator, combined over the reduced dimensions
    row_store,    ///< a buffer with as many elements as the space: one per index of it
    outer_store,  ///< a buffer with as many elements as the outer dimensions: one per outer index
    scan,         ///< a scan buffer: a running accumulator along the inner dimension, each stored
  };
  Kind kind = Kind::row_store;
  int buffer = -1;
  ExprPtr value;    ///< the element, at the kernel's index (Kernel::vars)
  IndexPtr offset;  ///< where it is stored in its buffer
};

struct Kernel {
  std::vector<int64_t> space;
  std::vector<bool> reduced;  ///< none: a pointwise kernel
  /// The dimensions one thread (or group of threads) walks for one outer index: the reduced ones,
  /// or a pointwise kernel's last dimension.
  std::vector<bool> inner;
  std::vector<Stage> stages;
  std::vector<int> loads;   ///< the buffers it reads from memory
  std::vector<int> stores;  ///< the buffers it writes to memory
  /// The reductions whose loads in this kernel read its own accumulator (at the outer index).
  std::vector<int> local;
  /// A library buffer's id when this step is its library call rather than a kernel of ours (no
  /// stages; `loads` are its operands).
  int library = -1;

  bool reduces() const;
  std::vector<int64_t> outer_shape() const;
  std::vector<int64_t> inner_shape() const;
  /// The index of the space a kernel's code is at: the outer dimensions are the digits of its
  /// counter `o` over them, the inner ones those of `r`.
  std::vector<IndexPtr> vars() const;
  /// The index of the space at the outer index `outer` (one per outer dimension) and the inner
  /// digits of `r`.
  std::vector<IndexPtr> vars(const std::vector<IndexPtr>& outer) const;
  /// The index of the space at `outer` (one index per outer dimension) and `inner` (one per inner
  /// dimension).
  std::vector<IndexPtr> vars(const std::vector<IndexPtr>& outer,
                             const std::vector<IndexPtr>& inner) const;
  /// The row-major offset of the outer index: `o`.
  IndexPtr outer_offset() const;
};

}  // namespace kforge::generator
