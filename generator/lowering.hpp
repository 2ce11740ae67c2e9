// From one config's ATen graph to the IR's buffers (generator/ir.hpp). Each node becomes a lazy
// tensor: its shape, its dtype and how to compute an element at an index. Pointwise ops and views
// compose lazily (inlined into whatever reads them); reductions, the function's outputs and values
// read by several consumers that would be costly to recompute become buffers. An operator the
// table does not know stops the lowering with a sentence naming it.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "common/result.hpp"
#include "generator/aliases.hpp"
#include "generator/graph.hpp"
#include "generator/ir.hpp"

namespace kforge::generator {

/// A loader whose copies share it. A lazy tensor's loader captures the tensors it reads, so that
/// a copy by value copied everything they read in turn, a tree where the graph shares: an RNN's
/// stack of 512 steps copied into each of the 512 pieces its next layer unbinds took 11 GB and
/// three and a half minutes.
class SharedLoader {
 public:
  SharedLoader() = default;
  template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, SharedLoader>>>
  SharedLoader(F f)  // NOLINT(google-explicit-constructor): a lambda assigned as a loader
      : f_(std::make_shared<const Loader>(std::move(f))) {}
  ExprPtr operator()(const std::vector<IndexPtr>& index) const { return (*f_)(index); }
  explicit operator bool() const { return f_ && *f_; }
  /// Whether both share one loader (a copy of it, not a loader that reads it).
  bool same(const SharedLoader& other) const { return f_ == other.f_; }

 private:
  std::shared_ptr<const Loader> f_;
};

/// A tensor as the lowering sees it: an element's expression at any index of its shape.
struct Lazy {
  std::vector<int64_t> shape;
  DType dtype = DType::f32;
  SharedLoader load;
  size_t cost = 1;  ///< the size of one element's expression
  int buffer = -1;  ///< when it is exactly a buffer, in that buffer's shape
  /// A stack of tensors each of whose elements lie together in it (stacked along its first
  /// dimension, or one after dimensions of size 1), as lower_stack made it: the tensors, and the
  /// loader, shape and type they were stacked in. Lowerer::realise places them in the stack's
  /// buffer where it is still those (a Lazy copied from it and changed keeps the field).
  struct Stacked {
    SharedLoader of;
    std::vector<int64_t> shape;
    DType dtype = DType::f32;
    std::vector<Lazy> parts;
    size_t dim = 0;  ///< the stack's own dimension
  };
  std::shared_ptr<const Stacked> stacked;
};

/// How a transposed convolution sums along a dimension of stride s above 1, where an output o
/// takes only the kernel offsets (o + padding) % s + s j (at dilation 1; dilated, those k whose
/// k d is o + padding modulo s). generate_kernel's default:
/// output_phases on the CPU, phase_batches on CUDA (BENCHMARKS.md, thirty-first step).
enum class TransposedSum {
  /// every offset, those o does not take guarded off: the weight's offset is the sum's own
  /// variable (a stride of 2 in three dimensions: 7 of every 8 terms guarded off)
  every_offset,
  /// only the offsets o takes, found from o: ceil(K / s) terms where K were, each an offset of
  /// o's quotient and remainder by s (which the contraction kernel cannot tile); a convolution
  /// with a dilated strided dimension as phase_batches (on the CPU at `--shrink 16` 2.0-86x
  /// faster than every offset there, BENCHMARKS.md)
  output_phases,
  /// the outputs grouped by their phase r = (o + padding) % s, a dimension of the sum's own
  /// beside q = (o + padding) / s: ceil(K / s) terms, each a plain offset of q, r and j; the
  /// input's element depends on q and j alone, so the CUDA contraction kernel tiles the sum as
  /// one implicit GEMM whose columns are the output channels of every phase. Dilated by d, the
  /// outputs are grouped by the class of offsets they take, c + (s / gcd(s, d)) j, which the
  /// input reads too. The sum in that order is a buffer, which the convolution's output reads
  phase_batches,
};

class Lowerer {
 public:
  /// `library_calls`: matrix products and convolutions become library calls (Buffer::Kind::library)
  /// with the rest fused around them, instead of the generator's own contraction kernels.
  /// `transposed_sum`: how a transposed convolution of stride above 1 sums.
  /// `partials`: about how many partial results (outputs x chunks) a reduction of few outputs over
  /// many elements is split into; 0 by rule (kRowPartials where it reduces rows, a group of threads
  /// a partial result, kColumnPartials where it reduces columns, a thread a partial result).
  /// `tiled_products`: the kernels sum a matrix product's tiles, an operand's element computed
  /// once a tile of columns (CUDA's contraction kernel) rather than once an output (the CPU's).
  explicit Lowerer(bool library_calls = false,
                   TransposedSum transposed_sum = TransposedSum::every_offset, int64_t partials = 0,
                   bool tiled_products = false)
      : library_calls_(library_calls),
        transposed_sum_(transposed_sum),
        partials_(partials),
        tiled_products_(tiled_products) {}

