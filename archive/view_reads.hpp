// Internal to archive/: how the views (views.cpp, report.cpp) carry a failed read out of the
// helpers that build a document. A view reads many tables through many helpers; `got` unwraps a
// read or throws ReadFailed, and `view_of`, at each public view's boundary, turns that into the
// view's Result. Nothing throws across the archive's interface, and no failed read becomes an
// empty list in a document.
#pragma once

#include <string>
#include <utility>

#include "common/result.hpp"

namespace kforge::archive::detail {

struct ReadFailed {
  std::string error;
};

/// The value of a read, or ReadFailed with its error.
template <class T>
T got(Result<T> read) {
  if (!read) throw ReadFailed{std::move(read.error)};
  return std::move(*read);
}

/// `build()`'s document, or the error of the read that failed while building it.
template <class Build>
auto view_of(Build build) -> Result<decltype(build())> {
  try {
    return {build(), {}};
  } catch (const ReadFailed& failed) {
    return {std::nullopt, failed.error};
  }
}

}  // namespace kforge::archive::detail
