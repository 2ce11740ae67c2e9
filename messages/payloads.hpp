// Every payload kforge's actors exchange: named structs with `inspect`, so each one can be
// printed, compared in tests and serialised across a process boundary. Optional values are
// spelled without std::optional (CAF 0.17 cannot inspect it): ids use 0 for "none".
#pragma once

#include <caf/actor.hpp>
#include <caf/error.hpp>
#include <caf/meta/load_callback.hpp>
#include <caf/meta/type_name.hpp>
#include <caf/sec.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/build_choices.hpp"
#include "common/candidate.hpp"
#include "common/evaluation_defaults.hpp"
#include "common/json.hpp"
#include "common/llm_call.hpp"
#include "common/stage.hpp"
#include "evaluation/compiler.hpp"
#include "evaluation/kernel_resources.hpp"
#include "evaluation/worker_report.hpp"
#include "evaluation/worker_request.hpp"
#include "llm/context_kernel.hpp"
#include "llm/reply_store.hpp"
#include "messages/event_details.hpp"
#include "search/proposal_failure.hpp"
#include "search/proposal_mode.hpp"
#include "search/strategy_record.hpp"

// The evaluation's value types of evaluation/ travel in messages as they are.
namespace kforge::evaluation {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, KernelResources& x) {
  return f(caf::meta::type_name("KernelResources"), x.name, x.arch, x.registers, x.barriers,
           x.shared_bytes, x.stack_bytes, x.spill_store_bytes, x.spill_load_bytes);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, TimingSummary& x) {
  return f(caf::meta::type_name("TimingSummary"), x.median_ms, x.p10_ms, x.p90_ms);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, ConfigReport& x) {
  return f(caf::meta::type_name("ConfigReport"), x.index, x.name, x.correct, x.max_abs_error,
           x.max_rel_error, x.kernel, x.eager, x.speedup, x.compiled_ms, x.speedup_compiled,
           x.compiled_unavailable, x.bytes_moved, x.copy_bound_ms, x.check_seconds,
           x.timing_seconds, x.failure_kind, x.failure_message, x.record_json);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, WorkerReport& x) {
  return f(caf::meta::type_name("WorkerReport"), x.verdict, x.failure_kind, x.failure_message,
           x.configs, x.flags, x.checked_by_checker);
}

/// A worker's request travels as the JSON the worker reads on its pipe (its optional fields have
/// no CAF 0.17 form): one set of names for the pipe and for messages between processes.
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, WorkerRequest& x) {
  std::string wire = Inspector::reads_state ? x.to_json().dump() : std::string();
  return f(caf::meta::type_name("WorkerRequest"), wire,
           caf::meta::load_callback([&]() -> caf::error {
             auto doc = json::parse(wire);
             if (!doc)
               return caf::make_error(caf::sec::invalid_argument, "worker request: " + doc.error);
             x = WorkerRequest::from_json(*doc);
             return caf::none;
           }));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, CompileResult& x) {
  return f(caf::meta::type_name("CompileResult"), x.ok, x.cache_hit, x.key, x.library_path, x.log,
           x.error, x.seconds, x.headers, x.light_error, x.kernels);
}

}  // namespace kforge::evaluation

// The LLM response cache's entries travel to and from the archive as they are, and the kernels
// prompts show as the experiment's records made them.
namespace kforge::llm {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, ContextKernel& x) {
  return f(caf::meta::type_name("ContextKernel"), x.sequence, x.speedup, x.strategy, x.source,
           x.params, x.asked, x.times, x.profile);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, Usage& x) {
  return f(caf::meta::type_name("Usage"), x.input_tokens, x.output_tokens, x.cached_input_tokens,
           x.cache_write_tokens);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, ChatReply& x) {
  return f(caf::meta::type_name("ChatReply"), x.text, x.finish_reason, x.truncated, x.usage);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, CachedReply& x) {
  return f(caf::meta::type_name("CachedReply"), x.key, x.endpoint, x.model, x.request_json,
           x.reply);
}

}  // namespace kforge::llm

// A strategy's record travels as the planner made it.
namespace kforge::search {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, StrategyRecord& x) {
  return f(caf::meta::type_name("StrategyRecord"), x.text, x.source, x.tried, x.correct, x.improved,
           x.best_gain);
}

}  // namespace kforge::search

