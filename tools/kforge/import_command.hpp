// `kforge import --from kernelbench`: KernelBench problem files as robust-kbench task folders
// (exporter/import_kernelbench.py does the work; this runs it with the task Python).
#pragma once

#include <string>
#include <vector>

namespace kforge::cli {

int run_import(const std::vector<std::string>& args);

}  // namespace kforge::cli
