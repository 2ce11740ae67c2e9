// Compiling a candidate source into a shared object the worker can load: g++ for the cpu backend,
// nvcc for cuda, through kforge's own torch/extension.h. Results (and failures, with the compiler
// log) are cached by a content hash of source, flags, shim and compiler; compiles run in parallel.
// On the cpu backend the shim and LibTorch's headers are precompiled once per flag set, which
// takes a compile from 12.0 s to 3.7 s on the development machine (see BENCHMARKS.md).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kforge::gpu {

enum class Backend { cpu, cuda };
std::string_view to_string(Backend backend);
std::optional<Backend> parse_backend(std::string_view text);

struct CompileOptions {
  Backend backend = Backend::cpu;
  std::string cuda_arch = "sm_90";  ///< sm_XY of the device the candidate will run on
  std::string cache_dir;            ///< where sources, objects and logs are kept
  std::chrono::seconds timeout{300};
  std::vector<std::string> extra_flags;
  /// Shown in the compiler log instead of the cached copy's path (the user's file name).
  std::string source_name;
  /// cpu backend: LibTorch's headers precompiled once per flag set and reused (g++ only).
  bool precompiled_header = true;
  /// On a kernel without Landlock: compile unconfined (true) or refuse (false).
  bool allow_unconfined = false;
};

struct CompileResult {
  bool ok = false;
  bool cache_hit = false;
  std::string key;           ///< content hash
  std::string library_path;  ///< the shared object, when ok
  std::string log;           ///< what the compiler printed
  std::string error;         ///< one line: why it failed
  double seconds = 0;        ///< compiler wall time (0 on a cache hit)
};

/// The argument vector used for a source file and an output path (for logs and tests).
std::vector<std::string> compile_command(const CompileOptions& options,
                                         const std::string& source_path,
                                         const std::string& output_path);

CompileResult compile_candidate(std::string_view source, const CompileOptions& options);

/// Compiles several sources at once, at most `parallel` compilers running together.
std::vector<CompileResult> compile_all(const std::vector<std::string>& sources,
                                       const CompileOptions& options, unsigned parallel);

}  // namespace kforge::gpu