namespace kforge {

/// One thing an experiment optimises: a direction of a task, on a backend, judged on a config set.
struct target {
  std::string task;        ///< the task's name (its folder's name)
  std::string task_dir;    ///< the task's folder
  std::string direction;   ///< "forward" or "backward"
  std::string backend;     ///< "cpu" or "cuda"
  int32_t device = 0;      ///< GPU index on the cuda backend
  std::string config_set;  ///< "single" or "multi"
  /// "task/direction/backend": how tables and the archive name a target.
  std::string key() const { return target_key(task, direction, backend); }
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, target& x) {
  return f(caf::meta::type_name("target"), x.task, x.task_dir, x.direction, x.backend, x.device,
           x.config_set);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, Candidate& x) {
  return f(caf::meta::type_name("Candidate"), x.id, x.experiment_id, x.sequence, x.task,
           x.direction, x.backend, x.source, x.source_hash, x.parent_id, x.proposer, x.strategy,
           x.params, x.decision, x.seed, x.created_at);
}

/// Meta-generation: new optimisation strategies for a target, from its best kernels so far and
/// the record of the strategies its proposals could draw.
struct meta_request {
  int64_t experiment_id = 0;
  int64_t sequence = 0;  ///< the proposal they are generated before
  int32_t round = 0;     ///< the target's meta-generation round, from 1
  int32_t count = 0;     ///< how many to write
  uint64_t seed = 0;
  target tgt;
  std::string export_dir;
  std::vector<llm::ContextKernel> best;         ///< least to most fast
  std::vector<search::StrategyRecord> records;  ///< every strategy a proposal may draw now
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, meta_request& x) {
  return f(caf::meta::type_name("meta_request"), x.experiment_id, x.sequence, x.round, x.count,
           x.seed, x.tgt, x.export_dir, x.best, x.records);
}

/// What a meta-generation wrote: new strategies (none repeats a request's record), or why none.
struct meta_reply {
  std::string source;  ///< "rules" or the LLM's name
  std::vector<std::string> strategies;
  std::string failure;         ///< why there are none, or empty
  std::vector<LlmCall> calls;  ///< what it cost
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, meta_reply& x) {
  return f(caf::meta::type_name("meta_reply"), x.source, x.strategies, x.failure, x.calls);
}

/// One call to an LLM (common/llm_call.hpp).
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, LlmCall& x) {
  return f(caf::meta::type_name("LlmCall"), x.role, x.model_name, x.endpoint, x.model, x.key, x.ok,
           x.cached, x.failure, x.error, x.attempts, x.input_tokens, x.output_tokens, x.cost_usd,
           x.seconds);
}

/// What the coordinator asks a proposer for: candidate `sequence` of an experiment.
struct propose_request {
  int64_t experiment_id = 0;
  int64_t sequence = 0;
  uint64_t seed = 0;  ///< the proposal's own random stream, derived from the experiment's seed
  target tgt;
  std::string export_dir;  ///< the exported task (task.json)
  /// A first correct kernel, a faster one from the parent, or a repair of `failed`; the
  /// built-in proposer is never asked to fix.
  search::ProposalMode mode = search::ProposalMode::translate;
  bool has_parent = false;
  Candidate parent;
  std::vector<std::string> tried;  ///< strategy+params keys already proposed for the target
  /// Their sources' digests (search::source_digest), where the novelty filter rejects repeats: the
  /// built-in proposer passes over a point that would write one of them.
  std::vector<std::string> tried_sources;
  // What an LLM proposer's prompt shows:
  double parent_speedup = 0;
  std::string parent_profile;           ///< the parent's profile, in brief
  std::vector<llm::ContextKernel> context;  ///< the target's best kernels, least to most fast
  std::string strategy;                 ///< the optimisation strategy to try
  Candidate failed;                     ///< mode "fix": the candidate to repair
  Stage failed_stage = Stage::none;     ///< compile or evaluate
  std::string failure_log;              ///< the compiler's log or the failed check
  int32_t attempt = 0;     ///< how many proposals for this sequence failed before (sample index)
  std::string replay_key;  ///< replaying: the recorded reply to use instead of asking
  std::string kernel_pattern;  ///< the files proposer: which files are the kernels
  /// The experiment's library policy: the built-in proposer offers generated kernels that call
  /// libraries unless it forbids them, and starts with them when it allows them.
  LibraryPolicy library_calls = LibraryPolicy::flag;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, propose_request& x) {
  return f(caf::meta::type_name("propose_request"), x.experiment_id, x.sequence, x.seed, x.tgt,
           x.export_dir, x.mode, x.has_parent, x.parent, x.tried, x.tried_sources, x.parent_speedup,
           x.parent_profile, x.context, x.strategy, x.failed, x.failed_stage, x.failure_log,
           x.attempt, x.replay_key, x.kernel_pattern, x.library_calls);
}

