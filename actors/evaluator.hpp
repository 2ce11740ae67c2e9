// The evaluator: one per GPU (or the CPU backend). It owns a runner on its own thread that owns
// the sandboxed worker process and blocks on it, and queues requests so that exactly one
// evaluation runs on its device at a time while it still answers status queries. A worker that
// dies is the candidate's verdict; a worker that cannot start is retried once, then reported.
// Queued candidates are served oldest first (lowest archive id).
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "actors/runner_pool.hpp"
#include "common/build_choices.hpp"
#include "evaluation/worker_client.hpp"
#include "messages/interfaces.hpp"

namespace kforge {

/// "cpu" or "cuda:0": how experiments name an evaluator.
std::string evaluator_key(const std::string& backend, int device);
std::string evaluator_key(Backend backend, int device);

struct evaluator_state {
  runner_pool<evaluation_runner_actor> pool{stage_stats("evaluator", "evaluator")};  ///< one runner
  static inline const char* name = "kforge.evaluator";
};

evaluator_actor::behavior_type evaluator_impl(
    evaluator_actor::stateful_pointer<evaluator_state> self,
    const evaluation::WorkerOptions& options);

/// The runner: owns the worker; spawn it detached.
struct evaluation_runner_state;
evaluation_runner_actor::behavior_type evaluation_runner_impl(
    evaluation_runner_actor::stateful_pointer<evaluation_runner_state> self,
    const evaluation::WorkerOptions& options);

}  // namespace kforge
