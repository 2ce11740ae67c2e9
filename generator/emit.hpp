// Kernel source for one config's schedule: the kernels (generator/emit_cpu.cpp: OpenMP loops;
// generator/emit_cuda.cpp: CUDA kernels) and a host function that allocates what they store and
// runs them in order. generator/generate.hpp joins the configs into one candidate source.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "generator/ir.hpp"

namespace kforge::generator {

/// The generator's choices for CUDA kernels: what the built-in proposer searches.
struct CudaChoices {
  int block_threads = 256;  ///< threads of a block
  /// Threads that share one outer index of a reduction: 1, 2, 4, ..., 32, or 0 for the whole
  /// block; -1 picks by the reduced size (a thread for under 16 elements, a warp under 1024).
  int group = -1;
  /// A contraction (a sum of products whose factors each skip some output dimension: matrix
  /// products, convolutions as implicit GEMM) computed in tile x tile output blocks staged through
  /// shared memory, each thread micro x micro outputs; 0: as any other reduction; -1: by the
  /// product's size (128 x 128 tiles of 8 x 8 where M and N reach 1024, 64 of 4 from 128, else 32
  /// of 2; untiled where the outputs are few: `few_outputs`).
  int tile = -1;
  int micro = 4;
  /// Elements each thread of a pointwise kernel computes (1, 2, 4, 8), a block's width apart; 0
  /// by rule: 8 where an element evaluates two special functions or more (exp, log, tanh, erf: a
  /// softplus, a mish) and holds at most four loaded values, else 4, either halved while the grid
  /// would have fewer than 264 blocks (two for each of an H100's 132 SMs: an LSTM step's cell of
  /// 2560 elements takes 1) (generator/emit_cuda.cpp, pointwise_elements).
  int elements = 0;
  /// A tiled contraction's products on the tensor cores in TF32 (its factors rounded to 10
  /// mantissa bits, sums in float32; sm_80 and newer): for a task whose tolerance admits it,
  /// and the verdict decides. Tiles of 64 or 128 (128 where `tile` says so or, by size, where M
  /// and N reach 1024), 256 threads.
  bool tf32 = false;
  /// Reduction and scan kernels index in 32-bit arithmetic where every offset fits (pointwise
  /// kernels always do): their 64-bit divisions and remainders by the shapes' sizes are what
  /// KernelBench's batch norm and 3-D pooling kernels compute per element (0.53x and 0.37x of
  /// eager). Off: on an H200 2x slower on KernelBench's 42_Max_Pooling_2D, 1.6x on 43, 3-5 %
  /// faster on 41, 44 and 23 (BENCHMARKS.md); a choice of the search.
  bool index32 = false;
  /// A reduction kernel whose passes over a row compute the same values from memory one after
  /// another (a norm's statistics, then its output; a softmax's maximum and sum, then its
  /// quotient) computes them once into registers that every pass reads, where a thread's share of
  /// the row is short enough (64 registers a thread at most): the row comes from memory once rather
  /// than once a pass.
  bool row_cache = true;
  /// A row too long for one block's row cache shared by a cluster of 2 to 16 blocks (sm_90's
  /// thread-block clusters), each caching its slice in registers, their partial reductions
  /// combined through distributed shared memory: the row comes from memory once where a block
  /// alone reads it once a pass (KernelBench's 39_L2Norm_, rows of 65535: read twice, 0.57x of
  /// eager). A row too long for a cluster's registers too, held in groups of four, is cached in
  /// the cluster's blocks' shared memory (KernelBench's 23_Softmax, rows of 393216). Where only a
  /// cluster of 512-thread blocks caches the row, the kernel takes them whatever block_threads
  /// says. Launched with the kernel without clusters beside it, which runs where the GPU has none.
  bool cluster = true;
  /// A short window (pooling, a depthwise convolution; a thread an output) whose border checks
  /// all hold for an output, its window inside its input, is walked without them: one check an
  /// output, the checked walk for the border's outputs alone (else a check an element). Off: on an
  /// H200 it freed issue slots (SM 80 -> 53 % on KernelBench's 42_Max_Pooling_2D) but the pools
  /// wait on their loads, 41, 42 and 44 3-5 % faster, the strided 3-D pools 43 and 46 10-20 %
  /// slower (BENCHMARKS.md); a choice of the search. With window outputs, one check for all of a
  /// thread's outputs (at 4 a thread on 42, 3 % slower).
  bool interior = false;
  /// A row's maximum and its sum of exp(x - maximum) (softmax, log-softmax, logsumexp, cross
  /// entropy): 1 in one online pass over the row, its sum rescaled as the maximum grows; 2 in two
  /// passes over the row cache's registers where it holds the row in a block (the maximum first:
  /// no rescaling, no branch that divides a warp), else online; 0 by rule: 2.
  int online = 0;
  /// Elements of a row a reduction's thread loads before it combines them (2, 4, 8, 16), so that
  /// their loads are in flight at once; 0 by rule: 8 where a warp or more shares the row, else 4.
  int unroll = 0;
  /// Neighbouring outputs that one thread of a short-window reduction (pooling, a depthwise
  /// convolution: a thread an output) computes, 2, 4 or 8 along the output's last dimension. Every
  /// load of their windows is issued whatever its guard says (its offset kept inside its buffer,
  /// the guard choosing after the load), so that the compiler merges the loads that overlapping
  /// windows share and has all of them in flight at once; 1: a thread an output, each load behind
  /// its guard; 0 by rule: 4 where `spread` is by rule too and every load along the last
  /// dimension is a register of the thread's vector loads (window_vectors), else 1 (scalar loads
  /// a thread's outputs apart were slower on seven of nine KernelBench problems; with vector loads
  /// 4 was faster on six of seven: generator/emit_cuda.cpp, window_rule).
  int window = 0;
  /// Window outputs (`window` over 1) read a float buffer at the thread's part of the offset, a
  /// multiple of four elements, plus constants by aligned loads of four elements, 16 bytes a load,
  /// each load of the windows a register (generator/emit_cuda_windows.cpp,
  /// CudaKernel::window_vectors); false: each element loaded on its own.
  bool window_vectors = true;
  /// A reduction's walk of a row that a float buffer holds contiguously, from a multiple of four
  /// elements (a softmax's, a norm's, a loss's rows), reads it four consecutive elements a thread
  /// at a time, 16 bytes a load, and stores a float output row likewise
  /// (generator/emit_cuda_rows.cpp, CudaKernel::row_vectors); false: a thread's elements a group's
  /// width apart, each loaded on its own.
  bool row_vectors = true;
  /// A warp scan's steps of 512 under row_vectors load the next step's values before they scan
  /// this step's (software pipelining: a warp's loads in flight while it shuffles; 32 registers
  /// of values where 16 were); false: each step's values loaded, then scanned. Off by default: on
  /// an H200 1.1-1.5 % faster on KernelBench's 89-92, 2.8 % slower on 93_masked_cumsum
  /// (BENCHMARKS.md, issue 36's twenty-sixth step).
  bool scan_prefetch = false;
  /// Warps of a block that share a scan's row along its last dimension (1, 2, 4, 8, 16, 32; the
  /// block is then 32 * scan_warps threads whatever `block_threads` says): each step of 512 a warp
  /// is scan_warps consecutive runs of 512 elements, one a warp, scanned as with a warp a row,
  /// the warps' totals added through shared memory before the step's outputs are stored, the
  /// row's last elements (past the steps) warp 0's. 1: a warp a row; 0 by rule: 16; halved while
  /// the step is longer than the row or leaves 512 elements or more past the last step
  /// (generator/emit_cuda.cpp, scan_warps_of: on an H200
  /// KernelBench's 89_cumsum by hand 81 % of DRAM peak with a warp a row, 85 % with 16).
  int scan_warps = 0;
  /// A pointwise kernel's full blocks take each thread's elements four consecutive ones at a time
  /// (rows of a multiple of four elements): a float buffer read along the row is one 16-byte load
  /// for the four, one that does not read along it (a channel's statistic) one load for the four,
  /// a float output stored four elements a store (generator/emit_cuda_pointwise.cpp,
  /// CudaKernel::emit_pointwise_vectors); false: `elements` a block's width apart, a load each.
  bool pointwise_vectors = true;
  /// Window outputs keep their values in shared memory and each warp stores its outputs 32
  /// consecutive ones a store, rather than each thread its own `window` consecutive ones (a warp's
  /// store then writes one element of `window` in each line). Off by default: on an H200 at 8
  /// outputs a thread it was 2-10% faster than the rule (4 without it) on 2-D windows (42, 82, 83,
  /// 85), 0.6% slower on 84, 23-30% slower on the 1-D pools 41 and 44 (BENCHMARKS.md, issue 36's
  /// twenty-second step); the proposer tries it (`window_stores`).
  bool window_stores = false;
  /// Rows of window outputs a thread computes (1, 2, 4): with `window` outputs along the last
  /// dimension, the same outputs of `window_rows` consecutive rows of the last dimension before it
  /// with more than one index (a 2-D pool's or depthwise convolution's output rows, in one plane;
  /// a 1-D pool's channels), so that the input rows that
  /// neighbouring output rows' windows share are loaded once (window_vectors: 16 bytes a load, up
  /// to 32 of them a thread); the last group of a plane computes the rows past its end again and
  /// stores nothing. Not with `window_stores` or `interior`. 0 by rule: 2 at 4 outputs a row
  /// where the windows check their rows' borders (a padded 2-D pool) and their loads are all
  /// vector loads, else 1 (generator/emit_cuda.cpp, window_rows: on an H200 1.52x on
  /// 42_Max_Pooling_2D; on unpadded depthwise convolutions 2 rows were within 5 %, 4 slower).
  /// Where the windows read rings (`window_ring`): the output rows a thread computes at each step
  /// of its band, the ring rows their windows share read once; 0 by rule 2 where a ring is padded
  /// and every ring holds its padding, else 1 (generator/emit_cuda.cpp, ring_step: on an H200
  /// 1.14x on 42 and 1.11x on 86's depthwise kernel over a row a step; 82 within 1 %).
  int window_rows = 0;
  /// Output rows a block of a short-window reduction (a depthwise convolution, a pool) walks with
  /// its windows' input rows streamed through rings in shared memory: the block a band of that
  /// many output rows of a plane, each thread copying 16 bytes of each input row by cp.async
  /// (rows in flight 6 ahead of those read) and computing the columns a block's width apart of
  /// each row, each window's load a read of the ring. Where every load along the rows reads a
  /// ring: windows at stride 1 (padded ones too: the ring holds the floats before and past each
  /// row and the rows above the first output's) of float rows a multiple of 4 elements, up to
  /// 4096 (generator/emit_cuda_windows.cpp, CudaKernel::plan_rings); else ignored, and where it
  /// applies it sets aside window, window_rows, window_stores, interior and spread. 0: none; -1 by
  /// rule: 8 where the windows are unpadded and span 2 or 3 columns and 2 rows or more, or are
  /// padded, span 3 or 4 columns and 2 rows or more and the ring holds their padding, 2 rows a step
  /// (`window_rows`) (on an H200 KernelBench's 3 x 3 depthwise convolutions 82 and 84 1.14-1.17x
  /// faster at 82-84 % of DRAM peak, the padded 86's depthwise kernel 1.08x and 42_Max_Pooling_2D
  /// 1.10x; 83's 3 x 1 and 85's 3 x 7 windows slower; generator/emit_cuda.cpp, window_ring_rows).
  int window_ring = -1;
  /// Whether window outputs' vector loads (`window_vectors`) hold their windows' padding: where
  /// each window checks only its position along the row (a 1-D pool's padding) and each group of
  /// four lies inside the row or outside it whole, a thread puts the padding's value (a max pool's
  /// -inf, a sum's 0) in place of the groups outside the row once, after its loads, and its
  /// windows read their registers without a check a tap (generator/emit_cuda_windows.cpp,
  /// plan_vector_fills). 1: where it applies; 0: never; -1 by rule: where a window's taps are
  /// dilated (spread over more elements than they number; on an H200 KernelBench's
  /// 41_Max_Pooling_1D, 8 taps 3 apart, 1.39x faster, at 76 % of DRAM peak from 55 %, while
  /// 44_Average_Pooling_1D's 8 neighbouring taps took 1.84x as long, its L2 busier: BENCHMARKS.md).
  int window_fills = -1;
  /// Outputs one thread of a short-window reduction (pooling, a depthwise convolution) computes a
  /// block's width apart (1, 2, 4, 8), each load behind its border check as with one output a
  /// thread, so that a thread has `spread` windows' loads in flight while a warp's loads stay as
  /// coalesced as with one; ignored where `window` computes neighbouring outputs. 0 by rule: 4
  /// where the kernel keeps 1024 blocks or more at 4, else 2 where it keeps them at 2, else 1: on
  /// an H200 1.12-1.61x faster on KernelBench's 1-D pools and depthwise convolutions, within 3 % on
  /// its 2-D and 3-D pools (BENCHMARKS.md; generator/emit_cuda.cpp, spread_outputs).
  int spread = 0;
  /// A reduction across rows whose thread walks a column (a sum over a tensor's middle dimension,
  /// its argmax) launched in slices of `column_launch` blocks an SM each (the GPU's SM count
  /// read at the call), one launch after another on the stream, rather than its whole grid at
  /// once: fewer columns walked at once, so that a line which neighbouring blocks share stays in
  /// L2 between their reads (KernelBench's 47_Sum_reduction_over_a_dimension, rows of 4095: one
  /// launch read 1.18x the tensor's bytes, launches of 256 blocks 1.00x, by hand); with `unroll`
  /// by rule, 8 loads in flight a thread (4 left a slice waiting on its loads: 2 blocks an SM
  /// took 4.2 ms on 47 where one launch took 2.3). 0: one launch; -1 by rule: 4 where the walk is
  /// one pass of a sum, mean, maximum or minimum over 1024 elements or more, else 0 (on an H200
  /// 6-7 % faster on 47 and 49, slower on 51_Argmax and 36_RMSNorm_;
  /// generator/emit_cuda_kernel.cpp, column_launch_rule).
  int column_launch = -1;
  /// A column walk's column (a reduction across rows: a norm or a softmax over channels, a sum
  /// over a middle dimension) split across `column_split` lanes (1, 2, 4, 8) a block's
  /// threads / column_split apart, each lane a share of the column, their results combined
  /// through shared memory: a warp still reads 32 neighbouring outputs' elements, a thread has
  /// more of the GPU's loads in flight for fewer registers, and its row cache holds its share
  /// rather than the column. 1: a thread a column; 0 by rule: 4 where the column has 32 elements
  /// or more, else 1 (on an H200 KernelBench's 36_RMSNorm_ 1.03x faster, 47_Sum 1.02x, 51_Argmax
  /// 1.10x, at 83-86 % of DRAM peak; generator/emit_cuda_kernel.cpp, column_split_rule).
  int column_split = 0;
  /// A column walk whose row cache holds its column (a norm or a softmax over channels) takes
  /// four neighbouring outputs a thread, where the outputs' trailing dimensions hold a multiple of
  /// four and what the cache reads at the output is float elements of which four neighbouring
  /// outputs' are 16 contiguous, aligned bytes: the cache filled 16 bytes a load, each output's
  /// passes in turn, a float row output stored 16 bytes a store (generator/emit_cuda.cpp,
  /// CudaKernel::column_quads, plan_column_quads); false: a thread an output, a warp's load 32
  /// floats.
  bool column_vectors = true;
  /// exp and log, and the prelude's functions built on them (sigmoid, SiLU, softplus, xlogy, a
  /// softmax's exponentials), on the GPU's approximations: the source defines expf, logf, log2f
  /// and log10f as __expf, __logf, __log2f and __log10f after its includes (kFastMathDefines).
  /// Off by default; the built-in proposer offers it, as TF32, where the kernels call exp or log
  /// (Generated::exp_or_log) and the task's tolerance admits it (atol and rtol 1e-3 or more), and
  /// the verdict decides. On an H200 KernelBench's
  /// 98_KLDivLoss (two logf an element, bound by them) 0.603 -> 0.483 ms, 29_Softplus 3 % faster.
  bool fast_math = false;
};

/// What a CUDA source with CudaChoices::fast_math says after its includes.
inline constexpr const char* kFastMathDefines =
    "// The choice fast_math: exp and log on the GPU's approximations (__expf: 2 + 1.2|x| ulp;\n"
    "// __logf: 2^-21.4 absolute in [0.5, 2], else 3 ulp; subnormal inputs read as 0).\n"
    "#define expf __expf\n#define logf __logf\n#define log2f __log2f\n#define log10f __log10f\n";

/// How a reduction kernel whose rows a cluster of blocks shares begins (generate.cpp includes
/// <cooperative_groups.h> and cuda_cluster_prelude() for it).
inline constexpr const char* kClusterMark = "// a row shared by a cluster of";

/// How a tiled contraction kernel begins, and one on the tensor cores (generate.cpp counts them
/// and includes <mma.h> for the second).
inline constexpr const char* kContractionMark = "// a contraction";
inline constexpr const char* kTensorCoreMark = "// a contraction on the tensor cores";

/// Whether the tile shape is one the contraction kernel can run: (tile / micro)^2 threads, 64 to
/// 1024.
bool valid_tiling(int tile, int micro);

/// Whether a product of M x N outputs (B of them) tiled by `tile` is too small for tiles: fewer
/// than 128 blocks (an H100 has 132 SMs) and at most 65536 outputs, or 8192 where a factor is not
/// `contiguous` along K. With the tile chosen by size, such a contraction is computed as any other
/// reduction, a group of threads per output.
bool few_outputs(int64_t M, int64_t N, int64_t B, int tile, bool contiguous);

struct EmitInput {
  const Program* program = nullptr;
  const std::vector<Kernel>* kernels = nullptr;
  std::string prefix;  ///< names this config's kernels: "c0_"
};

/// The kernels as functions `<prefix>k<i>(buffers...)`, and a statement list that calls them in
/// order with the buffers' pointers named b<id> (`kernel_calls`). A kernel whose functions are an
/// earlier kernel's but for the names of its buffers is not written again: its calls call the
/// earlier one (add_kernel).
struct EmittedKernels {
  std::string functions;
  std::string calls;
  /// Each function written, as kernel_shape gives it: the kernel's name.
  std::map<std::string, std::string> written{};
  /// Where each step's statements (a kernel's or a library call's) end in `calls`: the host
  /// function may be cut into parts between two steps (generator/generate.cpp).
  std::vector<size_t> step_ends{};
};

/// Kernel `k`'s functions, named `name` (and `name_...`, a twin such as a cluster kernel's launch
/// without clusters), with its buffers renamed by their place among its parameters (k.loads,
/// then k.stores) and its other buffer-numbered names (a reduction's s<id>, acc<id>) by their
/// first appearance: two kernels with the same shape compute the same from their arguments.
/// Only names the generator numbers by buffer are renamed (b, s, acc, best, kf_st, kf_sv; in
/// comments too), never inside a string (inline PTX), so that a name outside the function (a
/// helper such as kf_load4, a constant tensor kf_c0) keeps its number.
std::string kernel_shape(const Kernel& k, const std::string& name, const std::string& functions);
/// `text` with each buffer pointer's name b<id> for which `rename` gives a text replaced by it (in
/// code, not in strings or comments).
std::string renamed_buffers(const std::string& text, const std::function<std::string(int)>& rename);
/// Adds kernel `k`'s functions (with their long lines' repeated arithmetic named once:
/// generator/named_values.hpp) and calls to `e`; where a kernel of the same shape (kernel_shape)
/// was written before, only the calls, to that kernel's name (an RNN's steps, a ResNet's repeated
/// blocks: the source holds each kernel once).
void add_kernel(EmittedKernels& e, const Kernel& k, const std::string& name,
                const std::string& functions, const std::string& calls);

EmittedKernels emit_cpu(const EmitInput& in);
EmittedKernels emit_cuda(const EmitInput& in, const CudaChoices& choices);
/// The contraction kernel for `k` (the tiled GEMM of generator/emit_cuda_gemm.cpp) with its launch,
/// when k is a contraction and the choices tile it; nothing otherwise.
struct EmittedKernel {
  std::string function, call;
};
std::optional<EmittedKernel> emit_cuda_contraction(const Program& p, const Kernel& k,
                                                   const std::string& name,
                                                   const CudaChoices& choices);
/// The CUDA kernels' group reductions (after the element functions).
const char* cuda_reductions_prelude();
/// A cluster's reductions across its blocks (after cuda_reductions_prelude; needs
/// <cooperative_groups.h>).
const char* cuda_cluster_prelude();
/// The tiled loops of the contraction kernels (after the element functions): those on the CUDA
/// cores, those on the tensor cores (they need <mma.h>), either, both or none.
std::string cuda_contraction_prelude(bool cuda_cores, bool tensor_cores);

/// The statements of a library step (Kernel::library): its call, assigned to its tensor t<id> and
/// pointer b<id>, which the host function declares before its steps.
std::string library_call_text(const Program& p, const Kernel& k);

/// The parameters of a kernel function (`const float* __restrict__ b0, float* __restrict__ b3`) and
/// the arguments that call it (`b0, b3`).
std::string kernel_parameters(const Program& p, const Kernel& k);
std::string kernel_arguments(const Kernel& k);
/// An element's expression in kernel `k`: its reductions read from their accumulators (acc<id>),
/// other buffers from memory (b<id>[offset]).
std::string kernel_expr_text(const Kernel& k, const ExprPtr& e);

}  // namespace kforge::generator
