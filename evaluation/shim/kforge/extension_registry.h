// The registry that replaces pybind11 for candidate kernels: PYBIND11_MODULE and m.def record each
// function with its argument types and an adapter that calls it with c10::IValue arguments.
// Compiled into both the candidate and the worker; the worker finds the candidate's module through
// the C symbol kforge_extension_module.
#pragma once

#include <ATen/ATen.h>
#include <ATen/core/ivalue.h>
#include <c10/util/Optional.h>

#include <cstdint>
#include <functional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "kforge/held_arguments.h"

namespace kforge::ext {

constexpr int kAbiVersion = 1;

/// A function a candidate registered: its name, the kforge type names of its parameters
/// ("Tensor", "Tensor?", "Tensor[]", "float", "int", "bool", "int[]") and an adapter that calls it.
struct Function {
  std::string name;
  std::vector<std::string> parameter_types;
  std::function<std::vector<at::Tensor>(const std::vector<c10::IValue>&)> call;
};

struct Module {
  int abi_version = kAbiVersion;
  std::vector<Function> functions;

  template <class R, class... A, class... Extra>
  Module& def(const char* name, R (*fn)(A...), Extra&&...);
  template <class F, class... Extra,
            class = std::enable_if_t<!std::is_function_v<std::remove_pointer_t<std::decay_t<F>>>>>
  Module& def(const char* name, F&& fn, Extra&&...);
  Module& doc() { return *this; }
};

namespace detail {
template <class T>
struct param;  // IValue -> C++ argument, and the kforge type name
}  // namespace detail

/// A Python value as pybind11 hands it to a function: what `py::object`, `py::tuple` and
/// `py::list` parameters receive. A robust-kbench backward may pass a tuple such as
/// `ctx.saved_tensors` as one argument; its elements are read with `size()`, `[i]` and
/// `cast<T>()` as in pybind11.
class Object {
 public:
  Object() = default;
  explicit Object(c10::IValue value) : value_(std::move(value)) {}
  template <class T>
  T cast() const {
    return detail::param<T>::get(value_);
  }
  size_t size() const {
    if (value_.isTensorList()) return value_.toTensorList().size();
    if (value_.isTuple()) return value_.toTupleRef().elements().size();
    if (value_.isList()) return value_.toListRef().size();
    TORCH_CHECK(false, "kforge: size() of a ", value_.tagKind(), ", which is not a sequence");
  }
  Object operator[](size_t i) const {
    TORCH_CHECK(i < size(), "kforge: index ", i, " of a sequence of ", size());
    if (value_.isTensorList()) return Object(value_.toTensorList().get(i));
    if (value_.isTuple()) return Object(value_.toTupleRef().elements()[i]);
    return Object(value_.toListRef()[i]);
  }
  const c10::IValue& ivalue() const { return value_; }

