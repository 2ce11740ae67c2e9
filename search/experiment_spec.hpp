// An experiment's configuration (configs/*.json): what to optimise, with which proposers, within
// which budget and policy, from which seed. Parsed from JSON text with every problem reported at
// once; no file is read here (the CLI resolves task folders and the "auto" choices).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/build_choices.hpp"
#include "common/evaluation_defaults.hpp"
#include "common/json.hpp"

namespace kforge::search {

/// An LLM as a configuration names it (a proposer of the ensemble, or a verifier). The values
/// are plain here; llm/ turns them into a client.
struct ModelSpec {
  std::string provider;  ///< "openai" (and OpenAI-compatible servers), "anthropic", "gemini"
  std::string base_url;  ///< empty: the provider's public endpoint
  std::string model;
  std::string api_key_env;  ///< environment variable with the key
  std::string key_file;     ///< or a file whose first line is the key
  std::string ca_file;      ///< extra trust anchors (a private CA)
  double temperature = -1;  ///< -1: the provider's default
  double top_p = -1;
  int64_t max_tokens = -1;  ///< -1: by model (llm_rules::default_max_tokens)
  std::string reasoning_effort;  ///< "low", "medium", "high" (OpenAI reasoning models)
  int64_t thinking_budget = 0;   ///< tokens (Anthropic, Gemini)
  bool stream = true;
  int32_t max_concurrency = 4;
  int32_t max_attempts = 6;
  double timeout_seconds = 600;
  /// Longest silence within an attempt; -1: by model (common/llm_model_rules.hpp: the whole
  /// attempt for a model that reasons in silence, else 120 s).
  double idle_timeout_seconds = -1;
  double input_per_mtok = -1;  ///< -1: from configs/prices.json
  double output_per_mtok = -1;
  /// Input read from / written to the provider's prompt cache; -1: from configs/prices.json, or
  /// the input price where input_per_mtok is given here.
  double cached_input_per_mtok = -1;
  double cache_write_per_mtok = -1;

  json::Value to_json() const;
};

struct ProposerSpec {
  std::string kind = "builtin";  ///< "builtin", "llm" or "files"
  std::string name;              ///< how archives and consoles call it; defaults to the kind/model
  ModelSpec llm;                 ///< kind "llm"
  /// Kind "files": the kernels to evaluate, as a glob pattern with {task} (the task folder as
  /// written), {name} (its last component), {direction} and {backend}; each matching file is
  /// proposed once to the targets it fits (`.cu` for cuda, other files for cpu, registering the
  /// target's direction). A suite (`kforge suite`) is an experiment with this proposer alone.
  std::string pattern;
  double weight = 1;  ///< the "fixed" ensemble policy's weight
};

struct VerifierSpec {
  std::string name;  ///< defaults to the model
  ModelSpec llm;
};

struct ExperimentSpec {
  std::string name;
  uint64_t seed = 0;
  std::vector<std::string> tasks;                     ///< task folders as written
  std::vector<std::string> directions = {"forward"};  ///< of each task, where it has them
  std::vector<std::string> backends = {"auto"};       ///< "cpu", "cuda" or "auto"
  std::string config_set = "auto";  ///< "single", "multi" or "auto" (multi on cuda, single on cpu)
  std::vector<ProposerSpec> proposers = {ProposerSpec{}};
  /// How the ensemble picks a proposer per request: "bandit" (improvement per dollar),
  /// "fixed" (the proposers' weights) or "uniform".
  std::string ensemble_policy = "bandit";

  /// LLM verifiers consulted after the static rules; a candidate goes on only if all accept.
  std::vector<VerifierSpec> verifiers;
  std::vector<std::string> verifier_checks = {"compilation", "memory_safety", "numerics"};
  /// Share of LLM-rejected candidates run on the hardware anyway, so that the verifiers'
  /// precision and recall are measured (drawn from the seed).
  double audit_fraction = 0.1;

  // budget
  int64_t candidates_per_target = 16;
  double wall_seconds = 0;  ///< 0: no limit
  double money_usd = 0;     ///< 0: no limit (the built-in proposer costs nothing)
  /// A target whose best kernel reaches this fraction of its speed-of-light bound (the time its
  /// largest config's bytes take at the device's peak bandwidth) is near the hardware's limit:
  /// it gets only `speed_of_light_share` of its candidates, and what it frees goes to the
  /// targets with the most headroom (0: every target gets candidates_per_target).
  double speed_of_light_fraction = 0;
  double speed_of_light_share = 0.25;

