// The candidate pipeline: one per experiment. It takes each candidate the coordinator hands it
// through the stages (static verifier, LLM verifiers, compiler pool, the target's evaluator,
// profiler), archives every stage's outcome before the next stage starts, and answers with the
// candidate's final verdict. Events go to the coordinator (pipeline_listener), which archives
// and reports them in one order; a correct candidate is profiled after the answer, so a slow
// profile never holds the search back. While paused, work waits between stages.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "actors/stage_handles.hpp"
#include "actors/stage_stats.hpp"
#include "messages/interfaces.hpp"
#include "search/experiment_spec.hpp"

namespace kforge {

struct pipeline_config {
  int64_t experiment_id = 0;
  search::ExperimentSpec spec;
  std::vector<target_layout> targets;                    ///< jobs index these
  std::map<std::string, std::string> cuda_arch;          ///< per evaluator key
  std::map<std::string, llm_model_actor> llm_verifiers;  ///< by name: the experiment's own
  bool start_paused = false;
};

/// A candidate in the pipeline: its job, the promise of its outcome and what the compiler said
/// its kernels use (for the profiler).
struct candidate_in_flight {
  pipeline_job job;
  caf::typed_response_promise<candidate_outcome> promise;
  std::vector<evaluation::KernelResources> kernels;
};

struct candidate_pipeline_state {
  pipeline_config cfg;
  stage_handles stages;
  pipeline_listener listener;
  std::map<int64_t, candidate_in_flight> flights;  ///< by sequence
  bool paused = false;
  std::deque<std::function<void()>> held;  ///< work between stages, waiting while paused
  /// Evaluations waiting for their task's torch.compile baseline, by task folder (the first one
  /// asked the compiler pool to build it).
  std::map<std::string, std::vector<std::function<void()>>> awaiting_baseline;
  stage_stats stats{"pipeline", "pipeline"};
  static inline const char* name = "kforge.candidate_pipeline";
};

candidate_pipeline_actor::behavior_type candidate_pipeline_impl(
    candidate_pipeline_actor::stateful_pointer<candidate_pipeline_state> self,
    pipeline_config config, stage_handles stages, pipeline_listener listener);

/// exp(mean log speedup) over the configs; 0 unless every config is correct and timed.
double geomean_speedup(const eval_result& r, bool over_compiled = false);

}  // namespace kforge
