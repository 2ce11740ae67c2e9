// `kforge best`'s output: the best kernels of a task as a Python package PyTorch code imports.
// The package holds each direction's source as kforge archived it, an `__init__.py` that builds
// them with torch.utils.cpp_extension on first use (or imports what `setup.py build_ext
// --inplace` built) and exposes `forward(...)`, `backward(...)` and, when both exist, an autograd
// `Function` (and `apply`) that runs the best forward kernel and has autograd call the best
// backward kernel; README.md and kforge.json say where the kernels come from and how fast they
// were.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/json.hpp"
#include "common/result.hpp"

namespace kforge::cli {

struct BestKernel {
  int64_t candidate_id = 0;
  std::string source;
  double speedup = 0;   ///< geometric mean over the configs, against eager PyTorch
  json::Value results;  ///< its per-config times (archive::report_view)
  std::string strategy;
  bool confirmed = false;  ///< the times are those it was confirmed with after the search
  /// nvcc flags its build took beyond the codegen flags: evaluation::kCompilerCrashFlags where
  /// nvcc crashed on it at the default optimisation (its compile log says so).
  std::vector<std::string> extra_cuda_flags;
};

struct BestPackage {
  std::string task, task_dir, backend, archive_path;
  int64_t experiment_id = 0;
  std::optional<BestKernel> forward, backward;
  std::string python;  ///< the interpreter whose torch exported the task (named in the README)
  /// The task's export (task.json): the forward arguments' names, and for a backward what
  /// backward_fn receives and where its results go.
  json::Value export_doc;
};

/// Writes the package into `out_dir` (created; files there of the same names are replaced);
/// returns the files written.
Result<std::vector<std::string>> write_best_package(const BestPackage& p,
                                                    const std::string& out_dir);

/// The Python package's name: the folder's name when it is an identifier.
std::string package_name(const std::string& out_dir);

}  // namespace kforge::cli
