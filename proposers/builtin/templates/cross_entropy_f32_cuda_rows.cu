// kforge:template cross_entropy_f32_cuda_rows
// kforge:formerly cross_entropy_f32_sm90_rows
// kforge:family cross_entropy
// kforge:backend cuda
// Mean cross-entropy of float32 logits against int64 targets (ignore_index -100, no weights, no
// label smoothing): each row's log-sum-exp in one online pass over the logits (read once, never
// written back), minus the target's logit; then one block adds the row losses in a fixed order
// and divides by the number of rows that count.
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

namespace {

constexpr int kWarpMaxCols = 1024;    // kforge:param warp_max_cols 0 256 1024 4096
constexpr int kWarpRowsPerBlock = 4;  // kforge:param warp_rows_per_block 1 2 4 8
constexpr int kBlockThreads = 256;    // kforge:param block_threads 128 256 512 1024
constexpr int kVec = 4;               // kforge:param vec 1 2 4
constexpr int kFastExp = 0;           // kforge:param fast_exp 0 1
constexpr int64_t kIgnoreIndex = -100;

__device__ __forceinline__ float exp_f32(float x) {
  return kFastExp ? __expf(x) : expf(x);
}

// Merges the running (max, sum of exp(x - max)) pair b into a.
__device__ __forceinline__ void merge(float& m, float& s, float m2, float s2) {
  if (m2 == -INFINITY) return;
  if (m == -INFINITY) {
    m = m2;
    s = s2;
    return;
  }
  const float nm = fmaxf(m, m2);
  s = s * exp_f32(m - nm) + s2 * exp_f32(m2 - nm);
  m = nm;
}

__device__ __forceinline__ void warp_merge(float& m, float& s) {
  for (int o = 16; o > 0; o /= 2) {
    const float m2 = __shfl_xor_sync(0xffffffff, m, o), s2 = __shfl_xor_sync(0xffffffff, s, o);
    merge(m, s, m2, s2);
  }
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

// The thread's share of the row: columns first, first + stride, ... (V at a time).
template <int V>
__device__ __forceinline__ void accumulate(const float* __restrict__ row, int cols, int first,
                                           int stride, float& m, float& s) {
  for (int c = first * V; c < cols; c += stride * V) {
    auto packed = *reinterpret_cast<const typename Vec<V>::type*>(row + c);
    const float* f = reinterpret_cast<const float*>(&packed);
#pragma unroll
    for (int j = 0; j < V; ++j) {
      if (f[j] > m) {
        s = (m == -INFINITY ? 0.f : s * exp_f32(m - f[j])) + 1.f;
        m = f[j];
      } else {
        s += exp_f32(f[j] - m);
      }
    }
  }
}

__device__ __forceinline__ float row_loss(const float* row, float m, float s, int64_t t, int cols) {
  if (t == kIgnoreIndex) return 0.f;
  if (t < 0 || t >= cols) return NAN;  // PyTorch raises; a NaN fails the check visibly
  return m + logf(s) - row[t];
}

template <int V>
__global__ void cross_entropy_warp_rows(const float* __restrict__ x, const int64_t* __restrict__ t,
                                        float* __restrict__ loss, int rows, int cols) {
  const int row = blockIdx.x * kWarpRowsPerBlock + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= rows) return;
  const float* in = x + static_cast<size_t>(row) * cols;
  float m = -INFINITY, s = 0;
  accumulate<V>(in, cols, lane, 32, m, s);
  warp_merge(m, s);
  if (lane == 0) loss[row] = row_loss(in, m, s, t[row], cols);
}

template <int V>
__global__ void __launch_bounds__(kBlockThreads)
    cross_entropy_block_rows(const float* __restrict__ x, const int64_t* __restrict__ t,
                             float* __restrict__ loss, int cols) {
  __shared__ float shared_m[32], shared_s[32];
  const float* in = x + static_cast<size_t>(blockIdx.x) * cols;
  float m = -INFINITY, s = 0;
  accumulate<V>(in, cols, threadIdx.x, kBlockThreads, m, s);
  warp_merge(m, s);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) {
    shared_m[warp] = m;
    shared_s[warp] = s;
  }
  __syncthreads();
  if (warp == 0) {
    m = lane < kBlockThreads / 32 ? shared_m[lane] : -INFINITY;
    s = lane < kBlockThreads / 32 ? shared_s[lane] : 0.f;
    warp_merge(m, s);
    if (lane == 0) loss[blockIdx.x] = row_loss(in, m, s, t[blockIdx.x], cols);
  }
}

