// A call's converted arguments, held until it returns (an IntArrayRef points into its vector),
// each a base of its own: a flat holder, where std::tuple's constructor constraints recurse once
// an element and a generated kernel's forward takes a network's parameters and buffers
// (KernelBench's level-3 ResNet101: 1257 tensors, past g++'s template depth of 900). Shared by the
// registries of LibTorch's headers (extension_registry.h) and of kforge's light ones.
#pragma once

#include <cstddef>
#include <utility>

namespace kforge::ext::detail {

template <size_t I, class T>
struct held_value {
  T value;
};

template <class Seq, class... T>
struct held_values;

/// Built as `held_values<std::index_sequence<I...>, T...> held{{value_I}...}`.
template <size_t... I, class... T>
struct held_values<std::index_sequence<I...>, T...> : held_value<I, T>... {};

/// The I-th value held.
template <size_t I, class T>
T& held_at(held_value<I, T>& h) {
  return h.value;
}

}  // namespace kforge::ext::detail
