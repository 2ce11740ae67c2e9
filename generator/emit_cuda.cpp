// CUDA kernels. A pointwise kernel: a few elements per thread, a block's width apart, all of a full
// block's loads issued before its stores. A reduction kernel: a group of threads per outer index
// (one thread, part of a warp, a warp, or the whole block), each stage a strided loop over the
// inner dimensions that loads four elements before it combines them, a reduction combined across
// the group by warp shuffles (and shared memory across warps) in a fixed order, so every thread of
// the group holds the result and the stages behind it read it from a register. A row's maximum and
// its sum of exp(x - maximum) (softmax and its kin) are one online pass. Where several passes
// compute the same values from the row and a thread's share of it is short, those values are
// computed once into registers (the row cache) and every pass reads them there. A contiguous
// float row is read four consecutive elements a thread, 16 bytes a load (row vectors). A scan: a
// warp or a thread a row, its running accumulator stored at each element.
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "generator/emit.hpp"
#include "generator/expr_text.hpp"
#include "generator/rebase.hpp"
#include "generator/schedule.hpp"

namespace kforge::generator {
namespace {

std::string n(int64_t v) {
  return std::to_string(v);
}

/// The reduced elements of a short window: a thread walks it fully unrolled, sums in float.
constexpr int64_t kShortWindow = 32;

/// The shortest column the rule of CudaChoices::column_split splits
/// (CudaKernel::column_split_rule).
constexpr int64_t kSplitColumn = 32;

/// The elements of the trailing inner dimensions that a thread's walk of a longer window unrolls
/// inside a loop over the leading ones (their product, at most kShortWindow: an 11 x 11 window's
/// 11), so that the window's offsets are constants and a counter's multiples rather than
/// divisions of r at run time; 0 where no trailing dimensions of 2 to kShortWindow elements leave
/// some leading ones.
int64_t window_nest(const Kernel& k) {
  const auto inner = k.inner_shape();
  int64_t e = 1;
  size_t t = inner.size();
  while (t > 0 && e * inner[t - 1] <= kShortWindow) e *= inner[--t];
  return t > 0 && e > 1 ? e : 0;
}

/// The outer dimension whose consecutive indices are the rows of window outputs (rows over 1):
/// the last before the last one that has more than one (a 1-D pool's channels: it is a 2-D pool
/// of rows of 1); none where there is none.
std::optional<size_t> row_dimension(const std::vector<int64_t>& outer) {
  if (outer.size() < 2) return std::nullopt;
  for (size_t d = outer.size() - 1; d-- > 0;)
    if (outer[d] > 1) return d;
  return std::nullopt;
}

/// Whether `k` reduces windows of its input: every load that reads r reads it inside a quotient
/// or remainder (the window's rows apart), none along r as one run of memory (a row; a norm's
/// channels and pixels).
bool reads_windows(const Kernel& k) {
  bool windowed = false, run = false;
  std::function<void(const ExprPtr&)> visit = [&](const ExprPtr& e) {
    if (e->kind == Expr::Kind::load && e->index && ix::reads(*e->index, "r")) {
      windowed = true;
      run = run || ix::along(*e->index, "r").has_value();
    }
    for (const auto& a : e->args) visit(a);
  };
  for (const auto& s : k.stages)
    if (s.value) visit(s.value);
  return windowed && !run;
}

int pick_group(const Kernel& k, const CudaChoices& c) {
  int g = c.group;
  const int64_t inner = numel(k.inner_shape()), outer = numel(k.outer_shape());
  // Reducing across rows (a dimension that is not the last): a thread per output walks its
  // column, so a warp reads 32 neighbouring outputs' elements at once.
  const bool across = !k.inner.empty() && !k.inner.back() && outer >= 4096;
  // A window of up to 32 elements (pooling, a short row) is a thread's own loop: a warp on 16
  // elements left half its lanes idle and shuffled for each output (max_pool2d's 4 x 4: 0.13x).
  // So is a longer window under 1024 (window_nest): a warp an output read an 11 x 11 window's
  // rows of 11 elements a few lanes each, and shuffled its sum (KernelBench's
  // 45_Average_Pooling_2D on an H200: 0.44x of eager, a thread an output 0.84x with the window's
  // divisions at run time).
  const bool window = inner < 1024 && window_nest(k) > 0 && reads_windows(k);
  if (g < 0) g = across || inner <= 32 || window ? 1 : inner < 1024 ? 32 : 0;
  return g == 0 ? c.block_threads : g;
}

/// Whether `e` is the same for the whole row: constants and k's accumulators (a row's sum, norm,
/// maximum), and what is computed from them alone.
bool row_constant(const Kernel& k, const ExprPtr& e) {
  if (e->kind == Expr::Kind::constant) return true;
  if (e->kind == Expr::Kind::load)
    return e->args.empty() && std::count(k.local.begin(), k.local.end(), e->buffer) > 0;
  if (e->kind != Expr::Kind::call) return false;
  return std::all_of(e->args.begin(), e->args.end(),
                     [&](const ExprPtr& a) { return row_constant(k, a); });
}

/// `e` with each float division by what is the same for the whole row (row_constant: a row's
/// sum, sqrt(sum of squares)) made a multiplication by its reciprocal, which the compiler
/// computes once outside the loop: a true division per element cost softmax's output pass issue
/// slots it needs for its loads. The result differs from the division by at most an ulp or so.
ExprPtr reciprocal_of_row_constants(const Kernel& k, const ExprPtr& e) {
  if (e->kind != Expr::Kind::call) return e;
  std::vector<ExprPtr> args;
  bool changed = false;
  for (const auto& a : e->args) {
    args.push_back(reciprocal_of_row_constants(k, a));
    changed = changed || args.back() != a;
  }
  if (e->fn == "div" && e->dtype == DType::f32 && args.size() == 2) {
    const ExprPtr& d = args[1];
    if (d->dtype == DType::f32 && d->kind != Expr::Kind::constant && row_constant(k, d))
      return ex::call("mul", {args[0], ex::call("reciprocal", {d})});
  }
  return changed ? ex::call(e->fn, std::move(args), e->dtype) : e;
}

/// `e` with each argument replaced by `f` of it; `e` itself where none changed.
ExprPtr with_args(const ExprPtr& e, const std::function<ExprPtr(const ExprPtr&)>& f) {
  std::vector<ExprPtr> args;
  bool changed = false;
  for (const auto& a : e->args) {
    args.push_back(f(a));
    changed = changed || args.back() != a;
  }
  if (!changed) return e;
  Expr copy = *e;
  copy.args = std::move(args);
  return std::make_shared<const Expr>(std::move(copy));
}

/// The registers a thread may give the row cache: its share of the row times the cached values.
constexpr int64_t kRowCacheValues = 64;

/// The row cache unrolls each pass over the thread's share of the row whole: at most this many
/// expression nodes in all (the share times the passes' nodes). Measured on an H200: KernelBench's
/// 92_Conv2d_GroupNorm_Tanh_HardSwish_ResidualAdd_LogSumExp (64 x 93 nodes) ran 1.24x slower with
/// the cache, 88_Gemm_GroupNorm_Swish_Multiply_Swish (32 x 66) 1.03x faster, 36_RMSNorm_ (64 x 9)
/// 1.71x faster (BENCHMARKS.md).
constexpr int64_t kRowCacheCode = 4096;

/// The most registers the four outputs' row cache of a column walk takes where the rule picks its
/// lanes (CudaKernel::column_quads; kRowCacheValues where the lanes are chosen): more lanes, each
/// a shorter share, until it fits. On an H200 (BENCHMARKS.md, issue 36's forty-third step)
/// KernelBench's level-2 49_ConvTranspose3d_Softmax_Sigmoid (a softmax and a sigmoid over 64
/// channels after cuDNN's convolution) took 4.975 ms with 4 lanes (64 registers of cache, 114 a
/// thread), 4.796 with 8 (32), 4.786 with one output a thread; level 1's 36_RMSNorm_ 3.682,
/// 3.704 and 3.811.
constexpr int64_t kQuadCacheRule = 32;

/// The most elements of the row a thread of a cluster's block caches (CudaChoices::cluster): 32
/// (38_L1Norm_'s clusters of 8 blocks of 256 threads, 48 registers, five blocks an SM) measured
/// on an H200; more not tried.
constexpr int64_t kClusterShare = 32;

/// The most bytes of shared memory a block of a cluster whose row cache is in shared memory
/// (CudaKernel::shared_cache) takes: two blocks an SM. On an H200, a softmax over KernelBench's
/// rows of 393216 (23_Softmax) written by hand this way (clusters of 16 blocks, 96 KB each) took
/// 3.76 ms at 512 threads a block and 3.89 at 256, where a block a row reading the row twice took
/// 4.65; clusters of 8 blocks of 192 KB (a block an SM) took 4.77 (BENCHMARKS.md, issue 36's
/// forty-fourth step).
constexpr int64_t kClusterSharedBytes = 96 * 1024;

/// The fewest threads an SM must hold for a cluster's row cache in shared memory: its loads, its
/// passes over shared memory and its stores follow one another in each block, and fewer threads
/// leave the memory idle between them. Measured on an H200 (BENCHMARKS.md, issue 36's
/// forty-fourth step), KernelBench's 23_Softmax in clusters of 16 blocks of 96 KB: 4.12 ms at 512
/// threads a block (1024 an SM), 4.74 at 256, 6.71 at 128; reading the row twice took 4.78.
constexpr int64_t kClusterSharedThreads = 1024;
/// The most threads a block of such a cluster: at 1024 (two blocks an SM, 32 registers a thread)
/// 23_Softmax took 11.0 ms, and 34_InstanceNorm 4.73 against 4.28 at 512.
constexpr int kClusterSharedBlock = 512;

/// A window ring's row, in floats, is the input's and kRingPad more: so measured on an H200 (the
/// hand kernel bench/depthwise_row_ring.cu, BENCHMARKS.md, issue 36's forty-ninth step).
constexpr int64_t kRingPad = 8;
/// Rows a window ring holds: the row its threads last read, those its windows read, and the rest
/// in flight. On an H200 (the same step) 82_conv_depthwise_2D_square_input_square_kernel's
/// 3 x 3 windows at 8 output rows a block took 2-3 % less with 6 rows ahead (8 slots) than 4.
constexpr int64_t kRingSlots = 8;
/// The most shared memory a block's rings take: a block may declare 48 KiB, of which the
/// reductions' scratch takes under 1 KiB.
constexpr int64_t kRingBytes = 40 * 1024;

/// The conditions an `and` joins (nested ones flattened), or the condition itself.
std::vector<const Expr*> conjuncts(const Expr& c) {
  if (c.kind != Expr::Kind::call || c.fn != "and") return {&c};
  std::vector<const Expr*> out;
  for (const auto& a : c.args)
    for (const Expr* d : conjuncts(*a)) out.push_back(d);
  return out;
}

struct CudaKernel {
  const Program& p;
  const Kernel& k;
  int threads = 256, group = 1;
  int elements = 1;  ///< a pointwise kernel's elements per thread
  int unroll = 0;    ///< CudaChoices::unroll
  std::string out;
  /// Outputs a thread computes (CudaChoices::window), kf_j = kf_c * window + kf_v along the last
  /// outer dimension; 1 for one, at `o`. The kernel's stages are then at kf_q (the other outer
  /// dimensions) and kf_j (window_index), every where evaluates both sides and every load that
  /// may leave its buffer is clamped into it (eager_text).
  int window = 1;
  /// Rows of window outputs a thread computes (CudaChoices::window_rows): the row_dimension at
  /// kf_h = kf_rg * rows + kf_rw, those before it at kf_z (window_index), kf_rw a constant once
  /// its loop is unrolled as kf_v is; 1 for one row, the outer dimensions before the last at kf_q.
  int rows = 1;
  /// A window outputs' index as the thread's part and the parts each output and element of the
  /// window add (constants once the loops over them are unrolled): kf_j's term split into kf_c *
  /// window and kf_v, kf_h's (rows over 1) into kf_rg * rows and kf_rw, each term that reads r the
  /// window's; none where the index does not read kf_j as one term of its sum.
  struct WindowSplit {
    int64_t stride = 0;           ///< kf_j's
    std::string thread;           ///< the thread's part: kf_c's, kf_rg's and the outer terms
    std::string with_constants;   ///< `thread` and the constant terms, in the sum's order
    int64_t aligned = 0;          ///< a number the thread's part is a multiple of
    std::vector<IndexPtr> own{};  ///< kf_rw's, r's and the constant terms, in the sum's order
    bool rows_apart = true;  ///< false: a term reads kf_h otherwise than as kf_h times a stride
  };
  std::optional<WindowSplit> split_window(const Index& i) const {
    const auto split = ix::along(i, "kf_j");
    if (!split) return std::nullopt;
    const std::string first = "kf_c * " + n(split->stride * window);
    WindowSplit w{split->stride, first, first, split->stride * window};
    for (const auto& t : split->rest) {
      const auto row = rows > 1 ? ix::along(*t, "kf_h") : std::nullopt;
      if (t->kind == Index::Kind::constant) w.with_constants += " + " + t->text;
      if (row && row->rest.empty()) {
        w.thread += " + kf_rg * " + n(row->stride * rows);
        w.with_constants += " + kf_rg * " + n(row->stride * rows);
        w.aligned = std::gcd(w.aligned, row->stride * rows);
        w.own.push_back(ix::mul(ix::named("kf_rw", rows), row->stride));
      } else if (ix::reads(*t, "kf_h")) {
        w.rows_apart = false;
        w.own.push_back(t);
      } else if (ix::reads(*t, "r") || t->kind == Index::Kind::constant) {
        w.own.push_back(t);
      } else {
        w.thread += " + " + t->text;
        w.with_constants += " + " + t->text;
        w.aligned = std::gcd(w.aligned, ix::factor_of(*t));
      }
    }
    return w;
  }
  /// Window outputs' loads of a float buffer at the thread's part of the offset (a multiple of
  /// four elements) plus constants once the loops over the outputs and the window are unrolled
  /// (CudaChoices::window_vectors): the thread loads the aligned groups of four elements that
  /// hold them, 16 bytes a load, before its outputs, and each load of the windows reads its
  /// register, kf_w<g>[kf_slot<g>(the constant)]. A warp's loads then cover 512 contiguous bytes
  /// where scalar loads `window` elements apart each touched `window` lines for 128 bytes.
  bool window_vectors = false;
  struct VectorLoads {
    int buffer = 0;
    std::string thread;            ///< the thread's part of the offset, a multiple of 4
    std::set<int64_t> offsets{};   ///< the constant parts the windows' loads read
    std::vector<int64_t> quads{};  ///< the groups of four loaded: their first offsets, in order
    /// Where the group holds its windows' padding (plan_vector_fills): the padding's value, put
    /// in place of each group of four whose position in the row, kf_c * `step` + its first
    /// offset + `shift`, lies outside the row's `row` elements.
    std::optional<double> fill{};
    int64_t step = 0, shift = 0, row = 0;
  };
  mutable std::vector<VectorLoads> vector_loads{};
  /// vector_load's pass: false while it collects the offsets, true once plan_vectors chose the
  /// groups loaded and it prints their registers.
  bool vectors_planned = false;
  /// Loads along kf_j printed scalar (vector_load found none for them).
  mutable int scalar_window_loads = 0;
  /// Whether every load of the windows along kf_j reads the thread's vector loads.
  bool vectors_whole() const {
    return !vector_buffers().empty() && scalar_window_loads == 0 && vectors_planned;
  }
  /// The most elements a thread's vector loads hold (registers): 16 groups of four, twice that
  /// for several rows a thread (their windows' rows shared: 42_Max_Pooling_2D's 4 x 4 windows at
  /// 4 outputs a row need 3 groups a row, 7 rows for 4 rows of outputs).
  static constexpr size_t kVectorQuads = 16;
  size_t vector_quads() const { return rows > 1 ? 2 * kVectorQuads : kVectorQuads; }
  /// Outputs a thread computes a block's width apart (CudaChoices::spread), o = kf_b + kf_v *
  /// threads, clamped to the last output where past it (`live` false: that output computed and
  /// stored again, the same value; store_guard); each load behind its border check, as for one
  /// output a thread. 1 for one.
  int spread = 1;
  /// Blocks an SM of each of the launches a column walk's grid is cut into
  /// (CudaChoices::column_launch): the kernel takes the launch's first block, kf_block0, and
  /// `o` counts from it; 0 for one launch.
  int column_launch = 0;
  /// Blocks of a thread-block cluster that share each row (CudaChoices::cluster), 1 for none: the
  /// row's `span` threads are the cluster's, lane = the block's rank * group + its thread.
  int cluster = 1;
  /// The C type of a reduction's or scan's indices (o, r; a ring's kf_z, kf_h, kf_j): int where the
  /// choice `index32` asks for it and every offset fits (narrow_indices), else int64_t. Pointwise
  /// kernels decide alone.
  std::string ix = "int64_t";
  /// The row cache (CudaChoices::row_cache): the values held in registers kf_c<i>[kf_j], and the
  /// thread's share of the row (`steps` elements, r = lane + kf_j * span); none when `steps` is 0.
  std::vector<ExprPtr> cached_values{};
  /// from_cache reads the first `visible` registers: the cache's own loop computes each value
  /// from those before it (smaller values first, so that x + b is read where (x + b) * m is made).
  size_t visible = SIZE_MAX;
  int64_t steps = 0;
  /// The row cache in groups of four consecutive elements (plan_cache_vectors), 16 bytes a load
  /// and a store: the row's first element's offset in every buffer the kernel walks the row of;
  /// empty where the cache holds a thread's elements a span apart. A thread's element kf_j < 4 *
  /// cache_quads is then r = kf_h + 4 * (lane + kf_j / 4 * span) + kf_j % 4 (kf_h: the elements
  /// before the first 16-byte aligned one), its last one the lane's element of the row's head or
  /// tail (kf_xr, lanes below kf_x).
  std::string cache_row{};
  int64_t cache_quads = 0;
  /// A cluster's row cache in groups of four held in shared memory rather than registers (plan):
  /// value i's group kf_k of this thread at kf_s<i>[kf_k * threads + threadIdx.x], its element of
  /// the row's head or tail in the register kf_t<i>; the kernel's dynamic shared memory is
  /// shared_bytes().
  bool shared_cache = false;
  int64_t shared_bytes() const {
    return shared_cache ? int64_t(cached_values.size()) * cache_quads * threads * 16 : 0;
  }
  /// A maximum and its sum of exponentials walk the row in two passes (online_pair says no):
  /// planned where the row cache then holds the row (CudaChoices::online).
  bool two_passes = false;

  /// A thread's window longer than kShortWindow walked in two loops (window_nest): the inner one
  /// over `nest` elements unrolled, at r = kf_ro * nest + kf_ri, the kernel's stages at the
  /// digits of kf_ro and kf_ri (at_inner_index); 0 for one loop over r.
  int64_t nest = 0;

  /// The threads that walk one row together: the group, in each block of the cluster.
  int64_t span() const { return int64_t{group} * cluster; }
  /// A column walk's group split across the block (CudaChoices::column_split): its `group` lanes
  /// `apart` threads apart (lane = threadIdx.x / apart, the block's apart consecutive threads
  /// consecutive outputs), so that a warp still reads 32 neighbouring outputs' elements; 1: a
  /// group of consecutive threads.
  int apart = 1;
  /// A column walk's four neighbouring outputs a thread (CudaChoices::column_vectors, where
  /// plan_column_quads says): the thread's first output kf_o4 (a multiple of four; the four all
  /// live or none), its row cache filled from 16-byte loads (kf_c<i>[kf_j * 4 + kf_v]: output
  /// kf_v's element of step kf_j), then each output's stages in turn at o = kf_o4 + kf_v; the row
  /// stores of `quad_stores` kept in kf_sv<buffer> and stored 16 bytes a store after the four. A
  /// warp's load then covers 512 contiguous bytes where it covered 128.
  bool column_quads = false;
  std::set<int> quad_stores{};
  /// The loads of the cached values that read the output (buffer, offset text), each four
  /// outputs' elements one 16-byte load kf_q<i> (in this order) at the first output's offset.
  std::vector<std::pair<int, std::string>> quad_loads{};
  /// text() prints quad_loads as kf_q<i>[kf_v] while the cache is filled.
  bool quad_fill = false;
  /// The group reductions' template arguments: the group, and how far apart its lanes are.
  std::string group_arguments() const { return apart > 1 ? n(group) + ", " + n(apart) : n(group); }

  /// memory_text of a node of the kernel's expressions, computed once per node (the node kept
  /// alive with it, so that no other node is ever made at its address).
  mutable std::map<const Expr*, std::pair<ExprPtr, std::string>> node_texts{};
  const std::string& node_text(const ExprPtr& e) const {
    auto it = node_texts.find(e.get());
    if (it == node_texts.end())
      it = node_texts.emplace(e.get(), std::pair(e, memory_text(e))).first;
    return it->second.second;
  }

  /// Which of the cached values computes what `e` does (the same text), or their count if none.
  size_t cached_index(const ExprPtr& e) const {
    size_t i = 0;
    while (i < cached_values.size() && node_text(cached_values[i]) != node_text(e)) ++i;
    return i;
  }

  /// `e` with each value the row cache holds read from its register: a load of buffer -1 - i.
  ExprPtr from_cache(const ExprPtr& e) const {
    if (e->kind == Expr::Kind::constant || e->kind == Expr::Kind::index) return e;
    const size_t at = cached_index(e);
    if (at < cached_values.size() && at < visible) {
      Expr r;
      r.kind = Expr::Kind::load;
      r.dtype = e->dtype;
      r.buffer = -1 - static_cast<int>(at);
      return std::make_shared<const Expr>(std::move(r));
    }
    return with_args(e, [this](const ExprPtr& a) { return from_cache(a); });
  }

