// The tiled contraction kernel: a reduction kernel whose one reduction sums a product A * B, where
// A does not depend on some output dimensions (N) and B not on others (M), is a batched GEMM
// (matrix products; convolutions, where A is the input's window: an implicit GEMM). Each block
// computes a tile x tile block of outputs of one batch index: it stages K-slices of A and B,
// evaluated from their expressions (views, padding guards and all), in shared memory, each thread
// accumulates micro x micro outputs in registers, and the stages behind the reduction (bias,
// activations: the epilogue) run on the accumulators before anything is stored. float32
// throughout, unless the choice `tf32` puts the products on the tensor cores (WMMA, 16 x 16 x 8
// fragments, each warp a rectangle of the tile; accumulators staged through shared memory a
// fragment at a time for the epilogue). The loops are templates of the source's prelude, written
// once (cuda_contraction_prelude); a kernel is their call with its A load, B load and epilogue.
#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>

#include "generator/emit.hpp"
#include "generator/expr_text.hpp"

namespace kforge::generator {

namespace {

// The tiled loops every contraction kernel runs, once in the source: a kernel passes how to read
// an element of A (gm, gk) and of B (gn, gk), and what to do with the sum of output (gm, gn); the
// compiler inlines the lambdas. Block (x, y) computes the TILE x TILE outputs from (m0, n0),
// K-slices of BK staged in shared memory as As[k][m] and Bs[k][n], zero outside M, N and K: a
// thread loads its share of a slice into registers, all its loads in flight together, then stores
// them. An operand's neighbouring threads load neighbouring k (A_K, B_K) or neighbouring rows,
// whichever its memory has side by side (a row-major A and a linear layer's weight along k, a
// convolution's input along its positions); the rows in shared memory are kf_pad floats longer
// than the tile, so that a warp storing a few rows of every k spreads over the banks. (Loading
// the next slice while computing on this one, measured on an H200: 6-12 % slower on three of
// four problems, its registers costing a block per SM; BENCHMARKS.md, thirtieth step.)
const char* const kContractionStage = R"(
constexpr int kf_pad = 4;
template <int TILE, int BK, int THREADS, bool A_K, bool B_K, int64_t M, int64_t N, int64_t K>
struct kf_contraction_stage {
  static constexpr int PER = (TILE * BK + THREADS - 1) / THREADS;
  float a[PER], b[PER];
  // element i of a slice: its row and its k, neighbouring i along k or along the rows
  static __device__ __forceinline__ int row(int i, bool along_k) {
    return along_k ? i / BK : i % TILE;
  }
  static __device__ __forceinline__ int col(int i, bool along_k) {
    return along_k ? i % BK : i / TILE;
  }
  template <class LA, class LB>
  __device__ __forceinline__ void load(int64_t m0, int64_t n0, int64_t k0, const LA& load_a,
                                       const LB& load_b) {
#pragma unroll
    for (int r = 0; r < PER; ++r) {
      const int i = threadIdx.x + r * THREADS;
      const int64_t gm = m0 + row(i, A_K), gka = k0 + col(i, A_K);
      a[r] = (i < TILE * BK && gm < M && gka < K) ? load_a(gm, gka) : 0.0f;
      const int64_t gn = n0 + row(i, B_K), gkb = k0 + col(i, B_K);
      b[r] = (i < TILE * BK && gn < N && gkb < K) ? load_b(gn, gkb) : 0.0f;
    }
  }
  __device__ __forceinline__ void store(float (&As)[BK][TILE + kf_pad],
                                        float (&Bs)[BK][TILE + kf_pad]) const {
#pragma unroll
    for (int r = 0; r < PER; ++r) {
      const int i = threadIdx.x + r * THREADS;
      if (i >= TILE * BK) break;
      As[col(i, A_K)][row(i, A_K)] = a[r];
      Bs[col(i, B_K)][row(i, B_K)] = b[r];
    }
  }
};
)";

// float32 on the CUDA cores: (TILE / MICRO)^2 threads, each MICRO x MICRO sums in registers.
const char* const kContractionLoops = R"(
template <int TILE, int MICRO, int BK, bool A_K, bool B_K, int64_t M, int64_t N, int64_t K, class A,
          class B, class S>
KF_FN void kf_contraction(const A& load_a, const B& load_b, const S& store) {
  constexpr int SIDE = TILE / MICRO;
  __shared__ float As[BK][TILE + kf_pad];
  __shared__ float Bs[BK][TILE + kf_pad];
  const int64_t m0 = static_cast<int64_t>(blockIdx.x) * TILE;
  const int64_t n0 = static_cast<int64_t>(blockIdx.y) * TILE;
  const int tx = threadIdx.x % SIDE, ty = threadIdx.x / SIDE;
  float accs[MICRO][MICRO] = {};
  kf_contraction_stage<TILE, BK, SIDE * SIDE, A_K, B_K, M, N, K> slice;
  for (int64_t k0 = 0; k0 < K; k0 += BK) {
    slice.load(m0, n0, k0, load_a, load_b);
    slice.store(As, Bs);
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      float av[MICRO], bv[MICRO];
#pragma unroll
      for (int i = 0; i < MICRO; ++i) av[i] = As[kk][ty * MICRO + i];
#pragma unroll
      for (int j = 0; j < MICRO; ++j) bv[j] = Bs[kk][tx * MICRO + j];
#pragma unroll
      for (int i = 0; i < MICRO; ++i)
#pragma unroll
        for (int j = 0; j < MICRO; ++j) accs[i][j] = fmaf(av[i], bv[j], accs[i][j]);
    }
    __syncthreads();
  }
  for (int i = 0; i < MICRO; ++i)
    for (int j = 0; j < MICRO; ++j) {
      const int64_t gm = m0 + ty * MICRO + i, gn = n0 + tx * MICRO + j;
      if (gm >= M || gn >= N) continue;
      store(gm, gn, accs[i][j]);
    }
}
)";

