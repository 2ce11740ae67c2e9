// c10::Half and c10::BFloat16 for CUDA candidates built with kforge's light headers: 16-bit storage
// converted through float with round-to-nearest-even (as c10's), and c10's arithmetic rules (with
// another Half: Half; with float: float; with double: double; with an integer: Half). The CPU light
// headers have neither, so CPU code that dispatches to them is built with LibTorch's headers.
#pragma once

#if defined(__CUDACC__)
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

namespace c10 {

#define KFORGE_LIGHT_16BIT_TYPE(Type, Native, to_native, from_native)                              \
  struct alignas(2) Type {                                                                         \
    unsigned short x;                                                                              \
    struct from_bits_t {};                                                                         \
    static constexpr __host__ __device__ from_bits_t from_bits() { return from_bits_t(); }         \
    Type() = default;                                                                              \
    constexpr __host__ __device__ Type(unsigned short bits, from_bits_t) : x(bits) {}              \
    __host__ __device__ Type(float value) {                                                        \
      Native n = to_native(value);                                                                 \
      x = *reinterpret_cast<const unsigned short*>(&n);                                            \
    }                                                                                              \
    __host__ __device__ Type(const Native& n) : x(*reinterpret_cast<const unsigned short*>(&n)) {} \
    __host__ __device__ operator float() const {                                                   \
      return from_native(*reinterpret_cast<const Native*>(&x));                                    \
    }                                                                                              \
    __host__ __device__ operator Native() const { return *reinterpret_cast<const Native*>(&x); }   \
  };                                                                                               \
  inline __host__ __device__ Type operator+(const Type& a, const Type& b) {                        \
    return float(a) + float(b);                                                                    \
  }                                                                                                \
  inline __host__ __device__ Type operator-(const Type& a, const Type& b) {                        \
    return float(a) - float(b);                                                                    \
  }                                                                                                \
  inline __host__ __device__ Type operator*(const Type& a, const Type& b) {                        \
    return float(a) * float(b);                                                                    \
  }                                                                                                \
  inline __host__ __device__ Type operator/(const Type& a, const Type& b) {                        \
    return float(a) / float(b);                                                                    \
  }                                                                                                \
  inline __host__ __device__ Type operator-(const Type& a) {                                       \
    return -float(a);                                                                              \
  }                                                                                                \
  inline __host__ __device__ Type& operator+=(Type& a, const Type& b) {                            \
    return a = a + b;                                                                              \
  }                                                                                                \
  inline __host__ __device__ Type& operator-=(Type& a, const Type& b) {                            \
    return a = a - b;                                                                              \
  }                                                                                                \
  inline __host__ __device__ Type& operator*=(Type& a, const Type& b) {                            \
    return a = a * b;                                                                              \
  }                                                                                                \
  inline __host__ __device__ Type& operator/=(Type& a, const Type& b) {                            \
    return a = a / b;                                                                              \
  }                                                                                                \
  inline __host__ __device__ float operator+(Type a, float b) {                                    \
    return float(a) + b;                                                                           \
  }                                                                                                \
  inline __host__ __device__ float operator-(Type a, float b) {                                    \
    return float(a) - b;                                                                           \
  }                                                                                                \
  inline __host__ __device__ float operator*(Type a, float b) {                                    \
    return float(a) * b;                                                                           \
  }                                                                                                \
  inline __host__ __device__ float operator/(Type a, float b) {                                    \
    return float(a) / b;                                                                           \
  }                                                                                                \
  inline __host__ __device__ float operator+(float a, Type b) {                                    \
    return a + float(b);                                                                           \
  }                                                                                                \
  inline __host__ __device__ float operator-(float a, Type b) {                                    \
    return a - float(b);                                                                           \
  }                                                                                                \
  inline __host__ __device__ float operator*(float a, Type b) {                                    \
    return a * float(b);                                                                           \
  }                                                                                                \
  inline __host__ __device__ float operator/(float a, Type b) {                                    \
    return a / float(b);                                                                           \
  }                                                                                                \
  inline __host__ __device__ float& operator+=(float& a, const Type& b) {                          \
    return a += float(b);                                                                          \
  }                                                                                                \
  inline __host__ __device__ float& operator-=(float& a, const Type& b) {                          \
    return a -= float(b);                                                                          \
  }                                                                                                \
  inline __host__ __device__ float& operator*=(float& a, const Type& b) {                          \
    return a *= float(b);                                                                          \
  }                                                                                                \
  inline __host__ __device__ float& operator/=(float& a, const Type& b) {                          \
    return a /= float(b);                                                                          \
  }                                                                                                \
  inline __host__ __device__ double operator+(Type a, double b) {                                  \
    return double(float(a)) + b;                                                                   \
  }                                                                                                \
  inline __host__ __device__ double operator-(Type a, double b) {                                  \
    return double(float(a)) - b;                                                                   \
  }                                                                                                \
  inline __host__ __device__ double operator*(Type a, double b) {                                  \
    return double(float(a)) * b;                                                                   \
  }                                                                                                \
  inline __host__ __device__ double operator/(Type a, double b) {                                  \
    return double(float(a)) / b;                                                                   \
  }                                                                                                \
  inline __host__ __device__ double operator+(double a, Type b) {                                  \
    return a + double(float(b));                                                                   \
  }                                                                                                \
  inline __host__ __device__ double operator-(double a, Type b) {                                  \
    return a - double(float(b));                                                                   \
  }                                                                                                \
  inline __host__ __device__ double operator*(double a, Type b) {                                  \
    return a * double(float(b));                                                                   \
  }                                                                                                \
  inline __host__ __device__ double operator/(double a, Type b) {                                  \
    return a / double(float(b));                                                                   \
  }                                                                                                \
  inline __host__ __device__ Type operator+(Type a, int b) {                                       \
    return a + Type(float(b));                                                                     \
  }                                                                                                \
  inline __host__ __device__ Type operator-(Type a, int b) {                                       \
    return a - Type(float(b));                                                                     \
  }                                                                                                \
  inline __host__ __device__ Type operator*(Type a, int b) {                                       \
    return a * Type(float(b));                                                                     \
  }                                                                                                \
  inline __host__ __device__ Type operator/(Type a, int b) {                                       \
    return a / Type(float(b));                                                                     \
  }                                                                                                \
  inline __host__ __device__ Type operator+(int a, Type b) {                                       \
    return Type(float(a)) + b;                                                                     \
  }                                                                                                \
  inline __host__ __device__ Type operator-(int a, Type b) {                                       \
    return Type(float(a)) - b;                                                                     \
  }                                                                                                \
  inline __host__ __device__ Type operator*(int a, Type b) {                                       \
    return Type(float(a)) * b;                                                                     \
  }                                                                                                \
  inline __host__ __device__ Type operator/(int a, Type b) {                                       \
    return Type(float(a)) / b;                                                                     \
  }                                                                                                \
  inline __host__ __device__ Type operator+(Type a, int64_t b) {                                   \
    return a + Type(float(b));                                                                     \
  }                                                                                                \
  inline __host__ __device__ Type operator-(Type a, int64_t b) {                                   \
    return a - Type(float(b));                                                                     \
  }                                                                                                \
  inline __host__ __device__ Type operator*(Type a, int64_t b) {                                   \
    return a * Type(float(b));                                                                     \
  }                                                                                                \
  inline __host__ __device__ Type operator/(Type a, int64_t b) {                                   \
    return a / Type(float(b));                                                                     \
  }                                                                                                \
  inline __host__ __device__ Type operator+(int64_t a, Type b) {                                   \
    return Type(float(a)) + b;                                                                     \
  }                                                                                                \
  inline __host__ __device__ Type operator-(int64_t a, Type b) {                                   \
    return Type(float(a)) - b;                                                                     \
  }                                                                                                \
  inline __host__ __device__ Type operator*(int64_t a, Type b) {                                   \
    return Type(float(a)) * b;                                                                     \
  }                                                                                                \
  inline __host__ __device__ Type operator/(int64_t a, Type b) {                                   \
    return Type(float(a)) / b;                                                                     \
  }

KFORGE_LIGHT_16BIT_TYPE(Half, __half, __float2half, __half2float)
KFORGE_LIGHT_16BIT_TYPE(BFloat16, __nv_bfloat16, __float2bfloat16, __bfloat162float)
#undef KFORGE_LIGHT_16BIT_TYPE

#if defined(__CUDA_ARCH__)
inline __device__ Half __ldg(const Half* ptr) {
  return ::__ldg(reinterpret_cast<const __half*>(ptr));
}
inline __device__ BFloat16 __ldg(const BFloat16* ptr) {
  return ::__ldg(reinterpret_cast<const __nv_bfloat16*>(ptr));
}
#endif

}  // namespace c10

#define KFORGE_LIGHT_HAS_HALF 1
#endif
