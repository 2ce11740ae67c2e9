// `kforge suite`: evaluates the kernel files of many tasks through the experiment pipeline and
// writes a results table (CSV, JSON, terminal).
#pragma once

#include <string>
#include <vector>

namespace kforge::cli {

int run_suite(const std::vector<std::string>& args);

}  // namespace kforge::cli
