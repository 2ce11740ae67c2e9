#include "tools/kforge/best_command.hpp"

#include <filesystem>
#include <iomanip>
#include <iostream>
#include <limits>
#include <map>

#include "archive/report.hpp"
#include "archive/views.hpp"
#include "common/numbers.hpp"
#include "evaluation/build_config.hpp"
#include "evaluation/compiler.hpp"
#include "evaluation/task_export.hpp"
#include "tools/kforge/actor_host.hpp"
#include "tools/kforge/best_package.hpp"
#include "tools/kforge/command_line.hpp"

namespace kforge::cli {

int run_best(const std::vector<std::string>& args) {
  std::string archive_path = default_state_dir() + "/archive.db", out, backend, task,
              experiment_text, cache = evaluation::default_cache_dir();
  CommandLine line("best",
                   "Writes the best forward and backward kernels the experiment found for TASK as "
                   "a Python package in DIR: the sources, __init__.py (forward(...), "
                   "backward(...), and an autograd Function binding both), setup.py, README.md "
                   "with their speedups, kforge.json.");
  auto& app = line.app();
  app.add_option("EXPERIMENT", experiment_text, "the experiment's id")->required();
  app.add_option("TASK", task,
                 "the task's name (its folder's name, as in the experiment's targets)")
      ->required();
  app.add_option("--out", out, "the package's folder")->required()->type_name("DIR");
  add_choice(app, "--backend", backend, {"cpu", "cuda"},
             "the backend whose kernels to take (default: any)");
  add_archive_option(app, archive_path);
  app.add_option("--cache", cache, "export cache (default ~/.cache/kforge or $KFORGE_CACHE)")
      ->type_name("DIR");
  if (auto code = line.parse(args)) return *code;
  auto parsed_id = parse_integer(experiment_text, 1, std::numeric_limits<int64_t>::max());
  if (!parsed_id)
    return line.error(integer_error("the experiment id", experiment_text, 1,
                                    std::numeric_limits<int64_t>::max()));
  const int64_t experiment_id = *parsed_id;
  auto opened = open_archive_to_read(archive_path);
  if (!opened) {
    std::cerr << "kforge best: " << opened.error << "\n";
    return 2;
  }
  std::cout << "archive " << archive_path << "\n";
  auto& db = *opened;
  auto found = archive::experiment_view(*db, experiment_id);
  if (!found) {
    std::cerr << "kforge best: " << archive_path << ": " << found.error << "\n";
    return 2;
  }
  auto& view = *found;
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
  p.python = build::python;
  for (const auto& t : (*view)["config"]["tasks"].as_array())
    if (std::filesystem::path(t.as_string()).filename() == task) p.task_dir = t.as_string();
  // The report's per-config times of each best: those of its confirmation where it was timed
  // again after the search, else the search's.
  const auto report = archive::report_view(*db, experiment_id);
  if (!report || !*report) {
    std::cerr << "kforge best: " << archive_path << ": "
              << (report ? "experiment " + std::to_string(experiment_id) + " has no report"
                         : report.error)
              << "\n";
    return 2;
  }
  for (const auto& [direction, id] : best[backend]) {
    auto candidate = archive::candidate_view(*db, id);
    if (!candidate || !*candidate) {
      std::cerr << "kforge best: " << archive_path << ": "
                << (candidate ? "no candidate " + std::to_string(id) : candidate.error) << "\n";
      return 2;
    }
    const auto& c = *candidate;
    BestKernel k;
    k.candidate_id = id;
    k.source = (*c)["source"].as_string();
    k.strategy = (*c)["strategy"].as_string();
    if (c->contains("compile") &&
        evaluation::built_after_compiler_crash((*c)["compile"]["log"].as_string()))
      k.extra_cuda_flags = evaluation::kCompilerCrashFlags;
    for (const auto& t : (**report)["targets"].as_array())
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
    evaluation::ExportOptions eo;
    eo.cache_dir = cache;
    auto exported = evaluation::export_task(p.task_dir, eo);
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
  for (const auto& [d, k] : {std::pair{"forward", p.forward}, std::pair{"backward", p.backward}})
    if (k && k->speedup < 1)
      std::cout << "no " << d << " kernel beat eager PyTorch (the best runs at "
                << format_number("%.2fx", k->speedup) << "): keep eager PyTorch for " << task << " "
                << d << "\n";
  for (const auto& f : *written) std::cout << "wrote " << f << "\n";
  std::cout << "import " << name << " (from "
            << std::filesystem::absolute(out).parent_path().string()
            << "); README.md there says how\n";
  return 0;
}

}  // namespace kforge::cli
