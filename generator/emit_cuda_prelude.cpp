// The CUDA kernels' device code that does not depend on a kernel: group reductions by warp
// shuffles and shared memory, the online maximum and sum of a softmax's row, vector loads and
// stores, a window's clamped loads, and a cluster's reductions across its blocks. The generated
// source holds them once, after the element functions (generate.cpp).
#include "generator/emit.hpp"

namespace kforge::generator {
namespace {

const char* const kCudaReductions = R"(
// A window's load issued whatever its guard says (window outputs): its offset kept inside the
// buffer of n elements, and the guard choosing between values already computed.
__device__ __forceinline__ int64_t kf_in(int64_t x, int64_t n) { return x < 0 ? 0 : (x < n ? x : n - 1); }
__device__ __forceinline__ int64_t kf_min_i64(int64_t a, int64_t b) { return a < b ? a : b; }
template <class T, class U>
__device__ __forceinline__ auto kf_select(bool c, T a, U b) -> decltype(true ? T{} : U{}) { return c ? a : b; }
// Four floats of window outputs' loads at b[x], x a multiple of 4 and b 16-byte aligned, into
// w[0..3], 16 bytes a load: x kept inside the buffer of n elements (a multiple of 4), where a
// group of four lies inside or outside it whole and what lies outside is never picked.
__device__ __forceinline__ void kf_load4(float* w, const float* b, int64_t x, int64_t n) {
  const float4 v = __ldg(reinterpret_cast<const float4*>(b + (x < 0 ? 0 : (x < n ? x : n - 4))));
  w[0] = v.x;
  w[1] = v.y;
  w[2] = v.z;
  w[3] = v.w;
}

// Four floats of a row at p (16-byte aligned) into w[0..3], and w[0..3] stored there: a walk of
// the row four consecutive elements a thread (row vectors). The store is the intrinsic: nvcc
// splits a plain float4 store into four 4-byte ones where it cannot see from the offset's
// arithmetic that p is 16-byte aligned (the first of a scan step's stores, a row's body after its
// unaligned head).
__device__ __forceinline__ void kf_row_load4(float* w, const float* p) {
  const float4 v = __ldg(reinterpret_cast<const float4*>(p));
  w[0] = v.x;
  w[1] = v.y;
  w[2] = v.z;
  w[3] = v.w;
}
__device__ __forceinline__ void kf_row_store4(float* p, const float* w) {
  __stwb(reinterpret_cast<float4*>(p), make_float4(w[0], w[1], w[2], w[3]));
}

// A window ring's copy (CudaKernel::ring_rows): the 16 bytes at src (global, 16-byte aligned)
// into dst (shared, 16-byte aligned), in flight until the thread waits for its group; before
// sm_80 (no cp.async) a load and a store, done when the call returns.
__device__ __forceinline__ void kf_async_copy16(float* dst, const float* src) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(d), "l"(src) : "memory");
#else
  *reinterpret_cast<float4*>(dst) = __ldg(reinterpret_cast<const float4*>(src));
#endif
}
// The copies a thread issued since its last commit: one group.
__device__ __forceinline__ void kf_async_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;" ::: "memory");
#endif
}
// Until at most N of the thread's newest groups are in flight (the older ones in shared memory).
template <int N>
__device__ __forceinline__ void kf_async_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
#endif
}

struct KfSum { template <class T> __device__ T operator()(T a, T b) const { return a + b; } };
struct KfProd { template <class T> __device__ T operator()(T a, T b) const { return a * b; } };
struct KfMax { template <class T> __device__ T operator()(T a, T b) const { return kf_max2(a, b); } };
struct KfMin { template <class T> __device__ T operator()(T a, T b) const { return kf_min2(a, b); } };

