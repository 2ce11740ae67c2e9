// The torch.compile baseline of an exported task: exporter/compile_baseline.py builds one
// AOTInductor library per config (in the export folder, kept until torch, the GPU or the script
// changes); the worker loads and times them from C++. Python runs here only, never while kernels
// are evaluated.
#pragma once

#include <chrono>
#include <string>

#include "common/json.hpp"
#include "evaluation/compiler.hpp"

namespace kforge::evaluation {

struct CompiledBaselineOptions {
  std::string python;                 ///< interpreter with torch; empty: as for exports
  std::string mode = "max-autotune";  ///< "max-autotune" or "default" (Inductor's modes)
  Backend backend = Backend::cuda;
  std::string config_set = "all";  ///< build the configs of this set only ("multi", ...)
  std::chrono::seconds timeout{3600};
  bool force = false;
  /// Inductor's compile workers (TORCHINDUCTOR_COMPILE_THREADS); 0: Inductor's default (one per
  /// core, up to 32), right for one build alone. The compiler pool, which builds several at once,
  /// passes its share of the cores.
  int compile_threads = 0;
  /// CUDA_VISIBLE_DEVICES for the build (BaselineGpus::Lease::device); empty: kforge's own.
  std::string visible_devices;
};

struct CompiledBaselineInfo {
  std::string dir;    ///< the folder of compiled.json (also when it says no config was built)
  json::Value doc;    ///< compiled.json
  std::string error;  ///< why there is no compiled.json at all
};

/// The modes `compiled_baseline` settings accept besides "off".
bool is_compiled_baseline_mode(const std::string& mode);

/// Builds (or finds) the baseline of the task exported to `export_dir` from `task_dir`.
CompiledBaselineInfo build_compiled_baseline(const std::string& task_dir,
                                             const std::string& export_dir,
                                             const CompiledBaselineOptions& options);

/// The configs of compiled.json that have a library, and the reason of the first that has none
/// ("" when all do): for a line such as "12 of 14 configs compiled (config 3: ...)".
std::string describe_compiled_baseline(const json::Value& doc);

}  // namespace kforge::evaluation
