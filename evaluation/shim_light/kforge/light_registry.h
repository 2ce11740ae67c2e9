// PYBIND11_MODULE and m.def for kforge's light headers: each registered function is described to
// the worker by a kforge_light_function whose call converts kforge_light_values to the function's
// C++ parameters and hands its tensors back; the same type names and conversions as
// kforge/extension_registry.h, without c10::IValue.
#pragma once

#include "kforge/held_arguments.h"
#include "kforge/light_tensor.h"

namespace kforge::ext {

/// A Python value as pybind11 hands it to a function (`py::object`, `py::tuple`, `py::list`): a
/// backward may receive `ctx.saved_tensors` as one argument, read with size(), [i] and cast<T>().
class Object {
 public:
  Object() : value_(light::none_value()) {}
  explicit Object(const kforge_light_value& value) : value_(value) {}
  template <class T>
  T cast() const;
  size_t size() const {
    if (value_.tag != KFORGE_LIGHT_LIST)
      light::fail("kforge: size() of a value that is not a sequence");
    return static_cast<size_t>(value_.u.list.size);
  }
  Object operator[](size_t i) const {
    if (i >= size()) light::fail(light::str("kforge: index ", i, " of a sequence of ", size()));
    return Object(value_.u.list.data[i]);
  }
  const kforge_light_value& value() const { return value_; }

