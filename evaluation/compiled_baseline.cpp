#include "evaluation/compiled_baseline.hpp"

#include <filesystem>

#include "evaluation/build_config.hpp"
#include "evaluation/process.hpp"
#include "evaluation/task_export.hpp"

namespace kforge::evaluation {

bool is_compiled_baseline_mode(const std::string& mode) {
  return mode == "max-autotune" || mode == "default";
}

CompiledBaselineInfo build_compiled_baseline(const std::string& task_dir,
                                             const std::string& export_dir,
                                             const CompiledBaselineOptions& o) {
  namespace fs = std::filesystem;
  CompiledBaselineInfo info;
  SpawnOptions spawn = task_script(
      o.python, build::compile_baseline,
      {"--task", fs::absolute(task_dir).string(), "--export-dir", fs::absolute(export_dir).string(),
       "--mode", o.mode, "--device", std::string(to_string(o.backend)), "--configs", o.config_set});
  if (o.force) spawn.argv.push_back("--force");
  if (o.compile_threads > 0) {
    spawn.argv.push_back("--compile-threads");
    spawn.argv.push_back(std::to_string(o.compile_threads));
  }
  if (!o.visible_devices.empty())
    spawn.set_env.emplace_back("CUDA_VISIBLE_DEVICES", o.visible_devices);
  auto result = run(spawn, o.timeout);
  std::string output = result.output;
  while (!output.empty() && (output.back() == '\n' || output.back() == ' ')) output.pop_back();
  if (!result.ok()) {
    const std::string prefix = "compile baseline failed: ";
    size_t at = output.rfind(prefix);
    info.error = result.exit_code == 1 && at != std::string::npos
                     ? output.substr(at + prefix.size())
                     : "building the torch.compile baseline of " + task_dir + " " +
                           result.describe() + (output.empty() ? "" : ":\n" + output);
    return info;
  }
  info.dir = output.substr(output.rfind('\n') == std::string::npos ? 0 : output.rfind('\n') + 1);
  auto parsed = json::parse_file(info.dir + "/compiled.json");
  if (!parsed.value) {
    info.error = "the compile step wrote no readable compiled.json: " + parsed.error;
    info.dir.clear();
    return info;
  }
  info.doc = std::move(*parsed.value);
  return info;
}

std::string describe_compiled_baseline(const json::Value& doc) {
  if (doc.contains("error")) return "none: " + doc["error"].as_string();
  int64_t built = 0, total = 0;
  std::string first_reason;
  for (const auto& [direction, d] : doc["directions"].as_object()) {
    if (d.contains("error")) continue;
    const auto& configs = d["configs"].as_array();
    for (size_t i = 0; i < configs.size(); ++i) {
      if (configs[i]["error"].as_string().rfind("not built:", 0) == 0) continue;  // another set
      ++total;
      if (!configs[i].contains("error")) {
        ++built;
      } else if (first_reason.empty()) {
        first_reason =
            direction + " config " + std::to_string(i) + ": " + configs[i]["error"].as_string();
      }
    }
  }
  std::string s = std::to_string(built) + " of " + std::to_string(total) + " configs compiled (" +
                  doc["mode"].as_string() + ", " +
                  std::to_string(static_cast<int>(doc["seconds"]["total"].as_number() + 0.5)) +
                  " s)";
  return first_reason.empty() ? s : s + "; " + first_reason;
}

}  // namespace kforge::evaluation
