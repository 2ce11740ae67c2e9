#include "tools/kforge/best_command.hpp"

#include <filesystem>
#include <iomanip>
#include <iostream>
#include <limits>
#include <map>

#include "archive/report.hpp"
#include "archive/views.hpp"
#include "common/numbers.hpp"
#include "gpu/task_export.hpp"
#include "tools/kforge/actor_host.hpp"
#include "tools/kforge/best_package.hpp"

namespace kforge::cli {
namespace {

const char* kUsage =
    "usage: kforge best EXPERIMENT TASK --out DIR [--backend cpu|cuda] [--archive PATH] "
    "[--cache DIR]\n"
    "  writes the best forward and backward kernels the experiment found for TASK as a Python\n"
    "  package in DIR: the sources, __init__.py (forward(...), backward(...), and an autograd\n"
    "  Function binding both), setup.py, README.md with their speedups, kforge.json\n";

}  // namespace

int run_best(const std::vector<std::string>& args) {
  std::string archive_path = default_state_dir() + "/archive.db", out, backend, task,
              cache = gpu::default_cache_dir();
  int64_t experiment_id = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> const std::string* { return i + 1 < args.size() ? &args[++i] : nullptr; };
    const std::string* v = nullptr;
    if (a == "--help") {
      std::cout << kUsage;
      return 0;
    } else if ((a == "--archive" || a == "--out" || a == "--backend" || a == "--cache") &&
               (v = value())) {
      (a == "--archive"   ? archive_path
       : a == "--out"     ? out
       : a == "--backend" ? backend
                          : cache) = *v;
    } else if (!experiment_id && !a.empty() && a[0] != '-') {
      auto id = parse_integer(a, 1, std::numeric_limits<int64_t>::max());
      if (!id) {
        std::cerr << "kforge best: "
                  << integer_error("the experiment id", a, 1, std::numeric_limits<int64_t>::max())
                  << "\n";
        return 2;
      }
      experiment_id = *id;
    } else if (task.empty() && !a.empty() && a[0] != '-') {
      task = a;
    } else {
      std::cerr << kUsage;
      return 2;
    }
  }
  if (!experiment_id || task.empty() || out.empty()) {
    std::cerr << kUsage;
    return 2;
  }
  if (!backend.empty() && backend != "cpu" && backend != "cuda") {
    std::cerr << "kforge best: --backend must be cpu or cuda\n";
    return 2;
  }
  auto opened = open_archive_to_read(archive_path);
  if (!opened) {
    std::cerr << "kforge best: " << opened.error << "\n";
    return 2;
  }
  std::cout << "archive " << archive_path << "\n";
  auto& db = *opened;
  auto view = archive::experiment_view(*db, experiment_id);
  if (!view) {
    std::cerr << "kforge best: no experiment " << experiment_id << " in " << archive_path << "\n";
    return 2;
  }
  // The backend: the one asked for, else cuda where the task has a correct kernel there.
  std::map<std::string, std::map<std::string, int64_t>> best;  // backend -> direction -> id
  std::vector<std::string> targets;
  for (const auto& t : (*view)["targets"].as_array()) {
    const std::string key = t["target"].as_string();
    const auto a = key.find('/'), b = key.rfind('/');
    if (a == std::string::npos || key.substr(0, a) != task) continue;
    targets.push_back(key);
    if (t.contains("best_candidate"))
      best[key.substr(b + 1)][key.substr(a + 1, b - a - 1)] = t["best_candidate"].as_int();
  }
  if (targets.empty()) {
    std::cerr << "kforge best: experiment " << experiment_id << " has no target of task " << task
              << "\n";
    return 2;
  }
  if (backend.empty()) backend = best.count("cuda") ? "cuda" : "cpu";
  if (!best.count(backend)) {
    std::cerr << "kforge best: no correct " << backend << " kernel of " << task << " in experiment "
              << experiment_id << " (its targets:";
    for (const auto& t : targets) std::cerr << " " << t;
    std::cerr << ")\n";
    return 1;
  }
  BestPackage p;
  p.task = task;
  p.backend = backend;
  p.archive_path = std::filesystem::absolute(archive_path).lexically_normal().string();
  p.experiment_id = experiment_id;
  for (const auto& t : (*view)["config"]["tasks"].as_array())
    if (std::filesystem::path(t.as_string()).filename() == task) p.task_dir = t.as_string();
  // The report's per-config times of each best: those of its confirmation where it was timed
  // again after the search, else the search's.
  const auto report = archive::report_view(*db, experiment_id);
  for (const auto& [direction, id] : best[backend]) {
    auto c = archive::candidate_view(*db, id);
    if (!c || !report) continue;
    BestKernel k;
    k.candidate_id = id;
    k.source = (*c)["source"].as_string();
    k.strategy = (*c)["strategy"].as_string();
    for (const auto& t : (*report)["targets"].as_array())
      if (t["target"].as_string() == task + "/" + direction + "/" + backend) {
        k.speedup = t["best_speedup"].as_number();
        k.results = t["results"];
        k.confirmed = t["best_confirmed"].as_bool(false);
      }
    (direction == "forward" ? p.forward : p.backward) = k;
  }
  if (p.backward) {
    // What backward_fn receives and where its results go: the task's export (cached).
    if (p.task_dir.empty() || !std::filesystem::exists(p.task_dir + "/func_backward.py")) {
      std::cerr << "kforge best: the task folder of " << task
                << " is gone from where the experiment found it (" << p.task_dir
                << "); the backward binding needs its func_backward.py\n";
      return 2;
    }
    gpu::ExportOptions eo;
    eo.cache_dir = cache;
    auto exported = gpu::export_task(p.task_dir, eo);
    if (!exported.ok) {
      std::cerr << "kforge best: cannot export " << p.task_dir << ": " << exported.error << "\n";
      return 2;
    }
    p.export_doc = exported.doc;
  }
  auto written = write_best_package(p, out);
  if (!written) {
    std::cerr << "kforge best: " << written.error << "\n";
    return 2;
  }
  const std::string name = package_name(out);
  for (const auto& [d, k] : {std::pair{"forward", p.forward}, std::pair{"backward", p.backward}})
    if (k)
      std::cout << d << ": candidate " << k->candidate_id << ", " << std::fixed
                << std::setprecision(2) << k->speedup << "x eager PyTorch (geometric mean)\n";
  for (const auto& f : *written) std::cout << "wrote " << f << "\n";
  std::cout << "import " << name << " (from "
            << std::filesystem::absolute(out).parent_path().string()
            << "); README.md there says how\n";
  return 0;
}

}  // namespace kforge::cli
