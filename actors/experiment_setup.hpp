// An experiment's setup, before its first proposal: every task is exported (through the compiler
// pool, where Python runs), each exported direction becomes one target per backend, cuda targets
// go to the GPUs in turn (a target stays on one, so its candidates are timed on the same device),
// and each GPU in use says its architecture (starting its worker). A task or direction that
// cannot be exported gives targets that cannot start, with the reason; the others go on. A
// resumed experiment's candidates and a replayed experiment's decisions are read from the
// archive. The setup actor answers once with the layout and ends.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "actors/experiment_records.hpp"
#include "messages/interfaces.hpp"
#include "search/experiment_spec.hpp"
#include "search/planner.hpp"

namespace kforge {

/// The targets of `spec` from its tasks' exports (by task, in spec order) on `gpus` GPUs.
/// `notes` gets what a user should hear (a baseline built or not, a direction a task lacks);
/// `error` is set when no target can start.
experiment_layout lay_out_targets(const search::ExperimentSpec& spec,
                                  const std::vector<export_result>& exports, int gpus);

/// The config set a backend is judged on: the configuration's choice, or "multi" on cuda and
/// "single" on the CPU.
std::string config_set_for(const search::ExperimentSpec& spec, const std::string& backend);

/// The recorded decision of every candidate of an experiment, by sequence: what a replay follows.
std::map<int64_t, search::Decision> recorded_decisions(const experiment_snapshot& snapshot);

/// What a resumed experiment carries on with.
struct resumed_experiment {
  candidate_records candidates;    ///< by sequence
  std::vector<pipeline_job> jobs;  ///< unfinished candidates, and correct ones not profiled
  experiment_counts counts;        ///< of the candidates, and the LLM calls so far
  int64_t carried_on = 0;          ///< unfinished candidates
};

/// Tells the planner what the archive knows of the experiment's candidates and strategies (on
/// targets the layout still has) and says where each unfinished one re-enters the pipeline.
resumed_experiment restore(search::Planner& planner, const experiment_snapshot& snapshot,
                           const std::vector<target_layout>& targets, bool llm_verifiers);

struct experiment_setup_state {
  static inline const char* name = "kforge.experiment_setup";
};

/// What the setup is asked to do; the stages are the runtime's.
struct setup_config {
  int64_t experiment_id = 0;
  search::ExperimentSpec spec;
  bool resume = false;  ///< read the experiment's candidates from the archive
};

experiment_setup_actor::behavior_type experiment_setup_impl(
    experiment_setup_actor::stateful_pointer<experiment_setup_state> self, setup_config config,
    archive_actor archive, compiler_actor compiler,
    std::map<std::string, evaluator_actor> evaluators);

}  // namespace kforge
