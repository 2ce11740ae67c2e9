// The coordinator: one per experiment. After its setup (experiment_setup.hpp) it asks the
// proposers for candidates one at a time, in sequence order, as the planner (search/planner.hpp)
// decides, and hands each to the experiment's candidate pipeline (candidate_pipeline.hpp), which
// answers with the verdict. Its ledger (coordinator_ledger.hpp) archives the events before anyone
// hears of them and keeps LLM costs, budgets, progress and the final status. The pipeline depth
// bounds the candidates in flight (back-pressure: nothing is proposed that the stages behind cannot
// take), and proposal n sees only outcomes of candidates up to n - depth, so what it proposes does
// not depend on which stage finished first. Resumes from the archive.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "actors/coordinator_ledger.hpp"
#include "actors/experiment_records.hpp"
#include "actors/stage_handles.hpp"
#include "messages/interfaces.hpp"
#include "search/experiment_spec.hpp"
#include "search/planner.hpp"
#include "search/proposal_book.hpp"

namespace kforge {

struct coordinator_config {
  experiment_record experiment;  ///< already archived (its id is set)
  search::ExperimentSpec spec;   ///< with the "auto" choices resolved
  bool resume = false;           ///< carry on from the archive's candidates
  bool start_paused = false;
  experiment_listener listener;  ///< hears the events, each once archived, and the end
};

struct coordinator_state {
  coordinator_config cfg;
  stage_handles stages;
  std::vector<target_layout> targets;      ///< from the setup
  std::optional<search::Planner> planner;  ///< once the targets are known
  candidate_pipeline_actor pipeline;
  std::map<std::string, llm_model_actor> llm_proposers;  ///< by name, this experiment's own
  std::map<std::string, llm_model_actor> llm_verifiers;  ///< by name
  candidate_records candidates;                          ///< by sequence
  /// The meta-generation round being written: no proposal is planned until it is done.
  std::optional<search::MetaRound> meta;
  int meta_waiting = 0;            ///< its generators that have not answered
  search::ProposalBook proposals;  ///< proposals not yet candidates
  Ledger ledger;                   ///< status, counts, budgets, events, the end
  int pending_profiles = 0;
  bool confirmations_started = false;  ///< the best candidates are being (or were) timed again
  int pending_confirmations = 0;
  static inline const char* name = "kforge.coordinator";
};

coordinator_actor::behavior_type coordinator_impl(
    coordinator_actor::stateful_pointer<coordinator_state> self, coordinator_config config,
    stage_handles stages);

}  // namespace kforge
