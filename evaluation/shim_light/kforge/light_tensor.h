// at::Tensor of kforge's light headers: a handle to the worker's real tensor, whose every method
// is a call through kforge_light_api into LibTorch (metadata, data pointers, factories, and a few
// view and copy operators called boxed by schema name), so a kernel gets LibTorch's own results
// and errors without its headers. Also the accessors, factories and TORCH_CHECK.
#pragma once

#include "kforge/light_half.h"
#include "kforge/light_types.h"

// The worker's handle of an ATen operator, looked up once per call site (a thread-safe static), so
// a view or an add in a kernel's hot path costs no lookup.
#define KFORGE_LIGHT_OP(name, overload)                                                  \
  ([] {                                                                                  \
    static const void* const kforge_op = ::kforge::light::api().find_op(name, overload); \
    return kforge_op;                                                                    \
  }())

namespace kforge::light {

template <class T>
struct scalar_type_of;
#define KFORGE_LIGHT_SCALAR_OF(T, S)                             \
  template <>                                                    \
  struct scalar_type_of<T> {                                     \
    static constexpr c10::ScalarType value = c10::ScalarType::S; \
  };
KFORGE_LIGHT_SCALAR_OF(uint8_t, Byte)
KFORGE_LIGHT_SCALAR_OF(int8_t, Char)
KFORGE_LIGHT_SCALAR_OF(int16_t, Short)
KFORGE_LIGHT_SCALAR_OF(int32_t, Int)
KFORGE_LIGHT_SCALAR_OF(int64_t, Long)
KFORGE_LIGHT_SCALAR_OF(float, Float)
KFORGE_LIGHT_SCALAR_OF(double, Double)
KFORGE_LIGHT_SCALAR_OF(bool, Bool)
#ifdef KFORGE_LIGHT_HAS_HALF
KFORGE_LIGHT_SCALAR_OF(c10::Half, Half)
KFORGE_LIGHT_SCALAR_OF(c10::BFloat16, BFloat16)
#endif
#undef KFORGE_LIGHT_SCALAR_OF

inline kforge_light_value none_value() {
  kforge_light_value v{};
  v.tag = KFORGE_LIGHT_NONE;
  return v;
}
inline kforge_light_value int_value(int64_t i, int32_t tag = KFORGE_LIGHT_INT) {
  kforge_light_value v{};
  v.tag = tag;
  v.u.integer = i;
  return v;
}
inline kforge_light_value ints_value(c10::IntArrayRef ints) {
  kforge_light_value v{};
  v.tag = KFORGE_LIGHT_INTS;
  v.u.ints.data = ints.data();
  v.u.ints.size = static_cast<int64_t>(ints.size());
  return v;
}
inline kforge_light_value double_value(double d) {
  kforge_light_value v{};
  v.tag = KFORGE_LIGHT_DOUBLE;
  v.u.real = d;
  return v;
}

}  // namespace kforge::light

namespace c10 {
/// c10::Scalar: a number an operator takes, integral or floating as it was written.
class Scalar {
 public:
  Scalar() : Scalar(int64_t(0)) {}
  Scalar(double v) : value_(::kforge::light::double_value(v)) {}
  Scalar(float v) : Scalar(double(v)) {}
  Scalar(bool v) : value_(::kforge::light::int_value(v, KFORGE_LIGHT_BOOL)) {}
  template <class T, class = std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>>>
  Scalar(T v) : value_(::kforge::light::int_value(static_cast<int64_t>(v))) {}
  bool isFloatingPoint() const { return value_.tag == KFORGE_LIGHT_DOUBLE; }
  bool isIntegral(bool include_bool) const {
    return value_.tag == KFORGE_LIGHT_INT || (include_bool && value_.tag == KFORGE_LIGHT_BOOL);
  }
  double toDouble() const { return isFloatingPoint() ? value_.u.real : double(value_.u.integer); }
  float toFloat() const { return float(toDouble()); }
  int64_t toLong() const { return isFloatingPoint() ? int64_t(value_.u.real) : value_.u.integer; }
  int toInt() const { return int(toLong()); }
  const kforge_light_value& light() const { return value_; }

