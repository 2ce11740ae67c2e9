#include "evaluation/worker/light_api.hpp"

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>

#include <map>
#include <mutex>

#ifdef KFORGE_WITH_CUDA
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAFunctions.h>
#endif

namespace kforge::worker {
namespace {

// The light headers spell LibTorch's enums with these values
// (evaluation/shim_light/kforge/light_types.h).
static_assert(int(c10::ScalarType::Byte) == 0 && int(c10::ScalarType::Long) == 4 &&
              int(c10::ScalarType::Half) == 5 && int(c10::ScalarType::Float) == 6 &&
              int(c10::ScalarType::Double) == 7 && int(c10::ScalarType::Bool) == 11 &&
              int(c10::ScalarType::BFloat16) == 15);
static_assert(int(c10::DeviceType::CPU) == 0 && int(c10::DeviceType::CUDA) == 1);
static_assert(int(c10::MemoryFormat::Contiguous) == 0 && int(c10::MemoryFormat::Preserve) == 1 &&
              int(c10::MemoryFormat::ChannelsLast) == 2 &&
              int(c10::MemoryFormat::ChannelsLast3d) == 3);

using TensorPtr = c10::intrusive_ptr<c10::TensorImpl, c10::UndefinedTensorImpl>;

c10::TensorImpl* impl(void* handle) {
  return static_cast<c10::TensorImpl*>(handle);
}

/// A tensor sharing a handle the caller keeps owning.
at::Tensor borrowed(void* handle) {
  if (!handle) return at::Tensor();
  return at::Tensor(TensorPtr::unsafe_reclaim_from_nonowning(impl(handle)));
}

/// A new handle the receiver owns (nullptr for an undefined tensor).
void* owned_handle(at::Tensor t) {
  if (!t.defined()) return nullptr;
  return t.unsafeReleaseIntrusivePtr().release();
}

at::Tensor adopted(void* handle) {
  if (!handle) return at::Tensor();
  return at::Tensor(TensorPtr::reclaim(impl(handle)));
}

at::TensorOptions options_of(const kforge_light_options& o) {
  at::TensorOptions options;
  if (o.scalar_type >= 0) options = options.dtype(static_cast<c10::ScalarType>(o.scalar_type));
  if (o.device_type >= 0)
    options = options.device(c10::Device(static_cast<c10::DeviceType>(o.device_type),
                                         static_cast<c10::DeviceIndex>(o.device_index)));
  return options;
}

c10::optional<c10::MemoryFormat> format_of(int32_t format) {
  if (format < 0) return c10::nullopt;
  return static_cast<c10::MemoryFormat>(format);
}

c10::IValue ivalue_of(const kforge_light_value& v) {
  switch (v.tag) {
    case KFORGE_LIGHT_NONE:
      return c10::IValue();
    case KFORGE_LIGHT_TENSOR:
      return borrowed(v.u.tensor);
    case KFORGE_LIGHT_DOUBLE:
      return v.u.real;
    case KFORGE_LIGHT_INT:
      return v.u.integer;
    case KFORGE_LIGHT_BOOL:
      return v.u.integer != 0;
    case KFORGE_LIGHT_INTS:
      return std::vector<int64_t>(v.u.ints.data, v.u.ints.data + v.u.ints.size);
    case KFORGE_LIGHT_SCALAR_TYPE:
      return static_cast<c10::ScalarType>(v.u.integer);
    case KFORGE_LIGHT_DEVICE:
      return c10::Device(static_cast<c10::DeviceType>(v.u.integer),
                         static_cast<c10::DeviceIndex>(v.index));
    case KFORGE_LIGHT_MEMORY_FORMAT:
      return static_cast<c10::MemoryFormat>(v.u.integer);
    default:
      TORCH_CHECK(false, "kforge: an operator argument of unknown kind ", v.tag);
  }
}

// None, a double, an integer or a bool as a light value; false for any other kind.
bool scalar_value(const c10::IValue& v, kforge_light_value& out) {
  out = kforge_light_value{};
  if (v.isNone()) {
    out.tag = KFORGE_LIGHT_NONE;
  } else if (v.isDouble()) {
    out.tag = KFORGE_LIGHT_DOUBLE;
    out.u.real = v.toDouble();
  } else if (v.isInt()) {
    out.tag = KFORGE_LIGHT_INT;
    out.u.integer = v.toInt();
  } else if (v.isBool()) {
    out.tag = KFORGE_LIGHT_BOOL;
    out.u.integer = v.toBool();
  } else {
    return false;
  }
  return true;
}

// An operator's result: tensors as new handles the candidate owns.
kforge_light_value value_of(const c10::IValue& v) {
  kforge_light_value out{};
  if (v.isTensor()) {
    out.tag = KFORGE_LIGHT_TENSOR;
    out.u.tensor = owned_handle(v.toTensor());
  } else if (!scalar_value(v, out)) {
    TORCH_CHECK(false, "kforge: an operator result of kind ", v.tagKind(),
                " cannot reach a kernel built with the light headers");
  }
  return out;
}

const void* find_op(const char* name, const char* overload) {
  static std::mutex mutex;
  static std::map<std::pair<std::string, std::string>, c10::OperatorHandle> ops;
  std::lock_guard lock(mutex);
  auto key = std::make_pair(std::string(name), std::string(overload));
  auto it = ops.find(key);
  if (it == ops.end())
    it = ops.emplace(key, c10::Dispatcher::singleton().findSchemaOrThrow(name, overload)).first;
  return &it->second;
}

int32_t call_op(const void* op, const kforge_light_value* args, int32_t count,
                kforge_light_value* results, int32_t capacity) {
  torch::jit::Stack stack;
  stack.reserve(static_cast<size_t>(count));
  for (int32_t i = 0; i < count; ++i) stack.push_back(ivalue_of(args[i]));
  static_cast<const c10::OperatorHandle*>(op)->callBoxed(&stack);
  int32_t n = 0;
  for (const auto& r : stack)
    if (n < capacity) results[n++] = value_of(r);
  return n;
}

void item(void* handle, int32_t scalar_type, void* out) {
  c10::Scalar s = borrowed(handle).item();
  switch (static_cast<c10::ScalarType>(scalar_type)) {
    case c10::ScalarType::Byte:
      *static_cast<uint8_t*>(out) = s.to<uint8_t>();
      return;
    case c10::ScalarType::Char:
      *static_cast<int8_t*>(out) = s.to<int8_t>();
      return;
    case c10::ScalarType::Short:
      *static_cast<int16_t*>(out) = s.to<int16_t>();
      return;
    case c10::ScalarType::Int:
      *static_cast<int32_t*>(out) = s.to<int32_t>();
      return;
    case c10::ScalarType::Long:
      *static_cast<int64_t*>(out) = s.to<int64_t>();
      return;
    case c10::ScalarType::Float:
      *static_cast<float*>(out) = s.to<float>();
      return;
    case c10::ScalarType::Double:
      *static_cast<double*>(out) = s.to<double>();
      return;
    case c10::ScalarType::Bool:
      *static_cast<bool*>(out) = s.to<bool>();
      return;
    case c10::ScalarType::Half:
      *static_cast<c10::Half*>(out) = s.to<c10::Half>();
      return;
    case c10::ScalarType::BFloat16:
      *static_cast<c10::BFloat16*>(out) = s.to<c10::BFloat16>();
      return;
    default:
      TORCH_CHECK(false, "kforge: item() to ", c10::toString(c10::ScalarType(scalar_type)));
  }
}

#ifdef KFORGE_WITH_CUDA
void* current_stream(int32_t device) {
  return at::cuda::getCurrentCUDAStream(static_cast<c10::DeviceIndex>(device)).stream();
}
int32_t exchange_device(int32_t device) {
  c10::DeviceIndex previous = c10::cuda::current_device();
  if (device >= 0 && device != previous)
    c10::cuda::set_device(static_cast<c10::DeviceIndex>(device));
  return previous;
}
const void* device_properties(int32_t device) {
  return device < 0 ? at::cuda::getCurrentDeviceProperties()
                    : at::cuda::getDeviceProperties(static_cast<c10::DeviceIndex>(device));
}
#else
[[noreturn]] void no_cuda() {
  TORCH_CHECK(false, "kforge: this worker was built without CUDA");
}
void* current_stream(int32_t) {
  no_cuda();
}
int32_t exchange_device(int32_t) {
  no_cuda();
}
const void* device_properties(int32_t) {
  no_cuda();
}
#endif

kforge_light_api make_api() {
  kforge_light_api a{};
  a.abi_version = KFORGE_LIGHT_ABI_VERSION;
  a.value_size = sizeof(kforge_light_value);
  a.retain = [](void* t) { c10::raw::intrusive_ptr::incref(impl(t)); };
  a.release = [](void* t) { c10::raw::intrusive_ptr::decref(impl(t)); };
  a.dim = [](void* t) { return impl(t)->dim(); };
  a.sizes = [](void* t) { return impl(t)->sizes().data(); };
  a.strides = [](void* t) { return impl(t)->strides().data(); };
  a.numel = [](void* t) { return impl(t)->numel(); };
  a.storage_offset = [](void* t) { return impl(t)->storage_offset(); };
  a.scalar_type = [](void* t) { return int32_t(c10::typeMetaToScalarType(impl(t)->dtype())); };
  a.device_type = [](void* t) { return int32_t(impl(t)->device_type()); };
  a.device_index = [](void* t) { return int32_t(impl(t)->device().index()); };
  a.is_contiguous = [](void* t, int32_t format) {
    return int32_t(impl(t)->is_contiguous(static_cast<c10::MemoryFormat>(format)));
  };
  a.data_ptr = [](void* t) { return borrowed(t).data_ptr(); };
  a.item = item;
  a.empty = [](const int64_t* sizes, int64_t dims, kforge_light_options o) {
    return owned_handle(
        at::empty(at::IntArrayRef(sizes, dims), options_of(o), format_of(o.memory_format)));
  };
  a.zeros = [](const int64_t* sizes, int64_t dims, kforge_light_options o) {
    return owned_handle(at::zeros(at::IntArrayRef(sizes, dims), options_of(o)));
  };
  a.empty_like = [](void* t, kforge_light_options o) {
    return owned_handle(at::empty_like(borrowed(t), options_of(o), format_of(o.memory_format)));
  };
  a.zeros_like = [](void* t, kforge_light_options o) {
    return owned_handle(at::zeros_like(borrowed(t), options_of(o), format_of(o.memory_format)));
  };
  a.contiguous = [](void* t, int32_t format) {
    return owned_handle(borrowed(t).contiguous(static_cast<c10::MemoryFormat>(format)));
  };
  a.find_op = find_op;
  a.call_op = call_op;
  a.fail = [](const char* message) { TORCH_CHECK(false, message); };
  a.warn = [](const char* message) { TORCH_WARN(message); };
  a.current_stream = current_stream;
  a.exchange_device = exchange_device;
  a.device_properties = device_properties;
  a.append_output = [](void* sink, void* t) {
    static_cast<std::vector<at::Tensor>*>(sink)->push_back(adopted(t));
  };
  return a;
}

/// An ext::Function call's arguments as light values. Tensors are borrowed from the IValues, which
/// outlive the call; integer lists and sequences are copied into buffers this object keeps (an
/// inner vector's buffer stays put when the outer vector grows).
class LightArguments {
 public:
  explicit LightArguments(const std::vector<c10::IValue>& args) {
    values.reserve(args.size());
    for (const auto& a : args) values.push_back(convert(a));
  }
  std::vector<kforge_light_value> values;