 private:
  kforge_light_value value_;
};

namespace detail {

[[noreturn]] inline void expected(const char* what, const kforge_light_value& v) {
  static const char* const names[] = {"None",   "Tensor",      "Double",      "Int",
                                      "Bool",   "IntList",     "GenericList", "ScalarType",
                                      "Device", "MemoryFormat"};
  light::fail(light::str("Expected ", what, " but got ",
                         v.tag >= 0 && v.tag <= 9 ? names[v.tag] : "an unknown value"));
}

template <class T>
struct param;
template <>
struct param<at::Tensor> {
  static constexpr const char* type = "Tensor";
  static at::Tensor get(const kforge_light_value& v) {
    if (v.tag != KFORGE_LIGHT_TENSOR) expected("Tensor", v);
    return at::Tensor::borrow(v.u.tensor);
  }
};
template <>
struct param<std::optional<at::Tensor>> {
  static constexpr const char* type = "Tensor?";
  static std::optional<at::Tensor> get(const kforge_light_value& v) {
    if (v.tag == KFORGE_LIGHT_NONE) return std::nullopt;
    return param<at::Tensor>::get(v);
  }
};
template <>
struct param<double> {
  static constexpr const char* type = "float";
  static double get(const kforge_light_value& v) {
    if (v.tag == KFORGE_LIGHT_INT) return double(v.u.integer);
    if (v.tag != KFORGE_LIGHT_DOUBLE) expected("Double", v);
    return v.u.real;
  }
};
template <>
struct param<float> {
  static constexpr const char* type = "float";
  static float get(const kforge_light_value& v) { return float(param<double>::get(v)); }
};
template <>
struct param<int64_t> {
  static constexpr const char* type = "int";
  static int64_t get(const kforge_light_value& v) {
    if (v.tag != KFORGE_LIGHT_INT) expected("Int", v);
    return v.u.integer;
  }
};
template <>
struct param<int> {
  static constexpr const char* type = "int";
  static int get(const kforge_light_value& v) { return int(param<int64_t>::get(v)); }
};
template <>
struct param<bool> {
  static constexpr const char* type = "bool";
  static bool get(const kforge_light_value& v) {
    if (v.tag != KFORGE_LIGHT_BOOL) expected("Bool", v);
    return v.u.integer != 0;
  }
};
template <>
struct param<std::vector<int64_t>> {
  static constexpr const char* type = "int[]";
  static std::vector<int64_t> get(const kforge_light_value& v) {
    if (v.tag != KFORGE_LIGHT_INTS) expected("IntList", v);
    return std::vector<int64_t>(v.u.ints.data, v.u.ints.data + v.u.ints.size);
  }
};
// at::IntArrayRef views storage: the call keeps a vector alive while the function runs.
template <>
struct param<at::IntArrayRef> {
  static constexpr const char* type = "int[]";
  static std::vector<int64_t> get(const kforge_light_value& v) {
    return param<std::vector<int64_t>>::get(v);
  }
};
template <>
struct param<std::vector<at::Tensor>> {
  static constexpr const char* type = "Tensor[]";
  static std::vector<at::Tensor> get(const kforge_light_value& v) {
    if (v.tag != KFORGE_LIGHT_LIST) expected("TensorList", v);
    std::vector<at::Tensor> out;
    for (int64_t i = 0; i < v.u.list.size; ++i)
      out.push_back(param<at::Tensor>::get(v.u.list.data[i]));
    return out;
  }
};
template <>
struct param<at::TensorList> {
  static constexpr const char* type = "Tensor[]";
  static std::vector<at::Tensor> get(const kforge_light_value& v) {
    return param<std::vector<at::Tensor>>::get(v);
  }
};
template <>
struct param<Object> {
  static constexpr const char* type = "Tensor[]";
  static Object get(const kforge_light_value& v) { return Object(v); }
};

template <class T>
using param_of = param<std::remove_cv_t<std::remove_reference_t<T>>>;

inline void append_outputs(void* sink, const at::Tensor& t) {
  light::api().append_output(sink, t.new_handle());
}
inline void append_outputs(void* sink, const std::vector<at::Tensor>& ts) {
  for (const auto& t : ts) append_outputs(sink, t);
}
template <class... T>
void append_outputs(void* sink, const std::tuple<T...>& tuple) {
  std::apply([&](const auto&... e) { (append_outputs(sink, e), ...); }, tuple);
}

// A registered function without <functional>: the callable on the heap (kept for the library's
// life, as the module is) and a trampoline that knows its type.
struct Entry {
  std::string name;
  std::vector<const char*> types;
  void* callable = nullptr;
  void (*call)(void* callable, const kforge_light_value* args, int32_t count, void* sink) = nullptr;
};

template <class R, class... A, class Fn, size_t... I>
void invoke(Fn& fn, const kforge_light_value* args, void* sink, std::index_sequence<I...>) {
  held_values<std::index_sequence<I...>, decltype(param_of<A>::get(args[I]))...> held{
      {param_of<A>::get(args[I])}...};
  if constexpr (std::is_void_v<R>) {
    fn(held_at<I>(held)...);
  } else {
    append_outputs(sink, fn(held_at<I>(held)...));
  }
}

template <class R, class... A, class Fn>
Entry* make_entry(const char* name, Fn fn) {
  Entry* e = new Entry;
  e->name = name;
  e->types = {param_of<A>::type...};
  e->callable = new Fn(std::move(fn));
  e->call = [](void* callable, const kforge_light_value* args, int32_t count, void* sink) {
    if (count != int32_t(sizeof...(A)))
      light::fail(light::str("kforge: ", sizeof...(A), " arguments expected, got ", count));
    invoke<R, A...>(*static_cast<Fn*>(callable), args, sink, std::index_sequence_for<A...>{});
  };
  return e;
}

template <class T>
struct call_traits : call_traits<decltype(&T::operator())> {};
template <class C, class R, class... A>
struct call_traits<R (C::*)(A...) const> {
  template <class Fn>
  static Entry* make(const char* name, Fn fn) {
    return make_entry<R, A...>(name, std::move(fn));
  }
};
template <class C, class R, class... A>
struct call_traits<R (C::*)(A...)> : call_traits<R (C::*)(A...) const> {};

}  // namespace detail

template <class T>
T Object::cast() const {
  return detail::param<T>::get(value_);
}

/// What PYBIND11_MODULE's body fills; describe() turns it into the C description the worker reads.
class Module {
 public:
  template <class R, class... A, class... Extra>
  Module& def(const char* name, R (*fn)(A...), Extra&&...) {
    entries_.push_back(detail::make_entry<R, A...>(name, fn));
    return *this;
  }
  template <class F, class... Extra,
            class = std::enable_if_t<!std::is_function_v<std::remove_pointer_t<std::decay_t<F>>>>>
  Module& def(const char* name, F&& fn, Extra&&...) {
    using Fn = std::decay_t<F>;
    entries_.push_back(detail::call_traits<Fn>::make(name, Fn(std::forward<F>(fn))));
    return *this;
  }
  Module& doc() { return *this; }

  const kforge_light_module* describe() {
    functions_.clear();
    for (detail::Entry* e : entries_)
      functions_.push_back(
          {e->name.c_str(), e->types.data(), int32_t(e->types.size()), e->callable, e->call});
    module_ = {KFORGE_LIGHT_ABI_VERSION, int32_t(functions_.size()), functions_.data()};
    return &module_;
  }

 private:
  std::vector<detail::Entry*> entries_;
  std::vector<kforge_light_function> functions_;
  kforge_light_module module_{};
};

}  // namespace kforge::ext

#define KFORGE_DEFINE_MODULE_ENTRY(body)                                       \
  extern "C" __attribute__((visibility("default"))) const kforge_light_module* \
  kforge_light_module_entry(const kforge_light_api* api) {                     \
    if (!api || api->abi_version != KFORGE_LIGHT_ABI_VERSION ||                \
        api->value_size != int32_t(sizeof(kforge_light_value)))                \
      return nullptr;                                                          \
    ::kforge::light::current_api = api;                                        \
    static ::kforge::ext::Module module_instance;                              \
    static const kforge_light_module* described =                              \
        (body(module_instance), module_instance.describe());                   \
    return described;                                                          \
  }