 private:
  kforge_light_value value_;
};
}  // namespace c10

namespace at {
using namespace c10;

template <class T>
struct DefaultPtrTraits {
  typedef T* PtrType;
};
template <class T>
struct RestrictPtrTraits {
  typedef T* __restrict__ PtrType;
};

/// at::TensorAccessor: indexing through borrowed sizes and strides (host code).
template <class T, size_t N, template <class U> class PtrTraits = DefaultPtrTraits,
          class index_t = int64_t>
class TensorAccessor {
 public:
  typedef typename PtrTraits<T>::PtrType PtrType;
  C10_HOST_DEVICE TensorAccessor(PtrType data, const index_t* sizes, const index_t* strides)
      : data_(data), sizes_(sizes), strides_(strides) {}
  C10_HOST_DEVICE TensorAccessor<T, N - 1, PtrTraits, index_t> operator[](index_t i) {
    return TensorAccessor<T, N - 1, PtrTraits, index_t>(data_ + strides_[0] * i, sizes_ + 1,
                                                        strides_ + 1);
  }
  C10_HOST_DEVICE const TensorAccessor<T, N - 1, PtrTraits, index_t> operator[](index_t i) const {
    return TensorAccessor<T, N - 1, PtrTraits, index_t>(data_ + strides_[0] * i, sizes_ + 1,
                                                        strides_ + 1);
  }
  C10_HOST_DEVICE index_t size(index_t i) const { return sizes_[i]; }
  C10_HOST_DEVICE index_t stride(index_t i) const { return strides_[i]; }
  C10_HOST_DEVICE PtrType data() { return data_; }
  C10_HOST_DEVICE const PtrType data() const { return data_; }

 private:
  PtrType data_;
  const index_t* sizes_;
  const index_t* strides_;
};
template <class T, template <class U> class PtrTraits, class index_t>
class TensorAccessor<T, 1, PtrTraits, index_t> {
 public:
  typedef typename PtrTraits<T>::PtrType PtrType;
  C10_HOST_DEVICE TensorAccessor(PtrType data, const index_t* sizes, const index_t* strides)
      : data_(data), sizes_(sizes), strides_(strides) {}
  C10_HOST_DEVICE T& operator[](index_t i) { return data_[strides_[0] * i]; }
  C10_HOST_DEVICE const T& operator[](index_t i) const { return data_[strides_[0] * i]; }
  C10_HOST_DEVICE index_t size(index_t i) const { return sizes_[i]; }
  C10_HOST_DEVICE index_t stride(index_t i) const { return strides_[i]; }
  C10_HOST_DEVICE PtrType data() { return data_; }
  C10_HOST_DEVICE const PtrType data() const { return data_; }

 private:
  PtrType data_;
  const index_t* sizes_;
  const index_t* strides_;
};

/// at::GenericPackedTensorAccessor: sizes and strides copied in, so it can be passed to a kernel.
template <class T, size_t N, template <class U> class PtrTraits = DefaultPtrTraits,
          class index_t = int64_t>
class GenericPackedTensorAccessor {
 public:
  typedef typename PtrTraits<T>::PtrType PtrType;
  C10_HOST GenericPackedTensorAccessor(PtrType data, const int64_t* sizes, const int64_t* strides)
      : data_(data) {
    for (size_t i = 0; i < N; ++i) {
      sizes_[i] = static_cast<index_t>(sizes[i]);
      strides_[i] = static_cast<index_t>(strides[i]);
    }
  }
  C10_HOST_DEVICE decltype(auto) operator[](index_t i) {
    if constexpr (N == 1) {
      return data_[strides_[0] * i];
    } else {
      return TensorAccessor<T, N - 1, PtrTraits, index_t>(data_ + strides_[0] * i, sizes_ + 1,
                                                          strides_ + 1);
    }
  }
  C10_HOST_DEVICE decltype(auto) operator[](index_t i) const {
    if constexpr (N == 1) {
      return static_cast<const T&>(data_[strides_[0] * i]);
    } else {
      return static_cast<const TensorAccessor<T, N - 1, PtrTraits, index_t>>(
          TensorAccessor<T, N - 1, PtrTraits, index_t>(data_ + strides_[0] * i, sizes_ + 1,
                                                       strides_ + 1));
    }
  }
  C10_HOST_DEVICE index_t size(index_t i) const { return sizes_[i]; }
  C10_HOST_DEVICE index_t stride(index_t i) const { return strides_[i]; }
  C10_HOST_DEVICE PtrType data() { return data_; }
  C10_HOST_DEVICE const PtrType data() const { return data_; }

