// The value types of kforge's light headers: scalar types, devices, layouts, memory formats, array
// references, dtypes and tensor options, with LibTorch's names and enum values (the worker checks
// the values against LibTorch's own at build time). No LibTorch header is parsed.
#pragma once

// Only the standard headers kernels commonly rely on LibTorch to bring: each one costs nvcc a
// tenth of a second or more (<sstream> and <iostream> cost 0.8 s, so messages are built without
// them; a kernel that uses std::cout includes <iostream> itself).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "kforge/light_abi.h"

#if defined(__CUDACC__)
#define KFORGE_LIGHT_HOST_DEVICE __host__ __device__
#else
#define KFORGE_LIGHT_HOST_DEVICE
#endif
#ifndef C10_HOST_DEVICE
#define C10_HOST_DEVICE KFORGE_LIGHT_HOST_DEVICE
#endif
#ifndef C10_DEVICE
#if defined(__CUDACC__)
#define C10_DEVICE __device__
#else
#define C10_DEVICE
#endif
#endif
#ifndef C10_HOST
#define C10_HOST
#endif
#define C10_RESTRICT __restrict__
#define C10_UNUSED __attribute__((__unused__))
#define C10_LIKELY(x) __builtin_expect(static_cast<bool>(x), 1)
#define C10_UNLIKELY(x) __builtin_expect(static_cast<bool>(x), 0)

namespace kforge::light {

/// The worker's functions, set by the candidate's entry point before any registered function runs.
inline const kforge_light_api* current_api = nullptr;
inline const kforge_light_api& api() {
  return *current_api;
}

/// Appends a value as c10::str (an std::ostream) would print it.
inline void append(std::string& s, const char* v) {
  s += v;
}
inline void append(std::string& s, const std::string& v) {
  s += v;
}
inline void append(std::string& s, char v) {
  s += v;
}
inline void append(std::string& s, signed char v) {
  s += static_cast<char>(v);
}
inline void append(std::string& s, unsigned char v) {
  s += static_cast<char>(v);
}
inline void append(std::string& s, bool v) {
  s += v ? '1' : '0';
}
template <class T>
std::enable_if_t<std::is_integral_v<T>> append(std::string& s, T v) {
  s += std::to_string(v);
}
inline void append(std::string& s, double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", v);
  s += buffer;
}
inline void append(std::string& s, float v) {
  append(s, static_cast<double>(v));
}
inline void append(std::string& s, const void* v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%p", v);
  s += buffer;
}

/// Concatenates like c10::str.
template <class... Args>
std::string str(const Args&... args) {
  std::string out;
  (append(out, args), ...);
  return out;
}

[[noreturn]] inline void fail(const std::string& message) {
  api().fail(message.c_str());
  std::abort();  // fail throws; never reached
}

}  // namespace kforge::light

