// Hand probe (issue 36, forty-fourth step): softmax over KernelBench 23_Softmax's rows of 393216
// with each row cached in a thread-block cluster's shared memory (read from memory once), against
// a block a row reading it twice (online maximum and sum, then the write). Not built by CMake
// (sm_90 clusters); on the GPU host: nvcc -arch=sm_90 -O3 -std=c++17 bench/cluster_shared_softmax.cu
// -o /tmp/probe && /tmp/probe
#include <cooperative_groups.h>
#include <cstdio>
#include <cmath>
#include <vector>
namespace cg = cooperative_groups;
constexpr int R = 393216, B = 4096;

__device__ __forceinline__ float warp_max(float v) { for (int o = 16; o; o >>= 1) v = fmaxf(v, __shfl_xor_sync(~0u, v, o)); return v; }
__device__ __forceinline__ float warp_sum(float v) { for (int o = 16; o; o >>= 1) v += __shfl_xor_sync(~0u, v, o); return v; }

template <int T, bool Max>
__device__ float block_reduce(float v, float* red) {
  v = Max ? warp_max(v) : warp_sum(v);
  if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = v;
  __syncthreads();
  float r = Max ? -INFINITY : 0.f;
  for (int w = 0; w < T / 32; ++w) r = Max ? fmaxf(r, red[w]) : r + red[w];
  __syncthreads();
  return r;
}

template <int C, bool Max>
__device__ float cluster_combine(float v, float* slots) {
  cg::cluster_group cl = cg::this_cluster();
  if (threadIdx.x < C) *cl.map_shared_rank(slots + cl.block_rank(), threadIdx.x) = v;
  cl.sync();
  float r = Max ? -INFINITY : 0.f;
  for (int i = 0; i < C; ++i) r = Max ? fmaxf(r, slots[i]) : r + slots[i];
  return r;
}

template <int C, int T, int U>
__global__ void __launch_bounds__(T) smem_softmax(const float* __restrict__ x, float* __restrict__ y) {
  extern __shared__ float4 cache[];
  __shared__ float red[T / 32];
  __shared__ float slots_m[C], slots_s[C];
  cg::cluster_group cl = cg::this_cluster();
  const int rank = cl.block_rank();
  const long row = blockIdx.x / C;
  const int lane = rank * T + threadIdx.x;
  constexpr int Q = R / 4 / (C * T);
  const float4* xr = reinterpret_cast<const float4*>(x + row * R);
  float4* yr = reinterpret_cast<float4*>(y + row * R);
  float m = -INFINITY;
  static_assert(Q % U == 0, "batches");
  for (int k0 = 0; k0 < Q; k0 += U) {
    float4 v[U];
#pragma unroll
    for (int k = 0; k < U; ++k) v[k] = __ldg(xr + lane + (k0 + k) * C * T);
#pragma unroll
    for (int k = 0; k < U; ++k) {
      cache[(k0 + k) * T + threadIdx.x] = v[k];
      m = fmaxf(m, fmaxf(fmaxf(v[k].x, v[k].y), fmaxf(v[k].z, v[k].w)));
    }
  }
  m = block_reduce<T, true>(m, red);
  m = cluster_combine<C, true>(m, slots_m);
  float s = 0.f;
#pragma unroll 4
  for (int k = 0; k < Q; ++k) {
    float4 v = cache[k * T + threadIdx.x];
    s += __expf(v.x - m) + __expf(v.y - m) + __expf(v.z - m) + __expf(v.w - m);
  }
  s = block_reduce<T, false>(s, red);
  s = cluster_combine<C, false>(s, slots_s);
  const float inv = 1.f / s;
#pragma unroll 4
  for (int k = 0; k < Q; ++k) {
    float4 v = cache[k * T + threadIdx.x];
    v.x = __expf(v.x - m) * inv; v.y = __expf(v.y - m) * inv; v.z = __expf(v.z - m) * inv; v.w = __expf(v.w - m) * inv;
    yr[lane + k * C * T] = v;
  }
  cl.sync();  // no block leaves while another may still write its slots
}

// A block a row: online max and sum in one read, then a second read to write.
template <int T>
__global__ void __launch_bounds__(T) twice_softmax(const float* __restrict__ x, float* __restrict__ y) {
  __shared__ float red[T / 32];
  const long row = blockIdx.x;
  const float4* xr = reinterpret_cast<const float4*>(x + row * R);
  float4* yr = reinterpret_cast<float4*>(y + row * R);
  float m = -INFINITY, s = 0.f;
#pragma unroll 4
  for (int q = threadIdx.x; q < R / 4; q += T) {
    float4 v = __ldg(xr + q);
    float mm = fmaxf(m, fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)));
    s = s * __expf(m - mm) + __expf(v.x - mm) + __expf(v.y - mm) + __expf(v.z - mm) + __expf(v.w - mm);
    m = mm;
  }
  float bm = block_reduce<T, true>(m, red);
  s = block_reduce<T, false>(s * __expf(m - bm), red);
  const float inv = 1.f / s;
