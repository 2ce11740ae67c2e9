// kforge's light c10/cuda/CUDAMathCompat.h: c10::cuda::compat's float and double math, as
// LibTorch's header offers it to device code.
#pragma once

#include "kforge/light_all.h"
#include "kforge/light_cuda.h"

#if defined(__CUDACC__)
namespace c10::cuda::compat {
#define KFORGE_LIGHT_COMPAT_UNARY(name, f, d)        \
  __host__ __device__ inline float name(float x) {   \
    return f(x);                                     \
  }                                                  \
  __host__ __device__ inline double name(double x) { \
    return d(x);                                     \
  }
KFORGE_LIGHT_COMPAT_UNARY(abs, ::fabsf, ::fabs)
KFORGE_LIGHT_COMPAT_UNARY(ceil, ::ceilf, ::ceil)
KFORGE_LIGHT_COMPAT_UNARY(floor, ::floorf, ::floor)
KFORGE_LIGHT_COMPAT_UNARY(exp, ::expf, ::exp)
KFORGE_LIGHT_COMPAT_UNARY(log, ::logf, ::log)
KFORGE_LIGHT_COMPAT_UNARY(log1p, ::log1pf, ::log1p)
KFORGE_LIGHT_COMPAT_UNARY(sqrt, ::sqrtf, ::sqrt)
KFORGE_LIGHT_COMPAT_UNARY(rsqrt, ::rsqrtf, ::rsqrt)
KFORGE_LIGHT_COMPAT_UNARY(tan, ::tanf, ::tan)
KFORGE_LIGHT_COMPAT_UNARY(tanh, ::tanhf, ::tanh)
KFORGE_LIGHT_COMPAT_UNARY(trunc, ::truncf, ::trunc)
#undef KFORGE_LIGHT_COMPAT_UNARY
__host__ __device__ inline float max(float a, float b) {
  return ::fmaxf(a, b);
}
__host__ __device__ inline double max(double a, double b) {
  return ::fmax(a, b);
}
__host__ __device__ inline float min(float a, float b) {
  return ::fminf(a, b);
}
__host__ __device__ inline double min(double a, double b) {
  return ::fmin(a, b);
}
__host__ __device__ inline float pow(float a, float b) {
  return ::powf(a, b);
}
__host__ __device__ inline double pow(double a, double b) {
  return ::pow(a, b);
}
__host__ __device__ inline float copysign(float a, float b) {
  return ::copysignf(a, b);
}
__host__ __device__ inline double copysign(double a, double b) {
  return ::copysign(a, b);
}
}  // namespace c10::cuda::compat
#endif