// One block of 1024 threads: the mean over the rows whose target is not ignored.
__global__ void __launch_bounds__(1024)
    mean_of_counted(const float* __restrict__ loss, const int64_t* __restrict__ t, int rows,
                    float* __restrict__ out) {
  __shared__ float shared_sum[32];
  __shared__ int shared_count[32];
  float sum = 0;
  int count = 0;
  for (int r = threadIdx.x; r < rows; r += blockDim.x) {
    sum += loss[r];
    count += t[r] != kIgnoreIndex;
  }
  for (int o = 16; o > 0; o /= 2) {
    sum += __shfl_xor_sync(0xffffffff, sum, o);
    count += __shfl_xor_sync(0xffffffff, count, o);
  }
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) {
    shared_sum[warp] = sum;
    shared_count[warp] = count;
  }
  __syncthreads();
  if (warp == 0) {
    sum = lane < static_cast<int>(blockDim.x / 32) ? shared_sum[lane] : 0.f;
    count = lane < static_cast<int>(blockDim.x / 32) ? shared_count[lane] : 0;
    for (int o = 16; o > 0; o /= 2) {
      sum += __shfl_xor_sync(0xffffffff, sum, o);
      count += __shfl_xor_sync(0xffffffff, count, o);
    }
    if (lane == 0) out[0] = sum / static_cast<float>(count);
  }
}

template <int V>
void launch_rows(const float* x, const int64_t* t, float* loss, int rows, int cols,
                 cudaStream_t stream) {
  if (cols <= kWarpMaxCols) {
    const dim3 grid((rows + kWarpRowsPerBlock - 1) / kWarpRowsPerBlock),
        block(32 * kWarpRowsPerBlock);
    cross_entropy_warp_rows<V><<<grid, block, 0, stream>>>(x, t, loss, rows, cols);
  } else {
    cross_entropy_block_rows<V><<<rows, kBlockThreads, 0, stream>>>(x, t, loss, cols);
  }
}

}  // namespace

torch::Tensor forward(torch::Tensor logits, torch::Tensor targets) {
  TORCH_CHECK(logits.is_cuda() && logits.scalar_type() == torch::kFloat32 && logits.dim() == 2,
              "2-D float32 CUDA logits");
  TORCH_CHECK(targets.scalar_type() == torch::kInt64 && targets.dim() == 1 &&
                  targets.size(0) == logits.size(0),
              "one int64 target per row");
  auto x = logits.contiguous();
  auto t = targets.contiguous();
  const int rows = static_cast<int>(x.size(0)), cols = static_cast<int>(x.size(1));
  auto out = torch::empty({}, x.options());
  auto loss = torch::empty({std::max(rows, 1)}, x.options());
  auto stream = at::cuda::getCurrentCUDAStream();
  const float* in = x.data_ptr<float>();
  if (rows > 0 && cols > 0) {
    auto aligned = [&](int v) {
      return cols % v == 0 && reinterpret_cast<uintptr_t>(in) % (4 * v) == 0;
    };
    if (kVec >= 4 && aligned(4))
      launch_rows<4>(in, t.data_ptr<int64_t>(), loss.data_ptr<float>(), rows, cols, stream);
    else if (kVec >= 2 && aligned(2))
      launch_rows<2>(in, t.data_ptr<int64_t>(), loss.data_ptr<float>(), rows, cols, stream);
    else
      launch_rows<1>(in, t.data_ptr<int64_t>(), loss.data_ptr<float>(), rows, cols, stream);
  }
  mean_of_counted<<<1, 1024, 0, stream>>>(loss.data_ptr<float>(), t.data_ptr<int64_t>(), rows,
                                          out.data_ptr<float>());
  return out;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("forward", &forward, "cross-entropy forward (CUDA, built-in template)");
}
