// `kforge best EXPERIMENT TASK --out DIR`: the best forward and backward kernels an experiment
// found for a task, written as a Python package PyTorch code imports (tools/kforge/best_package).
#pragma once

#include <string>
#include <vector>

namespace kforge::cli {

int run_best(const std::vector<std::string>& args);

}  // namespace kforge::cli