 private:
  PtrType data_;
  index_t sizes_[N];
  index_t strides_[N];
};
template <class T, size_t N, template <class U> class PtrTraits = DefaultPtrTraits>
using PackedTensorAccessor32 = GenericPackedTensorAccessor<T, N, PtrTraits, int32_t>;
template <class T, size_t N, template <class U> class PtrTraits = DefaultPtrTraits>
using PackedTensorAccessor64 = GenericPackedTensorAccessor<T, N, PtrTraits, int64_t>;

/// The deprecated `tensor.type()`: enough for AT_DISPATCH and `is_cuda()`.
struct DeprecatedTypeProperties {
  ScalarType scalar_type;
  bool cuda;
  ScalarType scalarType() const { return scalar_type; }
  bool is_cuda() const { return cuda; }
};

class Tensor {
 public:
  Tensor() noexcept = default;
  Tensor(const Tensor& other) : impl_(other.impl_) {
    if (impl_) kforge::light::api().retain(impl_);
  }
  Tensor(Tensor&& other) noexcept : impl_(std::exchange(other.impl_, nullptr)) {}
  Tensor& operator=(const Tensor& other) & {
    Tensor(other).swap(*this);
    return *this;
  }
  Tensor& operator=(Tensor&& other) & noexcept {
    Tensor(std::move(other)).swap(*this);
    return *this;
  }
  ~Tensor() {
    if (impl_) kforge::light::api().release(impl_);
  }
  void swap(Tensor& other) noexcept { std::swap(impl_, other.impl_); }

  /// Takes over a handle the worker handed out (a new reference).
  static Tensor adopt(void* handle) {
    Tensor t;
    t.impl_ = handle;
    return t;
  }
  /// Shares a handle someone else owns.
  static Tensor borrow(void* handle) {
    if (handle) kforge::light::api().retain(handle);
    return adopt(handle);
  }
  void* handle() const { return impl_; }
  /// A new reference to this tensor's handle, for the worker to take over.
  void* new_handle() const { return Tensor(*this).release_handle(); }
  void* release_handle() { return std::exchange(impl_, nullptr); }

  bool defined() const { return impl_ != nullptr; }
  int64_t dim() const { return kforge::light::api().dim(checked()); }
  int64_t ndimension() const { return dim(); }
  IntArrayRef sizes() const {
    return IntArrayRef(kforge::light::api().sizes(checked()), static_cast<size_t>(dim()));
  }
  IntArrayRef strides() const {
    return IntArrayRef(kforge::light::api().strides(checked()), static_cast<size_t>(dim()));
  }
  int64_t size(int64_t d) const { return sizes()[wrap(d)]; }
  int64_t stride(int64_t d) const { return strides()[wrap(d)]; }
  int64_t numel() const { return kforge::light::api().numel(checked()); }
  int64_t storage_offset() const { return kforge::light::api().storage_offset(checked()); }
  ScalarType scalar_type() const {
    return static_cast<ScalarType>(kforge::light::api().scalar_type(checked()));
  }
  caffe2::TypeMeta dtype() const { return scalar_type(); }
  int64_t element_size() const { return static_cast<int64_t>(elementSize(scalar_type())); }
  int64_t itemsize() const { return element_size(); }
  size_t nbytes() const { return static_cast<size_t>(numel() * element_size()); }
  Device device() const {
    return Device(static_cast<DeviceType>(kforge::light::api().device_type(checked())),
                  static_cast<DeviceIndex>(kforge::light::api().device_index(checked())));
  }
  int64_t get_device() const { return is_cuda() ? device().index() : -1; }
  bool is_cuda() const { return device().is_cuda(); }
  bool is_cpu() const { return device().is_cpu(); }
  bool is_contiguous(MemoryFormat format = MemoryFormat::Contiguous) const {
    return kforge::light::api().is_contiguous(checked(), int32_t(format)) != 0;
  }
  TensorOptions options() const { return TensorOptions().dtype(scalar_type()).device(device()); }
  DeprecatedTypeProperties type() const { return {scalar_type(), is_cuda()}; }