  std::string text(const ExprPtr& e) const {
    const ExprPtr f = reciprocal_of_row_constants(
        k, strip_borders ? without_borders(without_filled_borders(e)) : without_filled_borders(e));
    if (window > 1 || ring_rows > 0) return eager_text(f);
    if (vector_pass && cached_values.empty()) return row_vector_text(f);
    if (cached_values.empty()) return kernel_expr_text(k, f);
    return expr_text(from_cache(f), [this](const Expr& l, const std::string& added) {
      if (l.buffer < 0)
        return "kf_c" + std::to_string(-1 - l.buffer) +
               (column_quads ? "[kf_j * 4 + kf_v]" : "[kf_j]");
      if (std::count(k.local.begin(), k.local.end(), l.buffer))
        return "acc" + std::to_string(l.buffer);
      if (quad_fill && added.empty()) {
        const auto q =
            std::find(quad_loads.begin(), quad_loads.end(), std::pair(l.buffer, l.index->text));
        if (q != quad_loads.end()) return "kf_q" + n(q - quad_loads.begin()) + "[kf_v]";
      }
      return "b" + std::to_string(l.buffer) + "[" + l.index->text + added + "]";
    });
  }

  /// Loads along a row 16 bytes at a time (CudaChoices::row_vectors): where a float buffer that
  /// the kernel does not store is read at r plus a part that is a multiple of four elements (a
  /// softmax's, a norm's row), each thread walks the row four consecutive elements at a time and
  /// reads them with one load, `kf_rv<g>[kf_e]` (inner_loop_unrolled); a float output stored
  /// likewise is stored four elements a store. A warp's load then covers 512 contiguous bytes in
  /// one instruction where it covered 128.
  bool row_vectors = false;
  bool pointwise_vectors = false;  ///< CudaChoices::pointwise_vectors (emit_pointwise_vectors)
  bool scan_prefetch = false;      ///< CudaChoices::scan_prefetch (scan_vectors)
  /// Warps of the block that share a scan's row (CudaChoices::scan_warps): o = blockIdx.x, warp
  /// kf_wp of them walks the elements kf_wp * 512 to kf_wp * 512 + 511 of each step of
  /// 512 * scan_warps (scan_vectors), the row's last elements left to warp 0; 1: a warp a row.
  int scan_warps = 1;
  /// Whether scan_vectors walked the row in steps of four elements a lane (what scan_warps needs).
  bool scan_in_steps = false;
  struct RowVector {
    int buffer = 0;
    std::string base;  ///< the offset's part other than r, a multiple of four elements
  };
  mutable std::vector<RowVector> row_vector_loads{};
  /// text() prints the row's vector loads as their registers (row_vector_text) while it is set.
  mutable bool vector_pass = false;
  /// The buffers the row's vector loads of the emitted loops read (16-byte aligned at its launch;
  /// what they store the kernel allocates).
  std::set<int> row_vector_buffers{};

  /// The part of offset `i` other than r, where `i` is that part plus r itself and the part is a
  /// multiple of four (the start of a row of a contiguous float tensor whose rows are); none
  /// otherwise.
  static std::optional<std::string> row_vector_base(const Index& i) {
    const auto split = ix::along(i, "r");
    if (!split) return std::nullopt;
    for (const auto& t : split->rest)
      if (ix::factor_of(*t) % 4 != 0) return std::nullopt;
    return row_base(i);
  }

  /// Where `i` walks a row (stride 1 along r), the offset of the row's first element, base + r;
  /// none otherwise.
  static std::optional<std::string> row_base(const Index& i) {
    const auto split = ix::along(i, "r");
    if (!split || split->stride != 1) return std::nullopt;
    std::string base;
    for (const auto& t : split->rest) base += (base.empty() ? "" : " + ") + t->text;
    return base.empty() ? "0" : base;
  }

  /// The row vector group a load reads (row_vector_loads), where it is one: a float buffer the
  /// kernel does not store, at row_vector_base.
  std::optional<size_t> row_vector(const Expr& l, const std::string& added) const {
    if (!row_vectors || l.buffer < 0 || !added.empty() || !l.index) return std::nullopt;
    const Buffer& b = p.buffers[static_cast<size_t>(l.buffer)];
    if (b.dtype != DType::f32 || std::count(k.stores.begin(), k.stores.end(), l.buffer))
      return std::nullopt;
    const auto base = row_vector_base(*l.index);
    if (!base) return std::nullopt;
    auto g =
        std::find_if(row_vector_loads.begin(), row_vector_loads.end(),
                     [&](const RowVector& v) { return v.buffer == l.buffer && v.base == *base; });
    if (g == row_vector_loads.end())
      g = row_vector_loads.insert(row_vector_loads.end(), RowVector{l.buffer, *base});
    return static_cast<size_t>(g - row_vector_loads.begin());
  }

  /// `e` with each load that row_vector takes as the register of its group. Only loads that `e`
  /// evaluates whatever the data (unconditional_loads): the row's four elements are loaded ahead
  /// of any condition, and a load a condition guards may lie outside its buffer (cat's pieces).
  std::string row_vector_text(const ExprPtr& e) const {
    const auto unconditional = unconditional_loads(e);
    return expr_text(e, [&](const Expr& l, const std::string& added) {
      if (std::count(k.local.begin(), k.local.end(), l.buffer))
        return "acc" + std::to_string(l.buffer);
      const std::string memory = "b" + std::to_string(l.buffer) + "[" + l.index->text + added + "]";
      if (!unconditional.count(memory)) return memory;
      const auto g = row_vector(l, added);
      return g ? "kf_rv" + n(static_cast<int64_t>(*g)) + "[kf_e]" : memory;
    });
  }

  /// `make`'s text (a walk's value) with the row's vector loads as registers; empty where it reads
  /// none of them or row_vectors is off.
  std::string vector_text(const std::function<std::string()>& make) const {
    if (!row_vectors || window > 1 || !cached_values.empty()) return {};
    vector_pass = true;
    std::string t = make();
    vector_pass = false;
    return t.find("kf_rv") == std::string::npos ? std::string{} : t;
  }

  /// The pointer a store of stage `s` walks the row from four elements a store (row_vectors): a
  /// float output the kernel allocates, at row_vector_base; empty where it is not one.
  std::string vector_store(const Stage& s) const {
    if (!row_vectors || window > 1 || !s.offset) return {};
    if (!cached_values.empty() && cache_row.empty()) return {};
    const Buffer& b = p.buffers[static_cast<size_t>(s.buffer)];
    if (b.dtype != DType::f32 || b.kind == Buffer::Kind::input || s.value->dtype != DType::f32)
      return {};
    const auto base = cache_row.empty() ? row_vector_base(*s.offset) : row_base(*s.offset);
    if (base && !cache_row.empty() && *base != cache_row) return {};
    return base ? "b" + std::to_string(s.buffer) + " + (" + *base + ")" : std::string{};
  }

  /// `text` prints expressions without_borders (the interior path of a short window).
  bool strip_borders = false;
  bool interior = false;  ///< CudaChoices::interior
  /// What without_borders assumed: each check's bound over the whole window, free of r (texts).
  mutable std::set<std::string> interior_checks{};

  /// A border check of a short window, `index(i) OP c` with OP one of >=, >, <, <= and i reading
  /// r through terms of a sum that are never negative: the same check for every r of the window,
  /// as a text free of r (r's terms at their least, 0, for >= and >; at their greatest for < and
  /// <=); empty where `e` is not one.
  std::string window_check(const Expr& e) const {
    static const std::map<std::string, std::string> ops = {
        {"ge", ">="}, {"gt", ">"}, {"lt", "<"}, {"le", "<="}};
    const auto op = ops.find(e.fn);
    if (e.kind != Expr::Kind::call || op == ops.end() || e.args.size() != 2 ||
        e.args[0]->kind != Expr::Kind::index || e.args[1]->kind != Expr::Kind::constant)
      return {};
    const Index& i = *e.args[0]->index;
    std::vector<IndexPtr> terms =
        i.kind == Index::Kind::sum ? i.terms : std::vector<IndexPtr>{e.args[0]->index};
    IndexPtr rest = ix::constant(0);
    int64_t most = 0;  // the r terms' greatest sum
    // Window outputs: kf_j = kf_c * window + kf_v, a term kf_j * s at its least kf_c * window * s
    // for every output of the thread, at its greatest (window - 1) * s more.
    std::string thread;
    int64_t thread_most = 0;
    bool reads_r = false;
    for (const auto& t : terms) {
      if (window > 1 && ring_rows == 0 && ix::reads(*t, "kf_j") && !ix::reads(*t, "r")) {
        const auto split = ix::along(*t, "kf_j");
        if (!split || split->stride < 0 || !split->rest.empty()) return {};
        thread += " + kf_c * " + n(split->stride * window);
        thread_most += (window - 1) * split->stride;
        continue;
      }
      if (!ix::reads(*t, "r")) {
        rest = ix::add(rest, t);
        continue;
      }
      if (t->may_be_negative) return {};
      reads_r = true;
      most += t->bound - 1;
    }
    if (!reads_r) return {};
    const bool upper = e.fn == "lt" || e.fn == "le";
    return "(static_cast<int64_t>(" + rest->text + thread + ")" +
           (upper ? " + " + n(most + thread_most) : "") + " " + op->second + " " +
           constant_text(e.args[1]->value, DType::i64) + ")";
  }

  /// `e` with each where whose condition is border checks of a short window alone (window_check,
  /// joined by &&) replaced by its first branch, the checks recorded in interior_checks.
  ExprPtr without_borders(const ExprPtr& e) const {
    if (e->kind != Expr::Kind::call) return e;
    if (e->fn == "where" && e->args.size() == 3) {
      std::vector<std::string> checks;
      for (const Expr* c : conjuncts(*e->args[0])) checks.push_back(window_check(*c));
      if (std::none_of(checks.begin(), checks.end(),
                       [](const std::string& c) { return c.empty(); })) {
        interior_checks.insert(checks.begin(), checks.end());
        return without_borders(e->args[1]);
      }
    }
    return with_args(e, [this](const ExprPtr& a) { return without_borders(a); });
  }

  /// Every border check without_borders assumed, joined: an output whose window lies inside its
  /// input; empty where there were none.
  std::string interior_condition() const {
    std::string out;
    for (const auto& c : interior_checks) out += (out.empty() ? "" : " && ") + c;
    return out.empty() ? out : "(" + out + ")";
  }

  /// The window outputs' text of `e`: each where a kf_select of values computed before it, each
  /// load that may leave its buffer (the discarded lanes past the last output included: any load
  /// at kf_j) clamped into it. What a guard discards is still read, from inside the buffer.
  std::string eager_text(const ExprPtr& e) const {
    auto index = [this](const Index& i) { return window_offset(i); };
    return expr_text(
        eager_selects(e),
        [this, index](const Expr& l, const std::string& added) {
          if (std::count(k.local.begin(), k.local.end(), l.buffer))
            return "acc" + std::to_string(l.buffer);
          if (auto v = ring_load(l, added)) return *v;
          if (auto v = vector_load(l, added)) return *v;
          std::string at = window_offset(*l.index) + added;
          if (ix::reads(*l.index, "kf_j") || may_leave_buffer(l))
            at = "kf_in(" + at + ", " + n(numel(p.buffers[static_cast<size_t>(l.buffer)].shape)) +
                 ")";
          return "b" + std::to_string(l.buffer) + "[" + at + "]";
        },
        index);
  }

  /// An index of the window outputs as the thread's part plus the window's: kf_j's term split
  /// into kf_c * window (the thread's) and kf_v (a constant once the loop over the outputs is
  /// unrolled, as the window's r is), so that the offsets that neighbouring windows share are
  /// the same thread's part plus the same constant, which the compiler computes and loads once.
  std::string window_offset(const Index& i) const {
    const auto split = ring_rows > 0 ? std::nullopt : split_window(i);
    if (!split) return i.text;
    std::string own = split->stride == 1 ? "kf_v" : "kf_v * " + n(split->stride);
    for (const auto& t : split->own)
      if (t->kind != Index::Kind::constant) own += " + " + t->text;
    return "((" + split->with_constants + ") + (" + own + "))";
  }

  /// A window outputs' load as a register of the thread's vector loads (window_vectors): while
  /// they are planned, none, its constant part recorded with its group; after, the register where
  /// plan_vectors kept its group. None where the load is not the thread's part, a multiple of 4,
  /// plus a constant for each output and element of the window.
  std::optional<std::string> vector_load(const Expr& l, const std::string& added) const {
    auto v = vector_register(l, added);
    if (!v && vectors_planned && l.index && ix::reads(*l.index, "kf_j")) ++scalar_window_loads;
    return v;
  }
  std::optional<std::string> vector_register(const Expr& l, const std::string& added) const {
    if (window <= 1 || !window_vectors || !added.empty() || l.buffer < 0) return std::nullopt;
    const Buffer& b = p.buffers[static_cast<size_t>(l.buffer)];
    if (b.dtype != DType::f32 || numel(b.shape) % 4 != 0 ||
        std::count(k.stores.begin(), k.stores.end(), l.buffer))
      return std::nullopt;
    const auto split = split_window(*l.index);
    if (!split || !split->rows_apart || split->aligned % 4 != 0) return std::nullopt;
    const std::string& thread = split->thread;
    const std::vector<IndexPtr>& own = split->own;
    std::set<int64_t> offsets;
    const int64_t r_end = numel(k.inner_shape());
    for (int64_t u = 0; u < rows; ++u) {
      for (int64_t v = 0; v < window; ++v) {
        for (int64_t r = 0; r < r_end; ++r) {
          int64_t at = v * split->stride;
          for (const auto& t : own) {
            const auto value = ix::value_at(*t, {{"r", r}, {"kf_rw", u}});
            if (!value) return std::nullopt;
            at += *value;
          }
          offsets.insert(at);
        }
      }
    }
    auto group = std::find_if(vector_loads.begin(), vector_loads.end(), [&](const VectorLoads& g) {
      return g.buffer == l.buffer && g.thread == thread;
    });
    if (!vectors_planned) {
      if (group == vector_loads.end())
        group = vector_loads.insert(vector_loads.end(), VectorLoads{l.buffer, thread});
      group->offsets.insert(offsets.begin(), offsets.end());
      return std::nullopt;
    }
    if (group == vector_loads.end() || group->quads.empty()) return std::nullopt;
    std::string at = split->stride == 1 ? "kf_v" : "kf_v * " + n(split->stride);
    for (const auto& t : own) at += " + " + t->text;
    const std::string g = n(group - vector_loads.begin());
    return "kf_w" + g + "[kf_slot" + g + "(" + at + ")]";
  }

  /// Output rows a block walks with its windows' input rows in rings in shared memory
  /// (CudaChoices::window_ring); 0: none. The kernel is then at window_index with rows (kf_z the
  /// plane, kf_h the output row, kf_j the column): a block is a band of ring_rows output rows of
  /// a plane, its thread x computes the columns x + threads * kf_v (kf_v < window) of each and
  /// copies the 16 bytes at 4x of each input row its windows read into the ring by cp.async, a
  /// few rows ahead of those it reads (emit_ring). A load of the windows then reads the ring's
  /// row kf_h + dy at column kf_j + dx, dy and dx its offset's own part (r's terms and the
  /// constants, once the loops are unrolled) over and modulo the input's row.
  int ring_rows = 0;
  /// Output rows a thread of a ring's kernel computes at each step of its band (ring_rows), after
  /// one wait and one barrier, the ring rows their windows share read once from shared memory
  /// where the compiler finds the same read in each (CudaChoices::window_rows); 1: a row a step.
  int ring_step = 1;
  /// A load's offset as a ring reads it: plane + kf_h * row + kf_j + own, the plane's terms
  /// reading kf_z alone (a multiple of `aligned`).
  struct RingRead {
    std::string plane;
    int64_t row = 0;
    int64_t aligned = 0;
    std::vector<IndexPtr> own{};
  };
  /// A ring: the rows of a buffer's plane that the windows read, the most rows above and below
  /// kf_h and columns before (left) and past kf_j their loads reach (above and left: a padded
  /// window's). Its row y holds the buffer's elements from `lead` before the plane's row y to
  /// `tail` past its end, as memory holds them (the previous and next rows' where a padded
  /// window's check would select its padding there), so that a read of the ring is the load it
  /// replaces wherever that load is in the buffer.
  struct Ring {
    int buffer = 0;
    std::string plane;
    int64_t row = 0;
    int64_t above = 0, below = 0, left = 0, past = 0;
    int64_t lead = 0, tail = 0;  ///< floats before and past the row (multiples of 4)
    int64_t width() const { return lead + row + tail; }
    int64_t span() const { return above + below; }
    /// Whether its windows read rows above the output's or columns before or past the row.
    bool padded() const { return above > 0 || left > 0 || tail > 0; }
    /// The rule's rings (window_ring_rows): unpadded windows of 2 or 3 columns and 2 rows or more,
    /// or padded ones of 3 or 4 columns and 2 rows or more whose ring holds the padding.
    bool by_rule() const {
      if (span() < 1) return false;
      if (!padded()) return past >= 1 && past <= 2;  // (its span is the rows below)
      return fill.has_value() && left + past >= 2 && left + past <= 3;
    }
    /// Where every read of the ring is a padded window's `where(inside, load, fill)` whose
    /// condition is exactly the read's in-bounds test (plan_fills): the padding's value, held by
    /// the ring where the input is not (its lead and tail, where `fill_columns`; the rows outside
    /// the plane's `rows`, where `fill_rows`), so that its reads need no check.
    std::optional<double> fill{};
    bool fill_rows = false, fill_columns = false;
    int64_t rows = 0;  ///< the plane's input rows (fill_rows)
  };
  mutable std::vector<Ring> rings{};
  /// ring_load's pass: false while it collects the rings, true once emit_ring prints their reads.
  bool rings_planned = false;
  /// Loads along kf_j that no ring holds (ring_load found none for them).
  mutable int unringed_loads = 0;
  /// Slots of each ring: the rows a step's windows read (ring_step + span), rows in flight past
  /// them, and the ring_step rows the step before read (kRingSlots; more where ring_step needs
  /// them, fewer where the rings would pass kRingBytes of shared memory).
  int64_t ring_slots = 0;

  std::optional<RingRead> ring_read(const Index& i) const {
    const auto split = ix::along(i, "kf_j");
    if (!split || split->stride != 1) return std::nullopt;
    RingRead read;
    for (const auto& t : split->rest) {
      if (ix::reads(*t, "kf_h")) {
        const auto row = ix::along(*t, "kf_h");
        if (!row || !row->rest.empty() || row->stride <= 0 || read.row != 0) return std::nullopt;
        read.row = row->stride;
      } else if (ix::reads(*t, "kf_z")) {
        if (ix::reads(*t, "r")) return std::nullopt;
        read.plane += (read.plane.empty() ? "" : " + ") + t->text;
        read.aligned = std::gcd(read.aligned, ix::factor_of(*t));
      } else if (ix::reads(*t, "r") || t->kind == Index::Kind::constant) {
        read.own.push_back(t);
      } else {
        return std::nullopt;
      }
    }
    if (read.row == 0) return std::nullopt;
    if (read.plane.empty()) read.plane = "0";
    return read;
  }

  /// An offset `at` from a window's output as dy rows and dx columns of rows of `row` elements:
  /// at = dy * row + dx, -row / 2 <= dx < row / 2.
  static std::pair<int64_t, int64_t> rows_and_columns(int64_t at, int64_t row) {
    const int64_t shifted = at + row / 2;
    const int64_t dy = shifted >= 0 ? shifted / row : -((row - 1 - shifted) / row);
    return {dy, at - dy * row};
  }

  /// A window's load as a read of its ring (ring_rows): while the rings are planned, none, its
  /// rows and columns recorded with its ring; after, the ring's row kf_rr<g>[above + dy] at
  /// kf_j + lead + dx, where the own part's value is dy rows and dx columns (|dx| under half a
  /// row; dy and dx negative for a padded window's first rows and columns). None (an unringed
  /// load) where the load reads kf_j otherwise than as ring_read's sum of a float buffer the
  /// kernel does not store, of a multiple of 4 elements (a copy that would pass its end is not
  /// made), or rows a multiple of 4 elements.
  std::optional<std::string> ring_load(const Expr& l, const std::string& added) const {
    if (ring_rows == 0 || l.buffer < 0 || !l.index || !ix::reads(*l.index, "kf_j"))
      return std::nullopt;
    const Buffer& b = p.buffers[static_cast<size_t>(l.buffer)];
    const auto read = ring_read(*l.index);
    const auto unringed = [this] {
      ++unringed_loads;
      return std::nullopt;
    };
    // a buffer of a multiple of 4 elements: its last 16 bytes are copied whole, as every other
    if (!added.empty() || b.dtype != DType::f32 || l.dtype != DType::f32 ||
        numel(b.shape) % 4 != 0 || std::count(k.stores.begin(), k.stores.end(), l.buffer) ||
        !read || read->row % 4 != 0 || read->aligned % 4 != 0)
      return unringed();
    Ring reach{l.buffer, read->plane, read->row};
    const int64_t half = read->row / 2, r_end = numel(k.inner_shape());
    for (int64_t r = 0; r < r_end; ++r) {
      int64_t at = 0;
      for (const auto& t : read->own) {
        const auto value = ix::value_at(*t, {{"r", r}});
        if (!value) return unringed();
        at += *value;
      }
      const auto [dy, dx] = rows_and_columns(at, read->row);
      reach.above = std::max(reach.above, -dy);
      reach.below = std::max(reach.below, dy);
      reach.left = std::max(reach.left, -dx);
      reach.past = std::max(reach.past, dx);
    }
    auto ring = std::find_if(rings.begin(), rings.end(), [&](const Ring& g) {
      return g.buffer == l.buffer && g.plane == read->plane && g.row == read->row;
    });
    if (!rings_planned) {
      if (ring == rings.end()) ring = rings.insert(rings.end(), reach);
      ring->above = std::max(ring->above, reach.above);
      ring->below = std::max(ring->below, reach.below);
      ring->left = std::max(ring->left, reach.left);
      ring->past = std::max(ring->past, reach.past);
      ring->lead = (ring->left + 3) / 4 * 4;
      ring->tail =
          (std::max<int64_t>(0, k.outer_shape().back() + ring->past - ring->row) + 3) / 4 * 4;
      return std::nullopt;
    }
    if (ring == rings.end()) return unringed();
    std::string own;
    for (const auto& t : read->own) own += (own.empty() ? "" : " + ") + t->text;
    if (own.empty()) own = "0";
    // (own + half + above * row) = (above + dy) * row + (dx + half), both parts non-negative
    const std::string shifted = "(" + own + " + " + n(half + ring->above * read->row) + ")";
    const std::string row = n(read->row);
    return "kf_rr" + n(ring - rings.begin()) + "[" + shifted + " / " + row + "][kf_j + " + shifted +
           " % " + row + " + (" + n(ring->lead - half) + ")]";
  }