struct proposal {
  std::string source;
  std::string proposer;
  std::string strategy;
  std::string params;     ///< JSON object
  std::string rationale;  ///< one line: why this candidate
  int64_t parent_id = 0;
  /// No candidate (empty source): why not, and in words. Every proposer says it here, never
  /// as an error, so what follows is decided in one place (search::Planner::setback).
  search::ProposalFailure failure_kind = search::ProposalFailure::none;
  std::string failure;
  std::string reply_key;       ///< the cached reply the candidate came from (LLM proposers)
  std::vector<LlmCall> calls;  ///< what the proposal cost
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, proposal& x) {
  return f(caf::meta::type_name("proposal"), x.source, x.proposer, x.strategy, x.params,
           x.rationale, x.parent_id, x.failure_kind, x.failure, x.reply_key, x.calls);
}

/// What the coordinator asks an LLM verifier: its checks of one candidate.
struct llm_verify_request {
  Candidate candidate;
  target tgt;  ///< where the candidate's task lives, and the configs it is measured on
  std::string export_dir;
  std::vector<std::string> checks;  ///< "compilation", "memory_safety", "numerics"
  uint64_t seed = 0;                ///< the verification's stream (goes to the provider)
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, llm_verify_request& x) {
  return f(caf::meta::type_name("llm_verify_request"), x.candidate, x.tgt, x.export_dir, x.checks,
           x.seed);
}

struct llm_check {
  std::string check;
  bool decided = false;  ///< false: no call succeeded or the reply had no verdict
  bool accepted = false;
  std::vector<std::string> reasons;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, llm_check& x) {
  return f(caf::meta::type_name("llm_check"), x.check, x.decided, x.accepted, x.reasons);
}

/// One LLM verifier's judgement of a candidate.
struct llm_verdict {
  std::string verifier;
  std::vector<llm_check> checks;
  std::vector<LlmCall> calls;
  bool offline_miss = false;  ///< offline, and a reply was not in the cache
  std::string failure;        ///< the last call's failure that retrying did not cure, or empty
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, llm_verdict& x) {
  return f(caf::meta::type_name("llm_verdict"), x.verifier, x.checks, x.calls, x.offline_miss,
           x.failure);
}

/// An ensemble member's calls in an experiment.
struct model_usage {
  std::string name;
  int64_t calls = 0;
  int64_t failures = 0;
  int64_t cached = 0;
  int64_t input_tokens = 0;
  int64_t output_tokens = 0;
  double cost_usd = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, model_usage& x) {
  return f(caf::meta::type_name("model_usage"), x.name, x.calls, x.failures, x.cached,
           x.input_tokens, x.output_tokens, x.cost_usd);
}

struct verify_request {
  Candidate candidate;
  std::string export_dir;
  LibraryPolicy library_policy = LibraryPolicy::flag;
  int64_t max_source_bytes = 256 * 1024;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, verify_request& x) {
  return f(caf::meta::type_name("verify_request"), x.candidate, x.export_dir, x.library_policy,
           x.max_source_bytes);
}

/// The outcome of one stage for a candidate.
struct verdict {
  Stage stage = Stage::verify;
  bool accepted = false;
  std::string kind;                ///< failure kind, empty when accepted
  std::string reason;              ///< one line a user can act on
  std::vector<std::string> notes;  ///< findings that do not reject (flags)
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, verdict& x) {
  return f(caf::meta::type_name("verdict"), x.stage, x.accepted, x.kind, x.reason, x.notes);
}

struct compile_request {
  int64_t candidate_id = 0;
  std::string source;
  Backend backend = Backend::cpu;
  std::string cuda_arch;    ///< sm_XY for cuda
  std::string source_name;  ///< how logs name the source
  Headers headers = Headers::automatic;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, compile_request& x) {
  return f(caf::meta::type_name("compile_request"), x.candidate_id, x.source, x.backend,
           x.cuda_arch, x.source_name, x.headers);
}