namespace c10 {

template <class T>
using optional = std::optional<T>;
using std::make_optional;
using std::nullopt;
using std::nullopt_t;

enum class ScalarType : int8_t {
  Byte = 0,
  Char = 1,
  Short = 2,
  Int = 3,
  Long = 4,
  Half = 5,
  Float = 6,
  Double = 7,
  ComplexHalf = 8,
  ComplexFloat = 9,
  ComplexDouble = 10,
  Bool = 11,
  QInt8 = 12,
  QUInt8 = 13,
  QInt32 = 14,
  BFloat16 = 15,
  Undefined = 127,
};

constexpr ScalarType kByte = ScalarType::Byte;
constexpr ScalarType kChar = ScalarType::Char;
constexpr ScalarType kShort = ScalarType::Short;
constexpr ScalarType kInt = ScalarType::Int;
constexpr ScalarType kLong = ScalarType::Long;
constexpr ScalarType kHalf = ScalarType::Half;
constexpr ScalarType kFloat = ScalarType::Float;
constexpr ScalarType kDouble = ScalarType::Double;
constexpr ScalarType kBool = ScalarType::Bool;
constexpr ScalarType kBFloat16 = ScalarType::BFloat16;
constexpr ScalarType kComplexFloat = ScalarType::ComplexFloat;
constexpr ScalarType kComplexDouble = ScalarType::ComplexDouble;

inline const char* toString(ScalarType t) {
  switch (t) {
    case ScalarType::Byte:
      return "Byte";
    case ScalarType::Char:
      return "Char";
    case ScalarType::Short:
      return "Short";
    case ScalarType::Int:
      return "Int";
    case ScalarType::Long:
      return "Long";
    case ScalarType::Half:
      return "Half";
    case ScalarType::Float:
      return "Float";
    case ScalarType::Double:
      return "Double";
    case ScalarType::ComplexHalf:
      return "ComplexHalf";
    case ScalarType::ComplexFloat:
      return "ComplexFloat";
    case ScalarType::ComplexDouble:
      return "ComplexDouble";
    case ScalarType::Bool:
      return "Bool";
    case ScalarType::QInt8:
      return "QInt8";
    case ScalarType::QUInt8:
      return "QUInt8";
    case ScalarType::QInt32:
      return "QInt32";
    case ScalarType::BFloat16:
      return "BFloat16";
    default:
      return "UNKNOWN_SCALAR";
  }
}

inline size_t elementSize(ScalarType t) {
  switch (t) {
    case ScalarType::Byte:
    case ScalarType::Char:
    case ScalarType::Bool:
    case ScalarType::QInt8:
    case ScalarType::QUInt8:
      return 1;
    case ScalarType::Short:
    case ScalarType::Half:
    case ScalarType::BFloat16:
      return 2;
    case ScalarType::Int:
    case ScalarType::Float:
    case ScalarType::ComplexHalf:
    case ScalarType::QInt32:
      return 4;
    case ScalarType::Long:
    case ScalarType::Double:
    case ScalarType::ComplexFloat:
      return 8;
    case ScalarType::ComplexDouble:
      return 16;
    default:
      ::kforge::light::fail("elementSize of an unknown scalar type");
  }
}

inline bool isFloatingType(ScalarType t) {
  return t == ScalarType::Double || t == ScalarType::Float || t == ScalarType::Half ||
         t == ScalarType::BFloat16;
}
inline bool isIntegralType(ScalarType t, bool include_bool) {
  return t == ScalarType::Byte || t == ScalarType::Char || t == ScalarType::Short ||
         t == ScalarType::Int || t == ScalarType::Long || (include_bool && t == ScalarType::Bool);
}

enum class DeviceType : int8_t { CPU = 0, CUDA = 1 };
constexpr DeviceType kCPU = DeviceType::CPU;
constexpr DeviceType kCUDA = DeviceType::CUDA;
using DeviceIndex = int8_t;

struct Device {
  Device(DeviceType type, DeviceIndex index = -1) : type_(type), index_(index) {}
  DeviceType type() const noexcept { return type_; }
  DeviceIndex index() const noexcept { return index_; }
  bool has_index() const noexcept { return index_ != -1; }
  bool is_cuda() const noexcept { return type_ == DeviceType::CUDA; }
  bool is_cpu() const noexcept { return type_ == DeviceType::CPU; }
  bool operator==(const Device& o) const noexcept { return type_ == o.type_ && index_ == o.index_; }
  bool operator!=(const Device& o) const noexcept { return !(*this == o); }
  void set_index(DeviceIndex index) { index_ = index; }
  std::string str() const {
    std::string s = type_ == DeviceType::CUDA ? "cuda" : "cpu";
    return has_index() ? s + ":" + std::to_string(int(index_)) : s;
  }

