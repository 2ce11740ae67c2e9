// The CUDA emitter's kernel under construction (generator/emit_cuda.cpp): what one kernel's
// choices are once planned, and the members that write its text, by concern: windows and their
// rings (emit_cuda_windows.cpp), a row's walks, its cache and its reductions (emit_cuda_rows.cpp),
// scans (emit_cuda_scans.cpp), pointwise kernels (emit_cuda_pointwise.cpp), and the plan and the
// kernel's frame (emit_cuda_kernel.cpp). Private to generator/.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "generator/emit.hpp"
#include "generator/expr_text.hpp"
#include "generator/index.hpp"
#include "generator/schedule.hpp"

namespace kforge::generator::cuda {

inline std::string n(int64_t v) {
  return std::to_string(v);
}

/// The reduced elements of a short window: a thread walks it fully unrolled, sums in float.
inline constexpr int64_t kShortWindow = 32;

/// The shortest column the rule of CudaChoices::column_split splits
/// (CudaKernel::column_split_rule).
inline constexpr int64_t kSplitColumn = 32;

/// The elements of the trailing inner dimensions that a thread's walk of a longer window unrolls
/// inside a loop over the leading ones (their product, at most kShortWindow: an 11 x 11 window's
/// 11), so that the window's offsets are constants and a counter's multiples rather than
/// divisions of r at run time; 0 where no trailing dimensions of 2 to kShortWindow elements leave
/// some leading ones.
int64_t window_nest(const Kernel& k);

/// The outer dimension whose consecutive indices are the rows of window outputs (rows over 1):
/// the last before the last one that has more than one (a 1-D pool's channels: it is a 2-D pool
/// of rows of 1); none where there is none.
std::optional<size_t> row_dimension(const std::vector<int64_t>& outer);

/// Whether `e` is the same for the whole row: constants and k's accumulators (a row's sum, norm,
/// maximum), and what is computed from them alone.
bool row_constant(const Kernel& k, const ExprPtr& e);

/// `e` with each float division by what is the same for the whole row (row_constant: a row's
/// sum, sqrt(sum of squares)) made a multiplication by its reciprocal, which the compiler
/// computes once outside the loop: a true division per element cost softmax's output pass issue
/// slots it needs for its loads. The result differs from the division by at most an ulp or so.
ExprPtr reciprocal_of_row_constants(const Kernel& k, const ExprPtr& e);

/// `e` with each argument replaced by `f` of it; `e` itself where none changed.
ExprPtr with_args(const ExprPtr& e, const std::function<ExprPtr(const ExprPtr&)>& f);

/// The registers a thread may give the row cache: its share of the row times the cached values.
inline constexpr int64_t kRowCacheValues = 64;

/// The row cache unrolls each pass over the thread's share of the row whole: at most this many
/// expression nodes in all (the share times the passes' nodes). Measured on an H200: KernelBench's
/// 92_Conv2d_GroupNorm_Tanh_HardSwish_ResidualAdd_LogSumExp (64 x 93 nodes) ran 1.24x slower with
/// the cache, 88_Gemm_GroupNorm_Swish_Multiply_Swish (32 x 66) 1.03x faster, 36_RMSNorm_ (64 x 9)
/// 1.71x faster (BENCHMARKS.md).
inline constexpr int64_t kRowCacheCode = 4096;

/// The most registers the four outputs' row cache of a column walk takes where the rule picks its
/// lanes (CudaKernel::column_quads; kRowCacheValues where the lanes are chosen): more lanes, each
/// a shorter share, until it fits. On an H200 (BENCHMARKS.md, issue 36's forty-third step)
/// KernelBench's level-2 49_ConvTranspose3d_Softmax_Sigmoid (a softmax and a sigmoid over 64
/// channels after cuDNN's convolution) took 4.975 ms with 4 lanes (64 registers of cache, 114 a
/// thread), 4.796 with 8 (32), 4.786 with one output a thread; level 1's 36_RMSNorm_ 3.682,
/// 3.704 and 3.811.
inline constexpr int64_t kQuadCacheRule = 32;

/// The most elements of the row a thread of a cluster's block caches (CudaChoices::cluster): 32
/// (38_L1Norm_'s clusters of 8 blocks of 256 threads, 48 registers, five blocks an SM) measured
/// on an H200; more not tried.
inline constexpr int64_t kClusterShare = 32;

/// The most bytes of shared memory a block of a cluster whose row cache is in shared memory
/// (CudaKernel::shared_cache) takes: two blocks an SM. On an H200, a softmax over KernelBench's
/// rows of 393216 (23_Softmax) written by hand this way (clusters of 16 blocks, 96 KB each) took
/// 3.76 ms at 512 threads a block and 3.89 at 256, where a block a row reading the row twice took
/// 4.65; clusters of 8 blocks of 192 KB (a block an SM) took 4.77 (BENCHMARKS.md, issue 36's
/// forty-fourth step).
inline constexpr int64_t kClusterSharedBytes = 96 * 1024;

/// The fewest threads an SM must hold for a cluster's row cache in shared memory: its loads, its
/// passes over shared memory and its stores follow one another in each block, and fewer threads
/// leave the memory idle between them. Measured on an H200 (BENCHMARKS.md, issue 36's
/// forty-fourth step), KernelBench's 23_Softmax in clusters of 16 blocks of 96 KB: 4.12 ms at 512
/// threads a block (1024 an SM), 4.74 at 256, 6.71 at 128; reading the row twice took 4.78.
inline constexpr int64_t kClusterSharedThreads = 1024;

/// The most threads a block of such a cluster: at 1024 (two blocks an SM, 32 registers a thread)
/// 23_Softmax took 11.0 ms, and 34_InstanceNorm 4.73 against 4.28 at 512.
inline constexpr int kClusterSharedBlock = 512;

/// A window ring's row, in floats, is the input's and kRingPad more: so measured on an H200 (the
/// hand kernel bench/depthwise_row_ring.cu, BENCHMARKS.md, issue 36's forty-ninth step).
inline constexpr int64_t kRingPad = 8;

/// Rows a window ring holds: the row its threads last read, those its windows read, and the rest
/// in flight. On an H200 (the same step) 82_conv_depthwise_2D_square_input_square_kernel's
/// 3 x 3 windows at 8 output rows a block took 2-3 % less with 6 rows ahead (8 slots) than 4.
inline constexpr int64_t kRingSlots = 8;

/// The most shared memory a block's rings take: a block may declare 48 KiB, of which the
/// reductions' scratch takes under 1 KiB.
inline constexpr int64_t kRingBytes = 40 * 1024;

/// The conditions an `and` joins (nested ones flattened), or the condition itself.
std::vector<const Expr*> conjuncts(const Expr& c);

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
  std::optional<WindowSplit> split_window(const Index& i) const;
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
  const std::string& node_text(const ExprPtr& e) const;

