// The tiled contraction kernel: a reduction kernel whose one reduction sums a product A * B, where
// A does not depend on some output dimensions (N) and B not on others (M), is a batched GEMM
// (matrix products; convolutions, where A is the input's window: an implicit GEMM). Each block
// computes a tile x tile block of outputs of one batch index: it stages K-slices of A and B,
// evaluated from their expressions (views, padding guards and all), in shared memory, each thread
// accumulates micro x micro outputs in registers, and the stages behind the reduction (bias,
// activations: the epilogue) run on the accumulators before anything is stored. float32
// throughout, unless the choice `tf32` puts the products on the tensor cores (WMMA, 16 x 16 x 8
// fragments, each warp a rectangle of the tile; accumulators staged through shared memory a
// fragment at a time for the epilogue).
#include <algorithm>
#include <string>

#include "generator/emit.hpp"
#include "generator/expr_text.hpp"

namespace kforge::generator {

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

std::string plain_text(const ExprPtr& e) {
  return expr_text(e, [](const Expr& l, const std::string& added) {
    return "b" + std::to_string(l.buffer) + "[" + l.index->text + added + "]";
  });
}

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

}  // namespace

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
  const std::string a_text = plain_text(body->args[0]), b_text = plain_text(body->args[1]);
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

  const ExprPtr a = red.compute(role_vars(k, roles, {Role::n}))->args[0];
  const ExprPtr b = red.compute(role_vars(k, roles, {Role::m}))->args[1];
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

  // The stores of one output (gm, gn of batch gb) from its sum `sum`: the sum itself where it is
  // kept, then each stage behind it.
  auto stores = [&](const std::string& sum) {
    std::string t = "      if (gm >= " + n(M) + " || gn >= " + n(N) + ") continue;\n";
    t += "      const float acc = " +
         (red.scale != 1 ? "(" + sum + " * " + constant_text(red.scale, DType::f32) + ")" : sum) +
         ";\n";
    if (std::count(k.stores.begin(), k.stores.end(), red.id))
      t += "      b" + n(red.id) + "[" + outer->text + "] = acc;\n";
    for (size_t i = 1; i < k.stages.size(); ++i) {
      const Buffer& out = p.buffers[static_cast<size_t>(k.stages[i].buffer)];
      const ExprPtr value = out.compute(ix::delinear(outer, out.shape));
      t += "      b" + n(out.id) + "[" + outer->text + "] = " + epilogue_text(value) + ";\n";
    }
    return t;
  };
  // The kernel's head and its K loop up to the products: A and B staged in shared memory, a
  // K-slice of bk at a time (As[k][m], Bs[k][n]), `shared` declaring the arrays.
  auto head = [&](int threads, int bk, const std::string& shared, const std::string& locals) {
    std::string t = "__global__ void __launch_bounds__(" + n(threads) + ") " + name + "(" +
                    kernel_parameters(p, k) + ") {\n" + shared;
    t += "  const int64_t gb = blockIdx.z;\n";
    t += "  const int64_t m0 = static_cast<int64_t>(blockIdx.x) * " + n(tile) +
         ", n0 = static_cast<int64_t>(blockIdx.y) * " + n(tile) + ";\n" + locals;
    t += "  for (int64_t k0 = 0; k0 < " + n(K) + "; k0 += " + n(bk) + ") {\n";
    t += "    for (int i = threadIdx.x; i < " + n(tile * bk) + "; i += " + n(threads) + ") {\n";
    t += "      const int kk = i % " + n(bk) + ", mm = i / " + n(bk) + ";\n";
    t += "      const int64_t gm = m0 + mm, gk = k0 + kk;\n";
    t += "      As[kk][mm] = (gm < " + n(M) + " && gk < " + n(K) + ") ? static_cast<float>(" +
         plain_text(a) + ") : 0.0f;\n    }\n";
    t += "    for (int i = threadIdx.x; i < " + n(tile * bk) + "; i += " + n(threads) + ") {\n";
    t += "      const int nn = i % " + n(tile) + ", kk = i / " + n(tile) + ";\n";
    t += "      const int64_t gn = n0 + nn, gk = k0 + kk;\n";
    t += "      Bs[kk][nn] = (gn < " + n(N) + " && gk < " + n(K) + ") ? static_cast<float>(" +
         plain_text(b) + ") : 0.0f;\n    }\n";
    return t + "    __syncthreads();\n#pragma unroll\n";
  };
  // The end of the K loop, then a loop over each thread's (or warp's) rows x cols of outputs.
  auto tail = [&](int rows, int cols) {
    return "    __syncthreads();\n  }\n  for (int i = 0; i < " + n(rows) +
           "; ++i)\n    for (int j = 0; j < " + n(cols) + "; ++j) {\n";
  };

  std::string f;
  int threads = 0;
  if (c.tf32) {
    // 8 warps as 2 x 4 over the tile, each fm x fn fragments of 16 x 16.
    tile = c.tile == 128 || (c.tile < 0 && std::min(M, N) >= 1024) ? 128 : 64;
    threads = 256;
    const int bk = 32, fm = tile / 32, fn = tile / 64;
    // count fragments of one factor from its staged array, rounded to TF32.
    auto fragments = [&](const char* array, const char* matrix, const char* layout, int count,
                         const char* warp_axis, const char* staged) {
      const std::string x = array;
      return "      wmma::fragment<wmma::" + std::string(matrix) +
             ", 16, 16, 8, wmma::precision::tf32, wmma::" + layout + "> " + x + "[" + n(count) +
             "];\n#pragma unroll\n      for (int q = 0; q < " + n(count) + "; ++q) {\n" +
             "        wmma::load_matrix_sync(" + x + "[q], &" + staged + "[kk][(" + warp_axis +
             " * " + n(count) + " + q) * 16], " + n(tile) + ");\n        for (int t = 0; t < " + x +
             "[q].num_elements; ++t) " + x + "[q].x[t] = wmma::__float_to_tf32(" + x +
             "[q].x[t]);\n      }\n";
    };
    f += std::string(kTensorCoreMark) + " (TF32): M = " + n(M) + ", N = " + n(N) + ", K = " + n(K) +
         ", batch " + n(B) + "; " + n(tile) + " x " + n(tile) + " tiles, 8 warps of " + n(fm) +
         " x " + n(fn) + " fragments\n";
    f += head(threads, bk,
              "  namespace wmma = nvcuda::wmma;\n  __shared__ __align__(32) float As[" + n(bk) +
                  "][" + n(tile) + "];\n  __shared__ __align__(32) float Bs[" + n(bk) + "][" +
                  n(tile) + "];\n  __shared__ __align__(32) float Cs[8][256];\n",
              "  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, wm = warp / 4, wn = "
              "warp % 4;\n  wmma::fragment<wmma::accumulator, 16, 16, 8, float> sums[" +
                  n(fm) + "][" + n(fn) + "];\n  for (int i = 0; i < " + n(fm) +
                  "; ++i)\n    for (int j = 0; j < " + n(fn) +
                  "; ++j) wmma::fill_fragment(sums[i][j], 0.0f);\n");
    f += "    for (int kk = 0; kk < " + n(bk) + "; kk += 8) {\n";
    f += fragments("fa", "matrix_a", "col_major", fm, "wm", "As");
    f += fragments("fb", "matrix_b", "row_major", fn, "wn", "Bs");
    f += "#pragma unroll\n      for (int i = 0; i < " + n(fm) +
         "; ++i)\n#pragma unroll\n        for (int j = 0; j < " + n(fn) +
         "; ++j) wmma::mma_sync(sums[i][j], fa[i], fb[j], sums[i][j]);\n    }\n";
    f += tail(fm, fn);
    f += "      wmma::store_matrix_sync(Cs[warp], sums[i][j], 16, wmma::mem_row_major);\n";
    f += "      __syncwarp();\n";
    f += "      for (int e = lane; e < 256; e += 32) {\n";
    f += "      const int64_t gm = m0 + (wm * " + n(fm) + " + i) * 16 + e / 16, gn = n0 + (wn * " +
         n(fn) + " + j) * 16 + e % 16;\n";
    f += stores("Cs[warp][e]");
    f += "      }\n      __syncwarp();\n";
  } else {
    const int side = tile / micro;
    threads = side * side;
    const int bk = tile >= 128 ? 8 : 16;
    f += std::string(kContractionMark) + ": M = " + n(M) + ", N = " + n(N) + ", K = " + n(K) +
         ", batch " + n(B) + "; " + n(tile) + " x " + n(tile) + " tiles, " + n(micro) + " x " +
         n(micro) + " per thread\n";
    f += head(threads, bk,
              "  __shared__ float As[" + n(bk) + "][" + n(tile) + "];\n  __shared__ float Bs[" +
                  n(bk) + "][" + n(tile) + "];\n",
              "  const int tx = threadIdx.x % " + n(side) + ", ty = threadIdx.x / " + n(side) +
                  ";\n  float accs[" + n(micro) + "][" + n(micro) + "] = {};\n");
    f += "    for (int kk = 0; kk < " + n(bk) + "; ++kk) {\n";
    f += "      float av[" + n(micro) + "], bv[" + n(micro) + "];\n#pragma unroll\n";
    f += "      for (int i = 0; i < " + n(micro) + "; ++i) av[i] = As[kk][ty * " + n(micro) +
         " + i];\n#pragma unroll\n";
    f += "      for (int j = 0; j < " + n(micro) + "; ++j) bv[j] = Bs[kk][tx * " + n(micro) +
         " + j];\n#pragma unroll\n";
    f += "      for (int i = 0; i < " + n(micro) +
         "; ++i)\n#pragma unroll\n        for (int j = 0; j < " + n(micro) +
         "; ++j) accs[i][j] = fmaf(av[i], bv[j], accs[i][j]);\n    }\n";
    f += tail(micro, micro);
    f += "      const int64_t gm = m0 + ty * " + n(micro) + " + i, gn = n0 + tx * " + n(micro) +
         " + j;\n";
    f += stores("accs[i][j]");
  }
  f += "    }\n}\n\n";
  if (unmatched) return std::nullopt;
  EmittedKernel e;
  e.function = f;
  e.call = "  " + name + "<<<dim3(" + n((M + tile - 1) / tile) + ", " + n((N + tile - 1) / tile) +
           ", " + n(B) + "), " + n(threads) + ", 0, stream>>>(" + kernel_arguments(k) + ");\n";
  return e;
}

}  // namespace kforge::generator