/// A candidate's compile: the compiler's report as the library made it (evaluation/compiler.hpp).
struct candidate_compile {
  int64_t candidate_id = 0;
  evaluation::CompileResult result;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, candidate_compile& x) {
  return f(caf::meta::type_name("candidate_compile"), x.candidate_id, x.result);
}

/// The device an evaluator owns, as its worker reports it.
struct device_info {
  bool ok = false;
  std::string backend;
  std::string name;       ///< "NVIDIA H200", or the CPU's model
  std::string cuda_arch;  ///< "sm_90" on cuda, empty on cpu
  std::string sandbox;    ///< the worker's sandbox, in words
  std::string error;      ///< why the worker did not start, when !ok
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, device_info& x) {
  return f(caf::meta::type_name("device_info"), x.ok, x.backend, x.name, x.cuda_arch, x.sandbox,
           x.error);
}

struct export_request {
  std::string task_dir;
  /// The torch.compile baseline to build after the export: "off", "default" or "max-autotune",
  /// for `backend` ("cuda" or "cpu").
  std::string compiled_baseline = "off";
  Backend backend = Backend::cpu;
  std::string config_set = "all";  ///< the configs to build it for
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, export_request& x) {
  return f(caf::meta::type_name("export_request"), x.task_dir, x.compiled_baseline, x.backend,
           x.config_set);
}

struct export_result {
  bool ok = false;
  std::string export_dir;
  std::vector<std::string> directions;  ///< "forward", "backward": the ones exported
  std::map<std::string, std::string> failed_directions;  ///< the others: why not
  std::string error;
  std::string compiled_dir;    ///< the torch.compile baseline (compiled.json), when built
  std::string compiled_error;  ///< asked for but not built: why (the step failed as a whole)
  std::string compiled_note;   ///< what was built, or why there is none
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, export_result& x) {
  return f(caf::meta::type_name("export_result"), x.ok, x.export_dir, x.directions,
           x.failed_directions, x.error, x.compiled_dir, x.compiled_error, x.compiled_note);
}

/// An evaluation asked of an evaluator: the candidate, its target, and what its worker is asked,
/// whole (evaluation/worker_request.hpp: the library, the export, the seeds, the timing budget,
/// whether a correct kernel's trace and counters are recorded for its profile).
/// The compile request travels with it (what the candidate was built from) and the torch.compile
/// mode of the experiment: an evaluator of a node compiles and exports for its own device.
struct eval_request {
  int64_t candidate_id = 0;
  target tgt;
  evaluation::WorkerRequest worker;
  compile_request build;
  std::string compiled_mode = "off";  ///< "off", "default" or "max-autotune"
  /// A correct candidate timed again after the search: a pool times every confirmation of an
  /// experiment on one device (its first evaluator), so that they compare.
  bool confirmation = false;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, eval_request& x) {
  return f(caf::meta::type_name("eval_request"), x.candidate_id, x.tgt, x.worker, x.build,
           x.compiled_mode, x.confirmation);
}

/// An evaluation asked of a node's evaluator: the daemon's request with the task's files (path in
/// the task folder -> content), which the node exports with its own Python; the paths inside
/// `eval` are the daemon's and mean nothing on the node.
struct node_eval_request {
  eval_request eval;
  std::map<std::string, std::string> task_files;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, node_eval_request& x) {
  return f(caf::meta::type_name("node_eval_request"), x.eval, x.task_files);
}

/// What a node says when it joins a daemon (its evaluators' handles travel beside it, in order).
struct node_join {
  std::string token;                 ///< the daemon's node token, as the node's token file has it
  std::string node;                  ///< the node's name (its host name, or --name)
  std::vector<device_info> devices;  ///< one per evaluator it offers
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, node_join& x) {
  return f(caf::meta::type_name("node_join"), x.token, x.node, x.devices);
}

/// The daemon's answer to a node it admits: where each of its evaluators went, or why not.
struct node_welcome {
  std::string node;                  ///< the name the daemon knows the node by
  std::vector<std::string> placed;   ///< per evaluator: the evaluator key it serves, or ""
  std::vector<std::string> refused;  ///< per evaluator: why it serves none, or ""
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, node_welcome& x) {
  return f(caf::meta::type_name("node_welcome"), x.node, x.placed, x.refused);
}