  /// Which of the cached values computes what `e` does (the same text), or their count if none.
  size_t cached_index(const ExprPtr& e) const {
    size_t i = 0;
    while (i < cached_values.size() && node_text(cached_values[i]) != node_text(e)) ++i;
    return i;
  }

  /// `e` with each value the row cache holds read from its register: a load of buffer -1 - i.
  ExprPtr from_cache(const ExprPtr& e) const;

  std::string text(const ExprPtr& e) const;

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
  static std::optional<std::string> row_vector_base(const Index& i);

  /// Where `i` walks a row (stride 1 along r), the offset of the row's first element, base + r;
  /// none otherwise.
  static std::optional<std::string> row_base(const Index& i);

  /// The row vector group a load reads (row_vector_loads), where it is one: a float buffer the
  /// kernel does not store, at row_vector_base.
  std::optional<size_t> row_vector(const Expr& l, const std::string& added) const;

  /// `e` with each load that row_vector takes as the register of its group. Only loads that `e`
  /// evaluates whatever the data (unconditional_loads): the row's four elements are loaded ahead
  /// of any condition, and a load a condition guards may lie outside its buffer (cat's pieces).
  std::string row_vector_text(const ExprPtr& e) const;

  /// `make`'s text (a walk's value) with the row's vector loads as registers; empty where it reads
  /// none of them or row_vectors is off.
  std::string vector_text(const std::function<std::string()>& make) const;

  /// The pointer a store of stage `s` walks the row from four elements a store (row_vectors): a
  /// float output the kernel allocates, at row_vector_base; empty where it is not one.
  std::string vector_store(const Stage& s) const;

  /// `text` prints expressions without_borders (the interior path of a short window).
  bool strip_borders = false;
  bool interior = false;  ///< CudaChoices::interior
  /// What without_borders assumed: each check's bound over the whole window, free of r (texts).
  mutable std::set<std::string> interior_checks{};

  /// A border check of a short window, `index(i) OP c` with OP one of >=, >, <, <= and i reading
  /// r through terms of a sum that are never negative: the same check for every r of the window,
  /// as a text free of r (r's terms at their least, 0, for >= and >; at their greatest for < and
  /// <=); empty where `e` is not one.
  std::string window_check(const Expr& e) const;