  void* data_ptr() const { return kforge::light::api().data_ptr(checked()); }
  const void* const_data_ptr() const { return data_ptr(); }
  void* mutable_data_ptr() const { return data_ptr(); }
  template <class T>
  T* data_ptr() const {
    constexpr ScalarType expected = kforge::light::scalar_type_of<std::remove_cv_t<T>>::value;
    if (scalar_type() != expected)
      kforge::light::fail(
          kforge::light::str("expected scalar type ", expected, " but found ", scalar_type()));
    return static_cast<T*>(data_ptr());
  }
  template <class T>
  const T* const_data_ptr() const {
    return data_ptr<T>();
  }
  template <class T>
  T* mutable_data_ptr() const {
    return data_ptr<T>();
  }
  template <class T>
  T* data() const {
    return data_ptr<T>();
  }
  template <class T>
  T item() const {
    std::conditional_t<std::is_same_v<T, bool>, bool, T> out{};
    kforge::light::api().item(checked(), int32_t(kforge::light::scalar_type_of<T>::value), &out);
    return out;
  }

  template <class T, size_t N>
  TensorAccessor<T, N> accessor() const& {
    static_assert(N > 0, "accessor is used for indexing tensor, for scalars use *data_ptr<T>()");
    if (dim() != static_cast<int64_t>(N))
      kforge::light::fail(
          kforge::light::str("TensorAccessor expected ", N, " dims but tensor has ", dim()));
    return TensorAccessor<T, N>(data_ptr<T>(), sizes().data(), strides().data());
  }
  template <class T, size_t N>
  TensorAccessor<T, N> accessor() && = delete;
  template <class T, size_t N, template <class U> class PtrTraits = DefaultPtrTraits,
            class index_t = int64_t>
  GenericPackedTensorAccessor<T, N, PtrTraits, index_t> generic_packed_accessor() const& {
    static_assert(N > 0, "accessor is used for indexing tensor, for scalars use *data_ptr<T>()");
    if (dim() != static_cast<int64_t>(N))
      kforge::light::fail(
          kforge::light::str("TensorAccessor expected ", N, " dims but tensor has ", dim()));
    return GenericPackedTensorAccessor<T, N, PtrTraits, index_t>(
        static_cast<typename PtrTraits<T>::PtrType>(data_ptr<T>()), sizes().data(),
        strides().data());
  }
  template <class T, size_t N, template <class U> class PtrTraits = DefaultPtrTraits>
  PackedTensorAccessor32<T, N, PtrTraits> packed_accessor32() const& {
    if (numel() > std::numeric_limits<int32_t>::max())
      kforge::light::fail(
          "numel needs to be smaller than int32_t max; otherwise, please use packed_accessor64");
    return generic_packed_accessor<T, N, PtrTraits, int32_t>();
  }
  template <class T, size_t N, template <class U> class PtrTraits = DefaultPtrTraits>
  PackedTensorAccessor64<T, N, PtrTraits> packed_accessor64() const& {
    return generic_packed_accessor<T, N, PtrTraits, int64_t>();
  }

