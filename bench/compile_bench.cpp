// kforge-compile-bench: cold compile times of candidates built with LibTorch's headers only (as
// before kforge's light headers) and with the light headers first (the default), side by side in
// one run: one compile at a time on a sample of the kernels, then every kernel with `--parallel`
// compiles at once; each phase starts from an empty cache. The kernels: every bundled fixture of
// the backend, every built-in template with its defaults, the kernels written the way
// robust-kbench's published ones are (tests/light_headers/rkb_style), and any folders or files
// given (robust-kbench's published kernels, for example). Last, the kernels the light headers
// could not build, with their first error. On the cpu backend, the light headers also without
// their precompiled header (each phase's cache, and so its precompiled header, starts empty).
//
//   build-gpu/bench/kforge-compile-bench --backend cuda --parallel 16 --serial-sample 8
//       .rkb/data/highlighted
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <map>

#include "evaluation/build_config.hpp"
#include "evaluation/compiler.hpp"
#include "evaluation/hashing.hpp"
#include "proposers/builtin/kernel_template.hpp"

using namespace kforge;
namespace fs = std::filesystem;

namespace {

struct Kernel {
  std::string name, source;
};

void add_files(const fs::path& root, const std::string& suffix, std::vector<Kernel>& out,
               const std::string& skip_suffix = "") {
  if (!fs::exists(root)) return;
  std::vector<fs::path> found;
  if (fs::is_regular_file(root)) found.push_back(root);
  for (const auto& e : fs::is_directory(root) ? fs::recursive_directory_iterator(root)
                                              : fs::recursive_directory_iterator())
    if (e.is_regular_file()) found.push_back(e.path());
  std::sort(found.begin(), found.end());
  for (const auto& p : found) {
    const std::string s = p.string();
    if (s.size() < suffix.size() || s.compare(s.size() - suffix.size(), suffix.size(), suffix))
      continue;
    if (!skip_suffix.empty() && s.size() >= skip_suffix.size() &&
        !s.compare(s.size() - skip_suffix.size(), skip_suffix.size(), skip_suffix))
      continue;
    out.push_back({fs::relative(p, build::source_dir).string(), evaluation::read_file(s).text});
  }
}

struct Phase {
  std::vector<double> seconds;
  int light = 0, failed = 0;
  double wall = 0;
  std::vector<std::string> fallbacks;  ///< kernels built with LibTorch's headers, and why
};

Phase run_phase(const std::vector<Kernel>& kernels, evaluation::CompileOptions o, unsigned parallel,
                const fs::path& cache) {
  fs::remove_all(cache);
  o.cache_dir = cache.string();
  std::vector<std::string> sources;
  for (const auto& k : kernels) sources.push_back(k.source);
  const auto start = std::chrono::steady_clock::now();
  auto results = evaluation::compile_all(sources, o, parallel);
  Phase p;
  p.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    p.seconds.push_back(r.seconds);
    p.light += r.ok && r.headers == "light";
    if (!r.light_error.empty())
      p.fallbacks.push_back(kernels[i].name + ": " + r.light_error.substr(0, 240));
    if (!r.ok) {
      ++p.failed;
      std::cerr << "  " << kernels[i].name << " failed: " << r.error << "\n";
    }
  }
  return p;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty()      ? 0
         : v.size() % 2 ? v[v.size() / 2]
                        : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc), extra;
  std::string backend = "cuda", arch = "sm_90";
  unsigned parallel = 16;
  size_t serial_sample = 8;
  std::string ways = "both";
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--backend" && i + 1 < args.size())
      backend = args[++i];
    else if (args[i] == "--arch" && i + 1 < args.size())
      arch = args[++i];
    else if (args[i] == "--parallel" && i + 1 < args.size())
      parallel = static_cast<unsigned>(std::stoul(args[++i]));
    else if (args[i] == "--serial-sample" && i + 1 < args.size())
      serial_sample = std::stoul(args[++i]);
    else if (args[i] == "--headers" && i + 1 < args.size())
      ways = args[++i];
    else if (args[i].rfind("--", 0) == 0) {
      std::cerr << "usage: kforge-compile-bench [--backend cuda|cpu] [--arch sm_XY] [--parallel N]"
                   " [--serial-sample N] [--headers both|full|auto] [FOLDER|FILE...]\n";
      return 2;
    } else
      extra.push_back(args[i]);
  }
  const bool cuda = backend == "cuda";
  const std::string suffix = cuda ? "_cuda.cu" : "_cpu.cpp";
  std::vector<Kernel> kernels;
  add_files(fs::path(build::source_dir) / "tasks", suffix, kernels);
  for (const auto& t : builtin::builtin_templates())
    if (t.backend() == backend) kernels.push_back({"template " + t.name(), t.render(t.defaults())});
  if (cuda)
    add_files(fs::path(build::source_dir) / "tests/light_headers/rkb_style", ".cu", kernels);
  for (const auto& e : extra) add_files(e, cuda ? ".cu" : ".cpp", kernels);
  // The same evenly spread sample for both ways of the one-at-a-time phase.
  std::vector<Kernel> sample;
  const size_t step = std::max<size_t>(1, kernels.size() / std::max<size_t>(1, serial_sample));
  for (size_t i = 0; i < kernels.size() && sample.size() < serial_sample; i += step)
    sample.push_back(kernels[i]);

  evaluation::CompileOptions o;
  o.backend = cuda ? evaluation::Backend::cuda : evaluation::Backend::cpu;
  o.cuda_arch = arch;
  const fs::path root = fs::temp_directory_path() / "kforge-compile-bench";
  std::cout << kernels.size() << " kernels (" << backend << "), " << sample.size()
            << " of them one at a time, all " << parallel << " at once\n";
  std::cout << "headers          phase            n   median s   max s   wall s   light path\n";
  std::vector<std::string> fallbacks;
  // On the cpu backend the light headers once more without their precompiled header, as they were
  // built before it.
  struct Way {
    evaluation::Headers headers;
    bool precompiled;
    std::string name;
  };
  std::vector<Way> all_ways = {{evaluation::Headers::full, true, "LibTorch's only"},
                               {evaluation::Headers::automatic, true, "light first"}};
  if (!cuda) all_ways.push_back({evaluation::Headers::automatic, false, "light, parsed"});
  for (const auto& [headers, precompiled, name] : all_ways) {
    if (ways != "both" && ways != evaluation::to_string(headers) &&
        !(ways == "auto" && headers == evaluation::Headers::automatic))
      continue;
    o.headers = headers;
    o.precompiled_header = precompiled;
    for (bool serial : {true, false}) {
      const auto& set = serial ? sample : kernels;
      Phase p = run_phase(set, o, serial ? 1 : parallel,
                          root / (std::string(evaluation::to_string(headers)) +
                                  (precompiled ? "" : "-parsed") + (serial ? "-1" : "-n")));
      char line[200];
      std::snprintf(line, sizeof line, "%-16s %-14s %3zu %10.2f %7.2f %8.1f   %d of %zu%s\n",
                    name.c_str(), serial ? "one at a time" : "all at once", set.size(),
                    median(p.seconds), *std::max_element(p.seconds.begin(), p.seconds.end()),
                    p.wall, p.light, set.size(),
                    p.failed ? (" (" + std::to_string(p.failed) + " failed)").c_str() : "");
      std::cout << line << std::flush;
      if (!serial) fallbacks.insert(fallbacks.end(), p.fallbacks.begin(), p.fallbacks.end());
    }
  }
  if (!fallbacks.empty())
    std::cout << "built with LibTorch's headers (the light headers' error):\n";
  for (const auto& f : fallbacks) std::cout << "  " << f << "\n";
  fs::remove_all(root);
  return 0;
}