  /// `e` with each where whose condition is border checks of a short window alone (window_check,
  /// joined by &&) replaced by its first branch, the checks recorded in interior_checks.
  ExprPtr without_borders(const ExprPtr& e) const;

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
  std::string eager_text(const ExprPtr& e) const;

  /// An index of the window outputs as the thread's part plus the window's: kf_j's term split
  /// into kf_c * window (the thread's) and kf_v (a constant once the loop over the outputs is
  /// unrolled, as the window's r is), so that the offsets that neighbouring windows share are
  /// the same thread's part plus the same constant, which the compiler computes and loads once.
  std::string window_offset(const Index& i) const;

  /// A window outputs' load as a register of the thread's vector loads (window_vectors): while
  /// they are planned, none, its constant part recorded with its group; after, the register where
  /// plan_vectors kept its group. None where the load is not the thread's part, a multiple of 4,
  /// plus a constant for each output and element of the window.
  std::optional<std::string> vector_load(const Expr& l, const std::string& added) const {
    auto v = vector_register(l, added);
    if (!v && vectors_planned && l.index && ix::reads(*l.index, "kf_j")) ++scalar_window_loads;
    return v;
  }
  std::optional<std::string> vector_register(const Expr& l, const std::string& added) const;

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

  std::optional<RingRead> ring_read(const Index& i) const;

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
  std::optional<std::string> ring_load(const Expr& l, const std::string& added) const;

  /// The ring a load of the windows reads (ring_load's rings, planned), or none.
  const Ring* ring_of(const Expr& l) const;

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
  void plan_fills();

  /// `e` with each where that reads a ring (plan_fills) or a thread's vector loads
  /// (plan_vector_fills) holding its padding replaced by the read.
  ExprPtr without_filled_borders(const ExprPtr& e) const;

  /// The rings of the kernel's windows (ring_load's first pass over its stages, the text
  /// dropped), their slots and the block's threads: a warp's multiple that copies every ring's
  /// row 16 bytes a thread. Whether every load along kf_j reads a ring that fits.
  bool plan_rings();

  /// The groups of four each vector load group holds (kVectorQuads at most in all; a group over
  /// the rest keeps its scalar loads).
  void plan_vectors();

  /// The vector load group a load of the windows reads (vector_register's groups, planned), or
  /// none.
  const VectorLoads* vector_group_of(const Expr& l) const;

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
  void plan_vector_fills();

  /// The thread's vector loads (plan_vectors) and each group's slot function: a constant offset's
  /// register once the loops are unrolled; the groups of four that lie outside the row replaced
  /// by the padding where the group holds it (plan_vector_fills).
  void emit_vector_loads();

  /// Window outputs' stores through shared memory (CudaChoices::window_stores): each thread keeps
  /// its `window` outputs there (window + 1 apart, so that a warp's writes fall in distinct banks),
  /// and the warp stores its 32 * window outputs 32 consecutive ones a store, where each lane's own
  /// stores were `window` elements apart (a sector written by `window` instructions).
  bool window_stores = false;

  /// The stages of a window kernel that store an output: its outer stores and the reductions
  /// whose accumulators are stored.
  std::vector<const Stage*> outer_stores() const;

  /// Whether the outputs window_stores keeps fit the 48 KiB of static shared memory a block may
  /// declare; where they do not, each thread stores its own.
  bool window_stores_fit() const;

  /// The warp's stores of what its threads kept (window_stores): output m of the warp's 32 *
  /// window is its thread m / window's kf_v = m % window, at that thread's kf_q and kf_j.
  void emit_window_stores(int64_t chunks, int64_t rows, int64_t last);

  /// The buffers the kernel's vector loads read (16-byte aligned at its launch).
  std::set<int> vector_buffers() const;

  static ExprPtr eager_selects(const ExprPtr& e);

  /// Whether the row cache may hold `e`'s value: computed from memory and indices alone (none of
  /// the kernel's accumulators, nothing it stores, no gather) before any pass runs, and reading
  /// the row's own elements (a load at both o and r: what every row reads alike, a bias by
  /// channel, stays in the GPU's caches).
  bool cacheable(const ExprPtr& e) const;

  /// The lanes of a column walk's split group (CudaChoices::column_split): the choice, halved
  /// while more than the column's elements or than leave a warp's width of consecutive outputs;
  /// by rule (0) 4 where the column has kSplitColumn elements or more, else 1. On an H200
  /// (BENCHMARKS.md, issue 36's thirty-seventh step) 4 lanes against 1: KernelBench's 36_RMSNorm_
  /// (columns of 64, two passes over the row cache) 3.92 -> 3.79 ms, 47_Sum (columns of 4096)
  /// 2.16 -> 2.12, 51_Argmax 2.31 -> 2.11; 2 lanes were within 0.4 % of 4 on 36 and 47, 3 %
  /// slower on 51.
  int column_split_rule(const CudaChoices& choices) const;

