// The pybind11 names a torch.utils.cpp_extension kernel uses (PYBIND11_MODULE, py::module,
// py::arg, py::object, ...), mapped onto kforge's registry: kforge::ext::Module and Object of the
// registry the including header chose (kforge/extension_registry.h with LibTorch's headers,
// kforge/light_registry.h with the light ones), whose KFORGE_DEFINE_MODULE_ENTRY defines the
// symbol the worker looks up. `py::arg`, docstrings and keyword arguments to def are accepted and
// ignored.
#pragma once

namespace pybind11 {
struct arg {
  explicit arg(const char*) {}
  template <class T>
  arg& operator=(T&&) {
    return *this;
  }
};
/// A default of None for a keyword argument (`py::arg("bias") = py::none()`).
struct none {};
using module = kforge::ext::Module;
using module_ = kforge::ext::Module;
// Parameters of these types receive a sequence (a backward's saved tensors); see ext::Object.
using object = kforge::ext::Object;
using handle = object;
using tuple = object;
using list = object;
template <class T>
T cast(const kforge::ext::Object& o) {
  return o.template cast<T>();
}
inline size_t len(const kforge::ext::Object& o) {
  return o.size();
}
}  // namespace pybind11
namespace py = pybind11;

#ifndef TORCH_EXTENSION_NAME
#define TORCH_EXTENSION_NAME kforge_candidate
#endif

#define PYBIND11_MODULE(name, m)                          \
  static void kforge_module_body(::kforge::ext::Module&); \
  KFORGE_DEFINE_MODULE_ENTRY(kforge_module_body)          \
  static void kforge_module_body(::kforge::ext::Module& m)