/// An evaluation: the worker's report as evaluation/worker_report.hpp reads it, and what the
/// evaluator adds (whether the worker died, how long it took, on which device, what the kernel
/// printed).
struct eval_result {
  int64_t candidate_id = 0;
  std::string config_set;
  evaluation::WorkerReport report;
  bool worker_died = false;
  double seconds = 0;  ///< wall time the evaluator spent on it
  std::string device;  ///< the device's name
  std::string candidate_output;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, eval_result& x) {
  return f(caf::meta::type_name("eval_result"), x.candidate_id, x.config_set, x.report,
           x.worker_died, x.seconds, x.device, x.candidate_output);
}

/// A correct candidate to profile: what its compile and its evaluation reported.
struct profile_request {
  int64_t candidate_id = 0;
  std::string backend;
  std::vector<evaluation::KernelResources> kernels;
  std::vector<evaluation::ConfigReport> configs;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, profile_request& x) {
  return f(caf::meta::type_name("profile_request"), x.candidate_id, x.backend, x.kernels,
           x.configs);
}

struct profile_summary {
  int64_t candidate_id = 0;
  std::string json;   ///< resources per kernel and the per-config breakdown
  std::string brief;  ///< one line for tables and prompts
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, profile_summary& x) {
  return f(caf::meta::type_name("profile_summary"), x.candidate_id, x.json, x.brief);
}

/// What an actor says about itself: the console's row for it.
struct actor_status {
  std::string name;  ///< "evaluator cuda:0", "compiler", ...
  std::string role;
  int64_t queued = 0;
  int64_t in_flight = 0;
  int64_t completed = 0;
  int64_t failed = 0;
  double busy_seconds = 0;    ///< time spent working since start
  double loaded_seconds = 0;  ///< time with work queued or in flight
  double uptime_seconds = 0;
  std::string current;     ///< the work in flight, in words
  std::string last_error;  ///< empty when none
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, actor_status& x) {
  return f(caf::meta::type_name("actor_status"), x.name, x.role, x.queued, x.in_flight, x.completed,
           x.failed, x.busy_seconds, x.loaded_seconds, x.uptime_seconds, x.current, x.last_error);
}

/// The best correct candidate of one target so far.
struct target_best {
  std::string target_key;
  int64_t candidates = 0;
  int64_t correct = 0;
  int64_t best_candidate = 0;  ///< 0: none correct yet
  double best_speedup = 0;     ///< geometric mean over the configs
  std::string best_strategy;
  std::string ended;  ///< why the target gets no more proposals, once it does not
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, target_best& x) {
  return f(caf::meta::type_name("target_best"), x.target_key, x.candidates, x.correct,
           x.best_candidate, x.best_speedup, x.best_strategy, x.ended);
}

/// Where an experiment stands: the console's row for it.
struct experiment_status {
  int64_t id = 0;
  std::string name;
  std::string status;  ///< "running", "paused", "stopping", "stopped", "finished", "failed"
  int64_t proposed = 0;
  int64_t rejected = 0;  ///< by a verifier or the compiler
  int64_t evaluated = 0;
  int64_t correct = 0;
  int64_t in_flight = 0;
  double elapsed_seconds = 0;
  std::vector<target_best> targets;
  std::string last_error;
  double cost_usd = 0;              ///< spent on LLM calls
  std::vector<model_usage> models;  ///< per ensemble member and verifier
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, experiment_status& x) {
  return f(caf::meta::type_name("experiment_status"), x.id, x.name, x.status, x.proposed,
           x.rejected, x.evaluated, x.correct, x.in_flight, x.elapsed_seconds, x.targets,
           x.last_error, x.cost_usd, x.models);
}

/// Everything the console shows: every actor and every experiment.
struct system_state {
  std::vector<actor_status> actors;
  std::vector<experiment_status> experiments;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, system_state& x) {
  return f(caf::meta::type_name("system_state"), x.actors, x.experiments);
}

/// An experiment's event as it travels and is archived: `kind` is an events::Kind's name and
/// `detail_json` its struct's JSON (made by `make_event`, read back with `events::read`).
struct event_record {
  int64_t id = 0;
  int64_t experiment_id = 0;
  double time = 0;  ///< seconds since the epoch
  std::string kind;
  std::string detail_json;
};

/// The record of an event; the coordinator sets its experiment, time and id.
inline event_record make_event(const events::Event& event) {
  return {0, 0, 0, events::name_of(event), events::to_json(event).dump()};
}

/// The typed event of a record: its detail parsed and read (an error when either fails).
inline Result<events::Event> read_event(const event_record& record) {
  return events::read_text(record.kind, record.detail_json);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, event_record& x) {
  return f(caf::meta::type_name("event_record"), x.id, x.experiment_id, x.time, x.kind,
           x.detail_json);
}

