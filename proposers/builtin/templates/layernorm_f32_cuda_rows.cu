// kforge:template layernorm_f32_cuda_rows
// kforge:formerly layernorm_f32_sm90_rows
// kforge:family layernorm
// kforge:backend cuda
// LayerNorm over the trailing dimensions that weight and bias have (a row is weight.numel()
// values), float32. Short rows: one warp per row; long rows: one block per row. The row stays in
// registers when it fits, so it is read once and the variance is the exact two-pass one; longer
// rows take a streaming pass (sums in double) and a write pass.
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

// 1: the task passes normalized_shape before eps; 0: eps only, as robust-kbench's layernorm does
// (lines marked `kforge:if shape_arg` are left out then; a marked statement stays on one line).
#define KFORGE_SHAPE_ARG 1  // kforge:trait shape_arg 0 1

namespace {

constexpr int kWarpMaxCols = 1024;    // kforge:param warp_max_cols 0 128 256 512 1024
constexpr int kWarpRowsPerBlock = 4;  // kforge:param warp_rows_per_block 1 2 4 8
constexpr int kBlockThreads = 256;    // kforge:param block_threads 128 256 512 1024
constexpr int kBlockElems = 16;       // kforge:param block_elems 4 8 16 32
constexpr int kVec = 4;               // kforge:param vec 1 2 4
// A thread holds block_elems floats; 1024-thread blocks have 64 registers a thread.
// kforge:require block_threads * block_elems <= 16384

__device__ __forceinline__ float warp_sum(float v) {
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffff, v, o);
  return v;
}

__device__ __forceinline__ double warp_sum(double v) {
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffff, v, o);
  return v;
}

// Every thread gets the block's sum of v.
template <class T>
__device__ T block_sum(T v, T* shared) {
  v = warp_sum(v);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  __syncthreads();
  if (lane == 0) shared[warp] = v;
  __syncthreads();
  T r = lane < static_cast<int>(blockDim.x / 32) ? shared[lane] : T(0);
  return warp_sum(r);
}

template <int V>
struct Vec;
template <>
struct Vec<1> {
  using type = float;
};
template <>
struct Vec<2> {
  using type = float2;
};
template <>
struct Vec<4> {
  using type = float4;
};

template <int V>
__device__ __forceinline__ void load(const float* p, float* out) {
  auto v = *reinterpret_cast<const typename Vec<V>::type*>(p);
  const float* f = reinterpret_cast<const float*>(&v);
#pragma unroll
  for (int j = 0; j < V; ++j) out[j] = f[j];
}

template <int V>
__device__ __forceinline__ void store(float* p, const float* in) {
  typename Vec<V>::type v;
  float* f = reinterpret_cast<float*>(&v);
#pragma unroll
  for (int j = 0; j < V; ++j) f[j] = in[j];
  *reinterpret_cast<typename Vec<V>::type*>(p) = v;
}

// Normalises the V values at column c in place and stores them.
template <int V>
__device__ __forceinline__ void normalise_store(float* v, int c, float mean, float rstd,
                                                const float* __restrict__ w,
                                                const float* __restrict__ b, float* out) {
  float wv[V], bv[V];
  load<V>(w + c, wv);
  load<V>(b + c, bv);
#pragma unroll
  for (int j = 0; j < V; ++j) v[j] = (v[j] - mean) * rstd * wv[j] + bv[j];
  store<V>(out + c, v);
}

template <int Chunks, int V>
__global__ void layernorm_warp_rows(const float* __restrict__ x, const float* __restrict__ w,
                                    const float* __restrict__ b, float* __restrict__ y, int rows,
                                    int cols, float eps) {
  const int row = blockIdx.x * kWarpRowsPerBlock + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= rows) return;
  const float* in = x + static_cast<size_t>(row) * cols;
  float* out = y + static_cast<size_t>(row) * cols;
  float v[Chunks][V];
  float s = 0;
