// An experiment's configuration (configs/*.json): what to optimise, with which proposers, within
// which budget and policy, from which seed. Parsed from JSON text with every problem reported at
// once; no file is read here (the CLI resolves task folders and the "auto" choices).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/json.hpp"

namespace kforge::search {

struct ProposerSpec {
  std::string kind = "builtin";  ///< "builtin" (LLM kinds come with the LLM proposers)
  std::string name;              ///< how archives and consoles call it; defaults to the kind
};

struct ExperimentSpec {
  std::string name;
  uint64_t seed = 0;
  std::vector<std::string> tasks;                     ///< task folders as written
  std::vector<std::string> directions = {"forward"};  ///< of each task, where it has them
  std::vector<std::string> backends = {"auto"};       ///< "cpu", "cuda" or "auto"
  std::string config_set = "auto";  ///< "single", "multi" or "auto" (multi on cuda, single on cpu)
  std::vector<ProposerSpec> proposers = {ProposerSpec{}};

  // budget
  int64_t candidates_per_target = 16;
  double wall_seconds = 0;  ///< 0: no limit
  double money_usd = 0;     ///< 0: no limit (the built-in proposer costs nothing)

  // policy
  std::string library_calls = "flag";  ///< "allow", "flag" or "forbid"
  int64_t max_source_bytes = 256 * 1024;

  // evaluation
  int32_t seeds = 3;            ///< trials with fresh inputs and weights per config
  double timing_seconds = 0.5;  ///< timing budget per config

  // search
  std::string parent_selection = "uniform";  ///< "uniform" or "tournament"
  int32_t tournament_size = 3;
  /// Proposal n sees the outcomes of candidates up to n - depth only, so that what it sees never
  /// depends on which work finished first; it is also the bound on candidates in flight.
  int32_t pipeline_depth = 8;

  /// The configuration as canonical JSON (what the archive keeps).
  json::Value to_json() const;
};

struct SpecParse {
  ExperimentSpec spec;
  std::vector<std::string> errors;  ///< empty when the text is a valid configuration
  bool ok() const { return errors.empty(); }
  std::string error_text() const;  ///< the errors, one per line
};

SpecParse parse_experiment_spec(std::string_view json_text);
SpecParse parse_experiment_doc(const json::Value& doc);

}  // namespace kforge::search