  /// The ring a load of the windows reads (ring_load's rings, planned), or none.
  const Ring* ring_of(const Expr& l) const {
    if (l.kind != Expr::Kind::load || l.buffer < 0 || !l.index || !ix::reads(*l.index, "kf_j"))
      return nullptr;
    const auto read = ring_read(*l.index);
    if (!read) return nullptr;
    for (const Ring& g : rings)
      if (g.buffer == l.buffer && g.plane == read->plane && g.row == read->row) return &g;
    return nullptr;
  }

  /// The reads of the kernel's stages of groups of loads (the rings, a thread's vector loads)
  /// for their padding fills: `group_of(load)` names a load's group (an index into `seen`), or
  /// none; each `where(checks, load, c)` whose load is a group's goes to `guarded(where, load,
  /// seen[group])`, which says whether it is a read the group may fill; any other read of a
  /// group's load marks it bad (`seen[group].bad`), as does a read that `guarded` refuses.
  template <class Reads, class GroupOf, class Guarded>
  void walk_guarded_reads(std::vector<Reads>& seen, GroupOf group_of, Guarded guarded) const {
    std::function<void(const ExprPtr&)> walk = [&](const ExprPtr& e) {
      if (e->kind == Expr::Kind::call && e->fn == "where" && e->args.size() == 3) {
        if (const auto g = group_of(*e->args[1])) {
          if (!guarded(*e, *e->args[1], seen[*g])) seen[*g].bad = true;
          walk(e->args[0]);
          return;
        }
      }
      if (const auto g = group_of(*e)) seen[*g].bad = true;
      for (const auto& a : e->args) walk(a);
    };
    for (const Stage& st : k.stages)
      if (st.value) walk(st.value);
  }

  /// Which rings hold their windows' padding (Ring::fill): every read of the ring is a
  /// `where(checks, load, c)` of one c, whose checks (joined by `and`) are each `p >= 0` or
  /// `p < size` with p, at every r of the window, the read's input row kf_h + dy (size: the
  /// plane's rows, one for the ring) or its column kf_j + dx (size: the row's length); a read
  /// checks both bounds of its row or neither, and of its column or neither, as every other
  /// read of the ring does. Then the where is the read of a ring that holds c outside the input,
  /// the copy of memory inside it.
  void plan_fills() {
    struct Reads {
      bool bad = false;
      std::optional<double> fill;
      int with_rows = 0, without_rows = 0, with_columns = 0, without_columns = 0;
      int64_t rows = 0;
    };
    std::vector<Reads> seen(rings.size());
    const int64_t r_end = numel(k.inner_shape());
    const auto at_r = [](const Index& i, int64_t r, int64_t h, int64_t j) {
      return ix::value_at(i, {{"r", r}, {"kf_h", h}, {"kf_j", j}});
    };
    const auto guarded = [&](const Expr& where, const Expr& l, Reads& reads) {
      const auto read = ring_read(*l.index);
      if (where.args[2]->kind != Expr::Kind::constant ||
          (reads.fill && *reads.fill != where.args[2]->value))
        return false;
      reads.fill = where.args[2]->value;
      const std::vector<const Expr*> checks = conjuncts(*where.args[0]);
      for (int64_t r = 0; r < r_end; ++r) {
        int64_t at = 0;
        for (const auto& t : read->own) {
          const auto v = ix::value_at(*t, {{"r", r}});
          if (!v) return false;
          at += *v;
        }
        const auto [dy, dx] = rows_and_columns(at, read->row);
        int row_bounds = 0, column_bounds = 0;
        for (const Expr* c : checks) {
          if (c->kind != Expr::Kind::call || (c->fn != "ge" && c->fn != "lt") ||
              c->args.size() != 2 || c->args[0]->kind != Expr::Kind::index ||
              c->args[1]->kind != Expr::Kind::constant)
            return false;
          const Index& p = *c->args[0]->index;
          // p affine in kf_h and kf_j: each term that reads one is that variable times a number
          const std::vector<IndexPtr> terms =
              p.kind == Index::Kind::sum ? p.terms : std::vector<IndexPtr>{c->args[0]->index};
          for (const auto& t : terms)
            for (const char* v : {"kf_h", "kf_j"})
              if (ix::reads(*t, v)) {
                const auto split = ix::along(*t, v);
                if (!split || !split->rest.empty()) return false;
              }
          const auto p0 = at_r(p, r, 0, 0), ph = at_r(p, r, 1, 0), pj = at_r(p, r, 0, 1);
          if (!p0 || !ph || !pj) return false;
          const double bound = c->args[1]->value;
          const bool lower = c->fn == "ge";
          if (lower && bound != 0) return false;
          if (*ph - *p0 == 1 && *pj == *p0 && *p0 == dy) {
            if (!lower) {
              if (reads.rows != 0 && bound != static_cast<double>(reads.rows)) return false;
              reads.rows = static_cast<int64_t>(bound);
            }
            row_bounds |= lower ? 1 : 2;
          } else if (*pj - *p0 == 1 && *ph == *p0 && *p0 == dx) {
            if (!lower && bound != static_cast<double>(read->row)) return false;
            column_bounds |= lower ? 1 : 2;
          } else {
            return false;
          }
        }
        if (row_bounds == 1 || row_bounds == 2 || column_bounds == 1 || column_bounds == 2)
          return false;
        ++(row_bounds ? reads.with_rows : reads.without_rows);
        ++(column_bounds ? reads.with_columns : reads.without_columns);
      }
      return true;
    };
    walk_guarded_reads(
        seen,
        [this](const Expr& l) -> std::optional<size_t> {
          const Ring* g = ring_of(l);
          return g ? std::optional(static_cast<size_t>(g - rings.data())) : std::nullopt;
        },
        guarded);
    for (size_t g = 0; g < rings.size(); ++g) {
      const Reads& reads = seen[g];
      Ring& ring = rings[g];
      ring.fill.reset();
      ring.fill_rows = ring.fill_columns = false;
      if (reads.bad || !reads.fill || (reads.with_rows > 0 && reads.without_rows > 0) ||
          (reads.with_columns > 0 && reads.without_columns > 0) ||
          (reads.with_rows == 0 && reads.with_columns == 0))
        continue;
      ring.fill = reads.fill;
      ring.fill_rows = reads.with_rows > 0;
      ring.fill_columns = reads.with_columns > 0;
      ring.rows = reads.rows;
    }
  }

  /// `e` with each where that reads a ring (plan_fills) or a thread's vector loads
  /// (plan_vector_fills) holding its padding replaced by the read.
  ExprPtr without_filled_borders(const ExprPtr& e) const {
    if ((ring_rows == 0 && !vector_fills) || e->kind != Expr::Kind::call) return e;
    if (e->fn == "where" && e->args.size() == 3) {
      if (const Ring* g = ring_of(*e->args[1]); g && g->fill) return e->args[1];
      if (const VectorLoads* g = vector_group_of(*e->args[1]); g && g->fill) return e->args[1];
    }
    return with_args(e, [this](const ExprPtr& a) { return without_filled_borders(a); });
  }

  /// The rings of the kernel's windows (ring_load's first pass over its stages, the text
  /// dropped), their slots and the block's threads: a warp's multiple that copies every ring's
  /// row 16 bytes a thread. Whether every load along kf_j reads a ring that fits.
  bool plan_rings() {
    const std::string kept = out;
    rings.clear();
    unringed_loads = 0;
    rings_planned = false;
    emit_stages();
    out = kept;
    rings_planned = true;
    if (rings.empty() || unringed_loads > 0) return false;
    int64_t span = 0, copiers = 0, row_bytes = 0;
    for (const Ring& g : rings) {
      span = std::max(span, g.span());
      copiers = std::max(copiers, g.width() / 4);
      row_bytes += (g.width() + kRingPad) * 4;
    }
    // the rows a step reads (ring_step + span), those it has in flight past them, and the
    // ring_step rows the step before read, into which the next rows go
    const int64_t least = span + 2 * ring_step;
    // (more than kRingSlots only for several rows a step)
    ring_slots = ring_step > 1 ? std::max(kRingSlots, least) : kRingSlots;
    while (ring_slots > least && ring_slots * row_bytes > kRingBytes) --ring_slots;
    if (ring_slots * row_bytes > kRingBytes || ring_slots < least || copiers > 1024) return false;
    // a warp's multiple that copies an input row 16 bytes a thread: those past it (a padded
    // window's floats before and past the row) in a second turn of a few threads
    int64_t row_copiers = 0;
    for (const Ring& g : rings) row_copiers = std::max(row_copiers, (g.row + 3) / 4);
    threads = static_cast<int>((row_copiers + 31) / 32 * 32);
    window = static_cast<int>((k.outer_shape().back() + threads - 1) / threads);
    plan_fills();
    return true;
  }

  /// The groups of four each vector load group holds (kVectorQuads at most in all; a group over
  /// the rest keeps its scalar loads).
  void plan_vectors() {
    size_t quads = 0;
    for (auto& g : vector_loads) {
      std::set<int64_t> firsts;
      for (int64_t o : g.offsets) firsts.insert(o - ((o % 4) + 4) % 4);
      if (quads + firsts.size() > vector_quads()) continue;
      quads += firsts.size();
      g.quads.assign(firsts.begin(), firsts.end());
    }
    vectors_planned = true;
  }

  /// The vector load group a load of the windows reads (vector_register's groups, planned), or
  /// none.
  const VectorLoads* vector_group_of(const Expr& l) const {
    if (window <= 1 || !window_vectors || !vectors_planned || l.kind != Expr::Kind::load ||
        l.buffer < 0 || !l.index)
      return nullptr;
    const auto split = split_window(*l.index);
    if (!split) return nullptr;
    for (const VectorLoads& g : vector_loads)
      if (g.buffer == l.buffer && g.thread == split->thread && !g.quads.empty()) return &g;
    return nullptr;
  }

  /// Whether a vector load group holds its padding (plan_vector_fills).
  bool vector_fills = false;
  /// CudaChoices::window_fills: 1 where a group may hold its padding, 0 never, -1 where its
  /// windows' taps are dilated.
  int fills = -1;

  /// Which of the thread's vector load groups hold their windows' padding (VectorLoads::fill), as
  /// a ring does (plan_fills), for windows along the row alone (41_Max_Pooling_1D's, padded by 4,
  /// dilated by 3): every read of the group is a `where(checks, load, c)` of one c whose checks
  /// are `p >= 0` and `p < L`, p the read's kf_j times the load's stride plus terms of r and
  /// constants alone, L one length, and p minus the load's offset from the thread's part one
  /// `shift` at every r. A group of four at first offset f then holds the elements at positions
  /// kf_c * step + f + shift to 3 past it (step the thread's outputs times the stride); where
  /// step, shift and L are multiples of 4, they all lie inside [0, L) or none does, so that the
  /// group's load replaced by c where it lies outside (emit_vector_loads: a check a group, behind
  /// one check of the thread's groups together) leaves each where the read alone. Only where the
  /// choice `window_fills` says: by rule where a read's taps are dilated (its window's offsets
  /// spread over more elements than it has taps).
  void plan_vector_fills() {
    struct Reads {
      bool bad = false;
      std::optional<double> fill;
      std::optional<int64_t> shift, row;
      int64_t stride = 0;    ///< kf_j's in the loads' offsets
      bool dilated = false;  ///< a read's taps spread over more elements than they number
    };
    std::vector<Reads> seen(vector_loads.size());
    const int64_t r_end = numel(k.inner_shape());
    const auto guarded = [&](const Expr& where, const Expr& l, Reads& reads) {
      const auto split = split_window(*l.index);
      if (rows > 1 || !split || where.args[2]->kind != Expr::Kind::constant ||
          (reads.fill && *reads.fill != where.args[2]->value))
        return false;
      reads.fill = where.args[2]->value;
      if (reads.stride != 0 && reads.stride != split->stride) return false;
      reads.stride = split->stride;
      const std::vector<const Expr*> checks = conjuncts(*where.args[0]);
      int bounds = 0;
      for (const Expr* c : checks) {
        if (c->kind != Expr::Kind::call || (c->fn != "ge" && c->fn != "lt") ||
            c->args.size() != 2 || c->args[0]->kind != Expr::Kind::index ||
            c->args[1]->kind != Expr::Kind::constant)
          return false;
        const bool lower = c->fn == "ge";
        const double bound = c->args[1]->value;
        if (lower && bound != 0) return false;
        if (!lower) {
          if (bound != std::floor(bound) || (reads.row && *reads.row != bound)) return false;
          reads.row = static_cast<int64_t>(bound);
        }
        const auto p = ix::along(*c->args[0]->index, "kf_j");
        if (!p || p->stride != split->stride) return false;
        std::set<int64_t> taps;
        for (int64_t r = 0; r < r_end; ++r) {
          int64_t at = 0, position = 0;
          for (const auto& t : split->own) {
            const auto v = ix::value_at(*t, {{"r", r}});
            if (!v) return false;
            at += *v;
          }
          for (const auto& t : p->rest) {
            const auto v = ix::value_at(*t, {{"r", r}});
            if (!v) return false;
            position += *v;
          }
          if (reads.shift && *reads.shift != position - at) return false;
          reads.shift = position - at;
          taps.insert(at);
        }
        if (!taps.empty() && *taps.rbegin() - *taps.begin() + 1 > r_end) reads.dilated = true;
        bounds |= lower ? 1 : 2;
      }
      return bounds == 3;
    };
    walk_guarded_reads(
        seen,
        [this](const Expr& l) -> std::optional<size_t> {
          const VectorLoads* g = vector_group_of(l);
          return g ? std::optional(static_cast<size_t>(g - vector_loads.data())) : std::nullopt;
        },
        guarded);
    vector_fills = false;
    for (size_t i = 0; i < vector_loads.size(); ++i) {
      const Reads& reads = seen[i];
      VectorLoads& g = vector_loads[i];
      g.fill.reset();
      if (reads.bad || !reads.fill || !reads.shift || !reads.row || g.quads.empty() || fills == 0 ||
          (fills < 0 && !reads.dilated))
        continue;
      g.step = reads.stride * window;
      if (g.step % 4 != 0 || *reads.shift % 4 != 0 || *reads.row % 4 != 0) continue;
      g.fill = reads.fill;
      g.shift = *reads.shift;
      g.row = *reads.row;
      vector_fills = true;
    }
  }

  /// The thread's vector loads (plan_vectors) and each group's slot function: a constant offset's
  /// register once the loops are unrolled; the groups of four that lie outside the row replaced
  /// by the padding where the group holds it (plan_vector_fills).
  void emit_vector_loads() {
    for (size_t i = 0; i < vector_loads.size(); ++i) {
      const VectorLoads& g = vector_loads[i];
      if (g.quads.empty()) continue;
      const std::string id = n(static_cast<int64_t>(i));
      const std::string size = n(numel(p.buffers[static_cast<size_t>(g.buffer)].shape));
      out += "  float kf_w" + id + "[" + n(static_cast<int64_t>(4 * g.quads.size())) + "];\n";
      std::string slot = "0";
      // " + c" or " - |c|"
      const auto plus = [](int64_t c) { return c < 0 ? " - " + n(-c) : " + " + n(c); };
      for (size_t q = 0; q < g.quads.size(); ++q) {
        const int64_t first = g.quads[q];
        const std::string base = n(static_cast<int64_t>(4 * q));
        out += "  kf_load4(kf_w" + id + " + " + base + ", b" + std::to_string(g.buffer) + ", (" +
               g.thread + ")" + plus(first) + ", " + size + ");\n";
        const std::string here = base + " + static_cast<int>(x" + plus(-first) + ")";
        slot = q == 0 ? here : "x >= " + n(first) + " ? " + here + " : " + slot;
      }
      out += "  const auto kf_slot" + id + " = [](int64_t x) { return " + slot + "; };\n";
      if (!g.fill) continue;
      // the groups' positions in the row: kf_c * step + first + shift
      const auto position = [&](int64_t first) {
        return "kf_c * " + n(g.step) + plus(first + g.shift);
      };
      const std::string fill = constant_text(*g.fill, DType::f32), row = n(g.row);
      out += "  if (!(" + position(g.quads.front()) + " >= 0 && " + position(g.quads.back()) +
             " < " + row + ")) {\n";
      for (size_t q = 0; q < g.quads.size(); ++q) {
        const std::string at = position(g.quads[q]);
        std::string registers;
        for (int64_t e = 0; e < 4; ++e)
          registers += "kf_w" + id + "[" + n(static_cast<int64_t>(4 * q) + e) + "] = ";
        out +=
            "    if (!(" + at + " >= 0 && " + at + " < " + row + ")) " + registers + fill + ";\n";
      }
      out += "  }\n";
    }
  }

  /// Window outputs' stores through shared memory (CudaChoices::window_stores): each thread keeps
  /// its `window` outputs there (window + 1 apart, so that a warp's writes fall in distinct banks),
  /// and the warp stores its 32 * window outputs 32 consecutive ones a store, where each lane's own
  /// stores were `window` elements apart (a sector written by `window` instructions).
  bool window_stores = false;

  /// The stages of a window kernel that store an output: its outer stores and the reductions
  /// whose accumulators are stored.
  std::vector<const Stage*> outer_stores() const {
    std::vector<const Stage*> out;
    for (const auto& s : k.stages)
      if (s.kind == Stage::Kind::outer_store ||
          (s.kind == Stage::Kind::reduce && std::count(k.stores.begin(), k.stores.end(), s.buffer)))
        out.push_back(&s);
    return out;
  }

  /// Whether the outputs window_stores keeps fit the 48 KiB of static shared memory a block may
  /// declare; where they do not, each thread stores its own.
  bool window_stores_fit() const {
    int64_t bytes = 0;
    for (const Stage* s : outer_stores()) {
      const DType t = p.buffers[static_cast<size_t>(s->buffer)].dtype;
      bytes += int64_t{threads} * (window + 1) * element_bytes(t);
    }
    return bytes <= 48 * 1024;
  }

  /// The warp's stores of what its threads kept (window_stores): output m of the warp's 32 *
  /// window is its thread m / window's kf_v = m % window, at that thread's kf_q and kf_j.
  void emit_window_stores(int64_t chunks, int64_t rows, int64_t last) {
    const std::string w = n(window);
    out +=
        "  __syncwarp();\n  {\n  const int64_t kf_first = static_cast<int64_t>(blockIdx.x) * " +
        n(threads) + " + (threadIdx.x & ~31);\n#pragma unroll\n  for (int kf_k = 0; kf_k < " + w +
        "; ++kf_k) {\n  const int kf_m = kf_k * 32 + (threadIdx.x & 31);\n  const int64_t kf_u = "
        "kf_first + kf_m / " +
        w + ";\n  const int64_t kf_q = kf_u / " + n(chunks) + ";\n  const int64_t kf_j = (kf_u % " +
        n(chunks) + ") * " + w + " + kf_m % " + w + ";\n  if (kf_q < " + n(rows) + " && kf_j < " +
        n(last) + ") {\n";
    for (const Stage* s : outer_stores())
      out += "    b" + std::to_string(s->buffer) + "[" + s->offset->text + "] = kf_st" +
             std::to_string(s->buffer) + "[(threadIdx.x & ~31) * " + n(window + 1) +
             " + kf_m + kf_m / " + w + "];\n";
    out += "  }\n  }\n  }\n";
  }

  /// The buffers the kernel's vector loads read (16-byte aligned at its launch).
  std::set<int> vector_buffers() const {
    std::set<int> out = row_vector_buffers;
    for (const auto& g : vector_loads)
      if (!g.quads.empty()) out.insert(g.buffer);
    for (const auto& g : rings) out.insert(g.buffer);
    return out;
  }

  static ExprPtr eager_selects(const ExprPtr& e) {
    if (e->kind != Expr::Kind::call) return e;
    std::vector<ExprPtr> args;
    for (const auto& a : e->args) args.push_back(eager_selects(a));
    return ex::call(e->fn == "where" ? "select" : e->fn, std::move(args), e->dtype);
  }