// The group's combined value in every thread of the group (G consecutive threads; G = blockDim.x
// for the whole block, a power of two up to 32 otherwise); every thread of the block calls it.
// D over 1: the group's G threads are D apart (a column walk's lanes split across the block,
// blockDim.x = G * D, lane = threadIdx.x / D), combined in the lanes' order through `shared`, one
// value a thread of the block.
template <int G, int D = 1, class T, class Op>
__device__ __forceinline__ T kf_group_reduce(T v, Op op, T* shared) {
  if constexpr (G == 1) {
    return v;
  } else if constexpr (D > 1) {
    __syncthreads();  // shared may still be read by the previous reduction
    shared[threadIdx.x] = v;
    __syncthreads();
    const int t = threadIdx.x % D;
    v = shared[t];
    for (int h = 1; h < G; ++h) v = op(v, shared[h * D + t]);
    return v;
  } else {
    constexpr int W = G < 32 ? G : 32;
    for (int o = W / 2; o > 0; o /= 2) v = op(v, __shfl_xor_sync(0xffffffffu, v, o));
    if constexpr (G <= 32) {
      return v;
    } else {
      __syncthreads();  // shared may still be read by the previous reduction
      if (threadIdx.x % 32 == 0) shared[threadIdx.x / 32] = v;
      __syncthreads();
      v = shared[0];
      for (int w = 1; w < G / 32; ++w) v = op(v, shared[w]);
      return v;
    }
  }
}

// A row's maximum m and its sum s of exp(x - m) in one pass (softmax, log-softmax, logsumexp,
// cross entropy): the sum rescaled whenever the maximum grows; NaN stays NaN in both.
// An element of -inf (a masked score) adds nothing, also before the first finite one; a new
// maximum of +inf makes the sum NaN, as exp(inf - inf) does in two passes.
__device__ __forceinline__ void kf_online_add(float& m, double& s, float x) {
  if (x > m) {
    s = s * expf(m - x) + expf(x - x);
    m = x;
  } else if (x != -INFINITY) {
    s += expf(x - m);
    if (x != x) m = x;
  }
}
__device__ __forceinline__ void kf_online_merge(float& m, double& s, float m2, double s2) {
  const float n = kf_max2(m, m2);
  if (n == -INFINITY) {  // no finite element on either side: 0, or NaN from a row of -inf
    s += s2;
    return;
  }
  s = s * expf(m - n) + s2 * expf(m2 - n);
  m = n;
}
// A pair (a, b) combined across the group as kf_group_reduce combines one value: merge(a, b, a2,
// b2) takes the other pair into the first. Online softmax (maximum, sum) and arg reductions
// (value, index) are its pairs.
template <int G, int D = 1, class A, class B, class Merge>
__device__ __forceinline__ void kf_group_pair(A& a, B& b, A* shared_a, B* shared_b, Merge merge) {
  if constexpr (G > 1 && D > 1) {
    __syncthreads();
    shared_a[threadIdx.x] = a;
    shared_b[threadIdx.x] = b;
    __syncthreads();
    const int t = threadIdx.x % D;
    a = shared_a[t];
    b = shared_b[t];
    for (int h = 1; h < G; ++h) merge(a, b, shared_a[h * D + t], shared_b[h * D + t]);
  } else if constexpr (G > 1) {
    constexpr int W = G < 32 ? G : 32;
    for (int o = W / 2; o > 0; o /= 2) {
      const A oa = __shfl_xor_sync(0xffffffffu, a, o);
      const B ob = __shfl_xor_sync(0xffffffffu, b, o);
      merge(a, b, oa, ob);
    }
    if constexpr (G > 32) {
      __syncthreads();
      if (threadIdx.x % 32 == 0) {
        shared_a[threadIdx.x / 32] = a;
        shared_b[threadIdx.x / 32] = b;
      }
      __syncthreads();
      a = shared_a[0];
      b = shared_b[0];
      for (int w = 1; w < G / 32; ++w) merge(a, b, shared_a[w], shared_b[w]);
    }
  }
}
template <int G, int D = 1>
__device__ __forceinline__ void kf_group_online(float& m, double& s, float* shared_m,
                                                double* shared_s) {
  kf_group_pair<G, D>(m, s, shared_m, shared_s,
                   [](float& m, double& s, float m2, double s2) { kf_online_merge(m, s, m2, s2); });
}

