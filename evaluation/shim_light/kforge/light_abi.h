// The narrow interface between a candidate built with kforge's light headers and the worker's
// LibTorch: plain C structs and function pointers, so that the candidate parses none of LibTorch's
// headers. The worker fills a kforge_light_api with functions that call ATen (evaluation/worker/
// light_api.cpp) and hands it to the candidate's entry point; the candidate describes its
// registered functions with a kforge_light_module. Both sides include this one header.
//
// Tensors cross as handles: a handle is a c10::TensorImpl* whose reference the holder owns
// (retain/release), and nullptr is the undefined tensor. Errors cross as C++ exceptions thrown by
// the worker's functions (c10::Error), as they would from LibTorch itself.
#pragma once

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KFORGE_LIGHT_ABI_VERSION 1
#define KFORGE_LIGHT_ENTRY_SYMBOL "kforge_light_module_entry"

/// What a kforge_light_value holds.
enum kforge_light_tag {
  KFORGE_LIGHT_NONE = 0,
  KFORGE_LIGHT_TENSOR = 1,  ///< u.tensor: a borrowed handle (arguments) or an owned one (results)
  KFORGE_LIGHT_DOUBLE = 2,  ///< u.real
  KFORGE_LIGHT_INT = 3,     ///< u.integer
  KFORGE_LIGHT_BOOL = 4,    ///< u.integer, 0 or 1
  KFORGE_LIGHT_INTS = 5,    ///< u.ints
  KFORGE_LIGHT_LIST = 6,    ///< u.list: a list or tuple of values (a backward's saved tensors)
  KFORGE_LIGHT_SCALAR_TYPE = 7,   ///< u.integer: a c10::ScalarType
  KFORGE_LIGHT_DEVICE = 8,        ///< u.integer: a c10::DeviceType; index: the device index
  KFORGE_LIGHT_MEMORY_FORMAT = 9  ///< u.integer: a c10::MemoryFormat
};

typedef struct kforge_light_value {
  int32_t tag;
  int32_t index;
  union {
    void* tensor;
    double real;
    int64_t integer;
    struct {
      const int64_t* data;
      int64_t size;
    } ints;
    struct {
      const struct kforge_light_value* data;
      int64_t size;
    } list;
  } u;
} kforge_light_value;

/// Options of a factory: -1 where the caller gave none (LibTorch's default applies).
typedef struct kforge_light_options {
  int32_t scalar_type;
  int32_t device_type;
  int32_t device_index;
  int32_t memory_format;
} kforge_light_options;

/// What the worker offers a candidate. Every function may throw c10::Error.
typedef struct kforge_light_api {
  int32_t abi_version;
  int32_t value_size;  ///< sizeof(kforge_light_value), checked by the candidate

  void (*retain)(void* tensor);
  void (*release)(void* tensor);

  int64_t (*dim)(void* tensor);
  const int64_t* (*sizes)(void* tensor);
  const int64_t* (*strides)(void* tensor);
  int64_t (*numel)(void* tensor);
  int64_t (*storage_offset)(void* tensor);
  int32_t (*scalar_type)(void* tensor);
  int32_t (*device_type)(void* tensor);
  int32_t (*device_index)(void* tensor);
  int32_t (*is_contiguous)(void* tensor, int32_t memory_format);
  void* (*data_ptr)(void* tensor);
  /// Tensor::item converted as Scalar::to<T> does, T given by scalar_type, written to out.
  void (*item)(void* tensor, int32_t scalar_type, void* out);

  /// at::empty, at::zeros, at::empty_like, at::zeros_like and Tensor::contiguous; new handles.
  void* (*empty)(const int64_t* sizes, int64_t dims, kforge_light_options options);
  void* (*zeros)(const int64_t* sizes, int64_t dims, kforge_light_options options);
  void* (*empty_like)(void* tensor, kforge_light_options options);
  void* (*zeros_like)(void* tensor, kforge_light_options options);
  void* (*contiguous)(void* tensor, int32_t memory_format);

  /// Any ATen operator by schema name and overload ("aten::view", ""), called boxed with every
  /// argument given. find_op's handle is stable for the worker's life. Tensor results come back as
  /// owned handles; returns how many results were written (at most capacity).
  const void* (*find_op)(const char* name, const char* overload);
  int32_t (*call_op)(const void* op, const kforge_light_value* args, int32_t count,
                     kforge_light_value* results, int32_t capacity);

  /// Throws c10::Error with the message (TORCH_CHECK); warn reports like TORCH_WARN.
  void (*fail)(const char* message);
  void (*warn)(const char* message);

  /// CUDA: the current stream of a device (-1: the current device), exchanging the current
  /// device (returns the previous one), and cudaDeviceProp of a device.
  void* (*current_stream)(int32_t device_index);
  int32_t (*exchange_device)(int32_t device_index);
  const void* (*device_properties)(int32_t device_index);

  /// A function's result: the candidate hands over an owned handle.
  void (*append_output)(void* sink, void* tensor);
} kforge_light_api;

/// A function the candidate registered with m.def.
typedef struct kforge_light_function {
  const char* name;
  const char* const* parameter_types;  ///< kforge's type names, as in kforge::ext::Function
  int32_t parameter_count;
  void* state;
  void (*call)(void* state, const kforge_light_value* args, int32_t count, void* sink);
} kforge_light_function;

typedef struct kforge_light_module {
  int32_t abi_version;
  int32_t function_count;
  const kforge_light_function* functions;
} kforge_light_module;

typedef const kforge_light_module* (*kforge_light_entry_fn)(const kforge_light_api* api);

#ifdef __cplusplus
}
#endif
