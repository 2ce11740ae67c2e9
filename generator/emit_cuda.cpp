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
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "generator/emit.hpp"
#include "generator/emit_cuda_kernel.hpp"
#include "generator/expr_text.hpp"
#include "generator/rebase.hpp"
#include "generator/schedule.hpp"

namespace kforge::generator {
namespace {

using namespace cuda;

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
  // divisions at run time). Only where there are 4096 outputs or more: a thread an output of
  // fewer leaves the GPU idle (a batch norm's statistics over a small image, 256 channels of 2 x
  // 14 x 14 in KernelBench's 9_ResNet18: one block of 256 threads, each walking its 392 elements
  // three times, 0.155 ms a call on an H100); a warp an output then.
  const bool window = inner < 1024 && outer >= 4096 && window_nest(k) > 0 && reads_windows(k);
  if (g < 0) g = across || inner <= 32 || window ? 1 : inner < 1024 ? 32 : 0;
  return g == 0 ? c.block_threads : g;
}

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