  Tensor contiguous(MemoryFormat format = MemoryFormat::Contiguous) const {
    return adopt(kforge::light::api().contiguous(checked(), int32_t(format)));
  }
  // Views and copies: LibTorch's operators, called boxed with every schema argument.
  Tensor view(IntArrayRef size) const {
    return op(KFORGE_LIGHT_OP("aten::view", ""), self(), ints(size));
  }
  Tensor reshape(IntArrayRef shape) const {
    return op(KFORGE_LIGHT_OP("aten::reshape", ""), self(), ints(shape));
  }
  Tensor view_as(const Tensor& other) const { return view(other.sizes()); }
  Tensor reshape_as(const Tensor& other) const { return reshape(other.sizes()); }
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1) const {
    return op(KFORGE_LIGHT_OP("aten::flatten", "using_ints"), self(), integer(start_dim),
              integer(end_dim));
  }
  Tensor transpose(int64_t dim0, int64_t dim1) const {
    return op(KFORGE_LIGHT_OP("aten::transpose", "int"), self(), integer(dim0), integer(dim1));
  }
  Tensor t() const { return op(KFORGE_LIGHT_OP("aten::t", ""), self()); }
  Tensor permute(IntArrayRef dims) const {
    return op(KFORGE_LIGHT_OP("aten::permute", ""), self(), ints(dims));
  }
  Tensor unsqueeze(int64_t d) const {
    return op(KFORGE_LIGHT_OP("aten::unsqueeze", ""), self(), integer(d));
  }
  Tensor squeeze() const { return op(KFORGE_LIGHT_OP("aten::squeeze", ""), self()); }
  Tensor squeeze(int64_t d) const {
    return op(KFORGE_LIGHT_OP("aten::squeeze", "dim"), self(), integer(d));
  }
  Tensor expand(IntArrayRef size, bool implicit = false) const {
    return op(KFORGE_LIGHT_OP("aten::expand", ""), self(), ints(size), boolean(implicit));
  }
  Tensor narrow(int64_t d, int64_t start, int64_t length) const {
    return op(KFORGE_LIGHT_OP("aten::narrow", ""), self(), integer(d), integer(start),
              integer(length));
  }
  Tensor select(int64_t d, int64_t index) const {
    return op(KFORGE_LIGHT_OP("aten::select", "int"), self(), integer(d), integer(index));
  }
  Tensor detach() const { return op(KFORGE_LIGHT_OP("aten::detach", ""), self()); }
  Tensor clone(std::optional<MemoryFormat> format = std::nullopt) const {
    return op(KFORGE_LIGHT_OP("aten::clone", ""), self(), memory_format(format));
  }
  Tensor to(ScalarType type, bool non_blocking = false, bool copy = false,
            std::optional<MemoryFormat> format = std::nullopt) const {
    kforge_light_value st = kforge::light::int_value(int64_t(type), KFORGE_LIGHT_SCALAR_TYPE);
    return op(KFORGE_LIGHT_OP("aten::to", "dtype"), self(), st, boolean(non_blocking),
              boolean(copy), memory_format(format));
  }
  Tensor to(caffe2::TypeMeta type) const { return to(type.toScalarType()); }
  Tensor& zero_() {
    op(KFORGE_LIGHT_OP("aten::zero_", ""), self());
    return *this;
  }
  Tensor& fill_(const Scalar& value) {
    op(KFORGE_LIGHT_OP("aten::fill_", "Scalar"), self(), value.light());
    return *this;
  }