 private:
  c10::IValue value_;
};

namespace detail {

template <>
struct param<at::Tensor> {
  static constexpr const char* type = "Tensor";
  static at::Tensor get(const c10::IValue& v) { return v.toTensor(); }
};
template <>
struct param<c10::optional<at::Tensor>> {
  static constexpr const char* type = "Tensor?";
  static c10::optional<at::Tensor> get(const c10::IValue& v) {
    if (v.isNone()) return c10::nullopt;
    return v.toTensor();
  }
};
template <>
struct param<double> {
  static constexpr const char* type = "float";
  static double get(const c10::IValue& v) { return v.isInt() ? double(v.toInt()) : v.toDouble(); }
};
template <>
struct param<float> {
  static constexpr const char* type = "float";
  static float get(const c10::IValue& v) { return float(param<double>::get(v)); }
};
template <>
struct param<int64_t> {
  static constexpr const char* type = "int";
  static int64_t get(const c10::IValue& v) { return v.toInt(); }
};
template <>
struct param<int> {
  static constexpr const char* type = "int";
  static int get(const c10::IValue& v) { return int(v.toInt()); }
};
template <>
struct param<bool> {
  static constexpr const char* type = "bool";
  static bool get(const c10::IValue& v) { return v.toBool(); }
};
template <>
struct param<std::vector<int64_t>> {
  static constexpr const char* type = "int[]";
  static std::vector<int64_t> get(const c10::IValue& v) { return v.toIntVector(); }
};
// at::IntArrayRef views storage: the adapter keeps a vector alive for the duration of the call.
template <>
struct param<at::IntArrayRef> {
  static constexpr const char* type = "int[]";
  static std::vector<int64_t> get(const c10::IValue& v) { return v.toIntVector(); }
};

// Sequences of tensors: the task passes a list (a tuple in Python).
template <>
struct param<std::vector<at::Tensor>> {
  static constexpr const char* type = "Tensor[]";
  static std::vector<at::Tensor> get(const c10::IValue& v) { return v.toTensorVector(); }
};
template <>
struct param<at::TensorList> {
  static constexpr const char* type = "Tensor[]";
  static std::vector<at::Tensor> get(const c10::IValue& v) { return v.toTensorVector(); }
};
template <>
struct param<Object> {
  static constexpr const char* type = "Tensor[]";
  static Object get(const c10::IValue& v) { return Object(v); }
};

template <class T>
using param_of = param<std::remove_cv_t<std::remove_reference_t<T>>>;

inline void append_outputs(std::vector<at::Tensor>& out, const at::Tensor& t) {
  out.push_back(t);
}
inline void append_outputs(std::vector<at::Tensor>& out, const std::vector<at::Tensor>& ts) {
  out.insert(out.end(), ts.begin(), ts.end());
}
template <class... T>
void append_outputs(std::vector<at::Tensor>& out, const std::tuple<T...>& tuple) {
  std::apply([&](const auto&... e) { (append_outputs(out, e), ...); }, tuple);
}

template <class R, class... A, class Fn, size_t... I>
std::vector<at::Tensor> invoke(Fn& fn, const std::vector<c10::IValue>& args,
                               std::index_sequence<I...>) {
  held_values<std::index_sequence<I...>, decltype(param_of<A>::get(args[I]))...> held{
      {param_of<A>::get(args[I])}...};
  std::vector<at::Tensor> outputs;
  if constexpr (std::is_void_v<R>) {
    fn(held_at<I>(held)...);
  } else {
    append_outputs(outputs, fn(held_at<I>(held)...));
  }
  return outputs;
}

template <class R, class... A, class Fn>
Function make_function(const char* name, Fn fn) {
  Function f;
  f.name = name;
  f.parameter_types = {param_of<A>::type...};
  f.call = [fn](const std::vector<c10::IValue>& args) mutable {
    TORCH_CHECK(args.size() == sizeof...(A), "kforge: ", sizeof...(A), " arguments expected, got ",
                args.size());
    return invoke<R, A...>(fn, args, std::index_sequence_for<A...>{});
  };
  return f;
}

template <class T>
struct call_traits : call_traits<decltype(&T::operator())> {};
template <class C, class R, class... A>
struct call_traits<R (C::*)(A...) const> {
  template <class Fn>
  static Function make(const char* name, Fn fn) {
    return make_function<R, A...>(name, std::move(fn));
  }
};
template <class C, class R, class... A>
struct call_traits<R (C::*)(A...)> {
  template <class Fn>
  static Function make(const char* name, Fn fn) {
    return make_function<R, A...>(name, std::move(fn));
  }
};

}  // namespace detail

template <class R, class... A, class... Extra>
Module& Module::def(const char* name, R (*fn)(A...), Extra&&...) {
  functions.push_back(detail::make_function<R, A...>(name, fn));
  return *this;
}

template <class F, class... Extra, class>
Module& Module::def(const char* name, F&& fn, Extra&&...) {
  using Fn = std::decay_t<F>;
  functions.push_back(detail::call_traits<Fn>::make(name, Fn(std::forward<F>(fn))));
  return *this;
}

}  // namespace kforge::ext

/// The symbol the worker looks up in a candidate's shared object.
#define KFORGE_EXTENSION_SYMBOL "kforge_extension_module"
using kforge_extension_module_fn = kforge::ext::Module* (*)();

/// Defines that symbol: the module `body` (PYBIND11_MODULE's) fills once.
#define KFORGE_DEFINE_MODULE_ENTRY(body)                                   \
  extern "C" __attribute__((visibility("default"))) ::kforge::ext::Module* \
  kforge_extension_module() {                                              \
    static ::kforge::ext::Module module_instance;                          \
    static const bool registered = (body(module_instance), true);          \
    (void)registered;                                                      \
    return &module_instance;                                               \
  }