struct experiment_record {
  int64_t id = 0;
  std::string name;
  std::string config_json;
  uint64_t seed = 0;
  std::string status;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, experiment_record& x) {
  return f(caf::meta::type_name("experiment_record"), x.id, x.name, x.config_json, x.seed,
           x.status);
}

/// A candidate and how far it got, as a restarted coordinator finds it in the archive.
struct candidate_state {
  Candidate candidate;
  bool verified = false;  ///< accepted by the verifiers
  bool compiled = false;
  bool finished = false;  ///< has a final verdict (rejected at a stage, or evaluated)
  bool correct = false;
  double speedup = 0;         ///< geometric mean over the configs when correct
  double speed_of_light = 0;  ///< bound over time on the largest config, when correct
  std::string times;          ///< per config, when correct (evaluation::config_times_text)
  bool profiled = false;
  std::string profile_brief;         ///< its profile for prompts, when profiled
  Stage failed_stage = Stage::none;  ///< compile or evaluate when it failed there
  std::string failure;  ///< the compiler's log or the failed check (what a fix is shown)
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, candidate_state& x) {
  return f(caf::meta::type_name("candidate_state"), x.candidate, x.verified, x.compiled, x.finished,
           x.correct, x.speedup, x.speed_of_light, x.times, x.profiled, x.profile_brief,
           x.failed_stage, x.failure);
}

/// Strategies meta-generation wrote for a target, to archive with the calls that wrote them.
struct strategies_record {
  int64_t experiment_id = 0;
  int64_t sequence = 0;  ///< the proposal they were generated before
  std::string target_key;
  int32_t round = 0;
  std::string serves;  ///< "llm" or "builtin": whose proposals draw them
  std::string source;  ///< "rules" or the LLM's name
  std::vector<std::string> strategies;
  std::vector<LlmCall> calls;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, strategies_record& x) {
  return f(caf::meta::type_name("strategies_record"), x.experiment_id, x.sequence, x.target_key,
           x.round, x.serves, x.source, x.strategies, x.calls);
}

struct experiment_snapshot {
  experiment_record experiment;
  std::vector<candidate_state> candidates;  ///< in sequence order
  std::vector<model_usage> models;          ///< LLM calls so far
  /// Meta-generation's strategies (their calls are in `models`), in the order they were written.
  std::vector<strategies_record> strategies;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, experiment_snapshot& x) {
  return f(caf::meta::type_name("experiment_snapshot"), x.experiment, x.candidates, x.models,
           x.strategies);
}

/// A stage's verdict of a candidate, to archive.
struct verdict_record {
  int64_t candidate_id = 0;
  verdict outcome;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, verdict_record& x) {
  return f(caf::meta::type_name("verdict_record"), x.candidate_id, x.outcome);
}

/// LLM calls of an experiment, to archive in one transaction.
struct llm_calls_record {
  int64_t experiment_id = 0;
  int64_t candidate_id = 0;  ///< 0: a proposal that gave no candidate
  int64_t sequence = 0;
  std::vector<LlmCall> calls;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, llm_calls_record& x) {
  return f(caf::meta::type_name("llm_calls_record"), x.experiment_id, x.candidate_id, x.sequence,
           x.calls);
}

/// A proposed candidate with the LLM calls that wrote it, to archive together.
struct proposed_candidate {
  Candidate candidate;
  std::vector<LlmCall> calls;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, proposed_candidate& x) {
  return f(caf::meta::type_name("proposed_candidate"), x.candidate, x.calls);
}

/// An LLM verifier's judgement of a candidate, to archive: its calls, then its verdicts.
struct llm_verdict_record {
  int64_t experiment_id = 0;
  int64_t candidate_id = 0;
  int64_t sequence = 0;
  llm_verdict judgement;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, llm_verdict_record& x) {
  return f(caf::meta::type_name("llm_verdict_record"), x.experiment_id, x.candidate_id, x.sequence,
           x.judgement);
}

/// An experiment's new status ("running", "paused", ...), to archive.
struct status_update {
  int64_t experiment_id = 0;
  std::string status;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, status_update& x) {
  return f(caf::meta::type_name("status_update"), x.experiment_id, x.status);
}

