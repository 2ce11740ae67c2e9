// kforge:template softmax_f32_cuda_rows
// kforge:formerly softmax_f32_sm90_rows
// kforge:family softmax
// kforge:backend cuda
// Row softmax over the last dimension of a 2-D float32 tensor. Short rows: one warp per row, the
// row held in registers (one read, one write). Long rows: one block per row, the row held in
// registers when it fits (threads x elements per thread), else an online max/sum pass and a
// write pass. Float4 loads when every row is 16-byte aligned.
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

namespace {

constexpr int kWarpMaxCols = 1024;    // kforge:param warp_max_cols 0 128 256 512 1024
constexpr int kWarpRowsPerBlock = 4;  // kforge:param warp_rows_per_block 1 2 4 8
constexpr int kBlockThreads = 512;    // kforge:param block_threads 128 256 512 1024
constexpr int kBlockElems = 16;       // kforge:param block_elems 4 8 16 32
constexpr int kVec = 4;               // kforge:param vec 1 2 4
constexpr int kFastExp = 0;           // kforge:param fast_exp 0 1
// A thread holds block_elems floats; 1024-thread blocks have 64 registers a thread.
// kforge:require block_threads * block_elems <= 16384

__device__ __forceinline__ float exp_f32(float x) {
  return kFastExp ? __expf(x) : expf(x);
}

__device__ __forceinline__ float warp_max(float v) {
  for (int o = 16; o > 0; o /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, o));
  return v;
}

__device__ __forceinline__ float warp_sum(float v) {
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffff, v, o);
  return v;
}

// Every thread gets the block's maximum (Max) or sum of v.
template <bool Max>
__device__ float block_reduce(float v, float* shared) {
  v = Max ? warp_max(v) : warp_sum(v);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  __syncthreads();  // shared may still be read by a previous reduction
  if (lane == 0) shared[warp] = v;
  __syncthreads();
  const int warps = blockDim.x / 32;
  float r = lane < warps ? shared[lane] : (Max ? -INFINITY : 0.f);
  return Max ? warp_max(r) : warp_sum(r);
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

// One warp per row; each lane holds Chunks vectors of V floats. Requires cols % V == 0.
template <int Chunks, int V>
__global__ void softmax_warp_rows(const float* __restrict__ x, float* __restrict__ y, int rows,
                                  int cols) {
  const int row = blockIdx.x * kWarpRowsPerBlock + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= rows) return;
  const float* in = x + static_cast<size_t>(row) * cols;
  float* out = y + static_cast<size_t>(row) * cols;
  float v[Chunks][V];
  float m = -INFINITY;
#pragma unroll
  for (int i = 0; i < Chunks; ++i) {
    const int c = (i * 32 + lane) * V;
    if (c < cols) {
      load<V>(in + c, v[i]);
    } else {
#pragma unroll
      for (int j = 0; j < V; ++j) v[i][j] = -INFINITY;
    }
#pragma unroll
    for (int j = 0; j < V; ++j) m = fmaxf(m, v[i][j]);
  }
  m = warp_max(m);
  float s = 0;
#pragma unroll
  for (int i = 0; i < Chunks; ++i)
#pragma unroll
    for (int j = 0; j < V; ++j) {
      v[i][j] = exp_f32(v[i][j] - m);
      s += v[i][j];
    }
  const float inv = 1.f / warp_sum(s);
#pragma unroll
  for (int i = 0; i < Chunks; ++i) {
    const int c = (i * 32 + lane) * V;
    if (c < cols) {
#pragma unroll
      for (int j = 0; j < V; ++j) v[i][j] *= inv;
      store<V>(out + c, v[i]);
    }
  }
}

// One block per row, the row in registers: Chunks vectors of V floats per thread.
template <int Chunks, int V>
__global__ void __launch_bounds__(kBlockThreads)
    softmax_block_rows_cached(const float* __restrict__ x, float* __restrict__ y, int cols) {
  __shared__ float shared[32];
  const float* in = x + static_cast<size_t>(blockIdx.x) * cols;
  float* out = y + static_cast<size_t>(blockIdx.x) * cols;
  float v[Chunks][V];
  float m = -INFINITY;
#pragma unroll
  for (int i = 0; i < Chunks; ++i) {
    const int c = (i * kBlockThreads + threadIdx.x) * V;
    if (c < cols) {
      load<V>(in + c, v[i]);
    } else {
#pragma unroll
      for (int j = 0; j < V; ++j) v[i][j] = -INFINITY;
    }
#pragma unroll
    for (int j = 0; j < V; ++j) m = fmaxf(m, v[i][j]);
  }
  m = block_reduce<true>(m, shared);
  float s = 0;
#pragma unroll
  for (int i = 0; i < Chunks; ++i)
#pragma unroll
    for (int j = 0; j < V; ++j) {
      v[i][j] = exp_f32(v[i][j] - m);
      s += v[i][j];
    }
  const float inv = 1.f / block_reduce<false>(s, shared);
#pragma unroll
  for (int i = 0; i < Chunks; ++i) {
    const int c = (i * kBlockThreads + threadIdx.x) * V;
    if (c < cols) {
#pragma unroll
      for (int j = 0; j < V; ++j) v[i][j] *= inv;
      store<V>(out + c, v[i]);
    }
  }
}

