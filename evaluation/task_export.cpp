#include "evaluation/task_export.hpp"

#include <cstdlib>
#include <filesystem>

#include "common/task_document.hpp"
#include "evaluation/build_config.hpp"
#include "evaluation/process.hpp"
#include "evaluation/python_scripts.hpp"

namespace kforge::evaluation {

std::string default_cache_dir() {
  if (const char* c = std::getenv("KFORGE_CACHE"); c && *c) return c;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/kforge";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/kforge";
  return "/tmp/kforge-cache";
}

std::string task_python(const std::string& configured) {
  if (!configured.empty()) return configured;
  const char* env = std::getenv("KFORGE_PYTHON");
  return env && *env ? env : build::python;
}

SpawnOptions task_script(const std::string& python, const char* script,
                         std::vector<std::string> args) {
  SpawnOptions spawn;
  spawn.argv = {task_python(python), script};
  spawn.argv.insert(spawn.argv.end(), args.begin(), args.end());
  spawn.isolate_network = false;
  spawn.own_pid_namespace = false;
  return spawn;
}

ExportedTaskInfo export_task(const std::string& task_dir, const ExportOptions& o) {
  ExportedTaskInfo info;
  namespace fs = std::filesystem;
  if (!fs::is_directory(task_dir)) {
    info.error = task_dir + ": no such task folder";
    return info;
  }
  if (!fs::exists(fs::path(task_dir) / "func_forward.py") &&
      !fs::exists(fs::path(task_dir) / "func_backward.py")) {
    info.error = task_dir +
                 ": no func_forward.py or func_backward.py; a task is a robust-kbench task folder";
    return info;
  }
  SpawnOptions spawn = task_script(o.python, build::exporter,
                                   {"--task", fs::absolute(task_dir).string(), "--cache-root",
                                    (fs::path(o.cache_dir) / "exports").string()});
  if (o.force) spawn.argv.push_back("--force");
  auto result = run_script(spawn, o.timeout);
  if (!result.ok()) {
    std::string output = result.output;
    while (!output.empty() && (output.back() == '\n' || output.back() == ' ')) output.pop_back();
    // Exit 1 is the exporter's own verdict on the task, a message that says what and where;
    // anything else (a crash, a timeout, no torch) is reported with how the exporter ended.
    // (torch may print warnings before it, on lines of their own).
    const std::string prefix = "export failed: ";
    size_t at = output.rfind("\n" + prefix);
    at = output.rfind(prefix, 0) == 0 ? 0 : (at == std::string::npos ? at : at + 1);
    if (result.exit_code == 1 && at != std::string::npos)
      info.error = output.substr(at + prefix.size());
    else
      info.error = "exporting " + task_dir + " " + result.describe() +
                   (output.empty() ? "" : ":\n" + output);
    return info;
  }
  // The export folder is the last line the exporter printed.
  std::string out = result.output;
  while (!out.empty() && out.back() == '\n') out.pop_back();
  info.dir = out.substr(out.rfind('\n') == std::string::npos ? 0 : out.rfind('\n') + 1);
  auto parsed = tasks::read_task_document(info.dir);
  if (!parsed) {
    info.error = "the exporter wrote no readable task.json: " + parsed.error;
    return info;
  }
  info.doc = **parsed;
  info.ok = true;
  return info;
}

}  // namespace kforge::evaluation
