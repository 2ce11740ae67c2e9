// Running the Python exporter (exporter/export_task.py) on a task folder, with its cache. Python
// runs here only: at export time, never while kernels are evaluated.
#pragma once

#include <chrono>
#include <string>

#include "common/json.hpp"
#include "evaluation/process.hpp"

namespace kforge::evaluation {

struct ExportOptions {
  std::string python;     ///< interpreter with torch; empty: $KFORGE_PYTHON, then the build's
  std::string cache_dir;  ///< exports go to <cache_dir>/exports/<hash>
  std::chrono::seconds timeout{1800};
  bool force = false;
};

struct ExportedTaskInfo {
  bool ok = false;
  std::string dir;    ///< the export folder (holds task.json)
  json::Value doc;    ///< task.json, shared with tasks::read_task_document's cache: read only
  std::string error;  ///< why not, with the exporter's own message
};

ExportedTaskInfo export_task(const std::string& task_dir, const ExportOptions& options);

/// $KFORGE_CACHE, else $XDG_CACHE_HOME/kforge, else ~/.cache/kforge.
std::string default_cache_dir();

/// The Python that runs task code (exports, imports): `configured` when given, else
/// $KFORGE_PYTHON, else the one the build found.
std::string task_python(const std::string& configured = "");

/// How kforge runs one of its Python scripts on the user's task code (the exporter, the
/// KernelBench importer, the compiled baseline): with network (the task's code is trusted; the
/// sandbox is for candidates) and outside a PID namespace, where the CUDA driver does not start
/// without its own /proc (as for the worker); the process still dies with kforge.
SpawnOptions task_script(const std::string& python, const char* script,
                         std::vector<std::string> args);

}  // namespace kforge::evaluation