// TF32 on the tensor cores (WMMA 16 x 16 x 8): 8 warps as 2 x 4 over the tile, each TILE / 32 x
// TILE / 64 fragments, the factors rounded to TF32; each fragment of sums goes through shared
// memory (Cs) to reach the store a sum at a time.
const char* const kContractionLoopsTf32 = R"(
template <int TILE, bool A_K, bool B_K, int64_t M, int64_t N, int64_t K, class A, class B, class S>
KF_FN void kf_contraction_tf32(const A& load_a, const B& load_b, const S& store) {
  namespace wmma = nvcuda::wmma;
  constexpr int BK = 32, FM = TILE / 32, FN = TILE / 64;
  __shared__ __align__(32) float As[BK][TILE + kf_pad];
  __shared__ __align__(32) float Bs[BK][TILE + kf_pad];
  __shared__ __align__(32) float Cs[8][256];
  const int64_t m0 = static_cast<int64_t>(blockIdx.x) * TILE;
  const int64_t n0 = static_cast<int64_t>(blockIdx.y) * TILE;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, wm = warp / 4, wn = warp % 4;
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> sums[FM][FN];
  for (int i = 0; i < FM; ++i)
    for (int j = 0; j < FN; ++j) wmma::fill_fragment(sums[i][j], 0.0f);
  kf_contraction_stage<TILE, BK, 256, A_K, B_K, M, N, K> slice;
  for (int64_t k0 = 0; k0 < K; k0 += BK) {
    slice.load(m0, n0, k0, load_a, load_b);
    slice.store(As, Bs);
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < BK; kk += 8) {
      wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::col_major> fa[FM];
      wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fb[FN];
#pragma unroll
      for (int q = 0; q < FM; ++q) {
        wmma::load_matrix_sync(fa[q], &As[kk][(wm * FM + q) * 16], TILE + kf_pad);
        for (int t = 0; t < fa[q].num_elements; ++t) fa[q].x[t] = wmma::__float_to_tf32(fa[q].x[t]);
      }
#pragma unroll
      for (int q = 0; q < FN; ++q) {
        wmma::load_matrix_sync(fb[q], &Bs[kk][(wn * FN + q) * 16], TILE + kf_pad);
        for (int t = 0; t < fb[q].num_elements; ++t) fb[q].x[t] = wmma::__float_to_tf32(fb[q].x[t]);
      }
#pragma unroll
      for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j) wmma::mma_sync(sums[i][j], fa[i], fb[j], sums[i][j]);
    }
    __syncthreads();
  }
  for (int i = 0; i < FM; ++i)
    for (int j = 0; j < FN; ++j) {
      wmma::store_matrix_sync(Cs[warp], sums[i][j], 16, wmma::mem_row_major);
      __syncwarp();
      for (int e = lane; e < 256; e += 32) {
        const int64_t gm = m0 + (wm * FM + i) * 16 + e / 16, gn = n0 + (wn * FN + j) * 16 + e % 16;
        if (gm >= M || gn >= N) continue;
        store(gm, gn, Cs[warp][e]);
      }
      __syncwarp();
    }
}
)";

}  // namespace