  /// The split's rule: about this many partial results. Rows in 16384 rather than 65536 were up to
  /// 9 % faster on an H200 (KernelBench's 98_KLDivLoss 0.66 -> 0.60 ms, 40_LayerNorm 0.34 -> 0.31
  /// ms, 100_HingeLoss 3 %; the other four split sums within 1 %); a column's partial result is
  /// one thread's, so fewer of them would leave SMs idle (65536 kept, not timed against others).
  static constexpr int64_t kRowPartials = 16384;
  static constexpr int64_t kColumnPartials = 65536;

  /// The program of `graph`, or the sentence that says which node stopped it.
  Result<Program> run(const Graph& graph);

  // What the op table (generator/lowering_ops.cpp) builds with.
  /// The tensor argument `i` (or keyword `name`) of `node`; a number becomes a 0-d constant.
  Result<Lazy> tensor(const GraphNode& node, size_t i, const char* name) const;
  /// Argument i, a list of tensors (cat's, stack's), each as tensor() gives it.
  Result<std::vector<Lazy>> tensors(const GraphNode& node, size_t i, const char* name) const;
  /// Argument `i` (or keyword `name`) as JSON; null when absent.
  const json::Value& arg(const GraphNode& node, size_t i, const char* name) const;
  /// Element by element: `fn` of the operands broadcast together (numpy's rules), computed in
  /// the promoted type of the operands, the result of type `out` (std::nullopt: that type).
  Result<Lazy> map(const std::vector<Lazy>& operands,
                   const std::function<ExprPtr(const std::vector<ExprPtr>&)>& fn,
                   std::optional<DType> out = std::nullopt) const;
  Lazy map1(const Lazy& a, const std::function<ExprPtr(ExprPtr)>& fn) const;
  /// `a` combined over `dims` (empty: all), the result keeping them as size 1 or not.
  Lazy reduce(const Lazy& a, std::vector<int64_t> dims, bool keepdim, Combine combine,
              double scale = 1);
  /// `a` scanned along `dim`: each element combined (sum or prod) with those before it there (with
  /// those after it where `reverse`; without itself where `exclusive`, `a` then read at all but the
  /// last element walked).
  Lazy scan(const Lazy& a, int64_t dim, Combine combine, bool reverse = false,
            bool exclusive = false);
  /// The scan buffer `a` is exactly, read in its own shape; null for anything else.
  const Buffer* scan_of(const Lazy& a) const;
  /// Whether a sum over `dims` of a tensor of `shape` is split into partial results first
  /// (`split_reduction`): few outputs over many elements.
  bool splits(const std::vector<int64_t>& shape, const std::vector<int64_t>& dims) const;
  /// A buffer holding `a` (recomputing it would cost more than reading it). A stack's pieces are
  /// placed in it (place_pieces) where they can be.
  Lazy realise(const Lazy& a);
  /// realise, one buffer for every caller that passes the same loader in the same shape (the
  /// operand several matrix products read, computed once: computed_once).
  Lazy realise_shared(const Lazy& a);
  /// The buffer `b` read in its own shape.
  static Lazy whole(const Buffer& b);
  /// `sum`, a reduction's result, as a buffer of `shape`: the same elements in the same order,
  /// neighbouring dimensions merged (a grouped convolution's [N, G, C / G, H, W] as [N, C, H, W]).
  /// The buffer takes that shape, so that its readers and the function's outputs read it whole.
  Lazy merged(const Lazy& sum, const std::vector<int64_t>& shape);
  static Lazy reshape(const Lazy& a, const std::vector<int64_t>& shape);
  static Lazy constant(double value, DType dtype, std::vector<int64_t> shape = {});
  /// A small tensor of the given values (row-major) that the function made from data.
  static Lazy constant_tensor(const json::Value& values, DType dtype,
                              const std::vector<int64_t>& shape);
  bool library_calls() const { return library_calls_; }
  TransposedSum transposed_sum() const { return transposed_sum_; }
  bool tiled_products() const { return tiled_products_; }
  /// The tensor a library call passes as argument `i` of `node` (its text, the buffers it reads
  /// added to `operands`): a buffer's tensor t<id>, the same views of one where the graph views a
  /// buffer (`t1.t()`), else a buffer made of the value. With `factor`, multiplications and
  /// divisions by a number between the buffer and the argument are left out of the tensor and
  /// multiplied into `*factor` (the caller scales the call's result), and copies (`clone`) are
  /// read through.
  Result<std::string> library_operand(const GraphNode& node, size_t i, const char* name,
                                      std::vector<int>& operands, double* factor = nullptr);
  /// The float32 tensor of `shape` that the C++ expression `call` computes from `operands` (the
  /// buffer of an earlier library call of the same text, if any).
  Lazy library(std::string call, std::vector<int> operands, std::vector<int64_t> shape);
  /// The shape the graph records for the node's output `k`.
  static std::vector<int64_t> meta_shape(const GraphNode& node, size_t k = 0);