/// Where a candidate enters its experiment's pipeline: a new one at the static verifier, a
/// resumed one where the archive says it stopped.
enum class pipeline_entry : uint8_t {
  verify,      ///< the static rules, then the LLM verifiers
  llm_verify,  ///< the LLM verifiers (their verdicts may have been lost; the cache answers)
  compile,     ///< compile and record the outcome
  recompile,   ///< compiled before: compile again (a cache hit) without recording it twice
  profile,     ///< correct, but its profile was lost: made again from the archived results
};

std::string to_string(pipeline_entry e);

/// A candidate for the pipeline; `target` indexes the experiment's layout.
struct pipeline_job {
  Candidate candidate;
  int32_t target = 0;
  pipeline_entry entry = pipeline_entry::verify;
  /// The novelty filter found it repeats this earlier candidate (its archive id, the number a
  /// person reads; 0 where it is not known here): rejected instead of verified. -1: it is new.
  int64_t repeats = -1;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, pipeline_job& x) {
  return f(caf::meta::type_name("pipeline_job"), x.candidate, x.target, x.entry, x.repeats);
}

/// A candidate's final verdict, archived before the pipeline answers with it.
struct candidate_outcome {
  int64_t sequence = 0;
  /// The stage that decided: verify, llm_verify, compile or evaluate (profile: a profile's error).
  Stage stage = Stage::none;
  bool correct = false;
  double speedup = 0;         ///< geometric mean over the configs, when correct
  double speed_of_light = 0;  ///< bound over time on the largest config, when correct
  bool stage_error = false;   ///< the stage itself failed, so nothing was judged
  std::string reason;         ///< why it was rejected or failed, in one line
  std::string failure;        ///< what a fix is shown (compile log, failed check), or empty
  std::string error;          ///< an infrastructure error to report, or empty
  bool profiling = false;     ///< a profile follows (profiled_atom)
  std::string times;          ///< per config, when correct (evaluation::config_times_text)

  /// It compiled: the evaluation decided (or failed as a stage).
  bool compiled() const { return stage == Stage::evaluate; }
  /// It was judged on the hardware; everything else counts as rejected.
  bool evaluated() const { return stage == Stage::evaluate && !stage_error; }
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, candidate_outcome& x) {
  return f(caf::meta::type_name("candidate_outcome"), x.sequence, x.stage, x.correct, x.speedup,
           x.speed_of_light, x.stage_error, x.reason, x.failure, x.error, x.profiling, x.times);
}

/// A correct candidate timed again once the search is over, with a fresh seed, interleaved batch by
/// batch with eager PyTorch as every timing is: the number a best is reported with, instead of the
/// largest of many noisy draws. Archived before the pipeline answers with it.
struct confirmation {
  int64_t sequence = 0;
  int64_t candidate_id = 0;
  bool correct = false;     ///< correct again on the fresh inputs, and timed
  double speedup = 0;       ///< geometric mean over the configs of eager's median over the kernel's
  double speedup_low = 0;   ///< the same of eager's 10th percentile over the kernel's 90th
  double speedup_high = 0;  ///< and of eager's 90th over the kernel's 10th
  std::string reason;       ///< why it is not confirmed, when not correct
  std::string configs_json;  ///< per config: name, medians and percentiles of both, speedup
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, confirmation& x) {
  return f(caf::meta::type_name("confirmation"), x.sequence, x.candidate_id, x.correct, x.speedup,
           x.speedup_low, x.speedup_high, x.reason, x.configs_json);
}

/// A correct candidate's profile, archived (or why there is none).
struct profile_outcome {
  int64_t sequence = 0;
  std::string brief;   ///< for prompts; empty when none was made
  std::string error;   ///< why not
  bool fatal = false;  ///< the archive failed: the experiment cannot go on
  std::string json;    ///< the whole profile (evaluation::Profile's document)
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, profile_outcome& x) {
  return f(caf::meta::type_name("profile_outcome"), x.sequence, x.brief, x.error, x.fatal, x.json);
}

/// What an LLM is asked about a correct kernel's profile: a few recommendations for its next
/// version (the paper's profile summary).
struct profile_advice_request {
  int64_t experiment_id = 0;
  int64_t sequence = 0;
  uint64_t seed = 0;
  target tgt;
  std::string export_dir;
  std::string source;        ///< the kernel
  double speedup = 0;        ///< over eager PyTorch, geometric mean over the configs
  std::string times;         ///< per config (evaluation::config_times_text)
  std::string profile_json;  ///< its profile
  int32_t count = 4;         ///< how many recommendations at most
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, profile_advice_request& x) {
  return f(caf::meta::type_name("profile_advice_request"), x.experiment_id, x.sequence, x.seed,
           x.tgt, x.export_dir, x.source, x.speedup, x.times, x.profile_json, x.count);
}