  /// CudaChoices::column_launch by rule for a column walk: 4 blocks an SM where the walk is one
  /// pass of reductions other than an arg reduction (a sum, a maximum) over 1024 elements or more,
  /// else 0 (one launch). On an H200, with 8 loads in flight a thread, KernelBench's 47 and 49
  /// (columns of 4096) took 6-7 % less time than in one launch; its argmax and RMS norm (two
  /// passes over columns of 64) took more (BENCHMARKS.md, issue 36's thirty-fifth step).
  int column_launch_rule() const;

  /// The stages that walk the row together, as `emit` runs them: an online pair, reductions that
  /// share a loop (`joins`), or one stage; outer stores walk nothing.
  std::vector<std::vector<size_t>> walks_of_stages() const;

  /// The expressions a walk of the row prints with `text`: an online pair's first value (the
  /// second is computed from it), a double sum's widened factors (double_term_text), or each
  /// stage's value; an outer store prints none.
  std::vector<ExprPtr> printed_parts(const std::vector<size_t>& walk) const;

  /// The values two or more walks of the row compute from memory (`cacheable`), for the row
  /// cache: the largest such expressions (a group norm's mish(x + bias), for its statistics and
  /// its output; a softmax's x), in the order the walks meet them, as many as kRowCacheValues
  /// registers hold. A pass then neither reads them from memory nor computes them again. Returns
  /// whether there is a cache (`steps` > 0); `load_row_cache` writes its loop.
  bool plan_row_cache();

  /// The row cache's registers and the loop that fills them: every cached value computed before
  /// any pass, all their loads in flight at once.
  void load_row_cache();

  /// column_quads' row cache at step kf_j: the loads that read the output (quad_loads) for the
  /// thread's four outputs, one 16-byte load each at the first output's offset, then each
  /// output's cached values computed from them.
  void load_row_cache_quads();

  /// column_quads' stages: each of the four outputs' in turn, then the row stores kept for them
  /// (quad_stores), 16 bytes a store at the first output's offset.
  void emit_quad_stages();

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
  void plan_cache_vectors(const CudaChoices& choices);

  /// The row's head (kf_h, kf_n4 groups of four, kf_x elements of head and tail, this lane's
  /// kf_xr), the cache's registers, and their loads: 16 bytes a load, the lane's element of head
  /// or tail on its own.
  void load_row_cache_vectors();

  /// The index of this thread's group kf_k in a shared_cache's array of float4 (kf_s<i>).
  std::string shared_group() const { return "kf_k * " + n(threads) + " + threadIdx.x"; }

  /// The offset from the row's first element of this lane's group `k` of the cache in groups of
  /// four.
  std::string cache_group(const std::string& k) const {
    return "kf_h + 4 * (lane + " + k + " * " + n(span()) + ")";
  }

  /// The thread's share of the row, unrolled whole (the row cache's registers are indexed by
  /// kf_j, which must be a constant): r = lane + kf_j * span.
  void cached_loop(const std::function<std::string(const std::string&)>& body);

  /// The walk of a window in two loops (nest): the inner one unrolled, r defined where the body
  /// reads it (an arg reduction's position).
  void nested_loop(const std::function<std::string(const std::string&)>& body);

  void inner_loop(const std::function<std::string(const std::string&)>& body);

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
  void inner_loop_unrolled(const std::vector<Walk>& walks);

  /// inner_loop_unrolled's walks over the row cache in groups of four: a store walk stores its
  /// four values at once (16 bytes), the others consume theirs in order; then the lane's element
  /// of the row's head or tail.
  void cached_vector_loop(const std::vector<Walk>& walks);

  /// The unrolled loop of inner_loop_unrolled with the row's vector loads (row_vectors): each
  /// thread's elements four consecutive ones, lane * 4 + 4 * span apart, `quads` groups of four
  /// loaded (16 bytes a load of each vector group the walks read) before they are consumed in
  /// order; a store walk stores its four at once. The row's last groups one element at a time.
  void inner_loop_vectors(const std::vector<Walk>& walks, int64_t quads);

  /// The row's vector loads (row_vector_loads) that `texts` read, each declared and loaded at
  /// kf_r4, 16 bytes a load; their buffers recorded as read by vector loads (row_vector_buffers).
  std::string load_row_vectors(const std::vector<std::string>& texts, const std::string& in);

