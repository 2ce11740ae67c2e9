// The choices that decide how a candidate is built and judged, one enum each, named by the same
// words in configurations, on command lines, in messages and in the worker's request: the
// backend, the headers that build a candidate, and the library-call policy. Each is parsed once,
// where a person wrote it; a word that names none is an error there, never a default.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace kforge {

enum class Backend : uint8_t { cpu, cuda };
std::string_view to_string(Backend backend);
std::optional<Backend> parse_backend(std::string_view text);

/// Which headers build a candidate: the light ones with LibTorch's as the fallback ("auto"), or
/// one of them.
enum class Headers : uint8_t { automatic, light, full };
/// "auto", "light" or "full", as configurations and `kforge eval --headers` write it.
std::string_view to_string(Headers headers);
/// Also "automatic".
std::optional<Headers> parse_headers(std::string_view text);

/// What a candidate's calls into PyTorch's library operators cost it: nothing, a flag on its
/// verdict, or the verdict (evaluation/library_policy.hpp says what counts as one).
enum class LibraryPolicy : uint8_t { allow, flag, forbid };
std::string_view to_string(LibraryPolicy policy);
std::optional<LibraryPolicy> parse_library_policy(std::string_view text);

}  // namespace kforge
