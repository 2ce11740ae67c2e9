// The files proposer's matching: which kernel files a pattern names for a target. The files
// proposer (actors/files_proposer_actor.cpp) proposes each once per target it fits; with it alone,
// an experiment evaluates a benchmark's kernels (`kforge suite`, which also counts them here).
#pragma once

#include <string>
#include <vector>

namespace kforge::proposers {

/// What a kernel file must fit: the target's task folder and name, direction and backend.
struct FileTarget {
  std::string task_dir;
  std::string task;
  std::string direction;  ///< "forward" or "backward"
  std::string backend;    ///< "cpu" or "cuda"
};

/// The files that `pattern` names for target `t`, sorted: {task} is the task folder, {name} its
/// last component, {direction} and {backend} the target's. A `.cu` file fits cuda targets, any
/// other file cpu targets; when the pattern does not name {direction}, a file fits the directions
/// it registers (m.def("forward", ...)), or forward when it registers neither.
std::vector<std::string> kernel_files(const std::string& pattern, const FileTarget& t);

/// A kernel file's text, at most its first 4 MiB (the verifier rejects what is larger anyway).
std::string read_kernel_file(const std::string& path);

}  // namespace kforge::proposers