std::string cuda_contraction_prelude(bool cuda_cores, bool tensor_cores) {
  if (!cuda_cores && !tensor_cores) return "";
  return std::string(kContractionStage) + (cuda_cores ? kContractionLoops : "") +
         (tensor_cores ? kContractionLoopsTf32 : "");
}

bool valid_tiling(int tile, int micro) {
  if (tile <= 0 || micro <= 0 || tile % micro != 0) return false;
  const int side = tile / micro;
  return side * side >= 64 && side * side <= 1024;
}

namespace {

std::string n(int64_t v) {
  return std::to_string(v);
}

enum class Role { m, n, batch, k };

/// The index of the kernel's space given the counters of each role: gm over the M dimensions,
/// gn over N, gb over the batch ones, gk over the reduced ones; roles in `zero` are 0.
std::vector<IndexPtr> role_vars(const Kernel& k, const std::vector<Role>& roles,
                                std::vector<Role> zero) {
  std::vector<IndexPtr> out(k.space.size());
  for (Role r : {Role::m, Role::n, Role::batch, Role::k}) {
    std::vector<int64_t> shape;
    std::vector<size_t> dims;
    for (size_t d = 0; d < k.space.size(); ++d)
      if (roles[d] == r) {
        shape.push_back(k.space[d]);
        dims.push_back(d);
      }
    const bool zeroed = std::count(zero.begin(), zero.end(), r) > 0;
    const char* name = r == Role::m ? "gm" : r == Role::n ? "gn" : r == Role::batch ? "gb" : "gk";
    auto digits = ix::delinear(ix::named(name, numel(shape)), shape);
    for (size_t i = 0; i < dims.size(); ++i) out[dims[i]] = zeroed ? ix::constant(0) : digits[i];
  }
  return out;
}

/// Whether every element `e` loads is the next one in memory (or the same one) when the last
/// dimension of K steps by one: what the untiled path's group of threads reads side by side.
bool contiguous_along_k(const ExprPtr& e) {
  if (e->kind == Expr::Kind::load) {
    if (!e->args.empty()) return false;  // a gather
    const auto next = ix::value_at(*e->index, {{"kf_k", 1}}),
               first = ix::value_at(*e->index, {{"kf_k", 0}});
    if (!next || !first || (*next - *first != 0 && *next - *first != 1)) return false;
  }
  for (const auto& a : e->args)
    if (!contiguous_along_k(a)) return false;
  return true;
}

/// How many of the 31 steps between 32 neighbouring values of the counter `name` (from 0, the
/// other counters 0) move the loads of `e` by at most one element: how well a warp's neighbouring
/// threads along that counter read neighbouring addresses.
int64_t neighbouring_steps(const ExprPtr& e, const std::string& name, int64_t extent) {
  int64_t steps = 0;
  if (e->kind == Expr::Kind::load && e->args.empty()) {
    std::map<std::string, int64_t> at{{"gm", 0}, {"gn", 0}, {"gk", 0}, {"gb", 0}};
    std::optional<int64_t> before = ix::value_at(*e->index, at);
    for (int64_t j = 1; j < std::min<int64_t>(32, extent); ++j) {
      at[name] = j;
      const std::optional<int64_t> now = ix::value_at(*e->index, at);
      if (before && now && std::abs(*now - *before) <= 1) ++steps;
      before = now;
    }
  }
  for (const auto& a : e->args) steps += neighbouring_steps(a, name, extent);
  return steps;
}

/// Whether a slice of the operand `e` (read at counters `row` and gk) is loaded with neighbouring
/// threads along k: where its memory has more neighbours along k than along its rows, or as many
/// and `tie` says so.
bool loads_along_k(const ExprPtr& e, const std::string& row, int64_t rows, int64_t K, bool tie) {
  const int64_t along_k = neighbouring_steps(e, "gk", K),
                along_rows = neighbouring_steps(e, row, rows);
  return along_k == along_rows ? tie : along_k > along_rows;
}

}  // namespace

