// Compiling a candidate source into a shared object the worker can load: g++ for the cpu backend,
// nvcc for cuda, through kforge's own torch/extension.h. Two sets of headers: kforge's light
// headers (evaluation/shim_light: LibTorch's common names, forwarding to the worker's LibTorch,
// parsed in about a second) are tried first, and LibTorch's own headers (evaluation/shim) build
// what the light ones cannot; the result says which built it. Results (and failures, with the
// compiler log) are cached by a content hash of source, headers, flags and compiler; compiles run
// in parallel. On the cpu backend either set of headers is precompiled once per flag set
// (LibTorch's: 12.0 s to 3.7 s per compile on the development machine, see BENCHMARKS.md).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/build_choices.hpp"
#include "evaluation/kernel_resources.hpp"

namespace kforge::evaluation {

// The backend and the headers (common/build_choices.hpp), as the compiler's callers name them.
using Backend = kforge::Backend;
using Headers = kforge::Headers;
using kforge::parse_backend;
using kforge::parse_headers;
using kforge::to_string;

struct CompileOptions {
  Backend backend = Backend::cpu;
  std::string cuda_arch = "sm_90";  ///< sm_XY of the device the candidate will run on
  std::string cache_dir;            ///< where sources, objects and logs are kept
  Headers headers = Headers::automatic;
  std::chrono::seconds timeout{300};
  std::vector<std::string> extra_flags;
  /// Shown in the compiler log instead of the cached copy's path (the user's file name).
  std::string source_name;
  /// cpu backend: the headers (light or LibTorch's) precompiled once per flag set and reused
  /// (g++ only).
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
  double seconds = 0;        ///< compiler wall time (0 on a cache hit), every attempt included
  /// "light" or "full": the headers that built it, or whose error `error` and `log` are.
  std::string headers;
  /// The light headers were tried and could not build it: their first error (never in `log`).
  std::string light_error;
  std::vector<KernelResources> kernels;  ///< what each kernel uses (cuda, when ok)
};

/// The flags that decide a candidate's generated code (optimisation level, target processor,
/// OpenMP, CUDA's half-precision conventions): the compiler pool builds every candidate with them,
/// and `kforge best` writes them into the package it makes, so that what a user builds is what
/// kforge timed. `compile` goes to g++ (cpu) or nvcc (cuda), `link` to the link step.
struct CodegenFlags {
  std::vector<std::string> compile;
  std::vector<std::string> link;
};
CodegenFlags codegen_flags(Backend backend);

/// nvcc's device compiler (cicc, CUDA 13.0) crashes on some sources at its default optimisation,
/// not on every run (exit 139 five times in six on one of KernelBench's EfficientNetB0 kernels: a
/// 5 x 5 depthwise convolution, its 25 taps unrolled for four outputs a thread). A CUDA source it
/// crashed on is built again with these flags added (NVVM's optimiser at -O1); the log of that
/// build begins with kCompilerCrashNote, and `kforge best` packages the kernel with them too.
inline const std::vector<std::string> kCompilerCrashFlags = {"-Xcicc", "-O1"};
inline constexpr const char* kCompilerCrashNote =
    "kforge: nvcc crashed on this source with the default flags (a fault of the compiler, not "
    "of the source); built again with -Xcicc -O1\n";

/// What `kforge eval` and `kforge show` add to their compile line for such a build.
inline constexpr const char* kCompilerCrashSummary =
    "nvcc crashed on it, built again with -Xcicc -O1";

/// Whether a compile log is that of a build made again with kCompilerCrashFlags.
inline bool built_after_compiler_crash(std::string_view log) {
  return log.substr(0, std::string_view(kCompilerCrashNote).size()) == kCompilerCrashNote;
}

/// Whether a failed compile ended with the compiler crashing (a fatal signal, or nvcc's exit
/// status for one) rather than refusing the source.
bool compiler_crashed(const CompileResult& result);

/// The argument vector used for a source file and an output path (for logs and tests); automatic
/// headers give the light headers' command.
std::vector<std::string> compile_command(const CompileOptions& options,
                                         const std::string& source_path,
                                         const std::string& output_path);

/// Builds with the headers of `options`; automatic: the light headers, then LibTorch's when the
/// light ones fail, reporting LibTorch's log and error in that case.
CompileResult compile_candidate(std::string_view source, const CompileOptions& options);

/// Compiles several sources at once, at most `parallel` compilers running together.
std::vector<CompileResult> compile_all(const std::vector<std::string>& sources,
                                       const CompileOptions& options, unsigned parallel);

}  // namespace kforge::evaluation
