#include "tools/kforge/import_command.hpp"

#include <iostream>

#include "evaluation/build_config.hpp"
#include "evaluation/process.hpp"
#include "evaluation/python_scripts.hpp"
#include "evaluation/task_export.hpp"
#include "tools/kforge/command_line.hpp"

namespace kforge::cli {

int run_import(const std::vector<std::string>& args) {
  std::string from, out;
  std::vector<std::string> problems, sizes;
  int shrink = 1;
  CommandLine line(
      "import",
      "Writes one robust-kbench task folder per KernelBench problem into DIR (DIR/<problem>/: "
      "func_forward.py, config_forward.json, the problem file). A kernel's forward receives the "
      "problem's inputs (get_inputs()) in order, then the model's parameters in "
      "named_parameters() order, then its buffers in named_buffers() order; the constructor's "
      "arguments (get_init_inputs()) are constants of the task.",
      "exit status: 0 all imported, 1 some failed (each says why), 2 usage or no Python with "
      "torch");
  auto& app = line.app();
  app.add_option("PROBLEM.py", problems, "KernelBench problem files")->required();
  add_choice(app, "--from", from, {"kernelbench"}, "the format of the problems: kernelbench")
      ->required();
  app.add_option("--out", out, "where the task folders go")->required()->type_name("DIR");
  app.add_option("--sizes", sizes,
                 "one more config: the file's sizes (its module-level numbers) with these set; "
                 "may be given several times. The file's own sizes are always the first config")
      ->allow_extra_args(false)
      ->type_name("NAME=V[,NAME=V...]");
  app.add_option(
         "--shrink", shrink,
         "divide the file's sizes of 32 or more by F (never below 16), and its shape tuples' "
         "entries alike: a small problem for a quick check (the file's own sizes are then "
         "not a config)")
      ->check(CLI::PositiveNumber)
      ->type_name("F");
  if (auto code = line.parse(args)) return *code;
  evaluation::SpawnOptions spawn = evaluation::task_script(
      "", build::kernelbench_importer, {"--out", out, "--shrink", std::to_string(shrink)});
  for (const auto& s : sizes) {
    spawn.argv.push_back("--sizes");
    spawn.argv.push_back(s);
  }
  for (const auto& p : problems) spawn.argv.push_back(p);
  auto result = evaluation::run_script(spawn, std::chrono::minutes(30));
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