// One block per row of any length: an online max/sum pass, then the write pass.
template <int V>
__global__ void __launch_bounds__(kBlockThreads)
    softmax_block_rows_online(const float* __restrict__ x, float* __restrict__ y, int cols) {
  __shared__ float shared[32];
  const float* in = x + static_cast<size_t>(blockIdx.x) * cols;
  float* out = y + static_cast<size_t>(blockIdx.x) * cols;
  float m = -INFINITY, s = 0;
  for (int c = threadIdx.x * V; c < cols; c += kBlockThreads * V) {
    float v[V];
    load<V>(in + c, v);
#pragma unroll
    for (int j = 0; j < V; ++j) {
      if (v[j] > m) {
        s = s * exp_f32(m - v[j]) + 1.f;
        m = v[j];
      } else {
        s += exp_f32(v[j] - m);
      }
    }
  }
  const float row_max = block_reduce<true>(m, shared);
  s = m == -INFINITY ? 0.f : s * exp_f32(m - row_max);
  const float inv = 1.f / block_reduce<false>(s, shared);
  for (int c = threadIdx.x * V; c < cols; c += kBlockThreads * V) {
    float v[V];
    load<V>(in + c, v);
#pragma unroll
    for (int j = 0; j < V; ++j) v[j] = exp_f32(v[j] - row_max) * inv;
    store<V>(out + c, v);
  }
}

template <int V>
void launch(const float* x, float* y, int rows, int cols, cudaStream_t stream) {
  if (cols <= kWarpMaxCols) {
    const dim3 grid((rows + kWarpRowsPerBlock - 1) / kWarpRowsPerBlock),
        block(32 * kWarpRowsPerBlock);
    const int chunks = (cols + 32 * V - 1) / (32 * V);
    // The smallest register footprint that holds the row.
    if (chunks <= 1)
      softmax_warp_rows<1, V><<<grid, block, 0, stream>>>(x, y, rows, cols);
    else if (chunks <= 2)
      softmax_warp_rows<2, V><<<grid, block, 0, stream>>>(x, y, rows, cols);
    else if (chunks <= 4)
      softmax_warp_rows<4, V><<<grid, block, 0, stream>>>(x, y, rows, cols);
    else if (chunks <= 8)
      softmax_warp_rows<8, V><<<grid, block, 0, stream>>>(x, y, rows, cols);
    else if (chunks <= 16)
      softmax_warp_rows<16, V><<<grid, block, 0, stream>>>(x, y, rows, cols);
    else
      softmax_warp_rows<32, V><<<grid, block, 0, stream>>>(x, y, rows, cols);
    return;
  }
  constexpr int kChunks = kBlockElems / V > 0 ? kBlockElems / V : 1;
  if (cols <= kBlockThreads * kChunks * V)
    softmax_block_rows_cached<kChunks, V><<<rows, kBlockThreads, 0, stream>>>(x, y, cols);
  else
    softmax_block_rows_online<V><<<rows, kBlockThreads, 0, stream>>>(x, y, cols);
}

}  // namespace

torch::Tensor forward(torch::Tensor x, int64_t dim) {
  TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat32 && x.dim() == 2,
              "a 2-D float32 CUDA tensor");
  TORCH_CHECK(dim == -1 || dim == 1, "softmax over the last dimension");
  auto xc = x.contiguous();
  auto y = torch::empty_like(xc);
  const int rows = static_cast<int>(xc.size(0)), cols = static_cast<int>(xc.size(1));
  if (rows == 0 || cols == 0) return y;
  const float* in = xc.data_ptr<float>();
  float* out = y.data_ptr<float>();
  auto stream = at::cuda::getCurrentCUDAStream();
  auto aligned = [&](int v) {
    return cols % v == 0 && reinterpret_cast<uintptr_t>(in) % (4 * v) == 0 &&
           reinterpret_cast<uintptr_t>(out) % (4 * v) == 0;
  };
  if (kVec >= 4 && aligned(4))
    launch<4>(in, out, rows, cols, stream);
  else if (kVec >= 2 && aligned(2))
    launch<2>(in, out, rows, cols, stream);
  else
    launch<1>(in, out, rows, cols, stream);
  return y;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("forward", &forward, "softmax forward (CUDA, built-in template)");
}