#pragma unroll
  for (int i = 0; i < Chunks; ++i) {
    const int c = (i * 32 + lane) * V;
    if (c < cols) {
      load<V>(in + c, v[i]);
    } else {
#pragma unroll
      for (int j = 0; j < V; ++j) v[i][j] = 0;
    }
#pragma unroll
    for (int j = 0; j < V; ++j) s += v[i][j];
  }
  const float mean = warp_sum(s) / cols;
  float sq = 0;
#pragma unroll
  for (int i = 0; i < Chunks; ++i) {
    const int c = (i * 32 + lane) * V;
    if (c < cols)
#pragma unroll
      for (int j = 0; j < V; ++j) sq += (v[i][j] - mean) * (v[i][j] - mean);
  }
  const float rstd = rsqrtf(warp_sum(sq) / cols + eps);
#pragma unroll
  for (int i = 0; i < Chunks; ++i) {
    const int c = (i * 32 + lane) * V;
    if (c < cols) normalise_store<V>(v[i], c, mean, rstd, w, b, out);
  }
}

template <int Chunks, int V>
__global__ void __launch_bounds__(kBlockThreads)
    layernorm_block_rows_cached(const float* __restrict__ x, const float* __restrict__ w,
                                const float* __restrict__ b, float* __restrict__ y, int cols,
                                float eps) {
  __shared__ float shared[32];
  const float* in = x + static_cast<size_t>(blockIdx.x) * cols;
  float* out = y + static_cast<size_t>(blockIdx.x) * cols;
  float v[Chunks][V];
  float s = 0;
#pragma unroll
  for (int i = 0; i < Chunks; ++i) {
    const int c = (i * kBlockThreads + threadIdx.x) * V;
    if (c < cols) {
      load<V>(in + c, v[i]);
    } else {
#pragma unroll
      for (int j = 0; j < V; ++j) v[i][j] = 0;
    }
#pragma unroll
    for (int j = 0; j < V; ++j) s += v[i][j];
  }
  const float mean = block_sum(s, shared) / cols;
  float sq = 0;
#pragma unroll
  for (int i = 0; i < Chunks; ++i) {
    const int c = (i * kBlockThreads + threadIdx.x) * V;
    if (c < cols)
#pragma unroll
      for (int j = 0; j < V; ++j) sq += (v[i][j] - mean) * (v[i][j] - mean);
  }
  const float rstd = rsqrtf(block_sum(sq, shared) / cols + eps);
#pragma unroll
  for (int i = 0; i < Chunks; ++i) {
    const int c = (i * kBlockThreads + threadIdx.x) * V;
    if (c < cols) normalise_store<V>(v[i], c, mean, rstd, w, b, out);
  }
}

template <int V>
__global__ void __launch_bounds__(kBlockThreads)
    layernorm_block_rows_streaming(const float* __restrict__ x, const float* __restrict__ w,
                                   const float* __restrict__ b, float* __restrict__ y, int cols,
                                   float eps) {
  __shared__ double shared[32];
  const float* in = x + static_cast<size_t>(blockIdx.x) * cols;
  float* out = y + static_cast<size_t>(blockIdx.x) * cols;
  double s = 0, sq = 0;
  for (int c = threadIdx.x * V; c < cols; c += kBlockThreads * V) {
    float v[V];
    load<V>(in + c, v);
#pragma unroll
    for (int j = 0; j < V; ++j) {
      s += v[j];
      sq += static_cast<double>(v[j]) * v[j];
    }
  }
  const double mean_d = block_sum(s, shared) / cols;
  const double var = block_sum(sq, shared) / cols - mean_d * mean_d;
  const float mean = static_cast<float>(mean_d);
  const float rstd = rsqrtf(static_cast<float>(var > 0 ? var : 0) + eps);
  for (int c = threadIdx.x * V; c < cols; c += kBlockThreads * V) {
    float v[V];
    load<V>(in + c, v);
    normalise_store<V>(v, c, mean, rstd, w, b, out);
  }
}

