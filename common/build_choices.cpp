#include "common/build_choices.hpp"

namespace kforge {

std::string_view to_string(Backend backend) {
  return backend == Backend::cpu ? "cpu" : "cuda";
}

std::optional<Backend> parse_backend(std::string_view text) {
  if (text == "cpu") return Backend::cpu;
  if (text == "cuda") return Backend::cuda;
  return std::nullopt;
}

std::string_view to_string(Headers headers) {
  switch (headers) {
    case Headers::light:
      return "light";
    case Headers::full:
      return "full";
    case Headers::automatic:
      break;
  }
  return "auto";
}

std::optional<Headers> parse_headers(std::string_view text) {
  if (text == "auto" || text == "automatic") return Headers::automatic;
  if (text == "light") return Headers::light;
  if (text == "full") return Headers::full;
  return std::nullopt;
}

std::string_view to_string(LibraryPolicy policy) {
  switch (policy) {
    case LibraryPolicy::allow:
      return "allow";
    case LibraryPolicy::forbid:
      return "forbid";
    case LibraryPolicy::flag:
      break;
  }
  return "flag";
}

std::optional<LibraryPolicy> parse_library_policy(std::string_view text) {
  if (text == "allow") return LibraryPolicy::allow;
  if (text == "flag") return LibraryPolicy::flag;
  if (text == "forbid") return LibraryPolicy::forbid;
  return std::nullopt;
}

}  // namespace kforge