 private:
  DeviceType type_;
  DeviceIndex index_;
};

enum class Layout : int8_t { Strided = 0 };
constexpr Layout kStrided = Layout::Strided;

enum class MemoryFormat : int8_t {
  Contiguous = 0,
  Preserve = 1,
  ChannelsLast = 2,
  ChannelsLast3d = 3
};

/// c10::ArrayRef: a view of contiguous elements it does not own.
template <class T>
class ArrayRef {
 public:
  using iterator = const T*;
  using const_iterator = const T*;
  using value_type = T;
  using size_type = size_t;

  constexpr ArrayRef() = default;
  constexpr ArrayRef(const T& one) : data_(&one), size_(1) {}
  constexpr ArrayRef(const T* data, size_t size) : data_(data), size_(size) {}
  constexpr ArrayRef(const T* begin, const T* end) : data_(begin), size_(end - begin) {}
  template <class A>
  ArrayRef(const std::vector<T, A>& v) : data_(v.data()), size_(v.size()) {}
  template <size_t N>
  constexpr ArrayRef(const T (&a)[N]) : data_(a), size_(N) {}
  constexpr ArrayRef(const std::initializer_list<T>& list)
      : data_(list.begin() == list.end() ? nullptr : list.begin()), size_(list.size()) {}

  constexpr const T* begin() const { return data_; }
  constexpr const T* end() const { return data_ + size_; }
  constexpr const T* data() const { return data_; }
  constexpr size_t size() const { return size_; }
  constexpr bool empty() const { return size_ == 0; }
  const T& front() const { return data_[0]; }
  const T& back() const { return data_[size_ - 1]; }
  constexpr const T& operator[](size_t i) const { return data_[i]; }
  const T& at(size_t i) const {
    if (i >= size_)
      ::kforge::light::fail(
          ::kforge::light::str("ArrayRef: invalid index Index = ", i, "; Length = ", size_));
    return data_[i];
  }
  ArrayRef slice(size_t start, size_t n) const { return ArrayRef(data_ + start, n); }
  ArrayRef slice(size_t start) const { return slice(start, size_ - start); }
  bool equals(ArrayRef other) const {
    return size_ == other.size_ && std::equal(begin(), end(), other.begin());
  }
  std::vector<T> vec() const { return std::vector<T>(data_, data_ + size_); }

 private:
  const T* data_ = nullptr;
  size_t size_ = 0;
};
template <class T>
bool operator==(ArrayRef<T> a, ArrayRef<T> b) {
  return a.equals(b);
}
template <class T>
bool operator!=(ArrayRef<T> a, ArrayRef<T> b) {
  return !a.equals(b);
}
using IntArrayRef = ArrayRef<int64_t>;

}  // namespace c10

namespace caffe2 {
/// What Tensor::dtype() returns: a scalar type that compares with c10::ScalarType.
class TypeMeta {
 public:
  TypeMeta() = default;
  TypeMeta(c10::ScalarType t) : type_(t) {}
  static TypeMeta fromScalarType(c10::ScalarType t) { return TypeMeta(t); }
  c10::ScalarType toScalarType() const { return type_; }
  size_t itemsize() const { return c10::elementSize(type_); }
  const char* name() const { return c10::toString(type_); }
  operator c10::ScalarType() const { return type_; }
  bool operator==(const TypeMeta& o) const { return type_ == o.type_; }
  bool operator!=(const TypeMeta& o) const { return type_ != o.type_; }

 private:
  c10::ScalarType type_ = c10::ScalarType::Undefined;
};
}  // namespace caffe2

// How c10::str prints these types: found by argument-dependent lookup from kforge::light::str.
namespace caffe2 {
inline void append(std::string& s, const TypeMeta& t) {
  s += t.name();
}
}  // namespace caffe2

namespace c10 {
inline void append(std::string& s, ScalarType t) {
  s += toString(t);
}
inline void append(std::string& s, const Device& d) {
  s += d.str();
}
template <class T>
void append(std::string& s, ArrayRef<T> list) {
  s += '[';
  for (size_t i = 0; i < list.size(); ++i) {
    if (i) s += ", ";
    ::kforge::light::append(s, list[i]);
  }
  s += ']';
}
}  // namespace c10

