#include "actors/evaluator.hpp"

#include <algorithm>
#include <memory>

#include "common/log.hpp"
#include "evaluation/worker_client.hpp"
#include "evaluation/worker_report.hpp"
#include "evaluation/worker_request.hpp"

namespace kforge {

struct evaluation_runner_state {
  std::unique_ptr<evaluation::WorkerClient> worker;
  static inline const char* name = "kforge.evaluation_runner";
};

namespace {

device_info describe_device(evaluation::WorkerClient& worker, const std::string& backend) {
  device_info d;
  d.backend = backend;
  if (auto error = worker.ensure_started(); !error.empty()) {
    d.error = error;
    return d;
  }
  const auto& ready = worker.ready();
  d.ok = true;
  d.name = ready["device"]["name"].as_string();
  if (backend == "cuda") {
    auto arch = evaluation::cuda_arch_of(ready["device"]);
    if (!arch) {
      d.ok = false;
      d.error = arch.error;
      return d;
    }
    d.cuda_arch = *arch;
  }
  d.sandbox = ready["sandbox"].dump();
  return d;
}

eval_result to_result(const eval_request& r, const evaluation::EvalOutcome& o, double seconds,
                      const std::string& device) {
  eval_result out;
  out.candidate_id = r.candidate_id;
  out.config_set = r.worker.mode;
  out.report = evaluation::read_worker_report(o.result);
  out.worker_died = o.worker_died;
  out.seconds = seconds;
  out.device = device;
  out.candidate_output = o.candidate_output.substr(0, 4096);
  return out;
}

}  // namespace

std::string evaluator_key(const std::string& backend, int device) {
  return backend == "cuda" ? "cuda:" + std::to_string(device) : backend;
}

std::string evaluator_key(Backend backend, int device) {
  return evaluator_key(std::string(to_string(backend)), device);
}

evaluation_runner_actor::behavior_type evaluation_runner_impl(
    evaluation_runner_actor::stateful_pointer<evaluation_runner_state> self,
    const evaluation::WorkerOptions& options) {
  self->state.worker = std::make_unique<evaluation::WorkerClient>(options);
  return {
      [self, options](device_atom) {
        return describe_device(*self->state.worker, std::string(to_string(options.backend)));
      },
      [self, options](evaluate_atom, eval_request& r) {
        auto start = std::chrono::steady_clock::now();
        auto outcome = evaluation::evaluate_candidate(
            *self->state.worker, r.worker, {}, [&](const std::string& why) {
              log::warn("evaluator " + evaluator_key(options.backend, options.device) +
                        ": the worker failed on candidate " + std::to_string(r.candidate_id) +
                        " (" + why.substr(0, 300) +
                        "); starting a fresh worker and trying once more");
            });
        double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::string device = self->state.worker->ready()["device"]["name"].as_string(
            std::string(to_string(options.backend)));
        return to_result(r, outcome, seconds, device);
      },
  };
}

evaluator_actor::behavior_type evaluator_impl(
    evaluator_actor::stateful_pointer<evaluator_state> self,
    const evaluation::WorkerOptions& options) {
  auto& pool = self->state.pool;
  pool.stats() =
      stage_stats("evaluator " + evaluator_key(options.backend, options.device), "evaluator");
  pool.add(self->system().spawn<caf::detached>(evaluation_runner_impl, options));
  self->link_to(pool.runners().front());
  return {
      [self](status_atom) { return self->state.pool.stats().status(); },
      [self](device_atom) {
        return self->delegate(self->state.pool.runners().front(), device_atom::value);
      },
      [self](evaluate_atom, eval_request& r) {
        auto what = "candidate " + std::to_string(r.candidate_id);
        // The oldest candidate first: a coordinator's next proposal waits for its oldest
        // candidate in flight (the decision window), so serving in compile-completion order
        // would idle the GPU.
        const int64_t oldest_first = r.candidate_id;
        auto error_of = [](const eval_result& e) {
          return e.report.verdict == EvalVerdict::error ? e.report.failure_message : std::string();
        };
        return relay<eval_result>(self, self->state.pool, std::move(what), oldest_first, error_of,
                                  evaluate_atom::value, std::move(r));
      },
  };
}

}  // namespace kforge
