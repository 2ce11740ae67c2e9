#include "actors/runtime.hpp"

#include <caf/actor_system.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/spawn_options.hpp>

#include <cstdlib>
#include <filesystem>
#include <set>
#include <thread>

#include "actors/archive_actor.hpp"
#include "actors/builtin_proposer_actor.hpp"
#include "actors/compiler_pool.hpp"
#include "actors/evaluator_pool.hpp"
#include "actors/files_proposer_actor.hpp"
#include "actors/llm_runner.hpp"
#include "actors/node_registry.hpp"
#include "actors/profiler.hpp"
#include "actors/verifier.hpp"
#include "evaluation/build_config.hpp"
#include "evaluation/hashing.hpp"
#include "llm/price_table.hpp"

namespace kforge {

int visible_gpu_count(int device_nodes, const char* visible) {
  if (!visible) return device_nodes;
  const std::string list = visible;
  std::set<int> indices;
  int n = 0;
  for (size_t at = 0; at < list.size() && n < device_nodes;) {
    const size_t comma = std::min(list.find(',', at), list.size());
    std::string entry = list.substr(at, comma - at);
    entry.erase(0, entry.find_first_not_of(" \t"));
    entry.erase(entry.find_last_not_of(" \t") + 1);
    const bool uuid = entry.rfind("GPU-", 0) == 0 || entry.rfind("MIG-", 0) == 0;
    if (!uuid) {
      if (entry.empty() || entry.size() > 6 ||
          entry.find_first_not_of("0123456789") != std::string::npos)
        break;
      const int index = std::stoi(entry);
      if (index >= device_nodes || !indices.insert(index).second) break;
    }
    ++n;
    at = comma + 1;
  }
  return n;
}

std::string visible_gpu_name(int index, const char* visible) {
  if (!visible) return std::to_string(index);
  const std::string list = visible;
  size_t at = 0;
  for (int i = 0; i < index; ++i) {
    at = list.find(',', at);
    if (at == std::string::npos) return std::to_string(index);  // no such entry
    ++at;
  }
  std::string entry = list.substr(at, list.find(',', at) - at);
  entry.erase(0, entry.find_first_not_of(" \t"));
  entry.erase(entry.find_last_not_of(" \t") + 1);
  return entry;
}

int gpu_count() {
  namespace fs = std::filesystem;
  std::error_code ec;
  int n = 0;
  for (const auto& entry : fs::directory_iterator("/dev", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("nvidia", 0) == 0 && name.size() > 6 &&
        name.find_first_not_of("0123456789", 6) == std::string::npos)
      ++n;
  }
  return visible_gpu_count(n, std::getenv("CUDA_VISIBLE_DEVICES"));
}

std::vector<evaluation::WorkerOptions> default_evaluators(bool cpu, const std::vector<int>& gpus,
                                                          bool seccomp, bool allow_unconfined) {
  std::vector<evaluation::WorkerOptions> out;
  evaluation::WorkerOptions base;
  base.seccomp = seccomp;
  base.allow_unconfined = allow_unconfined;
  if (cpu) {
    out.push_back(base);
    out.back().backend = Backend::cpu;
  }
  if (!build::with_cuda) return out;
  std::vector<int> devices = gpus;
  if (devices.empty())
    for (int d = 0; d < gpu_count(); ++d) devices.push_back(d);
  for (int d : devices) {
    out.push_back(base);
    out.back().backend = Backend::cuda;
    out.back().device = d;
  }
  return out;
}

compiler_actor spawn_compiler(caf::actor_system& system, unsigned slots,
                              const std::string& cache_dir, std::chrono::seconds timeout,
                              bool allow_unconfined,
                              const std::vector<evaluation::WorkerOptions>& evaluators) {
  std::vector<std::string> gpus;
  for (const auto& e : evaluators)
    if (e.backend == Backend::cuda)
      gpus.push_back(visible_gpu_name(e.device, std::getenv("CUDA_VISIBLE_DEVICES")));
  auto memory = evaluation::gpu_memory_bytes(gpus);
  return system.spawn(compiler_pool_impl,
                      compiler_options{slots, cache_dir, timeout, allow_unconfined,
                                       std::make_shared<evaluation::BaselineGpus>(
                                           std::move(gpus), std::move(memory))});
}

evaluator_actor spawn_evaluator(caf::actor_system& system, evaluation::WorkerOptions options,
                                const std::string& cache_dir) {
  // Workers may read task exports (and nothing else of the cache); the folder exists before they
  // start, so that their confinement can name it.
  const auto exports = std::filesystem::path(cache_dir) / "exports";
  std::error_code ec;
  std::filesystem::create_directories(exports, ec);
  options.readable_dirs.push_back(exports.string());
  return system.spawn(evaluator_impl, options);
}

Result<std::unique_ptr<runtime>> runtime::start(caf::actor_system& system,
                                                runtime_options options) {
  if (options.node_gpu_pools > 0 && !build::with_cuda)
    return Result<std::unique_ptr<runtime>>::failure(
        "this kforge was built without CUDA: it cannot compile candidates for nodes' GPUs "
        "(--node-gpu-pools)");
  auto rt = std::make_unique<runtime>();
  rt->prices_path = options.prices_path.empty()
                        ? std::string(build::source_dir) + "/configs/prices.json"
                        : options.prices_path;
  // The archive actor is the database's one owner: everything else asks it.
  auto opened = archive::Archive::open(options.archive_path);
  if (!opened) return Result<std::unique_ptr<runtime>>::failure(opened.error);
  std::shared_ptr<archive::Archive> db = std::move(*opened);
  if (options.compile_slots == 0)
    options.compile_slots = std::max(1u, std::thread::hardware_concurrency());
  if (options.evaluators.empty())
    options.evaluators = default_evaluators(options.cpu_evaluator || options.node_token.empty(), {},
                                            options.seccomp, options.allow_unconfined);
  auto& s = rt->stages;
  s.archive = system.spawn<caf::detached>(archive_actor_impl, std::move(db));
  s.compiler =
      spawn_compiler(system, options.compile_slots, options.cache_dir, options.compile_timeout,
                     options.allow_unconfined, options.evaluators);
  s.verifier = system.spawn(verifier_impl);
  s.profiler = system.spawn(profiler_impl);
  s.proposers["builtin"] = system.spawn(builtin_proposer_impl);
  s.proposers["files"] = system.spawn(files_proposer_impl);
  rt->reporters = {caf::actor_cast<status_reporter>(s.archive),
                   caf::actor_cast<status_reporter>(s.proposers["builtin"]),
                   caf::actor_cast<status_reporter>(s.proposers["files"]),
                   caf::actor_cast<status_reporter>(s.verifier),
                   caf::actor_cast<status_reporter>(s.compiler)};
  for (const auto& e : options.evaluators) {
    auto key = evaluator_key(e.backend, e.device);
    s.evaluators[key] = spawn_evaluator(system, e, options.cache_dir);
    rt->reporters.push_back(caf::actor_cast<status_reporter>(s.evaluators[key]));
  }
  if (!options.node_token.empty()) {
    // Every key gets a pool in front of its evaluator (the CPU's even without one of its own);
    // the experiments see the pools.
    if (!s.evaluators.count("cpu")) s.evaluators["cpu"] = evaluator_actor{};
    std::set<std::string> open_pools;
    int gpus = 0;
    while (s.evaluators.count(evaluator_key(Backend::cuda, gpus))) ++gpus;
    for (int k = 0; k < options.node_gpu_pools; ++k) {
      const auto key = evaluator_key(Backend::cuda, gpus + k);
      s.evaluators[key] = evaluator_actor{};
      open_pools.insert(key);
    }
    for (auto& [key, local] : s.evaluators) {
      rt->pools[key] = system.spawn(evaluator_pool_impl, key, local);
      local = caf::actor_cast<evaluator_actor>(rt->pools[key]);
      rt->reporters.push_back(caf::actor_cast<status_reporter>(rt->pools[key]));
    }
    rt->registry = system.spawn(node_registry_impl, options.node_token, rt->pools, open_pools);
  }
  rt->reporters.push_back(caf::actor_cast<status_reporter>(s.profiler));
  return {std::move(rt), {}};
}

void runtime::stop(caf::actor_system& system) {
  caf::scoped_actor self{system};
  auto end = [&](const auto& handle) {
    if (handle) self->send_exit(handle, caf::exit_reason::user_shutdown);
  };
  end(stages.compiler);
  end(stages.verifier);
  end(stages.profiler);
  for (auto& [k, p] : stages.proposers) end(p);
  for (auto& [k, e] : stages.evaluators) end(e);
  end(registry);
  end(stages.archive);
}

std::vector<std::string> resolve_spec(search::ExperimentSpec& spec, const runtime& rt,
                                      const std::string& base_dir) {
  namespace fs = std::filesystem;
  std::vector<std::string> errors;
  for (auto& task : spec.tasks) {
    fs::path p(task);
    std::vector<fs::path> tried;
    if (p.is_absolute()) {
      tried.push_back(p);
    } else {
      tried.push_back(fs::path(base_dir) / p);
      tried.push_back(fs::path(build::source_dir) / p);
    }
    bool found = false;
    for (const auto& candidate : tried) {
      std::error_code ec;
      if (fs::exists(candidate / "func_forward.py", ec) ||
          fs::exists(candidate / "func_backward.py", ec)) {
        task = fs::weakly_canonical(candidate, ec).string();
        found = true;
        break;
      }
    }
    if (!found) {
      std::string where;
      for (const auto& t : tried) where += (where.empty() ? "" : ", ") + t.string();
      errors.push_back("task " + task + ": no func_forward.py or func_backward.py in " + where);
    }
  }
  std::vector<std::string> backends;
  for (const auto& b : spec.backends) {
    std::string chosen = b == "auto" ? (rt.has_evaluator("cuda:0") ? "cuda" : "cpu") : b;
    if (chosen == "cuda" && !rt.has_evaluator("cuda:0"))
      errors.push_back(
          "backend cuda: this kforge has no GPU evaluator (" +
          std::string(build::with_cuda ? "no NVIDIA GPU found" : "built without CUDA") +
          "); use \"cpu\" or \"auto\"");
    if (std::find(backends.begin(), backends.end(), chosen) == backends.end())
      backends.push_back(chosen);
  }
  spec.backends = backends;
  // A relative kernel pattern is relative to the configuration's folder, like its tasks.
  for (auto& p : spec.proposers)
    if (p.kind == "files" && !p.pattern.empty() && p.pattern[0] != '/' &&
        p.pattern.rfind("{task}", 0) != 0)
      p.pattern = (fs::path(base_dir) / p.pattern).lexically_normal().string();
  if (!spec.uses_llm()) return errors;
  auto text = evaluation::read_file(rt.prices_path);
  auto prices = text.ok ? llm::PriceTable::parse(text.text)
                        : Result<llm::PriceTable>::failure("cannot read " + rt.prices_path);
  auto check_model = [&](const std::string& what, search::ModelSpec& m) {
    if (m.input_per_mtok < 0) {
      auto price = prices ? prices->find(m.provider, m.model) : std::nullopt;
      if (price) {
        m.input_per_mtok = price->input_per_mtok;
        m.output_per_mtok = price->output_per_mtok;
        m.cached_input_per_mtok = price->cached_input_per_mtok;
        m.cache_write_per_mtok = price->cache_write_per_mtok;
      } else {
        errors.push_back(what + ": no price for " + m.provider + " model " + m.model + " (" +
                         (prices ? "not in " + rt.prices_path : prices.error) +
                         "); set input_per_mtok and output_per_mtok (0 for a local server)");
      }
    }
    if (spec.offline) return;  // replies come from the cache: no key needed
    if (m.api_key_env.empty() && m.key_file.empty()) {
      if (m.base_url.empty())
        errors.push_back(what + ": " + m.provider +
                         "'s public endpoint needs a key: set api_key_env or key_file");
      return;
    }
    auto config = model_config(what, m);
    if (auto key = llm::load_api_key(config); !key) errors.push_back(what + ": " + key.error);
  };
  for (auto& p : spec.proposers)
    if (p.kind == "llm") check_model("proposer " + p.name, p.llm);
  for (auto& v : spec.verifiers) check_model("verifier " + v.name, v.llm);
  return errors;
}

}  // namespace kforge
