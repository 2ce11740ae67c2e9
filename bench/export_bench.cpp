// What a warm interpreter (exporter/script_server.py) saves each task export.
//
//   build/bench/kforge-export-bench --task tasks/softmax --exports 8
//
// Exports `exports` copies of the task, each made distinct by a comment line (so that none is a
// cache hit), alternately in a fresh interpreter (KFORGE_SCRIPT_SERVER unset) and through a
// script server this program starts on a socket of its own, each into an empty cache; prints
// each export's seconds and the medians side by side.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "evaluation/build_config.hpp"
#include "evaluation/process.hpp"
#include "evaluation/python_scripts.hpp"
#include "evaluation/task_export.hpp"

namespace fs = std::filesystem;
using namespace kforge;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

/// Seconds of one export (the exporter as export_task runs it), checked to have been served or
/// not as asked.
double timed_export(const fs::path& task, const fs::path& cache, bool served) {
  const auto start = std::chrono::steady_clock::now();
  auto r = evaluation::run_script(
      evaluation::task_script("", build::exporter,
                              {"--task", task.string(), "--cache-root", cache.string()}),
      std::chrono::minutes(10));
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!r.ok() || r.served != served) {
    std::cerr << "export of " << task << (r.served ? " (served)" : " (fresh)") << ": "
              << r.describe() << "\n"
              << r.output << "\n";
    std::exit(2);
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  std::string task;
  int exports = 8;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--task") task = argv[i + 1];
    if (a == "--exports") exports = std::max(1, std::atoi(argv[i + 1]));
  }
  if (task.empty()) {
    std::cerr << "usage: kforge-export-bench --task DIR [--exports N]\n";
    return 2;
  }
  const fs::path dir =
      fs::temp_directory_path() / ("kforge-export-bench-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string socket = (dir / "s.sock").string();
  auto server = evaluation::start_script_server(socket, 600);
  if (!server) {
    std::cerr << server.error << "\n";
    return 2;
  }
  std::vector<double> fresh, served;
  std::printf("%-6s %-12s %-12s\n", "copy", "fresh s", "served s");
  for (int i = 0; i < exports; ++i) {
    double s[2] = {0, 0};
    for (int way = 0; way < 2; ++way) {
      const fs::path copy = dir / ("task_" + std::to_string(i) + "_" + std::to_string(way));
      fs::copy(task, copy, fs::copy_options::recursive);
      std::ofstream(copy / "func_forward.py", std::ios::app) << "\n# copy " << i << way << "\n";
      if (way == 0)
        ::unsetenv(evaluation::kScriptServerVariable);
      else
        ::setenv(evaluation::kScriptServerVariable, socket.c_str(), 1);
      s[way] =
          timed_export(copy, dir / ("cache_" + std::to_string(i) + std::to_string(way)), way == 1);
    }
    fresh.push_back(s[0]);
    served.push_back(s[1]);
    std::printf("%-6d %-12.3f %-12.3f\n", i, s[0], s[1]);
  }
  std::printf("median %-12.3f %-12.3f (%.1fx)\n", median(fresh), median(served),
              median(fresh) / std::max(median(served), 1e-9));
  server->kill_group();
  fs::remove_all(dir);
  return 0;
}
