// LibTorch's AT_DISPATCH macros for kforge's light headers: a switch on the scalar type that binds
// `scalar_t` and calls the lambda, failing with LibTorch's message for a type not listed.
#pragma once

#include "kforge/light_tensor.h"

namespace kforge::light {

template <c10::ScalarType S>
struct cpp_type;
#define KFORGE_LIGHT_CPP_TYPE(S, T)     \
  template <>                           \
  struct cpp_type<c10::ScalarType::S> { \
    using type = T;                     \
  };
KFORGE_LIGHT_CPP_TYPE(Byte, uint8_t)
KFORGE_LIGHT_CPP_TYPE(Char, int8_t)
KFORGE_LIGHT_CPP_TYPE(Short, int16_t)
KFORGE_LIGHT_CPP_TYPE(Int, int32_t)
KFORGE_LIGHT_CPP_TYPE(Long, int64_t)
KFORGE_LIGHT_CPP_TYPE(Float, float)
KFORGE_LIGHT_CPP_TYPE(Double, double)
KFORGE_LIGHT_CPP_TYPE(Bool, bool)
#ifdef KFORGE_LIGHT_HAS_HALF
KFORGE_LIGHT_CPP_TYPE(Half, c10::Half)
KFORGE_LIGHT_CPP_TYPE(BFloat16, c10::BFloat16)
#endif
#undef KFORGE_LIGHT_CPP_TYPE

inline c10::ScalarType dispatch_type(c10::ScalarType t) {
  return t;
}
inline c10::ScalarType dispatch_type(const at::DeprecatedTypeProperties& t) {
  return t.scalarType();
}
inline c10::ScalarType dispatch_type(const caffe2::TypeMeta& t) {
  return t.toScalarType();
}

}  // namespace kforge::light

namespace c10::impl {
template <c10::ScalarType S>
using ScalarTypeToCPPTypeT = typename ::kforge::light::cpp_type<S>::type;
}  // namespace c10::impl

#define AT_DISPATCH_CASE(enum_type, ...)                                      \
  case enum_type: {                                                           \
    using scalar_t C10_UNUSED = ::c10::impl::ScalarTypeToCPPTypeT<enum_type>; \
    return __VA_ARGS__();                                                     \
  }

#define AT_DISPATCH_SWITCH(TYPE, NAME, ...)                                                     \
  [&] {                                                                                         \
    const auto& the_type = TYPE;                                                                \
    constexpr const char* at_dispatch_name = NAME;                                              \
    ::c10::ScalarType _st = ::kforge::light::dispatch_type(the_type);                           \
    switch (_st) {                                                                              \
      __VA_ARGS__                                                                               \
      default:                                                                                  \
        ::kforge::light::fail(                                                                  \
            ::kforge::light::str('"', at_dispatch_name, "\" not implemented for '", _st, "'")); \
    }                                                                                           \
  }()

#define AT_DISPATCH_CASE_FLOATING_TYPES(...)               \
  AT_DISPATCH_CASE(::c10::ScalarType::Double, __VA_ARGS__) \
  AT_DISPATCH_CASE(::c10::ScalarType::Float, __VA_ARGS__)
#define AT_DISPATCH_CASE_INTEGRAL_TYPES(...)             \
  AT_DISPATCH_CASE(::c10::ScalarType::Byte, __VA_ARGS__) \
  AT_DISPATCH_CASE(::c10::ScalarType::Char, __VA_ARGS__) \
  AT_DISPATCH_CASE(::c10::ScalarType::Int, __VA_ARGS__)  \
  AT_DISPATCH_CASE(::c10::ScalarType::Long, __VA_ARGS__) \
  AT_DISPATCH_CASE(::c10::ScalarType::Short, __VA_ARGS__)
#define AT_DISPATCH_CASE_ALL_TYPES(...)        \
  AT_DISPATCH_CASE_INTEGRAL_TYPES(__VA_ARGS__) \
  AT_DISPATCH_CASE_FLOATING_TYPES(__VA_ARGS__)

#define AT_DISPATCH_FLOATING_TYPES(TYPE, NAME, ...) \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_FLOATING_TYPES(__VA_ARGS__))
#define AT_DISPATCH_FLOATING_TYPES_AND(S1, TYPE, NAME, ...) \
  AT_DISPATCH_SWITCH(                                       \
      TYPE, NAME, AT_DISPATCH_CASE_FLOATING_TYPES(__VA_ARGS__) AT_DISPATCH_CASE(S1, __VA_ARGS__))
#define AT_DISPATCH_FLOATING_TYPES_AND2(S1, S2, TYPE, NAME, ...)  \
  AT_DISPATCH_SWITCH(TYPE, NAME,                                  \
                     AT_DISPATCH_CASE_FLOATING_TYPES(__VA_ARGS__) \
                         AT_DISPATCH_CASE(S1, __VA_ARGS__) AT_DISPATCH_CASE(S2, __VA_ARGS__))
#define AT_DISPATCH_FLOATING_TYPES_AND_HALF(TYPE, NAME, ...) \
  AT_DISPATCH_FLOATING_TYPES_AND(::c10::ScalarType::Half, TYPE, NAME, __VA_ARGS__)
#define AT_DISPATCH_REDUCED_FLOATING_TYPES(TYPE, NAME, ...)                 \
  AT_DISPATCH_SWITCH(TYPE, NAME,                                            \
                     AT_DISPATCH_CASE(::c10::ScalarType::Half, __VA_ARGS__) \
                         AT_DISPATCH_CASE(::c10::ScalarType::BFloat16, __VA_ARGS__))
#define AT_DISPATCH_INTEGRAL_TYPES(TYPE, NAME, ...) \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_INTEGRAL_TYPES(__VA_ARGS__))
#define AT_DISPATCH_ALL_TYPES(TYPE, NAME, ...) \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_ALL_TYPES(__VA_ARGS__))
#define AT_DISPATCH_ALL_TYPES_AND(S1, TYPE, NAME, ...) \
  AT_DISPATCH_SWITCH(TYPE, NAME,                       \
                     AT_DISPATCH_CASE_ALL_TYPES(__VA_ARGS__) AT_DISPATCH_CASE(S1, __VA_ARGS__))