template <int V>
void launch(const float* x, const float* w, const float* b, float* y, int rows, int cols, float eps,
            cudaStream_t stream) {
  if (cols <= kWarpMaxCols) {
    const dim3 grid((rows + kWarpRowsPerBlock - 1) / kWarpRowsPerBlock),
        block(32 * kWarpRowsPerBlock);
    const int chunks = (cols + 32 * V - 1) / (32 * V);
    if (chunks <= 1)
      layernorm_warp_rows<1, V><<<grid, block, 0, stream>>>(x, w, b, y, rows, cols, eps);
    else if (chunks <= 2)
      layernorm_warp_rows<2, V><<<grid, block, 0, stream>>>(x, w, b, y, rows, cols, eps);
    else if (chunks <= 4)
      layernorm_warp_rows<4, V><<<grid, block, 0, stream>>>(x, w, b, y, rows, cols, eps);
    else if (chunks <= 8)
      layernorm_warp_rows<8, V><<<grid, block, 0, stream>>>(x, w, b, y, rows, cols, eps);
    else if (chunks <= 16)
      layernorm_warp_rows<16, V><<<grid, block, 0, stream>>>(x, w, b, y, rows, cols, eps);
    else
      layernorm_warp_rows<32, V><<<grid, block, 0, stream>>>(x, w, b, y, rows, cols, eps);
    return;
  }
  constexpr int kChunks = kBlockElems / V > 0 ? kBlockElems / V : 1;
  if (cols <= kBlockThreads * kChunks * V)
    layernorm_block_rows_cached<kChunks, V>
        <<<rows, kBlockThreads, 0, stream>>>(x, w, b, y, cols, eps);
  else
    layernorm_block_rows_streaming<V><<<rows, kBlockThreads, 0, stream>>>(x, w, b, y, cols, eps);
}

}  // namespace

torch::Tensor forward(torch::Tensor x, torch::Tensor weight, torch::Tensor bias,
                      std::vector<int64_t> normalized_shape,  // kforge:if shape_arg
                      double eps) {
  int64_t shape_numel = 1;                                         // kforge:if shape_arg
  for (auto d : normalized_shape) shape_numel *= d;                // kforge:if shape_arg
  TORCH_CHECK(shape_numel == weight.numel(), "normalized_shape");  // kforge:if shape_arg
  TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat32, "a float32 CUDA tensor");
  TORCH_CHECK(weight.numel() == bias.numel() && weight.numel() > 0 &&
                  x.numel() % weight.numel() == 0 && weight.numel() <= INT32_MAX,
              "normalisation over the trailing dimensions of the weight's shape");
  auto xc = x.contiguous();
  auto wc = weight.contiguous(), bc = bias.contiguous();
  const int cols = static_cast<int>(weight.numel());
  const int rows = cols ? static_cast<int>(xc.numel() / cols) : 0;
  auto y = torch::empty_like(xc);
  if (rows == 0 || cols == 0) return y;
  const float *in = xc.data_ptr<float>(), *w = wc.data_ptr<float>(), *b = bc.data_ptr<float>();
  float* out = y.data_ptr<float>();
  auto stream = at::cuda::getCurrentCUDAStream();
  auto aligned = [&](int v) {
    auto ok = [&](const void* p) { return reinterpret_cast<uintptr_t>(p) % (4 * v) == 0; };
    return cols % v == 0 && ok(in) && ok(out) && ok(w) && ok(b);
  };
  const float e = static_cast<float>(eps);
  if (kVec >= 4 && aligned(4))
    launch<4>(in, w, b, out, rows, cols, e, stream);
  else if (kVec >= 2 && aligned(2))
    launch<2>(in, w, b, out, rows, cols, e, stream);
  else
    launch<1>(in, w, b, out, rows, cols, e, stream);
  return y;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("forward", &forward, "LayerNorm forward (CUDA, built-in template)");
}
