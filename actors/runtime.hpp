// The runtime: spawns the stage actors every experiment shares (archive, compiler pool, one
// evaluator per device, proposers, verifier, profiler) and resolves experiment configurations
// against them (task folders, "auto" backends). `kforge run` and `kforge daemon` both build one.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <caf/actor_system.hpp>

#include "actors/coordinator.hpp"
#include "actors/evaluator.hpp"
#include "common/result.hpp"
#include "search/experiment_spec.hpp"

namespace kforge {

struct runtime_options {
  std::string archive_path;
  std::string cache_dir;       ///< compile and export cache
  unsigned compile_slots = 0;  ///< 0: one per core
  std::chrono::seconds compile_timeout{600};
  /// Empty: the CPU backend, plus one cuda evaluator per GPU when the build has CUDA.
  std::vector<evaluation::WorkerOptions> evaluators;
  bool seccomp = true;
  /// On a kernel without Landlock: compile and run candidates unconfined (with a warning) instead
  /// of refusing to.
  bool allow_unconfined = false;
  /// LLM prices (dollars per million tokens); empty: configs/prices.json of the source tree.
  std::string prices_path;
  /// Nodes may join (`kforge daemon --node-port`): each evaluator key gets a pool that the node
  /// registry, made with this token, adds nodes' evaluators to. Empty: no pools, no registry.
  std::string node_token;
  /// With the default evaluators: whether the daemon evaluates on its own CPU (without, with
  /// nodes, the "cpu" pool waits for nodes' CPU evaluators).
  bool cpu_evaluator = true;
  /// With nodes: this many more cuda pools (after the daemon's own GPUs), each for one kind of
  /// GPU that nodes offer, so that a daemon without that GPU, or without any, can use nodes' GPUs.
  int node_gpu_pools = 0;
};

/// The evaluators a process has by default: the CPU backend (where `cpu`), plus one cuda evaluator
/// per GPU when the build has CUDA (`gpus`: these GPU indices, or every GPU where empty).
std::vector<evaluation::WorkerOptions> default_evaluators(bool cpu, const std::vector<int>& gpus,
                                                          bool seccomp, bool allow_unconfined);

/// The compiler pool for `evaluators` (torch.compile builds go to their GPUs).
compiler_actor spawn_compiler(caf::actor_system& system, unsigned slots,
                              const std::string& cache_dir, std::chrono::seconds timeout,
                              bool allow_unconfined,
                              const std::vector<evaluation::WorkerOptions>& evaluators);

/// An evaluator whose worker may read the cache's task exports (the folder is made first, so that
/// its confinement can name it).
evaluator_actor spawn_evaluator(caf::actor_system& system, evaluation::WorkerOptions options,
                                const std::string& cache_dir);

struct runtime {
  stage_handles stages;
  /// With nodes: the pool behind each evaluator key (stages.evaluators holds the same actors).
  std::map<std::string, evaluator_pool_actor> pools;
  node_registry_actor registry;  ///< with nodes: what `kforge daemon` publishes
  /// Every stage actor, for status queries, in display order.
  std::vector<status_reporter> reporters;
  std::string prices_path;

  /// Spawns the stage actors, or says why not (the archive could not be opened, ...).
  static Result<std::unique_ptr<runtime>> start(caf::actor_system& system, runtime_options options);
  /// Ends every stage actor (workers and compilers in flight are killed with them).
  void stop(caf::actor_system& system);
  bool has_evaluator(const std::string& key) const { return stages.evaluators.count(key) > 0; }
};

/// Number of NVIDIA GPUs this process may use: the machine's (its /dev/nvidiaN nodes, 0 without a
/// driver), narrowed by CUDA_VISIBLE_DEVICES as CUDA narrows them.
int gpu_count();

/// How many of `device_nodes` GPUs CUDA shows a process whose CUDA_VISIBLE_DEVICES is `visible`
/// (unset: all of them): its entries up to the first that names no device (an index out of range,
/// a repeated index, text that is neither an index nor a GPU-/MIG- UUID), at most `device_nodes`;
/// an empty variable shows none.
int visible_gpu_count(int device_nodes, const char* visible);

/// What CUDA_VISIBLE_DEVICES names GPU `index` of a process whose variable is `visible` (its
/// entry `index`, "GPU-..." or a number; unset: the index itself), for a child that should see
/// that GPU alone.
std::string visible_gpu_name(int index, const char* visible);

/// Makes a parsed configuration concrete: task folders absolute (relative ones are looked up
/// from `base_dir`, then in kforge's own source tree, where the bundled tasks are), "auto"
/// backends chosen from the runtime's evaluators, LLM prices from the price table where the
/// configuration gives none, API keys checked (unless offline). Returns the problems, empty when
/// none.
std::vector<std::string> resolve_spec(search::ExperimentSpec& spec, const runtime& rt,
                                      const std::string& base_dir);

}  // namespace kforge