bool few_outputs(int64_t M, int64_t N, int64_t B, int tile, bool contiguous) {
  const int64_t blocks = (M + tile - 1) / tile * ((N + tile - 1) / tile) * B;
  return blocks < 128 && M * N * B <= (contiguous ? 65536 : 8192);
}

std::optional<EmittedKernel> emit_cuda_contraction(const Program& p, const Kernel& k,
                                                   const std::string& name, const CudaChoices& c) {
  if ((c.tile >= 0 && !valid_tiling(c.tile, c.micro)) || !k.reduces() || k.stages.empty() ||
      k.stages[0].kind != Stage::Kind::reduce)
    return std::nullopt;
  for (size_t i = 1; i < k.stages.size(); ++i)
    if (k.stages[i].kind != Stage::Kind::outer_store) return std::nullopt;
  const Buffer& red = p.buffers[static_cast<size_t>(k.stages[0].buffer)];
  if (red.combine != Combine::sum || red.dtype != DType::f32) return std::nullopt;

  // Which output dimensions each factor reads: build it with a variable of its own per dimension.
  std::vector<IndexPtr> probe;
  for (size_t d = 0; d < k.space.size(); ++d)
    probe.push_back(ix::named("kf_d" + std::to_string(d) + "_", k.space[d]));
  ExprPtr body = red.compute(probe);
  if (body->kind != Expr::Kind::call || body->fn != "mul" || body->args.size() != 2)
    return std::nullopt;
  const std::string a_text = memory_text(body->args[0]), b_text = memory_text(body->args[1]);
  std::vector<Role> roles(k.space.size(), Role::k);
  int64_t M = 1, N = 1, B = 1;
  for (size_t d = 0; d < k.space.size(); ++d) {
    if (k.inner[d]) continue;
    const std::string token = "kf_d" + std::to_string(d) + "_";
    const bool a = a_text.find(token) != std::string::npos;
    const bool b = b_text.find(token) != std::string::npos;
    roles[d] = a && b ? Role::batch : b ? Role::n : Role::m;
    (roles[d] == Role::batch ? B : roles[d] == Role::n ? N : M) *= k.space[d];
  }
  const int64_t K = numel(k.inner_shape());
  int tile = c.tile, micro = c.micro;
  if (tile < 0) {
    const int64_t small = std::min(M, N);
    tile = small >= 1024 ? 128 : small >= 128 ? 64 : 32;
    micro = small >= 1024 ? 8 : small >= 128 ? 4 : 2;
  }
  // Blocks: x along M (a convolution's batch and positions: up to 2^31 - 1), y along N (channels,
  // columns), z the batch of products.
  if (M < 16 || N < 16 || B > 65535 || (N + 31) / 32 > 65535 || (M + 31) / 32 > 2147483647)
    return std::nullopt;
  // Few outputs: a tile grid of fewer blocks than a GPU has SMs leaves most of it idle while each
  // block walks all of K a slice at a time, two barriers and a load's latency per slice. The
  // untiled path (a group of threads per output, its sum read from L2) spreads the outputs over
  // the whole GPU; it reads A and B once per output, which pays only while the outputs are few,
  // and fewer where a factor's elements along K are far apart (B of A @ B, read down a column).
  // Measured (H200, BENCHMARKS.md): robust-kbench's mnist_linear_relu forward (M 64, N 128,
  // K 1600: 8 tiles of 32 x 32) 0.21x eager tiled, 2.98x untiled. So by size (tile -1, float32)
  // it is untiled; an explicit tile still tiles.
  if (c.tile < 0 && !c.tf32) {
    // Both factors as the untiled path reads them: the last dimension of K that has more than
    // one element (a 1 x 1 convolution's is its channels) a named variable, every other 0.
    std::vector<IndexPtr> probe(k.space.size(), ix::constant(0));
    for (size_t d = k.space.size(); d-- > 0;)
      if (roles[d] == Role::k && k.space[d] > 1) {
        probe[d] = ix::named("kf_k", k.space[d]);
        break;
      }
    if (few_outputs(M, N, B, tile, contiguous_along_k(red.compute(probe))))
      return std::nullopt;
  }

  const ExprPtr a = red.compute(role_vars(k, roles, {Role::n}))->args[0];
  const ExprPtr b = red.compute(role_vars(k, roles, {Role::m}))->args[1];
  // Each operand's threads side by side where its memory is: A (rows M) along k and B (rows N)
  // along n when neither side has more neighbours.
  const bool a_k = loads_along_k(a, "gm", M, K, true), b_k = loads_along_k(b, "gn", N, K, false);
  const std::string directions =
      std::string(a_k ? ", true" : ", false") + (b_k ? ", true" : ", false");
  const auto out_vars = role_vars(k, roles, {Role::k});
  std::vector<IndexPtr> outer_digits;
  for (size_t d = 0; d < k.space.size(); ++d)
    if (!k.inner[d]) outer_digits.push_back(out_vars[d]);
  const IndexPtr outer = ix::linear(outer_digits, k.outer_shape());
  bool unmatched = false;  // the epilogue reads the sum somewhere else than its own output
  auto epilogue_text = [&](const ExprPtr& e) {
    return expr_text(e, [&](const Expr& l, const std::string& added) {
      if (l.buffer == red.id) {
        unmatched = unmatched || l.index->text != outer->text || !added.empty();
        return std::string("acc");
      }
      return "b" + std::to_string(l.buffer) + "[" + l.index->text + added + "]";
    });
  };

  // What a thread does with the sum of one output (gm, gn of batch gb) inside M x N: the sum
  // itself where it is kept, then each stage behind it.
  std::string store = "      const float acc = " +
                      (red.scale != 1 ? "(sum * " + constant_text(red.scale, DType::f32) + ")"
                                      : std::string("sum")) +
                      ";\n";
  if (std::count(k.stores.begin(), k.stores.end(), red.id))
    store += "      b" + n(red.id) + "[" + outer->text + "] = acc;\n";
  for (size_t i = 1; i < k.stages.size(); ++i) {
    const Buffer& out = p.buffers[static_cast<size_t>(k.stages[i].buffer)];
    const ExprPtr value = out.compute(ix::delinear(outer, out.shape));
    store += "      b" + n(out.id) + "[" + outer->text + "] = " + epilogue_text(value) + ";\n";
  }

  // The kernel: the prelude's tiled loop (kf_contraction, kf_contraction_tf32) given how to read
  // an element of A and of B and what to do with a sum, as lambdas it inlines.
  const bool tensor_cores = c.tf32;
  int threads = 0;
  std::string f, template_args;
  if (tensor_cores) {
    // 8 warps as 2 x 4 over the tile, each fm x fn fragments of 16 x 16.
    tile = c.tile == 128 || (c.tile < 0 && std::min(M, N) >= 1024) ? 128 : 64;
    threads = 256;
    f += std::string(kTensorCoreMark) + " (TF32): M = " + n(M) + ", N = " + n(N) + ", K = " + n(K) +
         ", batch " + n(B) + "; " + n(tile) + " x " + n(tile) + " tiles, 8 warps of " +
         n(tile / 32) + " x " + n(tile / 64) + " fragments\n";
    template_args = "kf_contraction_tf32<" + n(tile) + directions;
  } else {
    const int side = tile / micro;
    threads = side * side;
    f += std::string(kContractionMark) + ": M = " + n(M) + ", N = " + n(N) + ", K = " + n(K) +
         ", batch " + n(B) + "; " + n(tile) + " x " + n(tile) + " tiles, " + n(micro) + " x " +
         n(micro) + " per thread\n";
    template_args =
        "kf_contraction<" + n(tile) + ", " + n(micro) + ", " + n(tile >= 128 ? 8 : 16) + directions;
  }
  f += "__global__ void __launch_bounds__(" + n(threads) + ") " + name + "(" +
       kernel_parameters(p, k) + ") {\n";
  f += "  const int64_t gb = blockIdx.z;\n";
  f += "  " + template_args + ", " + n(M) + ", " + n(N) + ", " + n(K) + ">(\n";
  f += "    [&](int64_t gm, int64_t gk) { return static_cast<float>(" + memory_text(a) + "); },\n";
  f += "    [&](int64_t gn, int64_t gk) { return static_cast<float>(" + memory_text(b) + "); },\n";
  f += "    [&](int64_t gm, int64_t gn, float sum) {\n" + store + "    });\n";
  f += "}\n\n";
  if (unmatched) return std::nullopt;
  EmittedKernel e;
  e.function = f;
  e.call = "  " + name + "<<<dim3(" + n((M + tile - 1) / tile) + ", " + n((N + tile - 1) / tile) +
           ", " + n(B) + "), " + n(threads) + ", 0, stream>>>(" + kernel_arguments(k) + ");\n";
  return e;
}

}  // namespace kforge::generator