  /// Whether the row cache may hold `e`'s value: computed from memory and indices alone (none of
  /// the kernel's accumulators, nothing it stores, no gather) before any pass runs, and reading
  /// the row's own elements (a load at both o and r: what every row reads alike, a bias by
  /// channel, stays in the GPU's caches).
  bool cacheable(const ExprPtr& e) const {
    bool own = false;
    std::function<bool(const ExprPtr&)> fits = [&](const ExprPtr& x) {
      if (x->kind == Expr::Kind::load) {
        if (!x->args.empty() || std::count(k.local.begin(), k.local.end(), x->buffer) ||
            std::count(k.stores.begin(), k.stores.end(), x->buffer))
          return false;
        own = own || (ix::reads(*x->index, "r") && ix::reads(*x->index, "o"));
      }
      return std::all_of(x->args.begin(), x->args.end(), fits);
    };
    return (e->kind == Expr::Kind::load || e->kind == Expr::Kind::call) && fits(e) && own;
  }

  /// The lanes of a column walk's split group (CudaChoices::column_split): the choice, halved
  /// while more than the column's elements or than leave a warp's width of consecutive outputs;
  /// by rule (0) 4 where the column has kSplitColumn elements or more, else 1. On an H200
  /// (BENCHMARKS.md, issue 36's thirty-seventh step) 4 lanes against 1: KernelBench's 36_RMSNorm_
  /// (columns of 64, two passes over the row cache) 3.92 -> 3.79 ms, 47_Sum (columns of 4096)
  /// 2.16 -> 2.12, 51_Argmax 2.31 -> 2.11; 2 lanes were within 0.4 % of 4 on 36 and 47, 3 %
  /// slower on 51.
  int column_split_rule(const CudaChoices& choices) const {
    const int64_t column = numel(k.inner_shape());
    int v = choices.column_split;
    if (v == 0) v = column >= kSplitColumn ? 4 : 1;
    while (v > 1 && (v > column || threads / v < 32)) v /= 2;
    return v;
  }

  /// CudaChoices::column_launch by rule for a column walk: 4 blocks an SM where the walk is one
  /// pass of reductions other than an arg reduction (a sum, a maximum) over 1024 elements or more,
  /// else 0 (one launch). On an H200, with 8 loads in flight a thread, KernelBench's 47 and 49
  /// (columns of 4096) took 6-7 % less time than in one launch; its argmax and RMS norm (two
  /// passes over columns of 64) took more (BENCHMARKS.md, issue 36's thirty-fifth step).
  int column_launch_rule() const {
    if (numel(k.inner_shape()) < 1024) return 0;
    int passes = 0;
    for (const auto& walk : walks_of_stages()) {
      const Stage& s = k.stages[walk.front()];
      if (s.kind == Stage::Kind::outer_store) continue;
      if (s.kind != Stage::Kind::reduce || is_arg(p.buffers[static_cast<size_t>(s.buffer)].combine))
        return 0;
      ++passes;
    }
    return passes == 1 ? 4 : 0;
  }

  /// The stages that walk the row together, as `emit` runs them: an online pair, reductions that
  /// share a loop (`joins`), or one stage; outer stores walk nothing.
  std::vector<std::vector<size_t>> walks_of_stages() const {
    std::vector<std::vector<size_t>> out;
    for (size_t i = 0; i < k.stages.size(); ++i) {
      const Stage& s = k.stages[i];
      if (online_pair(i)) {
        out.push_back({i, i + 1});
        ++i;
      } else if (s.kind == Stage::Kind::reduce &&
                 !is_arg(p.buffers[static_cast<size_t>(s.buffer)].combine)) {
        std::vector<const Stage*> together{&s};
        out.push_back({i});
        while (i + 1 < k.stages.size() && !online_pair(i + 1) && joins(together, k.stages[i + 1])) {
          together.push_back(&k.stages[++i]);
          out.back().push_back(i);
        }
      } else {
        out.push_back({i});
      }
    }
    return out;
  }

  /// The expressions a walk of the row prints with `text`: an online pair's first value (the
  /// second is computed from it), a double sum's widened factors (double_term_text), or each
  /// stage's value; an outer store prints none.
  std::vector<ExprPtr> printed_parts(const std::vector<size_t>& walk) const {
    if (online_pair(walk.front())) return {k.stages[walk.front()].value};
    std::vector<ExprPtr> out;
    for (size_t i : walk) {
      const Stage& s = k.stages[i];
      if (s.kind == Stage::Kind::outer_store) continue;
      const bool widened = s.kind == Stage::Kind::reduce &&
                           !is_arg(p.buffers[static_cast<size_t>(s.buffer)].combine) &&
                           accumulator_type(s) == "double";
      std::function<void(const ExprPtr&)> split = [&](const ExprPtr& e) {
        if (widened && is_float_product(e)) {
          split(e->args[0]);
          split(e->args[1]);
        } else {
          out.push_back(e);
        }
      };
      split(s.value);
    }
    return out;
  }

  /// The values two or more walks of the row compute from memory (`cacheable`), for the row
  /// cache: the largest such expressions (a group norm's mish(x + bias), for its statistics and
  /// its output; a softmax's x), in the order the walks meet them, as many as kRowCacheValues
  /// registers hold. A pass then neither reads them from memory nor computes them again. Returns
  /// whether there is a cache (`steps` > 0); `load_row_cache` writes its loop.
  bool plan_row_cache() {
    cached_values.clear();
    steps = 0;
    const int64_t r = numel(k.inner_shape());
    const int64_t share = (r + span() - 1) / span();
    // the elements a thread's cache holds, of all its values: in shared memory (walked by loops
    // not unrolled whole, so no bound on their code), or in registers
    const int64_t held =
        shared_cache ? kClusterSharedBytes / (4 * int64_t{threads}) : kRowCacheValues;
    if (share > held) return false;
    std::vector<std::vector<ExprPtr>> values;  // each walk's, as it prints them
    size_t nodes = 0;
    for (const auto& walk : walks_of_stages()) {
      values.push_back(printed_parts(walk));
      for (const auto& v : values.back()) nodes += v->size;
    }
    if (!shared_cache && share * int64_t(nodes) > kRowCacheCode) return false;
    std::map<std::string, int> walks;  // a cacheable value's text: the walks that compute it
    for (const auto& walk : values) {
      std::set<std::string> here;
      std::function<void(const ExprPtr&)> visit = [&](const ExprPtr& e) {
        if (cacheable(e)) here.insert(node_text(e));
        for (const auto& a : e->args) visit(a);
      };
      for (const auto& v : walk) visit(v);
      for (const auto& t : here) ++walks[t];
    }
    std::function<void(const ExprPtr&)> pick = [&](const ExprPtr& e) {
      if (cacheable(e) && walks[node_text(e)] >= 2) {
        if (cached_index(e) < cached_values.size() ||
            int64_t(cached_values.size() + 1) * share > held)
          return;
        cached_values.push_back(e);
        return;
      }
      // the cache computes its values before any condition: not what a condition guards
      for (size_t i = 0; i < e->args.size(); ++i)
        if (!evaluated_conditionally(*e, i) || loads_inside_buffers(e->args[i])) pick(e->args[i]);
    };
    for (const auto& walk : values)
      for (const auto& v : walk) pick(v);
    if (cached_values.empty()) return false;
    steps = share;
    std::stable_sort(cached_values.begin(), cached_values.end(),
                     [](const ExprPtr& a, const ExprPtr& b) { return a->size < b->size; });
    return true;
  }

  /// The row cache's registers and the loop that fills them: every cached value computed before
  /// any pass, all their loads in flight at once.
  void load_row_cache() {
    if (!cache_row.empty()) {
      load_row_cache_vectors();
      return;
    }
    if (column_quads) {
      load_row_cache_quads();
      return;
    }
    std::string loads;
    for (size_t i = 0; i < cached_values.size(); ++i) {
      out += "  " + std::string(c_type(cached_values[i]->dtype)) + " kf_c" + std::to_string(i) +
             "[" + n(steps) + "];\n";
      visible = i;
      loads += "      kf_c" + std::to_string(i) + "[kf_j] = " + text(cached_values[i]) + ";\n";
    }
    visible = SIZE_MAX;
    cached_loop([&](const std::string&) { return loads; });
  }

  /// column_quads' row cache at step kf_j: the loads that read the output (quad_loads) for the
  /// thread's four outputs, one 16-byte load each at the first output's offset, then each
  /// output's cached values computed from them.
  void load_row_cache_quads() {
    for (size_t q = 0; q < quad_loads.size(); ++q) out += "  float kf_q" + n(int64_t(q)) + "[4];\n";
    for (size_t i = 0; i < cached_values.size(); ++i)
      out += "  " + std::string(c_type(cached_values[i]->dtype)) + " kf_c" + std::to_string(i) +
             "[" + n(4 * steps) + "];\n";
    cached_loop([&](const std::string& in) {
      std::string body = in + "{\n" + in + "  const " + ix + " o = kf_o4;\n";
      for (size_t q = 0; q < quad_loads.size(); ++q) {
        const auto& [buffer, offset] = quad_loads[q];
        body += in + "  kf_row_load4(kf_q" + n(int64_t(q)) + ", b" + std::to_string(buffer) +
                " + (" + offset + "));\n";
        row_vector_buffers.insert(buffer);
      }
      body += in + "}\n#pragma unroll\n" + in + "for (int kf_v = 0; kf_v < 4; ++kf_v) {\n" + in +
              "  const " + ix + " o = kf_o4 + kf_v;\n";
      quad_fill = true;
      for (size_t i = 0; i < cached_values.size(); ++i) {
        visible = i;
        body += in + "  kf_c" + std::to_string(i) +
                "[kf_j * 4 + kf_v] = " + text(cached_values[i]) + ";\n";
      }
      quad_fill = false;
      visible = SIZE_MAX;
      return body + in + "}\n";
    });
  }

  /// column_quads' stages: each of the four outputs' in turn, then the row stores kept for them
  /// (quad_stores), 16 bytes a store at the first output's offset.
  void emit_quad_stages() {
    for (int b : quad_stores)
      out += "  float kf_sv" + std::to_string(b) + "[" + n(4 * steps) + "];\n";
    out += "#pragma unroll\n  for (int kf_v = 0; kf_v < 4; ++kf_v) {\n  const " + ix +
           " o = kf_o4 + kf_v;\n";
    emit_stages();
    out += "  }\n";
    std::string stores;
    for (const auto& s : k.stages)
      if (s.kind == Stage::Kind::row_store && quad_stores.count(s.buffer))
        stores += "      kf_row_store4(b" + std::to_string(s.buffer) + " + (" + s.offset->text +
                  "), kf_sv" + std::to_string(s.buffer) + " + kf_j * 4);\n";
    if (!stores.empty())
      cached_loop(
          [&](const std::string& in) { return in + "const " + ix + " o = kf_o4;\n" + stores; });
  }

  /// The row cache of a cluster's kernel in groups of four (cache_row), where row_vectors is on
  /// and the kernel walks the row of no buffer but at one offset: every cached value a float load
  /// at base + r, every load along the row one the cache holds, every row store a float output at
  /// the same base + r. The row need not start at a multiple of four elements (39_L2Norm_'s rows
  /// of 65535): its elements before the first 16-byte aligned one (the head, kf_h) and after the
  /// last group (the tail) are at most 6, one a lane. 4.13 ms on 39_L2Norm_ (its kernel edited
  /// by hand) against 4.50 with the elements a span apart (87 % and 79 % of DRAM peak,
  /// BENCHMARKS.md). Not tried for a block's own row cache. Such a kernel walks its cache only
  /// through load_row_cache_vectors and cached_vector_loop (a row store that reads its own buffer,
  /// walked by inner_loop and cached_loop's span-apart layout, keeps it out).
  void plan_cache_vectors(const CudaChoices& choices) {
    cache_row.clear();
    cache_quads = 0;
    if (!choices.row_vectors || cluster == 1 || steps == 0 || span() < 8) return;
    std::optional<std::string> base;
    auto same = [&](const std::optional<std::string>& b) {
      if (!b) return false;
      if (!base) base = b;
      return *base == *b;
    };
    auto walked = [&](int buffer) {  // a buffer of the kernel's memory
      return buffer >= 0 && !std::count(k.local.begin(), k.local.end(), buffer);
    };
    for (const auto& v : cached_values)
      if (v->kind != Expr::Kind::load || !walked(v->buffer) || v->dtype != DType::f32 ||
          !v->index || p.buffers[static_cast<size_t>(v->buffer)].dtype != DType::f32 ||
          std::count(k.stores.begin(), k.stores.end(), v->buffer) || !same(row_base(*v->index)))
        return;
    std::function<bool(const ExprPtr&)> reads_row = [&](const ExprPtr& e) {
      if (e->kind == Expr::Kind::load && walked(e->buffer) && e->index && ix::reads(*e->index, "r"))
        return true;
      return std::any_of(e->args.begin(), e->args.end(), reads_row);
    };
    for (const auto& st : k.stages) {
      if (reads_row(from_cache(st.value))) return;
      if (st.kind != Stage::Kind::row_store) continue;
      const Buffer& b = p.buffers[static_cast<size_t>(st.buffer)];
      if (!st.offset || b.dtype != DType::f32 || b.kind == Buffer::Kind::input ||
          st.value->dtype != DType::f32 || std::count(k.loads.begin(), k.loads.end(), st.buffer) ||
          !same(row_base(*st.offset)))
        return;
    }
    if (!base) return;
    cache_row = *base;
    cache_quads = (numel(k.inner_shape()) / 4 + span() - 1) / span();
    steps = 4 * cache_quads + 1;
  }

  /// The row's head (kf_h, kf_n4 groups of four, kf_x elements of head and tail, this lane's
  /// kf_xr), the cache's registers, and their loads: 16 bytes a load, the lane's element of head
  /// or tail on its own.
  void load_row_cache_vectors() {
    const int64_t r = numel(k.inner_shape());
    out += "  const " + ix + " kf_h = (4 - ((" + cache_row +
           ") & 3)) & 3;\n  const int kf_n4 = " + "static_cast<int>((" + n(r) +
           " - kf_h) / 4);\n  const int kf_x = " + n(r) + " - 4 * kf_n4;\n  const " + ix +
           " kf_xr = lane < kf_h ? lane : kf_h + 4 * kf_n4 + (lane - kf_h);\n";
    std::string quads, extra;
    if (shared_cache) out += "  extern __shared__ float4 kf_smem[];\n";
    for (size_t i = 0; i < cached_values.size(); ++i) {
      const std::string id = std::to_string(i), c = "kf_c" + id;
      const int buffer = cached_values[i]->buffer;
      const std::string from =
          "b" + std::to_string(buffer) + " + (" + cache_row + ") + " + cache_group("kf_k");
      visible = i;
      if (shared_cache) {
        out += "  float4* const kf_s" + id + " = kf_smem + " +
               n(int64_t(i) * cache_quads * threads) + ";\n  float kf_t" + id + " = 0.0f;\n";
        quads += "      kf_s" + id + "[" + shared_group() +
                 "] = __ldg(reinterpret_cast<const float4*>(" + from + "));\n";
        extra += "    kf_t" + id + " = " + text(cached_values[i]) + ";\n";
      } else {
        out += "  float " + c + "[" + n(steps) + "];\n";
        quads += "      kf_row_load4(" + c + " + 4 * kf_k, " + from + ");\n";
        extra += "    " + c + "[" + n(4 * cache_quads) + "] = " + text(cached_values[i]) + ";\n";
      }
      row_vector_buffers.insert(buffer);
    }
    visible = SIZE_MAX;
    out += std::string(shared_cache ? "#pragma unroll 8\n" : "#pragma unroll\n") +
           "  for (int kf_k = 0; kf_k < " + n(cache_quads) + "; ++kf_k) {\n" +
           "    if (live && lane + kf_k * " + n(span()) + " < kf_n4) {\n" + quads + "    }\n  }\n";
    out +=
        "  {\n  const " + ix + " r = kf_xr;\n  if (live && lane < kf_x) {\n" + extra + "  }\n  }\n";
  }

  /// The index of this thread's group kf_k in a shared_cache's array of float4 (kf_s<i>).
  std::string shared_group() const { return "kf_k * " + n(threads) + " + threadIdx.x"; }

  /// The offset from the row's first element of this lane's group `k` of the cache in groups of
  /// four.
  std::string cache_group(const std::string& k) const {
    return "kf_h + 4 * (lane + " + k + " * " + n(span()) + ")";
  }

  /// The thread's share of the row, unrolled whole (the row cache's registers are indexed by
  /// kf_j, which must be a constant): r = lane + kf_j * span.
  void cached_loop(const std::function<std::string(const std::string&)>& body) {
    const int64_t r = numel(k.inner_shape());
    const std::string bound = steps * span() == r ? "" : " && r < " + n(r);
    out += "#pragma unroll\n  for (int kf_j = 0; kf_j < " + n(steps) + "; ++kf_j) {\n    const " +
           ix + " r = lane + kf_j * " + n(span()) + ";\n    if (live" + bound + ") {\n" +
           body("      ") + "    }\n  }\n";
  }

  /// The walk of a window in two loops (nest): the inner one unrolled, r defined where the body
  /// reads it (an arg reduction's position).
  void nested_loop(const std::function<std::string(const std::string&)>& body) {
    const std::string walk = body("      ");
    static const std::regex reads_r("\\br\\b");
    out += "  if (live) {\n    for (" + ix + " kf_ro = 0; kf_ro < " +
           n(numel(k.inner_shape()) / nest) + "; ++kf_ro) {\n#pragma unroll\n" +
           "    for (int kf_ri = 0; kf_ri < " + n(nest) + "; ++kf_ri) {\n";
    if (std::regex_search(walk, reads_r))
      out += "      const " + ix + " r = kf_ro * " + n(nest) + " + kf_ri;\n";
    out += walk + "    }\n    }\n  }\n";
  }

  void inner_loop(const std::function<std::string(const std::string&)>& body) {
    const int64_t r = numel(k.inner_shape());
    if (steps > 0) {
      cached_loop(body);
      return;
    }
    if (nest > 0) {
      nested_loop(body);
      return;
    }
    if (group == 1 && r == 1) {
      out += "  if (live) {\n    const " + ix + " r = 0;\n" + body("    ") + "  }\n";
      return;
    }
    out += "  for (" + ix + " r = lane; live && r < " + n(r) + "; r += " + n(span()) + ") {\n" +
           body("    ") + "  }\n";
  }

  /// What one walk of the row computes per element: `value` (of C type `type`), which `consume`
  /// takes (the indentation, the value's text).
  struct Walk {
    std::string type, value;
    std::function<std::string(const std::string&, const std::string&)> consume;
    /// `value` where every border check of a short window holds (without_borders); empty: the
    /// same as `value`.
    std::string inside{};
    /// `value` with the row's vector loads (vector_text); empty where it reads none.
    std::string vector{};
    /// Where `consume` stores the value, a pointer the row walks from four elements a store
    /// (vector_store); empty: consume it one element at a time.
    std::string store{};
  };

  /// The row's loop as `inner_loop`, where the row is long enough: the walks' values of four or
  /// eight elements computed before `consume` takes them in order, so that their loads are in
  /// flight at once; the operations and their order are those of one element at a time. Several
  /// walks share the loop (sums over the same elements: what they read is read, and what they
  /// compute alike computed, once).
  void inner_loop_unrolled(const std::vector<Walk>& walks) {
    const int64_t r = numel(k.inner_shape());
    auto consume_all = [&](const std::string& in, const std::function<std::string(size_t)>& v) {
      std::string body;
      for (size_t w = 0; w < walks.size(); ++w) body += walks[w].consume(in, v(w));
      return body;
    };
    auto direct = [&](size_t w) { return "(" + walks[w].value + ")"; };
    if (steps > 0 && !cache_row.empty()) {
      cached_vector_loop(walks);
      return;
    }
    if (steps > 0) {
      cached_loop([&](const std::string& in) { return consume_all(in, direct); });
      return;
    }
    if (nest > 0) {
      nested_loop([&](const std::string& in) { return consume_all(in, direct); });
      return;
    }
    // A short window one thread walks (a 3-D pooling window of 27 elements): every step unrolled,
    // so that the window's offsets (r / 9, r % 3) are constants rather than divisions at run time.
    if (group == 1 && r <= kShortWindow) {
      const std::string loop = "#pragma unroll\n    for (int r = 0; r < " + n(r) + "; ++r) {\n";
      // Window outputs: every load stays inside its buffer (eager_text), so no guard (a guard per
      // output kept the compiler from merging the loads that neighbouring windows share, and
      // from issuing the next output's loads before this one's sum). Spread outputs: o is
      // clamped to an output, so no guard either; each load keeps its border check.
      if (window > 1 || spread > 1 || ring_rows > 0) {
        out += "  {\n" + loop + consume_all("      ", direct) + "    }\n  }\n";
        return;
      }
      // An output whose whole window lies inside its input (all but the border's) walks it
      // without a check an element (interior_condition).
      const std::string interior = interior_condition();
      const bool stripped = std::any_of(walks.begin(), walks.end(), [](const Walk& w) {
        return !w.inside.empty() && w.inside != w.value;
      });
      if (interior.empty() || !stripped) {
        out += "  if (live) {\n" + loop + consume_all("      ", direct) + "    }\n  }\n";
        return;
      }
      auto inside = [&](size_t w) {
        return "(" + (walks[w].inside.empty() ? walks[w].value : walks[w].inside) + ")";
      };
      out += "  if (live && " + interior + ") {\n" + loop + consume_all("      ", inside) +
             "    }\n  } else if (live) {\n" + loop + consume_all("      ", direct) +
             "    }\n  }\n";
      return;
    }
    // By rule eight where a warp or more shares a long row (softmax over 393216 elements reached
    // 66 % of DRAM peak with four), else four (a thread walking a column); the choice `unroll`
    // says otherwise.
    const int64_t g = span();
    const int kUnroll = unroll > 0 ? unroll : group >= 32 && r >= 8 * g ? 8 : 4;
    if (r < kUnroll * g) {
      inner_loop([&](const std::string& i) { return consume_all(i, direct); });
      return;
    }
    if (kUnroll >= 4 && std::any_of(walks.begin(), walks.end(), [](const Walk& w) {
          return !w.vector.empty() || !w.store.empty();
        })) {
      inner_loop_vectors(walks, kUnroll / 4);
      return;
    }
    const std::string each = "#pragma unroll\n    for (int kf_j = 0; kf_j < " + n(kUnroll) +
                             "; ++kf_j) {\n      const " + ix + " r = kf_r + kf_j * " + n(g) +
                             ";\n";
    auto unrolled = [&](size_t w) { return "kf_u" + n(static_cast<int64_t>(w)) + "[kf_j]"; };
    out += "  {\n  " + ix + " kf_r = lane;\n  for (; live && kf_r + " + n((kUnroll - 1) * g) +
           " < " + n(r) + "; kf_r += " + n(kUnroll * g) + ") {\n";
    for (size_t w = 0; w < walks.size(); ++w)
      out +=
          "    " + walks[w].type + " kf_u" + n(static_cast<int64_t>(w)) + "[" + n(kUnroll) + "];\n";
    out += each;
    for (size_t w = 0; w < walks.size(); ++w)
      out += "      " + unrolled(w) + " = " + walks[w].value + ";\n";
    out += "    }\n" + each + consume_all("      ", unrolled) + "    }\n  }\n";
    out += "  for (; live && kf_r < " + n(r) + "; kf_r += " + n(g) + ") {\n    const " + ix +
           " r = kf_r;\n" + consume_all("    ", direct) + "  }\n  }\n";
  }