  // Arithmetic, as LibTorch's operators and methods compute it.
  Tensor add(const Tensor& other, const Scalar& alpha = 1) const {
    return op(KFORGE_LIGHT_OP("aten::add", "Tensor"), self(), other.self(), alpha.light());
  }
  Tensor add(const Scalar& other, const Scalar& alpha = 1) const {
    return op(KFORGE_LIGHT_OP("aten::add", "Scalar"), self(), other.light(), alpha.light());
  }
  Tensor sub(const Tensor& other, const Scalar& alpha = 1) const {
    return op(KFORGE_LIGHT_OP("aten::sub", "Tensor"), self(), other.self(), alpha.light());
  }
  Tensor sub(const Scalar& other, const Scalar& alpha = 1) const {
    return op(KFORGE_LIGHT_OP("aten::sub", "Scalar"), self(), other.light(), alpha.light());
  }
  Tensor mul(const Tensor& other) const {
    return op(KFORGE_LIGHT_OP("aten::mul", "Tensor"), self(), other.self());
  }
  Tensor mul(const Scalar& other) const {
    return op(KFORGE_LIGHT_OP("aten::mul", "Scalar"), self(), other.light());
  }
  Tensor div(const Tensor& other) const {
    return op(KFORGE_LIGHT_OP("aten::div", "Tensor"), self(), other.self());
  }
  Tensor div(const Scalar& other) const {
    return op(KFORGE_LIGHT_OP("aten::div", "Scalar"), self(), other.light());
  }
  Tensor& add_(const Tensor& other, const Scalar& alpha = 1) {
    return in_place(KFORGE_LIGHT_OP("aten::add_", "Tensor"), other.self(), alpha.light());
  }
  Tensor& add_(const Scalar& other, const Scalar& alpha = 1) {
    return in_place(KFORGE_LIGHT_OP("aten::add_", "Scalar"), other.light(), alpha.light());
  }
  Tensor& sub_(const Tensor& other, const Scalar& alpha = 1) {
    return in_place(KFORGE_LIGHT_OP("aten::sub_", "Tensor"), other.self(), alpha.light());
  }
  Tensor& sub_(const Scalar& other, const Scalar& alpha = 1) {
    return in_place(KFORGE_LIGHT_OP("aten::sub_", "Scalar"), other.light(), alpha.light());
  }
  Tensor& mul_(const Tensor& other) {
    return in_place(KFORGE_LIGHT_OP("aten::mul_", "Tensor"), other.self());
  }
  Tensor& mul_(const Scalar& other) {
    return in_place(KFORGE_LIGHT_OP("aten::mul_", "Scalar"), other.light());
  }
  Tensor& div_(const Tensor& other) {
    return in_place(KFORGE_LIGHT_OP("aten::div_", "Tensor"), other.self());
  }
  Tensor& div_(const Scalar& other) {
    return in_place(KFORGE_LIGHT_OP("aten::div_", "Scalar"), other.light());
  }
  Tensor neg() const { return op(KFORGE_LIGHT_OP("aten::neg", ""), self()); }
  Tensor reciprocal() const { return op(KFORGE_LIGHT_OP("aten::reciprocal", ""), self()); }
  Tensor rsqrt() const { return op(KFORGE_LIGHT_OP("aten::rsqrt", ""), self()); }
  Tensor sqrt() const { return op(KFORGE_LIGHT_OP("aten::sqrt", ""), self()); }
  Tensor exp() const { return op(KFORGE_LIGHT_OP("aten::exp", ""), self()); }
  Tensor log() const { return op(KFORGE_LIGHT_OP("aten::log", ""), self()); }
  Tensor abs() const { return op(KFORGE_LIGHT_OP("aten::abs", ""), self()); }
  Tensor tanh() const { return op(KFORGE_LIGHT_OP("aten::tanh", ""), self()); }
  Tensor sigmoid() const { return op(KFORGE_LIGHT_OP("aten::sigmoid", ""), self()); }
  Tensor relu() const { return op(KFORGE_LIGHT_OP("aten::relu", ""), self()); }
  Tensor& copy_(const Tensor& src, bool non_blocking = false) {
    op(KFORGE_LIGHT_OP("aten::copy_", ""), self(), src.self(), boolean(non_blocking));
    return *this;
  }

  /// A boxed call of an operator (a KFORGE_LIGHT_OP handle) that returns one tensor.
  template <class... Values>
  static Tensor op(const void* handle, const Values&... args) {
    const kforge_light_value values[] = {args...};
    kforge_light_value result = kforge::light::none_value();
    int32_t n =
        kforge::light::api().call_op(handle, values, int32_t(sizeof...(Values)), &result, 1);
    return n == 1 && result.tag == KFORGE_LIGHT_TENSOR ? adopt(result.u.tensor) : Tensor();
  }
  template <class... Values>
  Tensor& in_place(const void* handle, const Values&... args) {
    op(handle, self(), args...);
    return *this;
  }
  kforge_light_value self() const {
    kforge_light_value v{};
    v.tag = KFORGE_LIGHT_TENSOR;
    v.u.tensor = checked();
    return v;
  }