// Arg-max (Max) or arg-min: the best value and its index, the first index among equals, NaN best.
template <bool Max, class T>
__device__ __forceinline__ bool kf_better(T a, int64_t ia, T b, int64_t ib) {
  if (ib < 0) return false;
  if (ia < 0) return true;
  if (b != b) return a == a || ib < ia;
  if (a != a) return false;
  if (Max ? b > a : b < a) return true;
  return b == a && ib < ia;
}

// kf_better where b comes after a in the row (a thread's own walk, in the row's order): among
// equals the first stays, and so does a NaN once taken. !(b <= a) is b > a or either NaN, one
// unordered comparison, where kf_better's branches and 64-bit index comparisons a step kept a
// column's walk busy between its loads (KernelBench's 51_Argmax at 73 % of DRAM peak, 81 % now).
template <bool Max, class T>
__device__ __forceinline__ bool kf_later_better(T a, int64_t ia, T b) {
  return (ia < 0) | ((a == a) & !(Max ? b <= a : b >= a));  // no branches
}

template <int G, bool Max, int D = 1, class T>
__device__ __forceinline__ void kf_group_arg(T& v, int64_t& i, T* shared, int64_t* shared_i) {
  kf_group_pair<G, D>(v, i, shared, shared_i, [](T& v, int64_t& i, const T& v2, const int64_t& i2) {
    if (kf_better<Max>(v, i, v2, i2)) {
      v = v2;
      i = i2;
    }
  });
}
)";

// A row shared by a cluster of C blocks (sm_90): every thread of each block calls these after its
// block's own reduction. Thread b < C of each block writes the block's value into slot [rank] of
// block b's array (each reduction its own array), one barrier makes the writes visible, and every
// thread combines its own block's C slots in the order of the ranks (the same value in every
// block). The kernel's threads arrive at the cluster's barrier as they start, and the first
// reduction (First) waits for that phase before it writes into another block's shared memory, so
// that no block is written to before it runs; a block may exit once its last reduction has read
// its slots, which no block writes after that barrier. Only the writing warp's arrival releases
// its writes. (The first version, a slot read across the cluster between two cluster.sync(),
// waited on two barriers with a memory fence each: 4.82 ms on KernelBench's 39_L2Norm_ where this
// takes 4.50, its kernel edited by hand, BENCHMARKS.md.) Compiled for GPUs without clusters as
// nothing: the host launches the kernel without clusters there.
const char* const kCudaCluster = R"(
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
template <int C, class T>
__device__ __forceinline__ void kf_cluster_put(bool first, T v, T* slots) {
  const cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
  if (first) __cluster_barrier_wait();
  if (threadIdx.x < C) *cluster.map_shared_rank(slots + cluster.block_rank(), threadIdx.x) = v;
}
__device__ __forceinline__ void kf_cluster_publish() {
  if (threadIdx.x < 32)
    __cluster_barrier_arrive();
  else
    __cluster_barrier_arrive_relaxed();
  __cluster_barrier_wait();
}
template <int C, bool First, class T, class Op>
__device__ __forceinline__ T kf_cluster_reduce(T v, Op op, T* slots) {
  kf_cluster_put<C>(First, v, slots);
  kf_cluster_publish();
  v = slots[0];
  for (int b = 1; b < C; ++b) v = op(v, slots[b]);
  return v;
}
template <int C, bool First>
__device__ __forceinline__ void kf_cluster_online(float& m, double& s, float* slots_m,
                                                  double* slots_s) {
  kf_cluster_put<C>(First, m, slots_m);
  kf_cluster_put<C>(false, s, slots_s);
  kf_cluster_publish();
  m = slots_m[0];
  s = slots_s[0];
  for (int b = 1; b < C; ++b) kf_online_merge(m, s, slots_m[b], slots_s[b]);
}
#endif
)";

}  // namespace

const char* cuda_reductions_prelude() {
  return kCudaReductions;
}

const char* cuda_cluster_prelude() {
  return kCudaCluster;
}

}  // namespace kforge::generator
