#include "tools/kforge/import_command.hpp"

#include <iostream>

#include "gpu/build_config.hpp"
#include "gpu/process.hpp"
#include "gpu/task_export.hpp"

namespace kforge::cli {
namespace {

constexpr const char* kImportUsage =
    "usage: kforge import --from kernelbench PROBLEM.py... --out DIR [--sizes "
    "NAME=V[,NAME=V...]]...\n"
    "  writes one robust-kbench task folder per KernelBench problem into DIR\n"
    "  (DIR/<problem>/: func_forward.py, config_forward.json, the problem file). A kernel's\n"
    "  forward receives the problem's inputs (get_inputs()) in order, then the model's\n"
    "  parameters in named_parameters() order, then its buffers in named_buffers() order;\n"
    "  the constructor's arguments (get_init_inputs()) are constants of the task.\n"
    "  --sizes   one more config: the file's sizes (its module-level numbers) with these set;\n"
    "            may be given several times. The file's own sizes are always the first config\n"
    "exit status: 0 all imported, 1 some failed (each says why), 2 usage or no Python with torch\n";

}  // namespace

int run_import(const std::vector<std::string>& args) {
  std::string from, out;
  std::vector<std::string> problems, sizes;
  for (size_t i = 0; i < args.size(); ++i) {
    const auto& a = args[i];
    const bool has_value = i + 1 < args.size();
    if (a == "--from" && has_value)
      from = args[++i];
    else if (a == "--out" && has_value)
      out = args[++i];
    else if (a == "--sizes" && has_value)
      sizes.push_back(args[++i]);
    else if (a == "--help" || a == "-h") {
      std::cout << kImportUsage;
      return 0;
    } else if (!a.empty() && a[0] != '-')
      problems.push_back(a);
    else {
      std::cerr << "kforge import: unknown option or missing value: " << a << "\n" << kImportUsage;
      return 2;
    }
  }
  if (from != "kernelbench") {
    std::cerr << "kforge import: --from kernelbench is the one format known"
              << (from.empty() ? "" : " (not \"" + from + "\")") << "\n"
              << kImportUsage;
    return 2;
  }
  if (out.empty() || problems.empty()) {
    std::cerr << "kforge import: give problem files and --out DIR\n" << kImportUsage;
    return 2;
  }
  gpu::SpawnOptions spawn = gpu::task_script("", build::kernelbench_importer, {"--out", out});
  for (const auto& s : sizes) {
    spawn.argv.push_back("--sizes");
    spawn.argv.push_back(s);
  }
  for (const auto& p : problems) spawn.argv.push_back(p);
  auto result = gpu::run(spawn, std::chrono::minutes(30));
  std::cout << result.output;
  if (!result.started) {
    std::cerr << "kforge import: cannot start " << spawn.argv[0] << ": " << result.start_error
              << "\n";
    return 2;
  }
  if (result.exit_code == 0 || result.exit_code == 1) return result.exit_code;
  std::cerr << "kforge import: the importer " << result.describe() << "\n";
  return 2;
}

}  // namespace kforge::cli