 private:
  static kforge_light_value ints(IntArrayRef list) { return kforge::light::ints_value(list); }
  static kforge_light_value integer(int64_t i) { return kforge::light::int_value(i); }
  static kforge_light_value boolean(bool b) {
    return kforge::light::int_value(b, KFORGE_LIGHT_BOOL);
  }
  static kforge_light_value memory_format(std::optional<MemoryFormat> format) {
    return format ? kforge::light::int_value(int64_t(*format), KFORGE_LIGHT_MEMORY_FORMAT)
                  : kforge::light::none_value();
  }
  void* checked() const {
    if (!impl_)
      kforge::light::fail(
          "Expected a proper Tensor but got None (or an undefined Tensor in C++) for argument "
          "#0 'self'");
    return impl_;
  }
  size_t wrap(int64_t d) const {
    int64_t n = dim();
    int64_t lo = n > 0 ? -n : -1, hi = n > 0 ? n - 1 : 0;
    if (d < lo || d > hi)
      kforge::light::fail(kforge::light::str("Dimension out of range (expected to be in range of [",
                                             lo, ", ", hi, "], but got ", d, ")"));
    return static_cast<size_t>(d < 0 ? d + n : d);
  }

  void* impl_ = nullptr;
};

using TensorList = ArrayRef<Tensor>;

inline Tensor empty(IntArrayRef size, TensorOptions options = {},
                    std::optional<MemoryFormat> format = std::nullopt) {
  return Tensor::adopt(kforge::light::api().empty(size.data(), static_cast<int64_t>(size.size()),
                                                  options.to_light(format)));
}
inline Tensor zeros(IntArrayRef size, TensorOptions options = {}) {
  return Tensor::adopt(kforge::light::api().zeros(size.data(), static_cast<int64_t>(size.size()),
                                                  options.to_light(std::nullopt)));
}
inline Tensor empty_like(const Tensor& t, TensorOptions options = {},
                         std::optional<MemoryFormat> format = std::nullopt) {
  return Tensor::adopt(
      kforge::light::api().empty_like(t.self().u.tensor, options.to_light(format)));
}
inline Tensor zeros_like(const Tensor& t, TensorOptions options = {},
                         std::optional<MemoryFormat> format = std::nullopt) {
  return Tensor::adopt(
      kforge::light::api().zeros_like(t.self().u.tensor, options.to_light(format)));
}

// LibTorch's operators on tensors and scalars (ATen/TensorOperators.h computes them so).
inline Tensor operator-(const Tensor& t) {
  return t.neg();
}
inline Tensor operator+(const Tensor& a, const Tensor& b) {
  return a.add(b);
}
inline Tensor operator+(const Tensor& a, const Scalar& b) {
  return a.add(b);
}
inline Tensor operator+(const Scalar& a, const Tensor& b) {
  return b.add(a);
}
inline Tensor operator*(const Tensor& a, const Tensor& b) {
  return a.mul(b);
}
inline Tensor operator*(const Tensor& a, const Scalar& b) {
  return a.mul(b);
}
inline Tensor operator*(const Scalar& a, const Tensor& b) {
  return b.mul(a);
}
inline Tensor operator-(const Tensor& a, const Tensor& b) {
  return a.sub(b);
}
inline Tensor operator-(const Tensor& a, const Scalar& b) {
  return a.sub(b);
}
inline Tensor operator-(const Scalar& a, const Tensor& b) {
  return empty_like(b, {}, MemoryFormat::Preserve).fill_(a).sub_(b);
}
inline Tensor operator/(const Tensor& a, const Tensor& b) {
  return a.div(b);
}
inline Tensor operator/(const Tensor& a, const Scalar& b) {
  return a.div(b);
}
inline Tensor operator/(const Scalar& a, const Tensor& b) {
  return empty_like(b, {}, MemoryFormat::Preserve).fill_(a).div_(b);
}

