// kforge:template linear_f32_cuda_tiled
// kforge:formerly linear_f32_sm90_tiled
// kforge:family linear
// kforge:backend cuda
// x @ weight^T + bias, with a ReLU after it where the task has one (trait relu), in float32 (no
// TF32): a register-tiled GEMM, both operands K-major.
// A block computes a BM x BN tile of the output in BK-deep steps through shared memory (stored
// k-major, so the inner product reads are broadcast-free rows); each thread owns TM x TN outputs.
// The next step's tiles are loaded into registers while the current one is multiplied. Bias and
// the ReLU are applied in the epilogue. When the output has too few tiles to fill the GPU, K is
// split across up to max_split_k blocks per tile, whose partial sums a second kernel adds (in a
// fixed order) before the epilogue. Few output rows (a small batch) take a GEMV-like kernel: one
// warp per output column reads its weight row once, for every batch row at a time.
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

#include <algorithm>

#define KFORGE_RELU 1  // kforge:trait relu 0 1

namespace {

constexpr int kBM = 64;         // kforge:param bm 32 64 128
constexpr int kBN = 64;         // kforge:param bn 32 64 128
constexpr int kBK = 16;         // kforge:param bk 8 16 32
constexpr int kTM = 4;          // kforge:param tm 2 4 8
constexpr int kTN = 4;          // kforge:param tn 2 4 8
constexpr int kSmallBatch = 8;  // kforge:param small_batch 0 4 8 16
constexpr int kMaxSplitK = 8;   // kforge:param max_split_k 1 4 8 16
// Tiles divide among 32 to 1024 threads, the accumulators stay in registers and both tiles fit
// in 48 KiB of shared memory (rows padded by one).
// kforge:require bm % tm == 0 && bn % tn == 0
// kforge:require (bm / tm) * (bn / tn) >= 32 && (bm / tm) * (bn / tn) <= 1024
// kforge:require (bm * bk) % ((bm / tm) * (bn / tn)) == 0
// kforge:require (bn * bk) % ((bm / tm) * (bn / tn)) == 0
// kforge:require tm * tn <= 64
// kforge:require (bk * (bm + 1) + bk * (bn + 1)) * 4 <= 49152
constexpr int kThreads = (kBM / kTM) * (kBN / kTN);
constexpr int kLoadsA = kBM * kBK / kThreads;  // elements of the x tile each thread loads
constexpr int kLoadsB = kBN * kBK / kThreads;
static_assert(kThreads >= 32 && kThreads <= 1024, "32 to 1024 threads a block");
static_assert(kLoadsA >= 1 && kLoadsB >= 1 && kLoadsA * kThreads == kBM * kBK &&
                  kLoadsB * kThreads == kBN * kBK,
              "tiles divide evenly among the threads");

// The epilogue: bias, then the ReLU if the task has one.
__device__ __forceinline__ float epilogue(float sum, float bias) {
  return KFORGE_RELU ? fmaxf(sum + bias, 0.f) : sum + bias;
}

// With `partial`, block z adds up its slice of K into partial[z] (no epilogue).
__global__ void __launch_bounds__(kThreads)
    linear_tiled(const float* __restrict__ x, const float* __restrict__ w,
                 const float* __restrict__ bias, float* __restrict__ y, int M, int N, int K,
                 int k_slice, float* __restrict__ partial) {
  __shared__ float As[kBK][kBM + 1];
  __shared__ float Bs[kBK][kBN + 1];
  const int tid = threadIdx.x;
  const int row0 = blockIdx.y * kBM, col0 = blockIdx.x * kBN;
  const int k_begin = blockIdx.z * k_slice, k_end = min(K, k_begin + k_slice);
  const int tr = tid / (kBN / kTN), tc = tid % (kBN / kTN);
  float acc[kTM][kTN] = {};
  float ra[kLoadsA], rb[kLoadsB];

  // Element e of this thread's share: consecutive threads take consecutive k (coalesced reads).
  auto fetch = [&](int k0) {
#pragma unroll
    for (int e = 0; e < kLoadsA; ++e) {
      const int i = tid + e * kThreads, r = i / kBK, k = i % kBK;
      const int gr = row0 + r, gk = k0 + k;
      ra[e] = gr < M && gk < k_end ? x[static_cast<size_t>(gr) * K + gk] : 0.f;
    }
#pragma unroll
    for (int e = 0; e < kLoadsB; ++e) {
      const int i = tid + e * kThreads, c = i / kBK, k = i % kBK;
      const int gc = col0 + c, gk = k0 + k;
      rb[e] = gc < N && gk < k_end ? w[static_cast<size_t>(gc) * K + gk] : 0.f;
    }
  };
  auto stash = [&]() {
#pragma unroll
    for (int e = 0; e < kLoadsA; ++e) {
      const int i = tid + e * kThreads;
      As[i % kBK][i / kBK] = ra[e];
    }
#pragma unroll
    for (int e = 0; e < kLoadsB; ++e) {
      const int i = tid + e * kThreads;
      Bs[i % kBK][i / kBK] = rb[e];
    }
  };

  fetch(k_begin);
  for (int k0 = k_begin; k0 < k_end; k0 += kBK) {
    __syncthreads();  // the previous step's tiles are no longer read
    stash();
    __syncthreads();
    if (k0 + kBK < k_end) fetch(k0 + kBK);  // overlaps with the multiply below
#pragma unroll
    for (int k = 0; k < kBK; ++k) {
      float a[kTM], b[kTN];
#pragma unroll
      for (int i = 0; i < kTM; ++i) a[i] = As[k][tr * kTM + i];
#pragma unroll
      for (int j = 0; j < kTN; ++j) b[j] = Bs[k][tc * kTN + j];
#pragma unroll
      for (int i = 0; i < kTM; ++i)
#pragma unroll
        for (int j = 0; j < kTN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
  }
  float* slice = partial ? partial + static_cast<size_t>(blockIdx.z) * M * N : nullptr;
#pragma unroll
  for (int i = 0; i < kTM; ++i) {
    const int r = row0 + tr * kTM + i;
    if (r >= M) continue;
#pragma unroll
    for (int j = 0; j < kTN; ++j) {
      const int c = col0 + tc * kTN + j;
      if (c >= N) continue;
      if (slice)
        slice[static_cast<size_t>(r) * N + c] = acc[i][j];
      else
        y[static_cast<size_t>(r) * N + c] = epilogue(acc[i][j], bias[c]);
    }
  }
}

// y = epilogue(sum of the split partial sums, bias), the slices added in order.
__global__ void __launch_bounds__(256)
    sum_split_epilogue(const float* __restrict__ partial, const float* __restrict__ bias,
                       float* __restrict__ y, int M, int N, int splits) {
  const size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const size_t total = static_cast<size_t>(M) * N;
  if (i >= total) return;
  float s = 0;
  for (int z = 0; z < splits; ++z) s += partial[z * total + i];
  y[i] = epilogue(s, bias[i % N]);
}

// Batch of at most Rows: warp n computes output column n for every batch row, reading weight
// row n once; the batch rows of x are re-read from cache by every warp.
template <int Rows>
__global__ void __launch_bounds__(256)
    linear_small_batch(const float* __restrict__ x, const float* __restrict__ w,
                       const float* __restrict__ bias, float* __restrict__ y, int M, int N, int K) {
  const int n = blockIdx.x * 8 + threadIdx.x / 32, lane = threadIdx.x % 32;
  if (n >= N) return;
  const float* wr = w + static_cast<size_t>(n) * K;
  float acc[Rows] = {};
  for (int k = lane; k < K; k += 32) {
    const float wk = wr[k];
#pragma unroll
    for (int m = 0; m < Rows; ++m)
      if (m < M) acc[m] = fmaf(x[static_cast<size_t>(m) * K + k], wk, acc[m]);
  }
#pragma unroll
  for (int m = 0; m < Rows; ++m) {
    float v = acc[m];
    for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffff, v, o);
    if (lane == 0 && m < M) y[static_cast<size_t>(m) * N + n] = epilogue(v, bias[n]);
  }
}

}  // namespace

// y = x @ weight^T + bias for a 2-D x.
torch::Tensor linear_2d(torch::Tensor x, torch::Tensor weight, torch::Tensor bias) {
  TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat32 && x.dim() == 2,
              "2-D float32 CUDA input");
  TORCH_CHECK(weight.dim() == 2 && weight.size(1) == x.size(1) && bias.dim() == 1 &&
                  bias.size(0) == weight.size(0),
              "weight [out, in] and bias [out]");
  auto xc = x.contiguous(), wc = weight.contiguous(), bc = bias.contiguous();
  const int M = static_cast<int>(xc.size(0)), K = static_cast<int>(xc.size(1)),
            N = static_cast<int>(wc.size(0));
  auto y = torch::empty({M, N}, xc.options());
  if (M == 0 || N == 0) return y;  // K == 0 needs no case: the sums are empty, bias remains
  auto stream = at::cuda::getCurrentCUDAStream();
  const float *xp = xc.data_ptr<float>(), *wp = wc.data_ptr<float>(), *bp = bc.data_ptr<float>();
  float* yp = y.data_ptr<float>();
  const dim3 small_grid((N + 7) / 8);
  if (M <= kSmallBatch) {
    if (M <= 4)
      linear_small_batch<4><<<small_grid, 256, 0, stream>>>(xp, wp, bp, yp, M, N, K);
    else if (M <= 8)
      linear_small_batch<8><<<small_grid, 256, 0, stream>>>(xp, wp, bp, yp, M, N, K);
    else
      linear_small_batch<16><<<small_grid, 256, 0, stream>>>(xp, wp, bp, yp, M, N, K);
    return y;
  }
  const int tiles = ((N + kBN - 1) / kBN) * ((M + kBM - 1) / kBM);
  // Split K when the tiles alone cannot fill the GPU, keeping at least 4 k-steps a block.
  const int sms = at::cuda::getCurrentDeviceProperties()->multiProcessorCount;
  int splits = std::min(kMaxSplitK, std::max(1, (2 * sms) / tiles));
  splits = std::max(1, std::min(splits, K / (4 * kBK)));
  const int k_slice = ((K + splits - 1) / splits + kBK - 1) / kBK * kBK;
  splits = (K + k_slice - 1) / k_slice;
  const dim3 grid((N + kBN - 1) / kBN, (M + kBM - 1) / kBM, splits);
  if (splits == 1) {
    linear_tiled<<<grid, kThreads, 0, stream>>>(xp, wp, bp, yp, M, N, K, K, nullptr);
    return y;
  }
  auto partial = torch::empty({splits, M, N}, xc.options());
  linear_tiled<<<grid, kThreads, 0, stream>>>(xp, wp, bp, yp, M, N, K, k_slice,
                                              partial.data_ptr<float>());
  const size_t total = static_cast<size_t>(M) * N;
  sum_split_epilogue<<<(total + 255) / 256, 256, 0, stream>>>(partial.data_ptr<float>(), bp, yp, M,
                                                              N, splits);
  return y;
}

// x of any rank >= 2: its leading dimensions are rows, as F.linear treats them.
torch::Tensor forward(torch::Tensor x, torch::Tensor weight, torch::Tensor bias) {
  TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat32 && x.dim() >= 2,
              "float32 input of rank 2 or more");
  auto sizes = x.sizes().vec();
  sizes.back() = weight.size(0);
  return linear_2d(x.reshape({-1, x.size(-1)}), weight, bias).view(sizes);
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("forward", &forward, "linear forward (CUDA, built-in template)");
}
