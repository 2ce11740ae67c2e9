// kforge: turns PyTorch code into fast, verified CUDA kernels. This is the command-line entry.
#include <iostream>
#include <string>
#include <vector>

#include "tools/kforge/best_command.hpp"
#include "tools/kforge/daemon_command.hpp"
#include "tools/kforge/eval_command.hpp"
#include "tools/kforge/generate_command.hpp"
#include "tools/kforge/import_command.hpp"
#include "tools/kforge/node_command.hpp"
#include "tools/kforge/run_command.hpp"
#include "tools/kforge/suite_command.hpp"

namespace {

void print_help() {
  std::cout
      << "kforge: turn PyTorch code into fast, verified CUDA kernels\n\n"
         "usage: kforge <command> [options]\n\n"
         "commands:\n"
         "  eval     check a kernel against a task and time it next to PyTorch\n"
         "           kforge eval --task DIR --kernel FILE [--backend cpu|cuda] [--seeds N] "
         "[--json]\n"
         "  export   export a task (argument lists, draws, TorchScript reference, warnings)\n"
         "           kforge export --task DIR\n"
         "  generate write a kernel for a task from its traced ATen graph (no LLM)\n"
         "           kforge generate --task DIR [--backend cpu|cuda] [--out FILE]\n"
         "  import   KernelBench problem files as task folders\n"
         "           kforge import --from kernelbench PROBLEM.py... --out DIR [--sizes N=V,...]\n"
         "  suite    evaluate the kernels of many tasks; a results table (CSV, JSON, terminal)\n"
         "           kforge suite --tasks DIR... --kernels PATTERN [--backend cpu|cuda]\n"
         "  run      run one experiment in the foreground (no daemon)\n"
         "           kforge run CONFIG [--archive PATH] [--offline | --replay ID]\n"
         "           kforge run --resume EXPERIMENT\n"
         "  show     print an archived candidate: verdicts, results, profile, source\n"
         "           kforge show CANDIDATE [--archive PATH]\n"
         "  report   an experiment's results: each target's best kernel with per-config times "
         "next to\n"
         "           eager and torch.compile, its lineage, the strategies tried, LLM cost and how "
         "the\n"
         "           verifiers did against the hardware\n"
         "           kforge report EXPERIMENT [--archive PATH] [--json | --csv]\n"
         "  list     the experiments in an archive with their best speedup per target\n"
         "           kforge list [--archive PATH] [--json]\n"
         "  best     the best kernels of a task as a Python package PyTorch code imports\n"
         "           kforge best EXPERIMENT TASK --out DIR [--archive PATH]\n"
         "  daemon   host the actors, resume unfinished experiments, serve the API on loopback\n"
         "           kforge daemon [--state DIR] [--port N]\n"
         "  node     offer this host's evaluators to a daemon started with --node-port\n"
         "           kforge node --join HOST:PORT --token-file FILE [--gpus LIST | --cpu]\n"
         "  console  attach to a daemon: actor states, experiments, live events, commands\n"
         "           kforge console [--state DIR] [state|watch|events|submit FILE|pause ID|...]\n"
         "  dashboard  the address of the daemon's web dashboard, signed in\n"
         "           kforge dashboard [--state DIR]\n"
         "  help     this text; `kforge <command> --help` for a command's options\n";
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "help" || args[0] == "--help" || args[0] == "-h") {
    print_help();
    return args.empty() ? 2 : 0;
  }
  std::string command = args[0];
  args.erase(args.begin());
  if (command == "eval") return kforge::cli::run_eval(args);
  if (command == "export") return kforge::cli::run_export(args);
  if (command == "run") return kforge::cli::run_experiment(args);
  if (command == "suite") return kforge::cli::run_suite(args);
  if (command == "import") return kforge::cli::run_import(args);
  if (command == "generate") return kforge::cli::run_generate(args);
  if (command == "show") return kforge::cli::run_show(args);
  if (command == "report") return kforge::cli::run_report(args);
  if (command == "best") return kforge::cli::run_best(args);
  if (command == "list") return kforge::cli::run_list(args);
  if (command == "daemon") return kforge::cli::run_daemon(args);
  if (command == "node") return kforge::cli::run_node(args);
  if (command == "console") return kforge::cli::run_console(args);
  if (command == "dashboard")  // the console's `dashboard`, with the same connection options
    return kforge::cli::run_console(args, /*dashboard=*/true);
  std::cerr << "kforge: unknown command `" << command << "`; `kforge help` lists the commands\n";
  return 2;
}