// The library operators the kernel generator's library calls use (generator/: matrix products
// through cuBLAS, convolutions through cuDNN), called boxed in the worker's LibTorch.
inline Tensor mm(const Tensor& self, const Tensor& mat2) {
  return Tensor::op(KFORGE_LIGHT_OP("aten::mm", ""), self.self(), mat2.self());
}
inline Tensor bmm(const Tensor& self, const Tensor& mat2) {
  return Tensor::op(KFORGE_LIGHT_OP("aten::bmm", ""), self.self(), mat2.self());
}
inline Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2,
                    const Scalar& beta = 1, const Scalar& alpha = 1) {
  return Tensor::op(KFORGE_LIGHT_OP("aten::addmm", ""), self.self(), mat1.self(), mat2.self(),
                    beta.light(), alpha.light());
}
inline Tensor baddbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2,
                      const Scalar& beta = 1, const Scalar& alpha = 1) {
  return Tensor::op(KFORGE_LIGHT_OP("aten::baddbmm", ""), self.self(), batch1.self(), batch2.self(),
                    beta.light(), alpha.light());
}
inline Tensor convolution(const Tensor& input, const Tensor& weight,
                          const std::optional<Tensor>& bias, IntArrayRef stride,
                          IntArrayRef padding, IntArrayRef dilation, bool transposed,
                          IntArrayRef output_padding, int64_t groups) {
  const kforge_light_value no_bias = kforge::light::none_value();
  return Tensor::op(KFORGE_LIGHT_OP("aten::convolution", ""), input.self(), weight.self(),
                    bias && bias->defined() ? bias->self() : no_bias,
                    kforge::light::ints_value(stride), kforge::light::ints_value(padding),
                    kforge::light::ints_value(dilation),
                    kforge::light::int_value(transposed, KFORGE_LIGHT_BOOL),
                    kforge::light::ints_value(output_padding), kforge::light::int_value(groups));
}

inline std::optional<Device> device_of(const Tensor& t) {
  if (!t.defined()) return std::nullopt;
  return t.device();
}

}  // namespace at

namespace torch {
using namespace at;
constexpr auto kUInt8 = at::kByte;
constexpr auto kInt8 = at::kChar;
constexpr auto kInt16 = at::kShort;
constexpr auto kInt32 = at::kInt;
constexpr auto kInt64 = at::kLong;
constexpr auto kFloat16 = at::kHalf;
constexpr auto kFloat32 = at::kFloat;
constexpr auto kFloat64 = at::kDouble;
constexpr auto kF16 = at::kHalf;
constexpr auto kF32 = at::kFloat;
constexpr auto kF64 = at::kDouble;
constexpr auto kI8 = at::kChar;
constexpr auto kI16 = at::kShort;
constexpr auto kI32 = at::kInt;
constexpr auto kI64 = at::kLong;
constexpr auto kU8 = at::kByte;
using Dtype = at::ScalarType;
}  // namespace torch

// LibTorch's error macros, failing through the worker so the exception is LibTorch's own.
#define TORCH_CHECK(cond, ...)                                                                    \
  do {                                                                                            \
    if (C10_UNLIKELY(!(cond)))                                                                    \
      ::kforge::light::fail(::kforge::light::check_message("Expected " #cond                      \
                                                           " to be true, but got false.  (Could " \
                                                           "this error message be improved?  If " \
                                                           "so, please report an enhancement "    \
                                                           "request to PyTorch.)",                \
                                                           ##__VA_ARGS__));                       \
  } while (false)
#define TORCH_CHECK_VALUE(cond, ...) TORCH_CHECK(cond, ##__VA_ARGS__)
#define TORCH_CHECK_INDEX(cond, ...) TORCH_CHECK(cond, ##__VA_ARGS__)
#define TORCH_CHECK_TYPE(cond, ...) TORCH_CHECK(cond, ##__VA_ARGS__)
#define TORCH_CHECK_NOT_IMPLEMENTED(cond, ...) TORCH_CHECK(cond, ##__VA_ARGS__)
#define TORCH_INTERNAL_ASSERT(cond, ...) TORCH_CHECK(cond, ##__VA_ARGS__)
#define AT_ASSERT(cond, ...) TORCH_CHECK(cond, ##__VA_ARGS__)
#define AT_ASSERTM(cond, ...) TORCH_CHECK(cond, ##__VA_ARGS__)
#define AT_ERROR(...) ::kforge::light::fail(::kforge::light::str(__VA_ARGS__))
#define TORCH_WARN(...) ::kforge::light::api().warn(::kforge::light::str(__VA_ARGS__).c_str())
#define TORCH_WARN_ONCE(...) TORCH_WARN(__VA_ARGS__)

namespace kforge::light {
/// TORCH_CHECK's message: the arguments when there are any, else the default sentence.
inline std::string check_message(const char* default_message) {
  return default_message;
}
template <class... Args>
std::string check_message(const char*, const Args&... args) {
  return str(args...);
}
}  // namespace kforge::light
