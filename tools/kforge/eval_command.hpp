// `kforge eval`: evaluates one candidate kernel against one task and prints a verdict.
#pragma once

#include <string>
#include <vector>

namespace kforge::cli {

/// Exit status: 0 correct, 1 incorrect (compile errors included), 2 usage or infrastructure error.
int run_eval(const std::vector<std::string>& args);
/// `kforge export --task DIR`: exports a task and prints its configs and warnings.
int run_export(const std::vector<std::string>& args);

}  // namespace kforge::cli