  /// inner_loop_unrolled's walks over the row cache in groups of four: a store walk stores its
  /// four values at once (16 bytes), the others consume theirs in order; then the lane's element
  /// of the row's head or tail.
  void cached_vector_loop(const std::vector<Walk>& walks) {
    std::string group, stores;
    for (size_t w = 0; w < walks.size(); ++w) {
      const std::string u = "kf_w" + n(static_cast<int64_t>(w));
      if (walks[w].store.empty()) {
        group += walks[w].consume("        ", "(" + walks[w].value + ")");
        continue;
      }
      group += "        " + u + "[kf_e] = " + walks[w].value + ";\n";
      stores +=
          "      kf_row_store4(" + walks[w].store + " + " + cache_group("kf_k") + ", " + u + ");\n";
    }
    std::string declared, tail;
    for (size_t w = 0; w < walks.size(); ++w)
      if (!walks[w].store.empty())
        declared += "      " + walks[w].type + " kf_w" + n(static_cast<int64_t>(w)) + "[4];\n";
    // A shared_cache's group read into registers kf_c<i>[4] (kf_j its element), and its element
    // of head or tail into kf_c<i>[1] (kf_j 0).
    for (size_t i = 0; shared_cache && i < cached_values.size(); ++i) {
      const std::string id = std::to_string(i);
      declared += "      const float4 kf_g" + id + " = kf_s" + id + "[" + shared_group() +
                  "];\n      const float kf_c" + id + "[4] = {kf_g" + id + ".x, kf_g" + id +
                  ".y, kf_g" + id + ".z, kf_g" + id + ".w};\n";
      tail += "  const float kf_c" + id + "[1] = {kf_t" + id + "};\n";
    }
    out +=
        std::string(shared_cache ? "#pragma unroll 4\n" : "#pragma unroll\n") +
        "  for (int kf_k = 0; kf_k < " + n(cache_quads) + "; ++kf_k) {\n" +
        "    if (live && lane + kf_k * " + n(span()) + " < kf_n4) {\n" + declared +
        "#pragma unroll\n      for (int kf_e = 0; kf_e < 4; ++kf_e) {\n        const int kf_j = " +
        (shared_cache ? "kf_e" : "kf_k * 4 + kf_e") + ";\n        const " + ix +
        " r = " + cache_group("kf_k") + " + kf_e;\n" + group + "      }\n" + stores +
        "    }\n  }\n";
    std::string direct;
    for (const auto& w : walks) direct += w.consume("    ", "(" + w.value + ")");
    out += "  {\n  const int kf_j = " + (shared_cache ? std::string("0") : n(4 * cache_quads)) +
           ";\n" + tail + "  const " + ix + " r = kf_xr;\n  if (live && lane < kf_x) {\n" + direct +
           "  }\n  }\n";
  }

  /// The unrolled loop of inner_loop_unrolled with the row's vector loads (row_vectors): each
  /// thread's elements four consecutive ones, lane * 4 + 4 * span apart, `quads` groups of four
  /// loaded (16 bytes a load of each vector group the walks read) before they are consumed in
  /// order; a store walk stores its four at once. The row's last groups one element at a time.
  void inner_loop_vectors(const std::vector<Walk>& walks, int64_t quads) {
    const int64_t r = numel(k.inner_shape()), g = 4 * span();
    std::vector<std::string> vectors;
    for (const auto& w : walks) vectors.push_back(w.vector);
    const std::string quad = "#pragma unroll\n    for (int kf_k = 0; kf_k < " + n(quads) +
                             "; ++kf_k) {\n      const " + ix + " kf_r4 = kf_r + kf_k * " + n(g) +
                             ";\n";
    const std::string each = "#pragma unroll\n      for (int kf_e = 0; kf_e < 4; ++kf_e) {\n" +
                             std::string("        const ") + ix + " r = kf_r4 + kf_e;\n";
    out += "  {\n  " + ix + " kf_r = lane * 4;\n  for (; live && kf_r + " + n((quads - 1) * g + 3) +
           " < " + n(r) + "; kf_r += " + n(quads * g) + ") {\n";
    for (size_t w = 0; w < walks.size(); ++w)
      out += "    " + walks[w].type + " kf_u" + n(static_cast<int64_t>(w)) + "[" + n(4 * quads) +
             "];\n";
    out += quad + load_row_vectors(vectors, "      ") + each;
    for (size_t w = 0; w < walks.size(); ++w)
      out += "        kf_u" + n(static_cast<int64_t>(w)) +
             "[kf_k * 4 + kf_e] = " + (walks[w].vector.empty() ? walks[w].value : walks[w].vector) +
             ";\n";
    out += "      }\n    }\n" + quad;
    std::string body;
    for (size_t w = 0; w < walks.size(); ++w) {
      const std::string u = "kf_u" + n(static_cast<int64_t>(w));
      if (walks[w].store.empty()) {
        body += walks[w].consume("        ", u + "[kf_k * 4 + kf_e]");
        continue;
      }
      out += "      kf_row_store4(" + walks[w].store + " + kf_r4, " + u + " + kf_k * 4);\n";
    }
    if (!body.empty()) out += each + body + "      }\n";
    out += "    }\n  }\n";
    std::string direct;
    for (const auto& w : walks) direct += w.consume("        ", "(" + w.value + ")");
    out += "  for (; live && kf_r < " + n(r) + "; kf_r += " + n(g) + ") {\n    const " + ix +
           " kf_r4 = kf_r;\n  " + each + "        if (r < " + n(r) + ") {\n" + direct +
           "        }\n      }\n  }\n  }\n";
  }

  /// The row's vector loads (row_vector_loads) that `texts` read, each declared and loaded at
  /// kf_r4, 16 bytes a load; their buffers recorded as read by vector loads (row_vector_buffers).
  std::string load_row_vectors(const std::vector<std::string>& texts, const std::string& in) {
    std::string loads;
    for (size_t v = 0; v < row_vector_loads.size(); ++v) {
      const std::string id = n(static_cast<int64_t>(v));
      if (std::none_of(texts.begin(), texts.end(), [&](const std::string& t) {
            return t.find("kf_rv" + id + "[") != std::string::npos;
          }))
        continue;
      const RowVector& rv = row_vector_loads[v];
      loads += in + "float kf_rv" + id + "[4];\n" + in + "kf_row_load4(kf_rv" + id + ", b" +
               std::to_string(rv.buffer) + " + (" + rv.base + ") + kf_r4);\n";
      row_vector_buffers.insert(rv.buffer);
    }
    return loads;
  }

  void inner_loop_unrolled(
      const std::string& type, const std::string& value,
      const std::function<std::string(const std::string&, const std::string&)>& consume,
      const std::string& vector = {}, const std::string& store = {}) {
    inner_loop_unrolled(std::vector<Walk>{{type, value, consume, {}, vector, store}});
  }

  /// Whether stage i (a float maximum) and stage i + 1 (the sum of exp(x - that maximum) over the
  /// same x) may run as one online pass: one read of the row instead of two.
  bool online_pair(size_t i) const {
    if (two_passes || i + 1 >= k.stages.size()) return false;
    const Stage &a = k.stages[i], &b = k.stages[i + 1];
    if (a.kind != Stage::Kind::reduce || b.kind != Stage::Kind::reduce) return false;
    const Buffer& ma = p.buffers[static_cast<size_t>(a.buffer)];
    const Buffer& sb = p.buffers[static_cast<size_t>(b.buffer)];
    if (ma.combine != Combine::max || sb.combine != Combine::sum || ma.scale != 1 ||
        ma.dtype != DType::f32 || sb.dtype != DType::f32 || a.value->dtype != DType::f32 ||
        b.value->dtype != DType::f32)
      return false;
    return text(b.value) == "expf((" + text(a.value) + " - acc" + std::to_string(ma.id) + "))";
  }

  /// Stages i and i + 1 as one pass (online_pair): acc<max> and acc<sum> as `reduce` leaves them.
  void reduce_online(size_t i) {
    const Stage &a = k.stages[i], &b = k.stages[i + 1];
    const Buffer& ma = p.buffers[static_cast<size_t>(a.buffer)];
    const Buffer& sb = p.buffers[static_cast<size_t>(b.buffer)];
    const std::string m = "s" + std::to_string(ma.id), s = "s" + std::to_string(sb.id);
    out += "  float " + m + " = (-INFINITY);\n  double " + s + " = 0.0;\n";
    inner_loop_unrolled(
        "float", text(a.value),
        [&](const std::string& in, const std::string& v) {
          return in + "kf_online_add(" + m + ", " + s + ", " + v + ");\n";
        },
        vector_text([&] { return text(a.value); }));
    out += "  kf_group_online<" + group_arguments() + ">(" + m + ", " + s +
           ", kf_shared_f, kf_shared_d);\n";
    if (cluster > 1) {
      const std::string slots_m = cluster_slots("float");  // declared in this order
      const std::string slots = slots_m + ", " + cluster_slots("double");
      out += "  kf_cluster_online<" + n(cluster) + ", " + next_cluster_step() + ">(" + m + ", " +
             s + ", " + slots + ");\n";
    }
    std::string sum = s;
    if (sb.scale != 1) sum = "(" + sum + " * " + constant_text(sb.scale, DType::f32) + ")";
    out += "  const float acc" + std::to_string(ma.id) + " = " + m + ";\n  const float acc" +
           std::to_string(sb.id) + " = static_cast<float>(" + sum + ");\n";
    for (const Stage* st : {&a, &b})
      if (std::count(k.stores.begin(), k.stores.end(), st->buffer))
        out += "  " + store_guard() + "b" + std::to_string(st->buffer) + "[" + st->offset->text +
               "] = acc" + std::to_string(st->buffer) + ";\n";
  }

  /// The C type a reduction accumulates in: float sums in double, as the CPU kernels do (a thread
  /// that walks a column of 16384 rows adds them one after another), but over a short window (an
  /// average pool's 27 elements: float's rounding over so few is at most that many float
  /// roundings, where each double conversion cost a slow instruction per element) or a window
  /// under 1024 elements walked in two loops (nest: eager's pooling sums in float too).
  std::string accumulator_type(const Stage& s) const {
    const Buffer& b = p.buffers[static_cast<size_t>(s.buffer)];
    const DType in = s.value->dtype == DType::b8 ? DType::i64 : s.value->dtype;
    const bool wide = in == DType::f32 && b.combine == Combine::sum &&
                      numel(k.inner_shape()) > kShortWindow && nest == 0;
    return wide ? "double" : c_type(in);
  }

  static bool is_arg(Combine c) { return c == Combine::argmax || c == Combine::argmin; }

  /// Whether reduction stage `s` may share the loop of `group` (reductions before it in the
  /// kernel): a plain combination that reads none of their results.
  bool joins(const std::vector<const Stage*>& together, const Stage& s) const {
    if (s.kind != Stage::Kind::reduce || is_arg(p.buffers[static_cast<size_t>(s.buffer)].combine))
      return false;
    const auto reads = loaded_buffers(s.value);
    return std::none_of(together.begin(), together.end(),
                        [&](const Stage* t) { return reads.count(t->buffer) > 0; });
  }

  void reduce_arg(const Stage& s) {
    const Buffer& b = p.buffers[static_cast<size_t>(s.buffer)];
    const std::string id = std::to_string(b.id);
    const std::string t = accumulator_type(s);
    const std::string shared = t == "float" ? "kf_shared_f" : "kf_shared_i";
    const bool max = b.combine == Combine::argmax;
    // Every walk takes a thread's elements in the row's order. The one that does not, the row
    // cache's groups of four (their head last), is a cluster's, and a kernel with an arg
    // reduction is never a cluster's (plan).
    const std::string flag = max ? "true" : "false";
    const std::string better = "kf_later_better<" + flag + ">(best" + id + ", s" + id + ", x)";
    out += "  " + t + " best" + id + " = 0;\n  int64_t s" + id + " = -1;\n";
    inner_loop_unrolled(
        t, text(s.value),
        [&](const std::string& i, const std::string& v) {
          return i + "const " + t + " x = " + v + ";\n" + i + "if (" + better + ") {\n" + i +
                 "  best" + id + " = x;\n" + i + "  s" + id + " = r;\n" + i + "}\n";
        },
        vector_text([&] { return text(s.value); }));
    out += "  kf_group_arg<" + n(group) + ", " + flag + (apart > 1 ? ", " + n(apart) : "") +
           ">(best" + id + ", s" + id + ", " + shared + ", kf_shared_j);\n";
    out += "  const int64_t acc" + id + " = s" + id + ";\n";
    store_accumulator(s);
  }

  /// Sums, products, maxima or minima over the same elements, in one loop.
  void reduce_together(const std::vector<const Stage*>& stages) {
    // A walk's own interior path (inner_loop_unrolled) reads its own checks; a window's or
    // ring's stripped pass (strip_borders) gathers those of all its walks for one condition.
    if (!strip_borders) interior_checks.clear();
    std::vector<Walk> walks;
    std::vector<std::string> ops;
    for (const Stage* s : stages) {
      const Buffer& b = p.buffers[static_cast<size_t>(s->buffer)];
      const std::string id = std::to_string(b.id);
      const std::string t = accumulator_type(*s);
      const bool real = t != "int64_t";
      std::string init, op;
      switch (b.combine) {
        case Combine::sum:
          init = t == "double" ? "0.0" : real ? "0.0f" : "int64_t(0)";
          op = "KfSum";
          break;
        case Combine::prod:
          init = real ? "1.0f" : "int64_t(1)";
          op = "KfProd";
          break;
        case Combine::max:
          init = real ? "(-INFINITY)" : "INT64_MIN";
          op = "KfMax";
          break;
        default:
          init = real ? "INFINITY" : "INT64_MAX";
          op = "KfMin";
          break;
      }
      out += "  " + t + " s" + id + " = " + init + ";\n";
      ops.push_back(op);
      auto term = [&] {
        return t == "double" ? double_term_text(s->value, [&](const ExprPtr& e) { return text(e); })
                             : "static_cast<" + t + ">(" + text(s->value) + ")";
      };
      const std::string value = term();
      const bool stripped = strip_borders;
      strip_borders = true;
      const std::string inside = interior ? term() : value;
      strip_borders = stripped;
      walks.push_back({t, value,
                       [id, op](const std::string& i, const std::string& v) {
                         return i + "s" + id + " = " + op + "()(s" + id + ", " + v + ");\n";
                       },
                       inside, vector_text(term)});
    }
    inner_loop_unrolled(walks);
    for (size_t j = 0; j < stages.size(); ++j) {
      const Stage* s = stages[j];
      const Buffer& b = p.buffers[static_cast<size_t>(s->buffer)];
      const std::string id = std::to_string(b.id);
      const std::string t = accumulator_type(*s);
      const std::string shared = t == "double"  ? "kf_shared_d"
                                 : t == "float" ? "kf_shared_f"
                                                : "kf_shared_i";
      out += "  s" + id + " = kf_group_reduce<" + group_arguments() + ">(s" + id + ", " + ops[j] +
             "(), " + shared + ");\n";
      if (cluster > 1) {
        const std::string slots = cluster_slots(t);
        out += "  s" + id + " = kf_cluster_reduce<" + n(cluster) + ", " + next_cluster_step() +
               ">(s" + id + ", " + ops[j] + "(), " + slots + ");\n";
      }
      std::string v = "s" + id;
      if (b.scale != 1) v = "(" + v + " * " + constant_text(b.scale, DType::f32) + ")";
      out += "  const " + std::string(c_type(b.dtype)) + " acc" + id + " = static_cast<" +
             c_type(b.dtype) + ">(" + v + ");\n";
      store_accumulator(*s);
    }
  }

  /// What an output's store is under: the group's first thread of a live row; none for spread
  /// outputs, whose threads past the outputs compute the last one (o clamped) and store its
  /// value as its own thread does, so that no branch keeps nvcc from issuing the next output's
  /// loads before this store.
  std::string store_guard() const { return spread > 1 ? "" : "if (live && lane == 0) "; }

  void store_accumulator(const Stage& s) {
    const std::string id = std::to_string(s.buffer);
    if (!std::count(k.stores.begin(), k.stores.end(), s.buffer)) return;
    if (window > 1 && window_stores)
      out += "  kf_st" + id + "[threadIdx.x * " + n(window + 1) + " + kf_v] = acc" + id + ";\n";
    else
      out += "  " + store_guard() + "b" + id + "[" + s.offset->text + "] = acc" + id + ";\n";
  }

  /// The shuffle scan of each lane's `v` (of C type `t`) across the warp by `op`: lane i then
  /// holds the lanes 0..i combined.
  static std::string warp_scan(const std::string& t, const std::string& op) {
    return "#pragma unroll\n      for (int d = 1; d < 32; d *= 2) {\n        const " + t +
           " w = __shfl_up_sync(0xffffffffu, v, d);\n        if (lane >= d) v = w" + op +
           "v;\n      }\n";
  }

