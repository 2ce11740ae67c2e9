// Hand probe (issue 36, forty-ninth step): a 3 x 3 depthwise convolution, unpadded, stride 1, on
// rows of 512 floats (KernelBench level 1's 82_conv_depthwise_2D_square_input_square_kernel and
// 84_conv_depthwise_2D_asymmetric_input_square_kernel at full size), with its input rows streamed
// through a ring in shared memory by cp.async, so that a block's next rows are in flight while it
// computes. A kernel file in the format kforge evaluates:
//   kforge eval --task TASKS/82_conv_depthwise_2D_square_input_square_kernel \
//       --kernel bench/depthwise_row_ring.cu --backend cuda --seeds 1 --counters-budget 10
// The generated kernel (a thread four neighbouring outputs, its windows' six 16-byte loads, then
// the arithmetic, then the stores) keeps DRAM at 68-71 % of peak on these; this one at 83-85 %.
// The kernel is the one measured (the same PTX); this file's host code, the dispatch of both
// shapes in one file, was written after the measurements and has not itself run on a GPU.
#include <ATen/cuda/CUDAContext.h>
#include <torch/extension.h>

#include <cstdint>

namespace {

constexpr int kW = 512;      // input row, floats (a multiple of 4: a thread copies 16 bytes)
constexpr int kWo = kW - 2;  // output row
constexpr int kThreads = kW / 4;
constexpr int kRows = 8;   // output rows a block walks
constexpr int kAhead = 6;  // input rows in flight beyond the first a window reads
constexpr int kRing = kAhead + 2;
constexpr int kRingRow = kW + 8;  // a ring row's stride, floats (as measured)

__device__ __forceinline__ void copy16(float* shared_dst, const float* global_src) {
  const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(shared_dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(d), "l"(global_src));
}

// Block b: plane b / bands, output rows (b % bands) * kRows on. Thread t copies the 16 bytes at
// 4t of each input row, and computes the output columns t, t + 128, t + 256, t + 384 of each
// output row (a warp's store: 32 consecutive floats). Input row y lives in ring slot y % kRing:
// at output row r, row r + kAhead + 1 is issued into the slot of row r - 1, which every thread
// finished reading before the barrier. Each cp.async group holds one row (empty past the band),
// so waiting for all but the newest kAhead - 2 groups leaves rows up to r + 2 complete.
template <int H, int C>
__global__ void __launch_bounds__(kThreads)
    depthwise3x3(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ y) {
  constexpr int Ho = H - 2;
  constexpr int bands = (Ho + kRows - 1) / kRows;
  __shared__ __align__(16) float ring[kRing][kRingRow];
  const int t = threadIdx.x;
  const int plane = blockIdx.x / bands;
  const int r0 = (blockIdx.x % bands) * kRows;
  const int last_in = min(r0 + kRows + 1, H - 1);
  const float* in = x + static_cast<int64_t>(plane) * H * kW;
  float* out = y + static_cast<int64_t>(plane) * Ho * kWo;
  float k[9];
#pragma unroll
  for (int i = 0; i < 9; ++i) k[i] = w[(plane % C) * 9 + i];
  auto issue = [&](int row) {
    if (row <= last_in) copy16(&ring[row % kRing][t * 4], in + row * kW + t * 4);
    asm volatile("cp.async.commit_group;" ::: "memory");
  };
#pragma unroll
  for (int d = 0; d <= kAhead; ++d) issue(r0 + d);
  for (int i = 0; i < kRows; ++i) {
    const int r = r0 + i;
    if (r >= Ho) break;  // the same for the whole block
    asm volatile("cp.async.wait_group %0;" ::"n"(kAhead - 2) : "memory");
    __syncthreads();
    issue(r + kAhead + 1);
    const float* a = ring[r % kRing];
    const float* b = ring[(r + 1) % kRing];
    const float* c = ring[(r + 2) % kRing];
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      const int j = t + kThreads * q;
      if (j < kWo) {
        float s = 0.0f;  // the generated kernel's order: the window's rows, then its columns
        s = s + a[j] * k[0];
        s = s + a[j + 1] * k[1];
        s = s + a[j + 2] * k[2];
        s = s + b[j] * k[3];
        s = s + b[j + 1] * k[4];
        s = s + b[j + 2] * k[5];
        s = s + c[j] * k[6];
        s = s + c[j + 1] * k[7];
        s = s + c[j + 2] * k[8];
        out[r * kWo + j] = s;
      }
    }
  }
}

template <int N, int C, int H>
torch::Tensor run(torch::Tensor x, torch::Tensor w) {
  x = x.contiguous();
  if (reinterpret_cast<uintptr_t>(x.data_ptr<float>()) % 16 != 0) x = x.clone();
  w = w.contiguous();
  auto y = torch::empty({N, C, H - 2, kWo}, x.options());
  constexpr int bands = (H - 2 + kRows - 1) / kRows;
  depthwise3x3<H, C><<<bands * N * C, kThreads, 0, at::cuda::getCurrentCUDAStream()>>>(
      x.data_ptr<float>(), w.data_ptr<float>(), y.data_ptr<float>());
  return y;
}

}  // namespace

torch::Tensor forward(torch::Tensor x, torch::Tensor w) {
  TORCH_CHECK(x.scalar_type() == torch::kFloat32 && w.scalar_type() == torch::kFloat32 &&
                  x.dim() == 4 && x.size(3) == kW && w.dim() == 4 && w.size(1) == 1 &&
                  w.size(2) == 3 && w.size(3) == 3,
              "this probe computes 3 x 3 depthwise convolutions on rows of 512 floats only");
  if (x.size(0) == 16 && x.size(1) == 64 && x.size(2) == 512) return run<16, 64, 512>(x, w);
  if (x.size(0) == 64 && x.size(1) == 128 && x.size(2) == 256) return run<64, 128, 256>(x, w);
  TORCH_CHECK(false, "this probe knows KernelBench's 82 and 84 at full size only");
  return torch::Tensor();
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("forward", &forward, "3 x 3 depthwise convolution, input rows through a cp.async ring");
}