/// An LLM's recommendations for a profiled kernel, or why there are none.
struct profile_advice {
  int64_t candidate_id = 0;
  int64_t experiment_id = 0;
  int64_t sequence = 0;
  std::string model;
  std::vector<std::string> recommendations;
  std::string failure;
  std::vector<LlmCall> calls;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, profile_advice& x) {
  return f(caf::meta::type_name("profile_advice"), x.candidate_id, x.experiment_id, x.sequence,
           x.model, x.recommendations, x.failure, x.calls);
}

/// What the verifier asks an experiment's LLM verifiers (by name) about one candidate.
struct llm_panel_request {
  llm_verify_request request;
  std::vector<std::string> names;
  std::vector<caf::actor> models;  ///< llm_model_actor handles, by `names`
  double audit_fraction = 0;       ///< share of rejected candidates run anyway
  uint64_t audit_seed = 0;         ///< the audit's draw for this candidate
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, llm_panel_request& x) {
  return f(caf::meta::type_name("llm_panel_request"), x.request, x.names, x.models,
           x.audit_fraction, x.audit_seed);
}

/// The LLM verifiers' judgement together: every verifier's verdict, and what follows from them.
struct llm_judgement {
  std::vector<llm_verdict> verdicts;  ///< each verifier's, with its calls
  bool rejected = false;              ///< some decided check rejected the candidate
  bool audited = false;               ///< rejected, but drawn to run on the hardware anyway
  std::string reasons;                ///< "verifier/check: why | ..." of the rejections
  /// Offline, a verifier had no cached reply: the experiment cannot go on.
  std::string offline_miss;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, llm_judgement& x) {
  return f(caf::meta::type_name("llm_judgement"), x.verdicts, x.rejected, x.audited, x.reasons,
           x.offline_miss);
}

/// One target of an experiment as its setup laid it out.
struct target_layout {
  target tgt;
  std::string export_dir;            ///< the exported task; empty when it cannot start
  std::string compiled_dir;          ///< the torch.compile baseline's folder, if built
  std::string compiled_unavailable;  ///< why a baseline that was asked for is missing
  /// The torch.compile baseline's mode while it is still to be built: the pipeline has it built
  /// (once per task) before the target's first evaluation, so that other targets are evaluated
  /// meanwhile; empty once built, or when none is asked for.
  std::string compiled_pending;
  std::string failed;  ///< why the target cannot start, or empty
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, target_layout& x) {
  return f(caf::meta::type_name("target_layout"), x.tgt, x.export_dir, x.compiled_dir,
           x.compiled_unavailable, x.compiled_pending, x.failed);
}

/// An experiment's targets, exported and placed on devices: what its coordinator starts from.
struct experiment_layout {
  std::vector<target_layout> targets;
  std::map<std::string, std::string> cuda_arch;  ///< per evaluator key
  std::vector<event_record> notes;  ///< what the setup noticed (kind and detail), in order
  std::string error;                ///< why the experiment cannot start, or empty
  experiment_snapshot resumed;      ///< resuming: the experiment as the archive has it
  experiment_snapshot replayed;     ///< replaying: the experiment whose decisions are followed
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, experiment_layout& x) {
  return f(caf::meta::type_name("experiment_layout"), x.targets, x.cuda_arch, x.notes, x.error,
           x.resumed, x.replayed);
}

/// The response cache's key of an LLM reply, to look up in the archive.
struct reply_key {
  std::string key;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, reply_key& x) {
  return f(caf::meta::type_name("reply_key"), x.key);
}

/// An LLM reply looked up in the archive, or none under that key.
struct reply_lookup {
  bool found = false;
  llm::CachedReply reply;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, reply_lookup& x) {
  return f(caf::meta::type_name("reply_lookup"), x.found, x.reply);
}

/// A read of the archive for the console and the CLI: `what` is "experiments", "experiment",
/// "candidate", "history", "report" or "suite"; the answer is a JSON document.
struct query_request {
  std::string what;
  int64_t id = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, query_request& x) {
  return f(caf::meta::type_name("query_request"), x.what, x.id);
}

}  // namespace kforge