namespace c10 {
inline bool operator==(const caffe2::TypeMeta& a, ScalarType b) {
  return a.toScalarType() == b;
}
inline bool operator==(ScalarType a, const caffe2::TypeMeta& b) {
  return a == b.toScalarType();
}
inline bool operator!=(const caffe2::TypeMeta& a, ScalarType b) {
  return !(a == b);
}
inline bool operator!=(ScalarType a, const caffe2::TypeMeta& b) {
  return !(a == b);
}
inline ScalarType typeMetaToScalarType(caffe2::TypeMeta t) {
  return t.toScalarType();
}

/// c10::TensorOptions, the parts factories read: dtype, device, layout and memory format.
struct TensorOptions {
  TensorOptions() = default;
  TensorOptions(ScalarType t) : dtype_(t) {}
  TensorOptions(caffe2::TypeMeta t) : dtype_(t.toScalarType()) {}
  TensorOptions(Device d) : device_(d) {}
  TensorOptions(DeviceType t) : device_(Device(t)) {}
  TensorOptions(Layout) {}
  TensorOptions(MemoryFormat f) : memory_format_(f) {}

  TensorOptions dtype(ScalarType t) const {
    TensorOptions o = *this;
    o.dtype_ = t;
    return o;
  }
  TensorOptions dtype(caffe2::TypeMeta t) const { return dtype(t.toScalarType()); }
  TensorOptions dtype(std::optional<ScalarType> t) const {
    TensorOptions o = *this;
    o.dtype_ = t;
    return o;
  }
  TensorOptions device(Device d) const {
    TensorOptions o = *this;
    o.device_ = d;
    return o;
  }
  TensorOptions device(DeviceType t, DeviceIndex index = -1) const {
    return device(Device(t, index));
  }
  TensorOptions device_index(DeviceIndex index) const { return device(Device(kCUDA, index)); }
  TensorOptions layout(Layout) const { return *this; }
  TensorOptions memory_format(MemoryFormat f) const {
    TensorOptions o = *this;
    o.memory_format_ = f;
    return o;
  }

  caffe2::TypeMeta dtype() const { return dtype_.value_or(ScalarType::Float); }
  Device device() const { return device_.value_or(Device(kCPU)); }
  Layout layout() const { return Layout::Strided; }
  bool has_dtype() const { return dtype_.has_value(); }
  bool has_device() const { return device_.has_value(); }
  std::optional<ScalarType> dtype_opt() const { return dtype_; }
  std::optional<Device> device_opt() const { return device_; }
  std::optional<MemoryFormat> memory_format_opt() const { return memory_format_; }

  /// What crosses to the worker.
  kforge_light_options to_light(std::optional<MemoryFormat> explicit_format) const {
    if (explicit_format && memory_format_)
      ::kforge::light::fail(
          "Cannot set memory_format both in TensorOptions and explicit argument; please delete "
          "the redundant setter.");
    auto format = explicit_format ? explicit_format : memory_format_;
    return {dtype_ ? int32_t(*dtype_) : -1, device_ ? int32_t(device_->type()) : -1,
            device_ ? int32_t(device_->index()) : -1, format ? int32_t(*format) : -1};
  }

 private:
  std::optional<ScalarType> dtype_;
  std::optional<Device> device_;
  std::optional<MemoryFormat> memory_format_;
};

inline TensorOptions dtype(ScalarType t) {
  return TensorOptions().dtype(t);
}
inline TensorOptions dtype(caffe2::TypeMeta t) {
  return TensorOptions().dtype(t);
}
inline TensorOptions device(Device d) {
  return TensorOptions().device(d);
}
inline TensorOptions layout(Layout l) {
  return TensorOptions().layout(l);
}
inline TensorOptions device_index(DeviceIndex index) {
  return TensorOptions().device_index(index);
}

}  // namespace c10