  // policy
  LibraryPolicy library_calls = LibraryPolicy::flag;
  int64_t max_source_bytes = kDefaultMaxSourceBytes;

  // evaluation
  int32_t seeds = kDefaultSeeds;  ///< trials with fresh inputs and weights per config
  /// Also time torch.compile's code for each config (AOTInductor, built once per task after its
  /// export): "off", "default" or "max-autotune" (Inductor's mode).
  std::string compiled_baseline = "off";
  /// Which headers build CUDA and CPU candidates: "auto" (kforge's light headers, LibTorch's where
  /// they cannot), "light" or "full" (LibTorch's only, as before the light headers).
  Headers headers = Headers::automatic;
  double timing_seconds = 0.5;  ///< timing budget per config
  /// Seconds the hardware counters of one correct CUDA candidate may take, its kernels first
  /// (docs/evaluator.md).
  double counters_budget_s = kDefaultCountersBudgetSeconds;
  /// Once the search is over, the best few correct candidates of each target are timed again
  /// (fresh seed, interleaved with eager) and the best is reported from those times: how many.
  /// 0: none (a suite of given kernels is never confirmed).
  int32_t confirm_top = 2;

  // search
  std::string parent_selection = "uniform";  ///< "uniform" or "tournament"
  int32_t tournament_size = 3;
  /// Proposal n sees the outcomes of candidates up to n - depth only, so that what it sees never
  /// depends on which work finished first; it is also the bound on candidates in flight.
  int32_t pipeline_depth = 8;
  /// Proposals asked for at once (LLM calls overlap). Each still decides from the outcomes of
  /// candidates up to n - depth only; a built-in proposal also waits for every earlier proposal.
  int32_t proposals_in_flight = 1;
  /// Chance that an LLM proposal repairs the latest visible failed candidate instead.
  double fix_probability = 0.25;
  /// Where a target has no correct kernel yet, the built-in proposer writes it (the kernel
  /// generator's, a template's) instead of an LLM translating the PyTorch code; the LLMs start
  /// from it, optimising it once it is judged correct. Only with a built-in proposer in the
  /// ensemble; a target the built-in proposer cannot write is translated by the LLMs as before.
  bool translate_with_builtin = false;
  int32_t context_size = 4;  ///< kernels of the optimise prompt's context (top-k)
  /// How an LLM's optimise proposal picks its strategy: "bandit" (the strategies' improvement
  /// per dollar on the target's visible kernels, as the ensemble's bandit) or "uniform".
  std::string strategy_policy = "bandit";
  /// A target whose last this many candidates all failed to compile is abandoned (0: never).
  int32_t abandon_after_compile_failures = 12;
  /// Sub-populations of each target: a proposal draws its island from the seed, its parent from
  /// that island's kernels and the migrants it has received; its candidate joins the island.
  int32_t islands = 1;
  /// Migrations happen every this many finished candidates of a target (0: never): each island
  /// then receives the `migration_size` fastest kernels of the island before it (a ring).
  int32_t migration_interval = 8;
  int32_t migration_size = 1;
  /// "normalised": a candidate whose source, once comments and layout are removed, repeats a
  /// kernel its proposal could see is rejected before compiling (search/novelty.hpp); "off".
  /// Given kernel files (a suite) are always judged.
  std::string novelty = "normalised";
  /// Meta-generation (search/meta_generation.hpp): every this many finished candidates of a
  /// target (0: never), new optimisation strategies are generated for it from its best kernels,
  /// their times and profiles and the strategies' records: `meta_count` of them, by the LLM
  /// proposer `meta_model` (empty: the ensemble's first LLM) for the LLMs' proposals, and by
  /// the built-in proposer's rules for its own.
  int32_t meta_every = 0;
  int32_t meta_count = 4;
  std::string meta_model;
  /// The LLM of the ensemble that reads each correct kernel's profile and recommends what to
  /// change (search.profile_advice.model; empty: none, the rule-based brief alone).
  std::string advice_model;
  int32_t advice_count = 4;

  // replay
  /// Follow the recorded decisions of this experiment (0: decide afresh): with its replies in the
  /// response cache, the same candidates come back without calling out.
  int64_t replay_of = 0;
  bool offline = false;  ///< LLM replies come only from the response cache

  bool uses_llm() const;

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