  /// A cumulative sum or product along the inner dimension (one stage, the kernel's only one). A
  /// warp a row where the row is the last dimension: 32 elements a step, four steps' loads issued
  /// before they are scanned across the warp by shuffles, each step adding the carry of those
  /// before; a thread a row otherwise (a column: a warp reads 32 neighbouring columns at once).
  /// Float sums accumulate in double, as the reductions do (scan_vectors: a group of 128 in float,
  /// the carry of the groups before in double). A suffix scan (Buffer::reverse) walks
  /// from the row's end: the warp's steps count the elements walked, q, at r = R - 1 - q. An
  /// exclusive one (Buffer::exclusive) stores each element's carry from the elements before it,
  /// and never reads the last element walked.
  void scan(const Stage& s) {
    const Buffer& b = p.buffers[static_cast<size_t>(s.buffer)];
    const bool sum = b.combine == Combine::sum;
    const std::string t = b.dtype == DType::f32 && sum ? "double" : c_type(b.dtype);
    const std::string init = t + "(" + (sum ? "0" : "1") + ")", op = sum ? " + " : " * ";
    const std::string value = "static_cast<" + t + ">(" + text(s.value) + ")";
    const std::string store = "b" + std::to_string(b.id) + "[" + s.offset->text +
                              "] = static_cast<" + c_type(b.dtype) + ">(";
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
    out += "  for (; live" + std::string(scan_warps > 1 ? " && kf_wp == 0" : "") + " && kf_r < " +
           r + "; kf_r += 128) {\n";
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

  /// The warp scan's steps of 512 elements with the row's vector loads (row_vectors), where its
  /// value reads one or its output is stored as one: each lane's elements four consecutive ones
  /// (four groups a step, their values loaded before any is scanned), scanned in the lane before
  /// the lanes' totals are scanned across the warp, so that 128 elements cost one shuffle scan
  /// where they cost four; the row's last elements are left to the loop of 32 a step. The values
  /// wait in their own type (a float sum's in float, 16 registers) and are scanned in `t`, but
  /// for a float sum's groups, scanned in float with a double carry (below). A
  /// suffix scan walks its lane's four elements from the last (kf_r4 is the first of them in
  /// memory, R - 4 - q: rows of a multiple of four keep it aligned). `t`, `op`: as scan's.
  void scan_vectors(const Stage& s, const std::string& t, const std::string& op) {
    constexpr int64_t kQuads = 4;
    // a warp's 512 elements, scan_warps of them a step
    const int64_t kStep = kQuads * 128 * scan_warps;
    const int64_t r = numel(k.inner_shape());
    const Buffer& b = p.buffers[static_cast<size_t>(s.buffer)];
    const int64_t read = b.exclusive ? r - 1 : r;  // the elements walked whose values it reads
    // warps that share the row leave no more of it to warp 0 than a warp a row leaves itself
    if (read < kStep || (b.reverse && r % 4 != 0) ||
        (scan_warps > 1 && read % kStep >= kQuads * 128))
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
    scan += "      " + st + " kf_q[4];\n      kf_q[0] = static_cast<" + st +
            ">(kf_u[kf_k * 4]);\n" + four + "kf_q[kf_e] = kf_q[kf_e - 1]" + op + "static_cast<" +
            st + ">(kf_u[kf_k * 4 + kf_e]);\n";
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
      scan +=
          "      const " + st + " kf_p = lane == 0 ? " + st + "(" + one + ") : kf_before;\n" +
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
        scan +=
            "      const float kf_cl = static_cast<float>(kf_b - static_cast<double>(kf_ch));\n";
        value = "kf_ch + (" + local + " + kf_cl)";
      } else {
        value = "kf_b" + op + local;
      }
    } else if (step_in_float) {
      scan += "      const float kf_p = lane == 0 ? 0.0f : kf_before;\n";
      scan += "      const float kf_ch = static_cast<float>(kf_c);\n";
      scan += "      const float kf_cl = static_cast<float>(kf_c - static_cast<double>(kf_ch));\n";
      value = b.exclusive ? "kf_ch + ((" + walked + " == 0 ? kf_p : kf_p + kf_q[" + walked +
                                " - 1]) + kf_cl)"
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
      scan += each + "        b" + std::to_string(b.id) + "[" + s.offset->text +
              "] = static_cast<" + c_type(b.dtype) + ">(" + value + ");\n      }\n";
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

  /// Whether 32-bit index arithmetic holds every offset of the kernel: o, r, every node of every
  /// offset and index it computes (each partial sum is at most its sum's non-negative terms), and
  /// every buffer it reads or writes under 2^31 - 2^20 elements (the margin covers a padded
  /// window's negative constants and the last block's threads past the outputs). Not the space,
  /// outputs times the row: no reduction forms that product unless some offset does (KernelBench's
  /// 42_Max_Pooling_2D, 534 million outputs of 16 elements, indexes in 32 bits).
  bool narrow_indices() const {
    const int64_t limit = (int64_t{1} << 31) - (int64_t{1} << 20);
    if (numel(k.outer_shape()) >= limit || numel(k.inner_shape()) >= limit) return false;
    for (const auto* list : {&k.loads, &k.stores})
      for (int b : *list)
        if (numel(p.buffers[static_cast<size_t>(b)].shape) >= limit) return false;
    std::function<bool(const Index&)> fits = [&](const Index& i) {
      if (i.bound >= limit || i.value <= -(int64_t{1} << 20) || i.value >= limit) return false;
      return std::all_of(i.terms.begin(), i.terms.end(),
                         [&](const IndexPtr& t) { return fits(*t); });
    };
    std::function<bool(const ExprPtr&)> fits_expr = [&](const ExprPtr& e) {
      if (e->index && !fits(*e->index)) return false;
      return std::all_of(e->args.begin(), e->args.end(), fits_expr);
    };
    return std::all_of(k.stages.begin(), k.stages.end(), [&](const Stage& s) {
      return (!s.value || fits_expr(s.value)) && (!s.offset || fits(*s.offset));
    });
  }

  int64_t grid_of_pointwise() const {
    const int64_t per_block = int64_t{threads} * elements;
    return (numel(k.space) + per_block - 1) / per_block;
  }

  /// Whether a load's offset may lie outside its buffer (where a condition does not pick it): a
  /// gather's, or one that may be negative or reach the buffer's end.
  bool may_leave_buffer(const Expr& load) const {
    return !load.args.empty() || load.index->may_be_negative ||
           load.index->bound > numel(p.buffers[static_cast<size_t>(load.buffer)].shape);
  }

  /// Whether every load of `e` stays inside its buffer: `e` may be computed ahead of a condition.
  bool loads_inside_buffers(const ExprPtr& e) const {
    if (e->kind == Expr::Kind::load && may_leave_buffer(*e)) return false;
    return std::all_of(e->args.begin(), e->args.end(),
                       [this](const ExprPtr& a) { return loads_inside_buffers(a); });
  }

  /// The loads (memory_text) that the kernel's stages evaluate whatever the data
  /// (unconditional_loads): those a pointwise kernel may issue ahead of any condition.
  std::set<std::string> stages_unconditional_loads() const {
    std::set<std::string> out;
    for (const auto& st : k.stages) {
      auto more = unconditional_loads(st.value);
      out.insert(more.begin(), more.end());
    }
    return out;
  }

  /// Whether a pointwise kernel may compute all its elements' values before it stores any: none of
  /// the buffers it stores is one it loads.
  bool stores_after_loads() const {
    for (int b : k.stores)
      if (std::count(k.loads.begin(), k.loads.end(), b)) return false;
    return true;
  }

  /// A pointwise kernel: `elements` elements per thread, a block's width apart, each load
  /// coalesced, in 32-bit arithmetic where every offset fits. A block whose elements all exist
  /// loads every element it reads before it computes and stores any, so all its loads are in
  /// flight at once (loads, compute and a bound check interleaved held a thread to about one load
  /// in flight: 65 % of DRAM peak on KernelBench's HardSigmoid, where eager's vector loads reach
  /// 88 %); the last block checks each element. An offset that is the element's own (o * R + r)
  /// is written `e`, without the division that splits e into o and r.
  void emit_pointwise() {
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

  /// A full block of a pointwise kernel with vectors (pointwise_vectors; rows of a multiple of four
  /// elements): each thread's `elements` four consecutive ones at a time, a block's width of such
  /// groups apart, so that the four share their row o. A float load at the row's offset plus r
  /// (the element's own, a bias along the row) is one 16-byte load for the four; a load that does
  /// not read r (a channel's statistic) one for the four; any other a load each; all before any
  /// value is computed. A float output at such an offset is stored four elements a store.
  void emit_pointwise_vectors(const std::string& type) {
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
      } else if (const auto base =
                     b.dtype == DType::f32 ? row_vector_base(*l.index) : std::nullopt) {
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
        body += "        b" + std::to_string(st.buffer) + "[" + st.offset->text + "] = " + value +
                ";\n";
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

  /// The row cache (plan_row_cache), and where one block's share of the row is too long for it
  /// and the choices allow, the smallest cluster of blocks (2 to 16) whose threads' shares are at
  /// most kClusterShare: a block a row of 65535 (KernelBench's 38_L1Norm_) reads it twice, a
  /// cluster of 8 blocks of 256 threads holds 32 elements a thread (2.37x of eager on an H200,
  /// where the block a row was 1.26x). Not with more threads a block than the choice: softmax's
  /// rows of 393216 in clusters of 16 blocks of 1024 threads, 24 elements a thread, ran at 20 % of
  /// DRAM peak (0.46x of eager, the block a row 1.19x): a block an SM, its loads, its sums and its
  /// stores one after another. Where no cluster's registers hold the row, and the cache can hold
  /// it in groups of four (plan_cache_vectors), the cluster whose blocks' shares fit
  /// kClusterSharedBytes and whose SMs then hold the most threads, at least
  /// kClusterSharedThreads, holds it in shared memory (blocks of at most kClusterSharedBlock)
  /// (shared_cache): 23_Softmax's rows of 393216 at 512 threads a block, read once rather than
  /// twice. Not for arg reductions (a pair whose cluster step is not written, and whose walk
  /// compares in the row's order, which the cache's groups of four break) nor scans.
  ///
  /// Where the row cache holds the row in a block, a maximum and its sum of exponentials walk the
  /// registers twice rather than once online (CudaChoices::online): the online pass rescales its
  /// sum in a branch whenever an element passes the running maximum, which on a short share
  /// happens at most elements of some lane of a warp (KernelBench's 95_CrossEntropyLoss, 16
  /// elements a thread: busy with that arithmetic at 29 % of DRAM peak).
  void plan(const CudaChoices& choices) {
    shared_cache = false;
    if (!choices.row_cache || nest > 0) return;
    two_passes = choices.online != 1;
    if (two_passes && plan_row_cache() && maxima_from_cache()) return;
    two_passes = false;
    if (plan_row_cache() || !choices.cluster || group != threads) return;
    for (const auto& s : k.stages)
      if (s.kind == Stage::Kind::scan || (s.kind == Stage::Kind::reduce &&
                                          is_arg(p.buffers[static_cast<size_t>(s.buffer)].combine)))
        return;
    const int64_t outer = numel(k.outer_shape());
    for (cluster = 2; cluster <= 16; cluster *= 2)
      if (outer * cluster <= INT32_MAX && plan_row_cache() && steps <= kClusterShare) {
        plan_cache_vectors(choices);
        return;
      }
    // A row too long for a cluster's registers, cached in groups of four: in the blocks' shared
    // memory, of the clusters whose blocks' shares fit kClusterSharedBytes the one whose SMs hold
    // the most threads. Its maxima and sums of exponentials in two passes where the cache holds
    // what they read, as a block's own cache's: the online pass's branch and rescaling, at the
    // few threads an SM that the shared memory allows, are not hidden behind memory (23_Softmax
    // 7.04 ms online, 4.74 in two passes).
    shared_cache = threads <= kClusterSharedBlock;
    for (const bool two : {true, false}) {
      if (!shared_cache) break;
      if (two && choices.online == 1) continue;  // one pass asked for
      int best = 0;  // the cluster whose SMs hold the most threads, the smaller of equals
      int64_t most = 0;
      for (cluster = 2; cluster <= 16; cluster *= 2) {
        two_passes = two;
        if (outer * cluster > INT32_MAX || !plan_row_cache() ||
            (two_passes && !maxima_from_cache()))
          continue;
        plan_cache_vectors(choices);
        if (cache_row.empty() || shared_bytes() > kClusterSharedBytes) continue;
        if (const int64_t held = shared_blocks_per_sm() * threads; held > most) {
          most = held;
          best = cluster;
        }
      }
      if (most < kClusterSharedThreads) continue;
      cluster = best;
      two_passes = two;
      plan_row_cache();
      plan_cache_vectors(choices);
      return;
    }
    shared_cache = false;
    two_passes = false;
    cluster = 1;
    plan_row_cache();  // clears what the last try planned
    cache_row.clear();
    cache_quads = 0;
  }

  /// Whether the row cache holds all that the maxima of would-be online pairs read: else their
  /// two passes would read memory twice where the online pass reads it once.
  bool maxima_from_cache() {
    std::function<bool(const ExprPtr&)> reads_memory = [&](const ExprPtr& e) {
      if (e->kind == Expr::Kind::load && e->buffer >= 0 &&
          !std::count(k.local.begin(), k.local.end(), e->buffer))
        return true;
      return std::any_of(e->args.begin(), e->args.end(), reads_memory);
    };
    two_passes = false;
    bool held = true;
    for (size_t i = 0; i < k.stages.size() && held; ++i)
      if (online_pair(i)) held = !reads_memory(from_cache(k.stages[i].value));
    two_passes = true;
    return held;
  }

  /// The cluster reductions the kernel has emitted so far, and their slot arrays (each reduction
  /// its own, kf_cluster_reduce).
  int cluster_steps = 0, cluster_arrays = 0;
  /// The template argument First of the cluster reduction being emitted: whether it is the
  /// kernel's first.
  std::string next_cluster_step() { return cluster_steps++ == 0 ? "true" : "false"; }
  /// A new cluster reduction's slots of C type `t`, declared in the kernel: their name.
  std::string cluster_slots(const std::string& t) {
    const std::string name = "kf_cluster" + n(++cluster_arrays);
    out += "  __shared__ " + t + " " + name + "[" + n(cluster) + "];\n";
    return name;
  }
  /// The blocks an SM of a shared_cache's kernel: as many as the SM's 227 KB of shared memory
  /// hold, with 2 KB a block of its own.
  int64_t shared_blocks_per_sm() const {
    return std::clamp<int64_t>(227 * 1024 / (shared_bytes() + 2048), 1, 2048 / threads);
  }

  /// The launch bounds' second argument for a cluster's kernel: the blocks an SM that its row
  /// cache's registers allow (the cached elements and 16 more a thread, of 64K registers), so
  /// that nvcc keeps to them; empty for other kernels. 39_L2Norm_'s clusters (32 elements a
  /// thread) took 60 registers and four blocks an SM without it, 48 and five with it: 4.53 ms
  /// against 5.18 in one run (BENCHMARKS.md). A shared_cache's kernel: shared_blocks_per_sm.
  std::string cluster_blocks_per_sm() const {
    if (cluster == 1) return "";
    if (shared_cache) return ", " + n(shared_blocks_per_sm());
    int64_t registers = 16;
    for (const auto& v : cached_values) registers += steps * (v->dtype == DType::f32 ? 1 : 2);
    const int64_t blocks = std::clamp<int64_t>(65536 / (threads * registers), 1, 2048 / threads);
    return ", " + n(blocks);
  }

  /// The kernel function; returns the launch's grid size.
  int64_t emit(const std::string& name) {
    if (cluster > 1)
      out += std::string(kClusterMark) + " " + n(cluster) + " blocks" +
             (shared_cache ? ", cached in their shared memory" : "") + "\n";
    out += "__global__ void __launch_bounds__(" + n(threads) + cluster_blocks_per_sm() + ") " +
           name + "(" + kernel_parameters(p, k) + (column_launch > 0 ? ", int64_t kf_block0" : "") +
           ") {\n";
    if (!k.reduces()) {
      emit_pointwise();
      return grid_of_pointwise();
    }
    const int64_t outer = numel(k.outer_shape());
    const int per_block = scan_warps > 1 ? 1 : threads / group;
    const int64_t threads_outer = column_quads ? outer / 4 : outer;  // a thread's first outputs
    const int64_t grid =
        cluster > 1 ? outer * cluster : (threads_outer + per_block - 1) / per_block;
    cluster_steps = cluster_arrays = 0;
    if (cluster > 1) out += "#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900\n";
    // a value a warp; lanes apart, a value a thread
    const std::string slots = "[" + n(apart > 1 ? threads : 32) + "];\n";
    out += "  __shared__ float kf_shared_f" + slots + "  __shared__ double kf_shared_d" + slots +
           "  __shared__ int64_t kf_shared_i" + slots + "  __shared__ int64_t kf_shared_j" + slots;
    if (ring_rows > 0) return emit_ring();
    if (window > 1) {
      const int64_t last = k.outer_shape().back(), lines = outer / last;
      const int64_t chunks = (last + window - 1) / window;
      // rows over 1: a thread's rows, `rows` of the `height` of a plane (the last group's past
      // its end computed again, stored by none)
      const int64_t height = rows > 1 ? k.outer_shape()[*row_dimension(k.outer_shape())] : 1;
      const int64_t groups = (height + rows - 1) / rows, planes = lines / height;
      if (window_vectors) {
        const std::string kept = out;
        emit_stages();
        out = kept;
        plan_vectors();
        plan_vector_fills();
      }
      const bool stores = window_stores && !outer_stores().empty();
      if (stores) {
        // every thread of a warp reaches its stores: those past the outputs compute the last
        // thread's again and store nothing
        for (const Stage* s : outer_stores())
          out += std::string("  __shared__ ") +
                 c_type(p.buffers[static_cast<size_t>(s->buffer)].dtype) + " kf_st" +
                 std::to_string(s->buffer) + "[" + n(int64_t{threads} * (window + 1)) + "];\n";
        out += "  const int64_t kf_t = kf_min_i64(static_cast<int64_t>(blockIdx.x) * " +
               n(threads) + " + threadIdx.x, " + n(lines * chunks - 1) + ");\n";
      } else {
        out += "  const int64_t kf_t = static_cast<int64_t>(blockIdx.x) * " + n(threads) +
               " + threadIdx.x;\n";
      }
      if (rows > 1) {
        out += "  const int64_t kf_c = kf_t % " + n(chunks) +
               ";\n  const int64_t kf_rg = (kf_t / " + n(chunks) + ") % " + n(groups) +
               ";\n  const int64_t kf_z = kf_t / " + n(chunks * groups) +
               ";\n  if (kf_z >= " + n(planes) + ") return;\n";
      } else {
        out += "  const int64_t kf_q = kf_t / " + n(chunks) + ";\n  const int64_t kf_c = kf_t % " +
               n(chunks) + ";\n" + (stores ? "" : "  if (kf_q >= " + n(lines) + ") return;\n");
      }
      out += "  const int lane = 0;\n";
      emit_vector_loads();
      // The thread's outputs, each load's border check kept (or, `stripped`, without them).
      auto outputs = [&](bool stripped) {
        const std::string kept = out;
        out = rows > 1
                  ? "#pragma unroll\n  for (int kf_rw = 0; kf_rw < " + n(rows) +
                        "; ++kf_rw) {\n  const int64_t kf_h = kf_rg * " + n(rows) + " + kf_rw;\n"
                  : "";
        out += "#pragma unroll\n  for (int kf_v = 0; kf_v < " + n(window) +
               "; ++kf_v) {\n  const int64_t kf_j = kf_c * " + n(window) +
               " + kf_v;\n  const bool live = kf_j < " + n(last) +
               (rows > 1 ? " && kf_h < " + n(height) : "") + ";\n";
        strip_borders = stripped;
        emit_stages();
        strip_borders = false;
        std::string loop = out + (rows > 1 ? "  }\n  }\n" : "  }\n");
        out = kept;
        return loop;
      };
      const std::string checked = outputs(false);
      // The choice interior: a thread whose outputs' windows all lie inside the input (one check
      // each, its bound over the thread's outputs and the window) walks them without checks.
      std::string inside, condition;
      if (interior) {
        interior_checks.clear();
        inside = outputs(true);
        condition = interior_condition();
      }
      if (condition.empty() || inside == checked)
        out += checked;
      else
        out += "  if " + condition + " {\n" + inside + "  } else {\n" + checked + "  }\n";
      if (stores) emit_window_stores(chunks, lines, last);
      out += "}\n\n";
      return (planes * groups * chunks + threads - 1) / threads;
    }
    if (spread > 1) {
      const int64_t per = int64_t{threads} * spread;
      out +=
          "  const int64_t kf_b = static_cast<int64_t>(blockIdx.x) * " + n(per) +
          " + threadIdx.x;\n  const int lane = 0;\n#pragma unroll\n  for (int kf_v = 0; kf_v < " +
          n(spread) + "; ++kf_v) {\n  const int64_t kf_o = kf_b + kf_v * " + n(threads) +
          ";\n  const bool live = kf_o < " + n(outer) + ";\n  const " + ix + " o = static_cast<" +
          ix + ">(live ? kf_o : " + n(outer - 1) + ");\n";
      emit_stages();
      out += "  }\n}\n\n";
      return (outer + per - 1) / per;
    }
    if (cluster > 1) {
      out += "  __cluster_barrier_arrive_relaxed();  // this block runs (kf_cluster_reduce)\n";
      out += "  const " + ix + " o = static_cast<" + ix + ">(blockIdx.x / " + n(cluster) +
             ");\n  const int lane = static_cast<int>(cooperative_groups::this_cluster()."
             "block_rank()) * " +
             n(group) + " + static_cast<int>(threadIdx.x);\n";
    } else {
      const std::string block = column_launch > 0 ? "kf_block0 + blockIdx.x" : "blockIdx.x";
      if (scan_warps > 1)
        out += "  const " + ix + " o = static_cast<" + ix + ">(" + block +
               ");\n  const int lane = threadIdx.x % 32;\n  const int kf_wp = threadIdx.x / 32;\n";
      else if (column_quads)
        out += "  const " + ix + " kf_o4 = (static_cast<" + ix + ">(" + block + ") * " +
               n(per_block) + " + threadIdx.x " + (apart > 1 ? "% " : "/ ") +
               n(apart > 1 ? apart : group) + ") * 4;\n  const int lane = threadIdx.x " +
               (apart > 1 ? "/ " : "% ") + n(apart > 1 ? apart : group) + ";\n";
      else if (apart > 1)
        out += "  const " + ix + " o = static_cast<" + ix + ">(" + block + ") * " + n(per_block) +
               " + threadIdx.x % " + n(apart) + ";\n  const int lane = threadIdx.x / " + n(apart) +
               ";\n";
      else
        out += "  const " + ix + " o = static_cast<" + ix + ">(" + block + ") * " + n(per_block) +
               " + threadIdx.x / " + n(group) + ";\n  const int lane = threadIdx.x % " + n(group) +
               ";\n";
    }
    out += std::string("  const bool live = ") + (column_quads ? "kf_o4" : "o") + " < " + n(outer) +
           ";\n";
    if (steps > 0) load_row_cache();
    if (column_quads)
      emit_quad_stages();
    else
      emit_stages();
    if (cluster > 1) out += "#endif\n";
    out += "}\n\n";
    return grid;
  }

  /// The body of a kernel whose windows read rings (ring_rows, planned by plan_rings): its grid.
  /// Block b is the band b % bands of plane b / bands. A ring's input row y is its row
  /// u = y + above, which lives in slot u % slots; each of the thread's cp.async groups holds its
  /// copies of one u (none past the band's last input row, before the buffer's start or past its
  /// end), the first the band's first, kf_h0. At output row kf_h the thread waits until the rows
  /// up to u = kf_h + span are in (all but its newest ahead - span groups), the barrier says
  /// every thread's are and that all have read u = kf_h - 1, and the u ahead of the newest goes
  /// into that one's slot. With ring_step rows a step (kf_hs, then kf_h = kf_hs + kf_i), it
  /// waits for the rows up to kf_hs + ring_step - 1 + span and the next ring_step rows go into
  /// the slots of the step before's first rows; a row past the band (its last step's) is computed
  /// from whatever its slots hold and stored by none.
  int64_t emit_ring() {
    const auto outer = k.outer_shape();
    const int64_t height = outer[*row_dimension(outer)], last = outer.back();
    const int64_t planes = numel(outer) / (height * last);
    const int64_t bands = (height + ring_rows - 1) / ring_rows;
    const int64_t ahead = ring_slots - 1 - ring_step;
    int64_t span = 0;
    for (const Ring& g : rings) span = std::max(span, g.span());
    const std::string slots = n(ring_slots);
    for (size_t g = 0; g < rings.size(); ++g)
      out += "  __shared__ __align__(16) float kf_ring" + n(int64_t(g)) + "[" + slots + "][" +
             n(rings[g].width() + kRingPad) + "];\n";
    for (size_t g = 0; g < rings.size(); ++g) {
      const Ring& r = rings[g];
      if (!r.fill) continue;
      const std::string fill = "kf_fill" + n(int64_t(g));
      out += "  const float " + fill + " = " + constant_text(*r.fill, DType::f32) + ";\n";
      if (!r.fill_columns) continue;
      // the padding before and past the row, in every slot, before the first barrier
      const int64_t edges = (r.lead + r.tail) / 4;
      out += "  for (int kf_k = threadIdx.x; kf_k < " + n(ring_slots * edges) +
             "; kf_k += " + n(threads) + ") {\n    const int kf_e = kf_k % " + n(edges) + ";\n" +
             "    *reinterpret_cast<float4*>(&kf_ring" + n(int64_t(g)) + "[kf_k / " + n(edges) +
             "][kf_e < " + n(r.lead / 4) + " ? kf_e * 4 : " + n(r.row) +
             " + kf_e * 4]) = make_float4(" + fill + ", " + fill + ", " + fill + ", " + fill +
             ");\n  }\n";
    }
    out += "  const " + ix + " kf_z = blockIdx.x / " + n(bands) + ";\n  const " + ix +
           " kf_h0 = static_cast<" + ix + ">(blockIdx.x % " + n(bands) + ") * " + n(ring_rows) +
           ";\n  const " + ix + " kf_h1 = kf_min_i64(kf_h0 + " + n(ring_rows) + ", " + n(height) +
           ");\n  const int lane = 0;\n  const auto kf_issue = [&](" + ix + " kf_u) {\n";
    for (size_t g = 0; g < rings.size(); ++g) {
      const Ring& r = rings[g];
      const std::string ring = "kf_ring" + n(int64_t(g));
      std::string at = "(" + r.plane + ") + kf_u * " + n(r.row) + " + threadIdx.x * 4";
      if (r.above * r.row + r.lead > 0) at += " - " + n(r.above * r.row + r.lead);
      // a ring that holds its padding in its lead and tail copies the row alone
      const int64_t first = r.fill_columns ? r.lead / 4 : 0,
                    end = r.fill_columns ? (r.lead + r.row) / 4 : r.width() / 4;
      const bool turns = end > threads || first > 0;
      if (turns) at.replace(at.find("threadIdx.x"), 11, "kf_k");
      const std::string k4 = turns ? "kf_k" : "threadIdx.x";
      const std::string copy = std::string(r.above * r.row + r.lead > 0 ? at + " >= 0 && " : "") +
                               at + " + 4 <= " + n(numel(p.buffers[size_t(r.buffer)].shape)) +
                               ")\n      kf_async_copy16(&" + ring + "[kf_u % " + slots + "][" +
                               k4 + " * 4], b" + std::to_string(r.buffer) + " + " + at + ");\n";
      out += std::string(turns ? "    for (int kf_k = threadIdx.x + " + n(first) + "; kf_k < " +
                                     n(end) + "; kf_k += " + n(threads) + ")\n"
                               : "") +
             "    if (" + (turns ? "" : "threadIdx.x < " + n(end) + " && ") + "kf_u < kf_h1 + " +
             n(r.span()) + ") {\n";
      if (r.fill_rows) {
        // rows outside the plane hold the padding
        out += "      if (kf_u < " + n(r.above) + " || kf_u >= " + n(r.above + r.rows) + ")\n" +
               "        *reinterpret_cast<float4*>(&" + ring + "[kf_u % " + slots + "][" + k4 +
               " * 4]) = make_float4(kf_fill" + n(int64_t(g)) + ", kf_fill" + n(int64_t(g)) +
               ", kf_fill" + n(int64_t(g)) + ", kf_fill" + n(int64_t(g)) + ");\n      else if (" +
               copy;
      } else {
        out += "      if (" + copy;
      }
      out += "    }\n";
    }
    const bool steps = ring_step > 1;
    const std::string h = steps ? "kf_hs" : "kf_h";
    out +=
        "    kf_async_commit();\n  };\n#pragma unroll\n  for (int kf_d = 0; kf_d <= " + n(ahead) +
        "; ++kf_d) kf_issue(kf_h0 + kf_d);\n  for (" + ix + " " + h + " = kf_h0; " + h +
        " < kf_h1; " + (steps ? h + " += " + n(ring_step) : "++" + h) + ") {\n  kf_async_wait<" +
        n(ahead - span - (ring_step - 1)) + ">();\n  __syncthreads();\n";
    out += steps ? "#pragma unroll\n  for (int kf_i = 1; kf_i <= " + n(ring_step) +
                       "; ++kf_i) kf_issue(" + h + " + " + n(ahead) + " + kf_i);\n"
                 : "  kf_issue(kf_h + " + n(ahead + 1) + ");\n";
    for (size_t g = 0; g < rings.size(); ++g) {
      out +=
          "  const float* const kf_rr" + std::string(steps ? "s" : "") + n(int64_t(g)) + "[] = {";
      for (int64_t d = 0; d <= rings[g].span() + ring_step - 1; ++d)
        out += std::string(d ? ", " : "") + "kf_ring" + n(int64_t(g)) + "[(" + h + " + " + n(d) +
               ") % " + slots + "]";
      out += "};\n";
    }
    out += "#pragma unroll\n  for (int kf_v = 0; kf_v < " + n(window) + "; ++kf_v) {\n  const " +
           ix + " kf_x = threadIdx.x + " + n(threads) + " * kf_v;\n";
    if (steps) {
      out += "  const " + ix + " kf_j = kf_min_i64(kf_x, " + n(last - 1) +
             ");\n#pragma unroll\n  for (int kf_i = 0; kf_i < " + n(ring_step) +
             "; ++kf_i) {\n  const " + ix + " kf_h = kf_hs + kf_i;\n";
      for (size_t g = 0; g < rings.size(); ++g)
        out += "  const float* const* const kf_rr" + n(int64_t(g)) + " = kf_rrs" + n(int64_t(g)) +
               " + kf_i;\n";
      out += "  const bool live = kf_x < " + n(last) + " && kf_h < kf_h1;\n";
    } else {
      out += "  const bool live = kf_x < " + n(last) + ";\n  const " + ix +
             " kf_j = kf_min_i64(kf_x, " + n(last - 1) + ");\n";
    }
    // an output whose padded window lies inside the input (all but the border's) reads the ring
    // without a check an element (interior_condition); unpadded windows check nothing
    const bool padded =
        std::any_of(rings.begin(), rings.end(), [](const Ring& g) { return g.padded(); });
    const std::string kept = out;
    out.clear();
    emit_stages();
    const std::string checked = out;
    std::string inside, condition;
    if (padded) {
      out.clear();
      interior_checks.clear();
      strip_borders = true;
      emit_stages();
      strip_borders = false;
      inside = out;
      condition = interior_condition();
    }
    out = kept + (condition.empty() || inside == checked
                      ? checked
                      : "  if " + condition + " {\n" + inside + "  } else {\n" + checked + "  }\n");
    out += std::string(steps ? "  }\n" : "") + "  }\n  }\n}\n\n";
    return planes * bands;
  }

  /// The reduction kernel's stages, each walk of the row in turn.
  void emit_stages() {
    for (const auto& walk : walks_of_stages()) {
      const Stage& s = k.stages[walk.front()];
      if (online_pair(walk.front())) {
        reduce_online(walk.front());
      } else if (s.kind == Stage::Kind::reduce &&
                 is_arg(p.buffers[static_cast<size_t>(s.buffer)].combine)) {
        reduce_arg(s);
      } else if (s.kind == Stage::Kind::reduce) {
        std::vector<const Stage*> together;
        for (size_t i : walk) together.push_back(&k.stages[i]);
        reduce_together(together);
      } else if (s.kind == Stage::Kind::scan) {
        scan(s);
      } else if (s.kind == Stage::Kind::outer_store && window > 1 && window_stores) {
        // kept in shared memory until the warp stores its outputs together (emit_window_stores)
        out += "  kf_st" + std::to_string(s.buffer) + "[threadIdx.x * " + n(window + 1) +
               " + kf_v] = " + text(s.value) + ";\n";
      } else if (s.kind == Stage::Kind::outer_store) {
        out += "  " + store_guard() + "b" + std::to_string(s.buffer) + "[" + s.offset->text +
               "] = " + text(s.value) + ";\n";
      } else if (column_quads && quad_stores.count(s.buffer)) {
        cached_loop([&](const std::string& i) {
          return i + "kf_sv" + std::to_string(s.buffer) + "[kf_j * 4 + kf_v] = " + text(s.value) +
                 ";\n";
        });
      } else if (std::count(k.loads.begin(), k.loads.end(), s.buffer)) {
        // a stage that reads what it stores: one element at a time
        inner_loop([&](const std::string& i) {
          return i + "b" + std::to_string(s.buffer) + "[" + s.offset->text +
                 "] = " + text(s.value) + ";\n";
        });
      } else {
        inner_loop_unrolled(
            c_type(s.value->dtype), text(s.value),
            [&](const std::string& i, const std::string& v) {
              return i + "b" + std::to_string(s.buffer) + "[" + s.offset->text + "] = " + v + ";\n";
            },
            vector_text([&] { return text(s.value); }), vector_store(s));
      }
    }
  }
};

/// The outer index of window outputs: the last outer dimension at kf_j, the others the digits of
/// kf_q; with several rows a thread (`rows` over 1), the row_dimension at kf_h, those before it
/// the digits of kf_z (those after it, between it and the last, have one index).
std::vector<IndexPtr> window_index(const Kernel& k, int rows = 1) {
  const auto outer = k.outer_shape();
  const size_t row = rows > 1 ? *row_dimension(outer) : outer.size() - 1;
  const std::vector<int64_t> planes(outer.begin(),
                                    outer.begin() + static_cast<std::ptrdiff_t>(row));
  auto out = ix::delinear(ix::named(rows > 1 ? "kf_z" : "kf_q", numel(planes)), planes);
  if (rows > 1) out.push_back(ix::named("kf_h", outer[row]));
  while (out.size() + 1 < outer.size()) out.push_back(ix::constant(0));
  out.push_back(ix::named("kf_j", outer.back()));
  return out;
}

/// The inner extent a thread's walk of `k`'s windows unrolls inside a loop (CudaKernel::nest): a
/// reduction (no scan) of a thread an output over 33 to 1023 elements with a window_nest; else 0.
int64_t long_window_nest(const Kernel& k, const CudaChoices& c) {
  const int64_t r = numel(k.inner_shape());
  if (!k.reduces() || k.library >= 0 || k.stages.empty() || r <= kShortWindow || r >= 1024 ||
      pick_group(k, c) != 1)
    return 0;
  for (const auto& s : k.stages)
    if (s.kind == Stage::Kind::scan) return 0;
  return window_nest(k);
}

/// The inner index of a window walked in two loops: the leading inner dimensions the digits of
/// kf_ro, the trailing `nest` elements' those of kf_ri.
std::vector<IndexPtr> nested_index(const Kernel& k, int64_t nest) {
  const auto inner = k.inner_shape();
  size_t t = inner.size();
  for (int64_t e = 1; e < nest;) e *= inner[--t];
  const std::vector<int64_t> lead(inner.begin(), inner.begin() + static_cast<std::ptrdiff_t>(t));
  const std::vector<int64_t> trail(inner.begin() + static_cast<std::ptrdiff_t>(t), inner.end());
  auto index = ix::delinear(ix::named("kf_ro", numel(lead)), lead);
  for (const auto& d : ix::delinear(ix::named("kf_ri", nest), trail)) index.push_back(d);
  return index;
}

/// Whether `k` is a short-window reduction of a thread an output (pooling, a depthwise
/// convolution) whose stages are reductions and what follows them per output: what may compute
/// several outputs a thread (window_outputs, spread_outputs).
bool short_window_reduction(const Kernel& k, const CudaChoices& c) {
  if (!k.reduces() || k.library >= 0 || k.outer_shape().empty() || pick_group(k, c) != 1 ||
      numel(k.inner_shape()) > kShortWindow)
    return false;
  return std::all_of(k.stages.begin(), k.stages.end(), [](const Stage& s) {
    return s.kind == Stage::Kind::reduce || s.kind == Stage::Kind::outer_store;
  });
}

/// The most of `most` (a power of two) items a thread, halved while fewer than `least_blocks`
/// blocks of `block_threads` threads would cover `items` at that count (1 at the least): the one
/// rule by which a small kernel gives each thread less work so that its grid fills the GPU
/// (pointwise_elements, spread_outputs; each names its count of blocks and what measured it).
int per_thread_for_grid(int64_t items, int block_threads, int most, int64_t least_blocks) {
  int v = most;
  while (v > 1 &&
         (items + int64_t{block_threads} * v - 1) / (int64_t{block_threads} * v) < least_blocks)
    v /= 2;
  return v;
}

/// Elements a thread of kernel `k` computes where it is pointwise (CudaChoices::elements, 0 by
/// rule): by rule 8 where an element evaluates kSpecialFunctionsForEight special functions or
/// more (expr_text.hpp's special_functions over its stages) and holds at most kMostLoadsForEight
/// loaded values, else 4; each halved while the grid would have fewer than kPointwiseBlocks
/// blocks (per_thread_for_grid). On an H200 (BENCHMARKS.md, issue 36's thirty-second and
/// forty-seventh steps) 8 against 4: 29_Softplus (expf and log1pf, one load) 1.07x and 82 -> 86 %
/// of DRAM peak in both runs; level 2's epilogues of two to six special functions and one to four
/// loads 1.02-1.08x by the kernel trace (16, 29, 4, 47, 48, 51, 81, 95; 7 0.99x), but 52's, whose
/// element holds seven loads (a batch norm's statistics), 0.90x; 26_GELU_ (erff alone) 1.01-1.02x,
/// the other level-1 activations of one special function or none 1-4 % slower (22_Tanh
/// 0.96-0.97x). On an H100 (BENCHMARKS.md, seventy-second step; KernelBench's 19, 21 and 29 at
/// 98K, 393K and 1.57M elements, 1, 2, 4 and 8 a thread by the kernel trace) a grid of fewer than
/// two blocks an SM is slow: 29 at 8 a thread 1.38x slower than at 2 on 98K (48 blocks), 1.17x on
/// 393K (192 blocks), an LSTM step's cell (2560 elements) 1.5x slower at 4 (3 blocks) than at 1
/// (36_LSTMHn 37.6 -> 32.1 ms, seventy-first step); while from 264 blocks up fewer elements a
/// thread were no faster (19 on 393K 2.0 us at 1, 1.6 at 2, 1.4 at 4, 384 blocks).
constexpr int kSpecialFunctionsForEight = 2;
constexpr size_t kMostLoadsForEight = 4;
constexpr int64_t kPointwiseBlocks = 2 * 132;
int pointwise_elements(const Kernel& k, const CudaChoices& c) {
  if (c.elements > 0) return c.elements;
  if (k.reduces()) return 4;
  int special = 0;
  std::set<std::string> held;
  for (const Stage& s : k.stages) {
    special += special_functions(s.value);
    const auto loads = unconditional_loads(s.value);
    held.insert(loads.begin(), loads.end());
  }
  const int most =
      special >= kSpecialFunctionsForEight && held.size() <= kMostLoadsForEight ? 8 : 4;
  return per_thread_for_grid(numel(k.space), c.block_threads, most, kPointwiseBlocks);
}

/// Outputs a thread of kernel `k` computes (CudaChoices::window, at most the last outer
/// dimension): 1 unless k is a short-window reduction of a thread an output (pooling, a depthwise
/// convolution) whose stages are reductions and what follows them per output. By rule 1: on an
/// H200 (KernelBench's pooling and depthwise convolutions, BENCHMARKS.md) the best of 2, 4 and 8
/// was slower on seven of nine problems (up to 3.8x at 8), faster on two (44_Average_Pooling_1D
/// 1.13x at 4, 83_conv_depthwise_2D_square_input_asymmetric_kernel 1.31x at 2): a thread's
/// neighbouring outputs put a warp's loads and stores `window` elements apart, and what they
/// share does not make up for it.
int window_outputs(const Kernel& k, const CudaChoices& c) {
  if (c.window <= 1 || !short_window_reduction(k, c)) return 1;
  int v = c.window;
  while (v > 1 && v > k.outer_shape().back()) v /= 2;
  return v;
}

/// Neighbouring outputs a thread of kernel `k` computes: as window_outputs says where `window` is
/// chosen (or `spread` or `interior`, whose walks are of a thread an output), else by rule 4 where
/// every load of their windows along the output's last dimension is a register of the thread's
/// vector loads (CudaKernel::window_vectors), else 1. On an H200 (BENCHMARKS.md, issue 36's
/// twenty-first step) 4 with vector loads against the rule of `spread` before it: KernelBench's
/// depthwise convolutions 82-85 1.05-2.02x faster, 42_Max_Pooling_2D 1.18x,
/// 44_Average_Pooling_1D 1.36x (82 % of DRAM peak), 41_Max_Pooling_1D (windows dilated by 3: 7
/// loads of four for 4 outputs) 2 % slower; 8 was slower than 4 on every one of them, and 2 has no
/// vector loads where the thread's part is 2 elements a step.
/// Whether every load of kernel `k`'s windows along the output's last dimension is a register of
/// the thread's vector loads at `window` outputs a row and `rows` rows a thread: a probe of the
/// kernel at `moved` (k at window_index), emitted and dropped.
bool vectors_whole(const Program& p, const Kernel& k, const Kernel& moved, const CudaChoices& c,
                   int window, int rows) {
  CudaKernel probe{p, moved, c.block_threads, 1, pointwise_elements(k, c), c.unroll, ""};
  probe.window = window;
  probe.rows = rows;
  probe.window_vectors = true;
  probe.group = pick_group(k, c);
  probe.emit("kf_probe");
  return probe.vectors_whole();
}

int window_rule(const Program& p, const Kernel& k, const CudaChoices& c) {
  constexpr int kRule = 4;
  if (c.window != 0 || c.spread != 0 || c.interior || !c.window_vectors ||
      !short_window_reduction(k, c) || k.outer_shape().back() < kRule)
    return window_outputs(k, c);
  const Kernel moved = at_outer_index(p, k, window_index(k));
  return vectors_whole(p, k, moved, c, kRule, 1) ? kRule : 1;
}

/// Whether a kernel at window_index with rows checks its windows' rows against their input's
/// borders (a padded pool's windows: an index value that reads kf_h).
bool checks_rows(const Kernel& moved) {
  std::function<bool(const ExprPtr&)> reads = [&](const ExprPtr& e) {
    if (e->kind == Expr::Kind::index && ix::reads(*e->index, "kf_h")) return true;
    return std::any_of(e->args.begin(), e->args.end(), reads);
  };
  return std::any_of(moved.stages.begin(), moved.stages.end(),
                     [&](const Stage& s) { return s.value && reads(s.value); });
}

/// Rows of window outputs a thread of kernel `k` computes (CudaChoices::window_rows), with
/// `window` outputs a row: the choice, halved while over the rows of a plane (row_dimension's
/// extent); 1 where the outputs have no such dimension. By rule 2 at 4 outputs a row where the
/// windows check their rows' borders (padding) and every load of the two rows' windows is a
/// register of the thread's vector loads, else 1 (also where `interior` or `window_stores`,
/// which rows exclude, is chosen). On an H200 (BENCHMARKS.md, issue 36's
/// twenty-third step) 2 rows took 42_Max_Pooling_2D (4 x 4 windows padded by 1, issue-bound: SM
/// 93 %) from 2.18 to 1.44 ms (DRAM 41 -> 62 %), 4 rows to 1.68; on the unpadded depthwise
/// convolutions 82-85 2 rows were 2.5-4.6 % slower on three, 4.6 % faster on one, 4 rows slower on
/// all four.
int window_rows(const Program& p, const Kernel& k, const CudaChoices& c, int window) {
  const auto outer = k.outer_shape();
  if (window <= 1 || c.window_rows == 1 || !row_dimension(outer) ||
      outer[*row_dimension(outer)] < 2)
    return 1;
  if (c.window_rows == 0) {
    if (window != 4 || !c.window_vectors || c.interior || c.window_stores) return 1;
    const Kernel moved = at_outer_index(p, k, window_index(k, 2));
    return checks_rows(moved) && vectors_whole(p, k, moved, c, window, 2) ? 2 : 1;
  }
  int v = c.window_rows;
  while (v > 1 && v > outer[*row_dimension(outer)]) v /= 2;
  return v;
}

/// Output rows a block of kernel `k` walks with its windows' input rows in rings in shared
/// memory (CudaChoices::window_ring, CudaKernel::ring_rows): 0 unless k is a short-window
/// reduction (a thread an output) whose every load along its outputs' rows reads a ring that
/// fits (CudaKernel::plan_rings: windows at stride 1, padded or not, of float rows a multiple of
/// 4 elements long, up to 4096); then the choice, or by rule 8 where every ring is the rule's
/// (Ring::by_rule: unpadded windows of 2 or 3 columns and 2 rows or more; padded ones of 3 or 4
/// columns and 2 rows or more whose ring holds the padding, 2 rows a step by ring_step's rule).
/// On an H200 (BENCHMARKS.md, issue 36's fiftieth step) 82_conv_depthwise_2D_square_input_square_
/// kernel (3 x 3, rows of 512) 0.640 -> 0.547 ms (DRAM 68 -> 82 % of peak), 84 (3 x 3) 2.47 ->
/// 2.156; 16 rows a block 4-5 % slower than 8; 83 (3 x 1) 2 % slower, 85 (3 x 7) 15 % slower
/// (SM-bound). Padded windows (fifty-fourth to fifty-sixth steps): with their checks slower
/// through a ring (86_conv_depthwise_separable_2D's 3 x 3 padded by 1 0.648 -> 0.746 ms,
/// 42_Max_Pooling_2D's 4 x 4 1.44 -> 1.94 ms), with the padding in the ring 0.655 and 1.52, with
/// it and 2 rows a step faster: 0.599 and 1.307 ms.
int window_ring_rows(const Program& p, const Kernel& k, const CudaChoices& c) {
  constexpr int kRule = 8;
  if (c.window_ring == 0 || !short_window_reduction(k, c) || !row_dimension(k.outer_shape()))
    return 0;
  const Kernel moved = at_outer_index(p, k, window_index(k, 2));
  CudaKernel probe{p, moved, c.block_threads, 1, 4, c.unroll, ""};
  probe.ring_rows = kRule;
  if (!probe.plan_rings()) return 0;
  if (c.window_ring > 0) return c.window_ring;
  return std::all_of(probe.rings.begin(), probe.rings.end(),
                     [](const CudaKernel::Ring& g) { return g.by_rule(); })
             ? kRule
             : 0;
}

/// Output rows a thread of a kernel whose windows read `rings` of `ring` rows a band computes at
/// each step (CudaKernel::ring_step): the choice window_rows (1, 2 or 4, at most the band's rows);
/// by rule (0) 2 where a ring is padded and every ring holds its padding, else 1. On an H200
/// (BENCHMARKS.md, issue 36's fifty-sixth step) 2 rows a step took 86_conv_depthwise_separable_2D's
/// depthwise kernel from 0.663 to 0.599 ms and 42_Max_Pooling_2D from 1.492 to 1.307 (4: 0.602
/// and 1.370); on the unpadded 82 1, 2 and 4 were within 1 % (0.545, 0.550, 0.548: its ring's
/// kernel already at 82 % of DRAM peak).
int ring_step(const CudaChoices& c, int ring, const std::vector<CudaKernel::Ring>& rings) {
  int step = c.window_rows;
  if (step == 0) {
    const bool padded =
        std::any_of(rings.begin(), rings.end(), [](const auto& g) { return g.padded(); });
    const bool filled =
        std::all_of(rings.begin(), rings.end(), [](const auto& g) { return g.fill.has_value(); });
    step = padded && filled ? 2 : 1;
  }
  return std::min(step, ring);
}

/// Blocks a kernel keeps where the rule of `spread` gives its threads several outputs: 132 SMs of
/// an H100 or H200 (8 blocks of 256 threads each at once) filled once.
constexpr int64_t kSpreadBlocks = 1024;

/// Outputs a thread of kernel `k` computes a block's width apart (CudaChoices::spread): 1 unless
/// k is a short-window reduction of a thread an output without window outputs. By rule 4, or 2
/// or 1 where fewer than kSpreadBlocks blocks would remain: on an H200 (BENCHMARKS.md, issue 36's
/// twentieth step) 4 a thread took KernelBench's 1-D pools 41 and 44 from 2.82 and 1.83 ms to
/// 2.39 and 1.47, the depthwise convolutions 82-85 1.12-1.61x faster, 42_Max_Pooling_2D 4 %
/// faster, the strided 3-D pools 43 and 46 within 3 % (43 2.5 % slower). Their loads eager (the
/// offsets clamped into the buffer, as for window outputs) were 2.4-3.3x slower at every count:
/// the clamps' 64-bit compares filled the issue slots (SM 95 %).
int spread_outputs(const Kernel& k, const CudaChoices& c) {
  if (c.spread == 1 || window_outputs(k, c) > 1 || !short_window_reduction(k, c)) return 1;
  if (c.spread > 1) return c.spread;
  return per_thread_for_grid(numel(k.outer_shape()), c.block_threads, 4, kSpreadBlocks);
}

/// Warps of a block that share a scan's row (CudaChoices::scan_warps) for `c`, a warp a row: the
/// choice, halved while its step of 512 elements a warp is longer than the elements the row reads,
/// leaves 512 or more of them past its last step (warp 0's alone) or the scan would not walk the
/// row in steps of four elements a lane (a probe, emitted and dropped);
/// by rule (0) kScanWarps. On an H200 (BENCHMARKS.md, issue 36's fortieth step) KernelBench's
/// 89_cumsum (rows of 32768) by hand: 4 warps a row as fast as a warp a row (81 % of DRAM peak),
/// 8 warps 83 %, 16 warps 85 %: fewer rows walked at once, each in longer runs.
int scan_warps_of(const CudaKernel& c, const CudaChoices& ch) {
  constexpr int kScanWarps = 16;
  for (int v = ch.scan_warps == 0 ? kScanWarps : ch.scan_warps; v > 1; v /= 2) {
    CudaKernel probe = c;
    probe.out.clear();
    probe.scan_warps = v;
    probe.threads = 32 * v;
    probe.emit("kf_probe");
    if (probe.scan_in_steps) return v;
  }
  return 1;
}

/// Whether `i`, an offset of a kernel whose trailing outer dimensions are kf_j's digits, gives
/// four neighbouring outputs (kf_j of a multiple of four and the three after it) four consecutive
/// elements from a multiple of four: kf_j one term of stride 1, every other term a multiple of
/// four.
bool quad_offset(const Index& i) {
  const auto split = ix::along(i, "kf_j");
  if (!split || split->stride != 1) return false;
  return std::all_of(split->rest.begin(), split->rest.end(),
                     [](const IndexPtr& t) { return ix::factor_of(*t) % 4 == 0; });
}

/// Sets c.column_quads (and c.quad_stores, c.quad_loads) for kernel `k`, a column walk planned as
/// c (a row cache of its own block, one launch), where the choice column_vectors is on and:
/// - the outputs' trailing dimensions hold a multiple of four outputs (kf_j walks the fewest that
///   do, the leading ones the digits of kf_q), so that a thread's four are all live or none;
/// - every load of a cached value that reads kf_j is a float load at a quad_offset in the kernel
///   at that index (the others, a channel's bias or statistic, may be anything);
/// - the four outputs' cache fits kRowCacheValues registers.
/// The row stores kept for 16-byte stores are those of float outputs at a quad_offset that the
/// kernel does not read, in order while the cache and the kept values fit twice kRowCacheValues
/// (the others stored one element a store).
void plan_column_quads(const Program& p, const Kernel& k, CudaKernel& c, const CudaChoices& ch) {
  c.column_quads = false;
  c.quad_stores.clear();
  const auto outer = k.outer_shape();
  // the shortest trailing outer dimensions whose outputs are a multiple of four: kf_j walks them
  size_t t = outer.size();
  int64_t trailing = 1;
  while (t > 0 && trailing % 4 != 0) trailing *= outer[--t];
  if (!ch.column_vectors || c.steps == 0 || !c.cache_row.empty() || c.cluster > 1 ||
      c.column_launch > 0 || trailing % 4 != 0 ||
      4 * c.steps * int64_t(c.cached_values.size()) > kRowCacheValues)
    return;
  const std::vector<int64_t> lead(outer.begin(), outer.begin() + static_cast<std::ptrdiff_t>(t));
  const std::vector<int64_t> trail(outer.begin() + static_cast<std::ptrdiff_t>(t), outer.end());
  auto index = ix::delinear(ix::named("kf_q", numel(lead)), lead);
  for (const auto& d : ix::delinear(ix::named("kf_j", trailing), trail)) index.push_back(d);
  // each cached value's node in the kernel at that index: the same place in the same stage's
  // tree (at_outer_index changes indices alone)
  const Kernel moved = at_outer_index(p, k, index);
  std::vector<const Expr*> at(c.cached_values.size(), nullptr);
  std::function<void(const ExprPtr&, const ExprPtr&)> visit = [&](const ExprPtr& a,
                                                                  const ExprPtr& m) {
    const size_t i = c.cached_index(a);
    if (i < at.size() && !at[i]) at[i] = m.get();
    for (size_t j = 0; j < a->args.size() && j < m->args.size(); ++j) visit(a->args[j], m->args[j]);
  };
  for (size_t i = 0; i < k.stages.size() && i < moved.stages.size(); ++i)
    if (k.stages[i].value && moved.stages[i].value) visit(k.stages[i].value, moved.stages[i].value);
  auto float_buffer = [&](int b) {
    return b >= 0 && p.buffers[static_cast<size_t>(b)].dtype == DType::f32;
  };
  // every load of a cached value that reads the output a float one at a quad_offset, its four
  // outputs' elements one 16-byte load; the others (a channel's bias) as they are
  c.quad_loads.clear();
  std::function<bool(const Expr&, const Expr&)> fits = [&](const Expr& a, const Expr& m) {
    if (a.kind == Expr::Kind::load) {
      if (!a.args.empty() || !a.index || !m.index || a.buffer != m.buffer) return false;
      // the same element for the four outputs (a channel's statistic), or none of theirs
      if (!ix::reads(*m.index, "kf_j")) return true;
      if (!float_buffer(a.buffer) || a.dtype != DType::f32 || !quad_offset(*m.index)) return false;
      const std::pair load(a.buffer, a.index->text);
      if (std::find(c.quad_loads.begin(), c.quad_loads.end(), load) == c.quad_loads.end())
        c.quad_loads.push_back(load);
      return true;
    }
    if (a.args.size() != m.args.size()) return false;
    for (size_t j = 0; j < a.args.size(); ++j)
      if (!fits(*a.args[j], *m.args[j])) return false;
    return true;
  };
  for (size_t i = 0; i < at.size(); ++i)
    if (!at[i] || !fits(*c.cached_values[i], *at[i])) return;
  if (c.quad_loads.empty()) return;
  c.column_quads = true;
  int64_t registers = 4 * c.steps * int64_t(c.cached_values.size());
  for (size_t i = 0; i < moved.stages.size(); ++i) {
    const Stage& s = moved.stages[i];
    if (s.kind == Stage::Kind::row_store && s.offset && float_buffer(s.buffer) &&
        s.value->dtype == DType::f32 &&
        p.buffers[static_cast<size_t>(s.buffer)].kind != Buffer::Kind::input &&
        !std::count(k.loads.begin(), k.loads.end(), s.buffer) && quad_offset(*s.offset) &&
        registers + 4 * c.steps <= 2 * kRowCacheValues) {
      c.quad_stores.insert(s.buffer);
      registers += 4 * c.steps;
    }
  }
}

/// Kernel `k`'s functions and their launches, named `name`; `checked` holds the buffers whose
/// alignment the launches before made sure of.
void emit_cuda_kernel(const EmitInput& in, const CudaChoices& choices, const Kernel& k,
                      const std::string& name, std::set<int>& checked, EmittedKernels& e) {
  if (auto tiled = emit_cuda_contraction(*in.program, k, name, choices)) {
    e.functions += tiled->function;
    e.calls += tiled->call;
    return;
  }
  const int ring = window_ring_rows(*in.program, k, choices);
  const int window = ring > 0 ? 1 : window_rule(*in.program, k, choices);
  const int rows = ring > 0 ? 1 : window_rows(*in.program, k, choices, window);
  const int spread = window > 1 || ring > 0 ? 1 : spread_outputs(k, choices);
  const int64_t nest = window == 1 && ring == 0 ? long_window_nest(k, choices) : 0;
  std::optional<Kernel> moved;
  if (window > 1) moved = at_outer_index(*in.program, k, window_index(k, rows));
  if (ring > 0) moved = at_outer_index(*in.program, k, window_index(k, 2));
  if (nest > 0) moved = at_inner_index(*in.program, k, nested_index(k, nest));
  auto kernel = [&](const CudaChoices& ch) {
    CudaKernel c{*in.program, moved ? *moved : k,        ch.block_threads,
                 1,           pointwise_elements(k, ch), ch.unroll,
                 ""};
    c.window = window;
    c.rows = rows;
    c.spread = spread;
    c.nest = nest;
    c.interior = ch.interior && rows == 1;
    c.window_vectors = ch.window_vectors;
    c.fills = ch.window_fills;
    c.row_vectors = ch.row_vectors;
    c.scan_prefetch = ch.scan_prefetch;
    c.pointwise_vectors = ch.pointwise_vectors;
    c.window_stores = ch.window_stores && rows == 1;
    if (c.window_stores && !c.window_stores_fit()) c.window_stores = false;
    if (ring > 0) {
      c.ring_rows = ring;
      c.window_vectors = c.window_stores = c.interior = c.row_vectors = false;
      c.plan_rings();  // window_ring_rows planned the same rings, a row a step
      if (const int step = ring_step(ch, ring, c.rings); step > 1) {
        c.ring_step = step;
        if (!c.plan_rings()) {  // its slots do not fit: a row a step
          c.ring_step = 1;
          c.plan_rings();
        }
      }
    }
    if (k.reduces()) c.group = pick_group(k, ch);
    const bool scan = !k.stages.empty() && k.stages.front().kind == Stage::Kind::scan;
    if (scan) c.group = k.inner.back() ? 32 : 1;
    if (scan && c.group == 32) c.scan_warps = scan_warps_of(c, ch);
    if (c.scan_warps > 1) c.threads = 32 * c.scan_warps;
    if (ch.index32 && c.narrow_indices()) c.ix = "int";
    const bool walk =
        k.reduces() && !k.stages.empty() && !scan && window == 1 && spread == 1 && ring == 0;
    // a column walk: a thread (or a group split across the block) an output of a reduction
    // across rows
    const bool column = walk && nest == 0 && c.group == 1 && !k.inner.empty() && !k.inner.back();
    if (walk) c.plan(ch);
    if (column) {
      const int split = c.column_split_rule(ch);
      if (split > 1) {
        c.group = split;
        c.apart = c.threads / split;
        c.plan(ch);
      }
      c.column_launch = ch.column_launch >= 0 ? ch.column_launch : c.column_launch_rule();
      // fewer columns at once: more of each column's loads in flight
      if (c.column_launch > 0 && ch.unroll == 0) c.unroll = 8;
      plan_column_quads(*in.program, k, c, ch);
      // by rule, more lanes while the four outputs' cache passes kQuadCacheRule registers
      const auto light = [](const CudaKernel& x) {
        return x.column_quads && 4 * x.steps * int64_t(x.cached_values.size()) <= kQuadCacheRule;
      };
      std::optional<CudaKernel> heavy;
      for (int more = 2 * split; ch.column_split == 0 && !light(c) && more <= 8; more *= 2) {
        CudaChoices wider = ch;
        wider.column_split = more;
        if (c.column_split_rule(wider) != more) break;
        CudaKernel w = c;
        w.group = more;
        w.apart = w.threads / more;
        w.plan(ch);
        plan_column_quads(*in.program, k, w, ch);
        if (light(w)) return w;
        if (w.column_quads && !c.column_quads && !heavy) heavy.emplace(w);
      }
      if (heavy) return *heavy;
    }
    return c;
  };
  // A row that no cluster of these blocks caches (too long for their registers, and for their
  // shared memory at kClusterSharedThreads an SM): blocks of kClusterSharedBlock threads, where
  // a cluster of them caches it, in registers or in shared memory (on an H200, 34_InstanceNorm's
  // rows of 262144 in clusters of 16 blocks of 512 threads' registers 4.28 ms, a block of 256
  // a row reading it three times 7.26; 23_Softmax's rows of 393216 cached in the shared memory
  // of 16 such blocks 4.12 ms, read twice 4.78).
  // (A row the block's own registers cache, steps > 0, is not tried wider.)
  CudaChoices chosen = choices;
  std::optional<CudaKernel> planned(kernel(choices));
  if (k.reduces() && choices.cluster && choices.row_cache &&
      choices.block_threads < kClusterSharedBlock && planned->cluster == 1 && planned->steps == 0 &&
      planned->group == choices.block_threads) {
    CudaChoices wide = choices;
    wide.block_threads = kClusterSharedBlock;
    if (CudaKernel w = kernel(wide); w.cluster > 1) {
      planned.reset();
      planned.emplace(std::move(w));
      chosen = wide;
    }
  }
  CudaKernel& c = *planned;
  const int64_t grid = c.emit(name);
  e.functions += c.out;
  // The kernel without clusters, launched where the cluster's launch fails (before sm_90).
  CudaChoices plain = chosen;
  plain.cluster = false;
  std::optional<CudaKernel> twin;
  int64_t twin_grid = 0;
  if (c.cluster > 1) {
    twin.emplace(kernel(plain));
    twin_grid = twin->emit(name + "_plain");
    e.functions += twin->out;
  }
  // A buffer read 16 bytes at a time whose tensor is not 16-byte aligned (an input sliced at
  // an odd element): read from an aligned copy, made where a kernel first reads it so (`checked`:
  // the calls run in order); what the kernels store is allocated aligned. A moved pointer
  // (generator/rebase.hpp), passed as its base's pointer plus a multiple of 4 elements, is aligned
  // where its base is: the base is checked.
  std::set<int> aligned = c.vector_buffers();
  if (twin) {
    const auto more = twin->vector_buffers();
    aligned.insert(more.begin(), more.end());
  }
  for (int b : aligned) {
    const Buffer& buffer = in.program->buffers[static_cast<size_t>(b)];
    const int base = buffer.base < 0 ? b : buffer.base;
    const auto kind = in.program->buffers[static_cast<size_t>(base)].kind;
    if (kind != Buffer::Kind::input && kind != Buffer::Kind::library) continue;  // torch::empty's
    if (!checked.insert(base).second) continue;
    const std::string id = std::to_string(base);
    e.calls += "  if (reinterpret_cast<uintptr_t>(b" + id + ") % 16 != 0) {\n    t" + id + " = t" +
               id + ".clone();\n    b" + id + " = t" + id + ".data_ptr<float>();\n  }\n";
  }
  const std::string launch = "<<<" + std::to_string(grid) + ", " + std::to_string(c.threads) +
                             ", 0, stream>>>(" + kernel_arguments(k) + ");\n";
  if (c.column_launch > 0) {
    // launches of column_launch blocks an SM, one after another (one launch where the SM count
    // cannot be read, the error that said so cleared: the caller's next check would report it)
    const std::string g = n(grid);
    e.calls +=
        "  {\n    int kf_device = 0, kf_sms = 0;\n"
        "    if (cudaGetDevice(&kf_device) != cudaSuccess ||\n"
        "        cudaDeviceGetAttribute(&kf_sms, cudaDevAttrMultiProcessorCount, "
        "kf_device) != cudaSuccess) {\n      kf_sms = 0;\n      (void)cudaGetLastError();\n"
        "    }\n"
        "    const int64_t kf_slice = kf_sms > 0 ? int64_t{kf_sms} * " +
        n(c.column_launch) + " : " + g + ";\n    for (int64_t kf_b = 0; kf_b < " + g +
        "; kf_b += kf_slice)\n      " + name + "<<<static_cast<unsigned>(kf_slice < " + g +
        " - kf_b ? kf_slice : " + g + " - kf_b), " + n(c.threads) + ", 0, stream>>>(" +
        kernel_arguments(k) + ", kf_b);\n  }\n";
    return;
  }
  if (c.cluster == 1) {
    e.calls += "  " + name + launch;
    return;
  }
  // The cluster's launch, and where it fails (a GPU without clusters, before sm_90) the kernel
  // without them.
  const std::string cl = std::to_string(c.cluster);
  e.calls += "  {\n    cudaLaunchConfig_t kf_config = {};\n    kf_config.gridDim = dim3(" +
             std::to_string(grid) + ");\n    kf_config.blockDim = dim3(" +
             std::to_string(c.threads) +
             ");\n    kf_config.stream = stream;\n    cudaLaunchAttribute kf_cluster[1];\n"
             "    kf_cluster[0].id = cudaLaunchAttributeClusterDimension;\n"
             "    kf_cluster[0].val.clusterDim.x = " +
             cl +
             ";\n    kf_cluster[0].val.clusterDim.y = 1;\n"
             "    kf_cluster[0].val.clusterDim.z = 1;\n    kf_config.attrs = kf_cluster;\n"
             "    kf_config.numAttrs = 1;\n";
  if (c.cluster > 8)
    e.calls += "    (void)cudaFuncSetAttribute(" + name +
               ", cudaFuncAttributeNonPortableClusterSizeAllowed, 1);\n";
  if (c.shared_cache) {
    const std::string bytes = std::to_string(c.shared_bytes());
    e.calls += "    kf_config.dynamicSmemBytes = " + bytes + ";\n    (void)cudaFuncSetAttribute(" +
               name + ", cudaFuncAttributeMaxDynamicSharedMemorySize, " + bytes + ");\n";
  }
  e.calls += "    if (cudaLaunchKernelEx(&kf_config, " + name + ", " + kernel_arguments(k) +
             ") != cudaSuccess) {\n      (void)cudaGetLastError();\n      " + name + "_plain<<<" +
             std::to_string(twin_grid) + ", " + std::to_string(twin->threads) + ", 0, stream>>>(" +
             kernel_arguments(k) + ");\n    }\n  }\n";
}

}  // namespace

EmittedKernels emit_cuda(const EmitInput& in, const CudaChoices& choices) {
  EmittedKernels e;
  Rebaser rebaser(*in.program);
  std::set<int> checked;  // buffers whose alignment the calls so far made sure of
  for (size_t i = 0; i < in.kernels->size(); ++i) {
    const Kernel& k = (*in.kernels)[i];
    if (k.library >= 0) {
      e.calls += library_call_text(*in.program, k);
      e.step_ends.push_back(e.calls.size());
      continue;
    }
    const std::string name = in.prefix + "k" + std::to_string(i);
    const auto moved = rebaser.rebase(k);
    EmittedKernels one;
    emit_cuda_kernel(EmitInput{moved.program, in.kernels, in.prefix}, choices, moved.kernel, name,
                     checked, one);
    add_kernel(e, moved.kernel, name, one.functions,
               Rebaser::with_arguments(one.calls, moved.arguments));
  }
  return e;
}

}  // namespace kforge::generator