  void inner_loop_unrolled(
      const std::string& type, const std::string& value,
      const std::function<std::string(const std::string&, const std::string&)>& consume,
      const std::string& vector = {}, const std::string& store = {}) {
    inner_loop_unrolled(std::vector<Walk>{{type, value, consume, {}, vector, store}});
  }

  /// Whether stage i (a float maximum) and stage i + 1 (the sum of exp(x - that maximum) over the
  /// same x) may run as one online pass: one read of the row instead of two.
  bool online_pair(size_t i) const;

  /// Stages i and i + 1 as one pass (online_pair): acc<max> and acc<sum> as `reduce` leaves them.
  void reduce_online(size_t i);

  /// The C type a reduction accumulates in: float sums in double, as the CPU kernels do (a thread
  /// that walks a column of 16384 rows adds them one after another), but over a short window (an
  /// average pool's 27 elements: float's rounding over so few is at most that many float
  /// roundings, where each double conversion cost a slow instruction per element) or a window
  /// under 1024 elements walked in two loops (nest: eager's pooling sums in float too).
  std::string accumulator_type(const Stage& s) const;

  static bool is_arg(Combine c) { return c == Combine::argmax || c == Combine::argmin; }

  /// Whether reduction stage `s` may share the loop of `group` (reductions before it in the
  /// kernel): a plain combination that reads none of their results.
  bool joins(const std::vector<const Stage*>& together, const Stage& s) const;

  void reduce_arg(const Stage& s);

  /// Sums, products, maxima or minima over the same elements, in one loop.
  void reduce_together(const std::vector<const Stage*>& stages);

  /// What an output's store is under: the group's first thread of a live row; none for spread
  /// outputs, whose threads past the outputs compute the last one (o clamped) and store its
  /// value as its own thread does, so that no branch keeps nvcc from issuing the next output's
  /// loads before this store.
  std::string store_guard() const { return spread > 1 ? "" : "if (live && lane == 0) "; }

  void store_accumulator(const Stage& s);

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
  void scan(const Stage& s);

  /// The warp scan's steps of 512 elements with the row's vector loads (row_vectors), where its
  /// value reads one or its output is stored as one: each lane's elements four consecutive ones
  /// (four groups a step, their values loaded before any is scanned), scanned in the lane before
  /// the lanes' totals are scanned across the warp, so that 128 elements cost one shuffle scan
  /// where they cost four; the row's last elements are left to the loop of 32 a step. The values
  /// wait in their own type (a float sum's in float, 16 registers) and are scanned in `t`, but
  /// for a float sum's groups, scanned in float with a double carry (emit_cuda_scans.cpp). A
  /// suffix scan walks its lane's four elements from the last (kf_r4 is the first of them in
  /// memory, R - 4 - q: rows of a multiple of four keep it aligned). `t`, `op`: as scan's.
  void scan_vectors(const Stage& s, const std::string& t, const std::string& op);

  /// Whether 32-bit index arithmetic holds every offset of the kernel: o, r, every node of every
  /// offset and index it computes (each partial sum is at most its sum's non-negative terms), and
  /// every buffer it reads or writes under 2^31 - 2^20 elements (the margin covers a padded
  /// window's negative constants and the last block's threads past the outputs). Not the space,
  /// outputs times the row: no reduction forms that product unless some offset does (KernelBench's
  /// 42_Max_Pooling_2D, 534 million outputs of 16 elements, indexes in 32 bits).
  bool narrow_indices() const;

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
  std::set<std::string> stages_unconditional_loads() const;

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
  void emit_pointwise();

  /// A full block of a pointwise kernel with vectors (pointwise_vectors; rows of a multiple of four
  /// elements): each thread's `elements` four consecutive ones at a time, a block's width of such
  /// groups apart, so that the four share their row o. A float load at the row's offset plus r
  /// (the element's own, a bias along the row) is one 16-byte load for the four; a load that does
  /// not read r (a channel's statistic) one for the four; any other a load each; all before any
  /// value is computed. A float output at such an offset is stored four elements a store.
  void emit_pointwise_vectors(const std::string& type);

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
  void plan(const CudaChoices& choices);

  /// Whether the row cache holds all that the maxima of would-be online pairs read: else their
  /// two passes would read memory twice where the online pass reads it once.
  bool maxima_from_cache();

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
  std::string cluster_blocks_per_sm() const;

  /// The kernel function; returns the launch's grid size.
  int64_t emit(const std::string& name);

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
  int64_t emit_ring();

  /// The reduction kernel's stages, each walk of the row in turn.
  void emit_stages();
};

}  // namespace kforge::generator::cuda