 private:
  kforge_light_value convert(const c10::IValue& v) {
    kforge_light_value out{};
    if (scalar_value(v, out)) return out;
    if (v.isTensor()) {
      out.tag = KFORGE_LIGHT_TENSOR;
      const at::Tensor& t = v.toTensor();
      out.u.tensor = t.defined() ? t.unsafeGetTensorImpl() : nullptr;
    } else if (v.isIntList()) {
      const auto& ints = ints_.emplace_back(v.toIntVector());
      out.tag = KFORGE_LIGHT_INTS;
      out.u.ints.data = ints.data();
      out.u.ints.size = static_cast<int64_t>(ints.size());
    } else if (v.isTensorList() || v.isTuple() || v.isList()) {
      // Elements are read in place (a tensor list's elements are its own IValues' tensors).
      std::vector<kforge_light_value> list;
      if (v.isTensorList()) {
        for (const at::Tensor& t : v.toTensorList().vec()) list.push_back(convert(c10::IValue(t)));
      } else {
        for (const auto& e : v.isTuple() ? v.toTupleRef().elements().vec() : v.toListRef().vec())
          list.push_back(convert(e));
      }
      const auto& kept = lists_.emplace_back(std::move(list));
      out.tag = KFORGE_LIGHT_LIST;
      out.u.list.data = kept.data();
      out.u.list.size = static_cast<int64_t>(kept.size());
    } else {
      TORCH_CHECK(false, "kforge: an argument of kind ", v.tagKind(),
                  " cannot be passed to a kernel function");
    }
    return out;
  }
  std::vector<std::vector<int64_t>> ints_;
  std::vector<std::vector<kforge_light_value>> lists_;
};

}  // namespace

const kforge_light_api& light_api() {
  static const kforge_light_api api = make_api();
  return api;
}

std::vector<ext::Function> adapt_light_module(const kforge_light_module& module) {
  std::vector<ext::Function> out;
  for (int32_t i = 0; i < module.function_count; ++i) {
    const kforge_light_function fn = module.functions[i];
    ext::Function f;
    f.name = fn.name;
    f.parameter_types.assign(fn.parameter_types, fn.parameter_types + fn.parameter_count);
    f.call = [fn](const std::vector<c10::IValue>& args) {
      LightArguments light(args);
      std::vector<at::Tensor> outputs;
      fn.call(fn.state, light.values.data(), static_cast<int32_t>(light.values.size()), &outputs);
      return outputs;
    };
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace kforge::worker
