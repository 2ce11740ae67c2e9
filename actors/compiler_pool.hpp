// The compiler pool: one slot per core, each a runner on its own thread (compiles block for
// seconds). Requests queue here, so the pool answers status queries while every slot is busy.
// Exports of tasks (Python, once per task version) take a slot too.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "actors/runner_pool.hpp"
#include "evaluation/baseline_gpus.hpp"
#include "messages/interfaces.hpp"

namespace kforge {

struct compiler_options {
  unsigned slots = 2;
  std::string cache_dir;
  std::chrono::seconds timeout{300};
  bool allow_unconfined = false;  ///< compile without Landlock where the kernel has none
  /// The GPUs torch.compile baseline builds run on (shared by the slots); null: kforge's own.
  std::shared_ptr<evaluation::BaselineGpus> baseline_gpus;
};

struct compiler_pool_state {
  runner_pool<compile_runner_actor> pool{stage_stats("compiler", "compiler")};
  static inline const char* name = "kforge.compiler";
};

compiler_actor::behavior_type compiler_pool_impl(
    compiler_actor::stateful_pointer<compiler_pool_state> self, compiler_options options);

/// A slot: compiles and exports, blocking; spawn it detached.
compile_runner_actor::behavior_type compile_runner_impl(compiler_options options);

}  // namespace kforge