#pragma unroll 4
  for (int q = threadIdx.x; q < R / 4; q += T) {
    float4 v = __ldg(xr + q);
    v.x = __expf(v.x - bm) * inv; v.y = __expf(v.y - bm) * inv; v.z = __expf(v.z - bm) * inv; v.w = __expf(v.w - bm) * inv;
    yr[q] = v;
  }
}

template <typename F>
float time_ms(F launch) {
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  launch(); cudaDeviceSynchronize();
  cudaEventRecord(a);
  for (int i = 0; i < 10; ++i) launch();
  cudaEventRecord(b); cudaEventSynchronize(b);
  float ms; cudaEventElapsedTime(&ms, a, b);
  return ms / 10;
}

template <int C, int T, int U>
void run_smem(const float* x, float* y, const char* name) {
  constexpr int Q = R / 4 / (C * T);
  static_assert(Q * 4 * C * T == R, "exact");
  const size_t bytes = size_t(Q) * T * 16;
  auto k = smem_softmax<C, T, U>;
  cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes));
  if (C > 8) cudaFuncSetAttribute(k, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(B * C); cfg.blockDim = dim3(T); cfg.dynamicSmemBytes = bytes;
  cudaLaunchAttribute at[1]; at[0].id = cudaLaunchAttributeClusterDimension;
  at[0].val.clusterDim.x = C; at[0].val.clusterDim.y = 1; at[0].val.clusterDim.z = 1;
  cfg.attrs = at; cfg.numAttrs = 1;
  int clusters = 0; cudaOccupancyMaxActiveClusters(&clusters, k, &cfg);
  cudaError_t e = cudaLaunchKernelEx(&cfg, k, x, y);
  if (e != cudaSuccess) { printf("%s: %s\n", name, cudaGetErrorString(e)); cudaGetLastError(); return; }
  float ms = time_ms([&] { cudaLaunchKernelEx(&cfg, k, x, y); });
  printf("%-28s %7.3f ms  %6.0f GB/s (2 passes)  active clusters %d  smem %zu KB\n", name, ms,
         2.0 * R * B * 4 / ms / 1e6, clusters, bytes / 1024);
}

int main() {
  float *x, *y; cudaMalloc(&x, size_t(R) * B * 4); cudaMalloc(&y, size_t(R) * B * 4);
  std::vector<float> h(R);
  for (int i = 0; i < R; ++i) h[i] = float((i * 7919) % 1000) / 1000.f;
  for (int b = 0; b < B; ++b) cudaMemcpy(x + size_t(b) * R, h.data(), R * 4, cudaMemcpyHostToDevice);
  for (int rep = 0; rep < 2; ++rep) {
    float ms = time_ms([&] { twice_softmax<1024><<<B, 1024>>>(x, y); });
    printf("%-28s %7.3f ms  %6.0f GB/s (3 passes)\n", "block a row, 1024", ms, 3.0 * R * B * 4 / ms / 1e6);
    ms = time_ms([&] { twice_softmax<256><<<B, 256>>>(x, y); });
    printf("%-28s %7.3f ms  %6.0f GB/s (3 passes)\n", "block a row, 256", ms, 3.0 * R * B * 4 / ms / 1e6);
    run_smem<16, 256, 24>(x, y, "smem C16 T256 batch 24");
    run_smem<16, 256, 12>(x, y, "smem C16 T256 batch 12");
    run_smem<16, 256, 8>(x, y, "smem C16 T256 batch 8");
    run_smem<16, 512, 12>(x, y, "smem C16 T512 batch 12");
    run_smem<8, 512, 24>(x, y, "smem C8 T512 batch 24");
    run_smem<8, 1024, 12>(x, y, "smem C8 T1024 batch 12");
    run_smem<16, 1024, 6>(x, y, "smem C16 T1024 batch 6");
  }
  // check one row
  std::vector<float> out(R);
  cudaMemcpy(out.data(), y + size_t(5) * R, R * 4, cudaMemcpyDeviceToHost);
  double mx = -1e30, s = 0; for (float v : h) mx = std::max(mx, double(v));
  for (float v : h) s += std::exp(v - mx);
  double err = 0; for (int i = 0; i < R; ++i) err = std::max(err, std::abs(out[i] - std::exp(h[i] - mx) / s) * s);
  printf("max rel err %.3g  (%s)\n", err, cudaGetErrorString(cudaGetLastError()));
}