 private:
  /// A function's output that is a library result's elements in order, reshaped (einsum's bmm
  /// read in the output's shape), as a view of that result; none for anything else, which a
  /// kernel copies into an output of its own.
  std::optional<Lazy> library_view(const Lazy& a);
  /// For stack `a` (Lazy::stacked) whose pieces can be placed in its buffer, whether each part
  /// is a buffer of ours placed as it is (not a tensor argument, a library result, an output or a
  /// piece placed already); none where the stack cannot be so placed (a piece's offset not a
  /// multiple of 16 bytes, or `a` not a stack).
  std::optional<std::vector<bool>> placeable(const Lazy& a) const;
  /// Stack `a`'s pieces placed in its buffer `stack` (Buffer::within): a part that is a buffer
  /// of ours (placeable) computes into it, any other becomes a copy placed there, where at most
  /// kCopiedPieces parts need one. False, nothing changed, where the stack cannot be so placed.
  bool place_pieces(int stack, const Lazy& a);
  static constexpr size_t kCopiedPieces = 4;
  /// A stack that nothing else makes a buffer is placed where its pieces are buffers of ours,
  /// or where kManyPieces of them are and at most kCopiedPieces are not.
  static constexpr size_t kManyPieces = 16;
  /// An in-place change (`add_`, an `out` written: Aliases::changed_by) whose result and target
  /// nothing else reads.
  bool in_place_and_unread(const GraphNode& n);
  /// "aten.add.Tensor" for "aten.add_.Tensor"; empty for an operator that is not in place.
  static std::string out_of_place_name(const std::string& op);
  /// Whether every node that refers to `target` only copies another tensor into all of it
  /// (`copy_(target, src)`: 33_VanillaRNN's hidden state, a tensor the module keeps, given the
  /// forward's argument), directly or through a copy to another device (`_to_copy`), so that its
  /// values are never read.
  bool overwritten_before_read(int target) const;
  /// Whether `n` is a stack or concatenation that its readers take apart where it folds: each
  /// reads it at a known position along a dimension (known_position) at which it selects one
  /// piece, directly or in each of its parts (folds_at), so the whole is never computed. An RNN's
  /// layer stacks its steps' outputs (a bidirectional one concatenates two stacks) and the next
  /// layer unbinds them: computed whole, 36_LSTMHn's 512 steps were one kernel of 1539 arguments
  /// recomputing every step's output at each element, which nvcc did not compile in five minutes.
  bool read_by_the_piece(const GraphNode& n) const;
  /// The dimension along which every reader of `n` takes it at a known position: unbind, or
  /// select at a number, along it; or a stack or concatenation of it (along another dimension
  /// than the stack's own), a transpose, permute or a slice along another dimension of it, that is
  /// itself so read. None where a reader reads it otherwise.
  std::optional<int64_t> known_position(const GraphNode& n) const;
  /// Whether stack or concatenation `n`, read at a known position along dimension `d`, selects
  /// one piece: `d` is its own dimension, or each of its parts is a stack or concatenation that
  /// does; or `n` is a view (transpose, permute, a slice along another dimension) of one that
  /// does at the dimension `d` is there.
  bool folds_at(const GraphNode& n, int64_t d) const;

