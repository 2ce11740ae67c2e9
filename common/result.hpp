// The one way kforge's libraries say that something failed: a `Result<T>` holds the value, or
// a sentence that says what failed, on which input, and what the user can do. `Result<void>`
// is success or that sentence. Libraries return these instead of throwing across their
// boundary, and instead of a `bool` with an error out-parameter.
#pragma once

#include <optional>
#include <string>
#include <utility>

namespace kforge {

template <class T>
struct Result {
  std::optional<T> value;  ///< set on success
  std::string error;       ///< why not, when `value` is empty

  static Result failure(std::string why) { return {std::nullopt, std::move(why)}; }

  explicit operator bool() const { return value.has_value(); }
  T& operator*() { return *value; }
  const T& operator*() const { return *value; }
  T* operator->() { return &*value; }
  const T* operator->() const { return &*value; }
};

template <>
struct Result<void> {
  std::string error;  ///< empty on success

  static Result failure(std::string why) { return {std::move(why)}; }

  explicit operator bool() const { return error.empty(); }
};

}  // namespace kforge