  /// A reduction with few outputs over many elements becomes two: partial results over chunks of
  /// its elements (a buffer of its own, added now), then `b` combining them (the GPU would idle
  /// on a block or a thread per output otherwise; batch norm's statistics, a loss's sum).
  void split_reduction(Buffer& b);
  /// What `node` multiplies its tensor by where it is a multiplication or a plain division by a
  /// number; none for anything else.
  std::optional<double> number_factor(const GraphNode& node) const;
  /// The node an argument refers to ({"node": id}); null for anything else.
  const GraphNode* node_of(const json::Value& argument) const;

  bool library_calls_ = false;
  TransposedSum transposed_sum_ = TransposedSum::every_offset;
  int64_t partials_ = 0;
  bool tiled_products_ = false;
  std::map<int, const GraphNode*> nodes_;
  Program program_;
  std::map<int, std::vector<Lazy>> values_;
  std::optional<Aliases> aliases_;  ///< the graph's readers and shared memory
  /// The parts of the stacks of kManyPieces or more that are read whole (not read_by_the_piece): a
  /// layer's steps' outputs, which the next layer's input product reads in one (generator/
  /// step_products.hpp). One that something else reads too (the next step) becomes a buffer where
  /// it is made, so that it computes into its place in the stack rather than a kernel reading
  /// every step's inputs to recompute the stack.
  std::set<int> whole_stack_parts_;
  /// The reductions made so far, by what they compute (space, dims, combine, scale and the
  /// element's text): the same reduction asked for again (`matmul(x, y)` twice in one function, a
  /// mean the user takes and the one inside a std) reads the first one's buffer.
  std::map<std::string, int> reductions_;
  /// What realise_shared made: the loader it computes, the buffer.
  std::vector<std::pair<Lazy, int>> shared_;
};

/// The loader of `parts` stacked along a new dimension `d`: the element at index i is part i[d]'s
/// at i without it.
SharedLoader stack_loader(std::vector<Lazy> parts, size_t d);

/// How an ATen operator lowers (the op table): the node's values, one per output.
using Lowering = Result<std::vector<Lazy>> (*)(Lowerer&, const GraphNode&);
/// The lowering of `op` ("aten.add.Tensor"), looked up with and without its overload; null when
/// the generator cannot lower it.
Lowering lowering_of(const std::string& op);
/// Adds the lowerings of generator/lowering_windows.cpp (matrix products, convolutions, pooling,
/// padding, concatenation, strided views) to the op table.
void add_window_lowerings(std::map<std::string, Lowering>& table);
/// Every operator the table lowers ("aten.add", ...), sorted.
std::vector<std::string> lowered_ops();

std::optional<DType> dtype_of(const std::string& name);
/// An operator's name without its namespace and overload: "aten.add.Tensor" -> "add".
std::string base_name(const std::string& op);
/// An integer or a list of integers as a list.
std::vector<int64_t> ints(const json::Value& v);
/// `v` as C++ reads it back exactly ("0.10000000000000001").
std::string exact_number(double v);
/// `std::vector<int64_t>{1, 2}`.
std::string int_list_text(const std::vector<int64_t>& v);
/// dims normalised to [0, rank) (negative ones count from the end), sorted, without repeats.
std::vector<int64_t> normalise_dims(const std::vector<int64_t>& dims, size_t rank);

}  // namespace kforge::generator
