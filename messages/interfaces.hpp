// Every typed actor handle of kforge on one page: who answers what. A reader learns the whole
// conversation of the system here; payloads are in payloads.hpp, verbs in atoms.hpp.
#pragma once

// caf/all.hpp: every actor file needs the typed actors' full definitions and the spawn machinery.
#include <caf/all.hpp>

#include <string>
#include <vector>

#include "messages/atoms.hpp"
#include "messages/payloads.hpp"

namespace kforge {

/// Every actor reports its queue, in-flight work and last error.
using status_reporter = caf::typed_actor<
    // What the actor is doing now.
    caf::replies_to<status_atom>::with<actor_status>>;

/// Writes candidate kernels: one per LLM of an ensemble, and the built-in one.
using proposer_actor = status_reporter::extend<
    // A new candidate for the request's target; error `exhausted` when it has nothing new.
    caf::replies_to<propose_atom, propose_request>::with<proposal>,
    // New optimisation strategies for the request's target (meta-generation), or why none.
    caf::replies_to<meta_atom, meta_request>::with<meta_reply>>;

/// One LLM of an experiment: proposes kernels (when it is in the ensemble) and judges them (when
/// it is a verifier). Calls run on a pool of its own threads, at most the model's concurrency.
using llm_model_actor = proposer_actor::extend<
    // The model's verdict on each requested check of a candidate, with what the calls cost.
    caf::replies_to<verify_atom, llm_verify_request>::with<llm_verdict>,
    // Its recommendations for a profiled kernel (search.profile_advice).
    caf::replies_to<profile_atom, profile_advice_request>::with<profile_advice>>;

/// One thread of an LLM model: builds the prompt, makes the (blocking) call, parses the reply.
using llm_runner_actor =
    caf::typed_actor<caf::replies_to<propose_atom, propose_request>::with<proposal>,
                     caf::replies_to<meta_atom, meta_request>::with<meta_reply>,
                     caf::replies_to<profile_atom, profile_advice_request>::with<profile_advice>,
                     caf::replies_to<verify_atom, llm_verify_request>::with<llm_verdict>>;

/// Judges a candidate before it costs compile or GPU time.
using verifier_actor = status_reporter::extend<
    // Static rules (signature, forbidden constructs, size); the LLM verifiers come after.
    caf::replies_to<verify_atom, verify_request>::with<verdict>,
    // The experiment's LLM verifiers on one candidate, together: every verdict, whether they
    // reject it and whether it is audited anyway.
    caf::replies_to<verify_atom, llm_panel_request>::with<llm_judgement>>;

/// Compiles candidates on the CPU cores (one slot a core) and exports tasks.
using compiler_actor = status_reporter::extend<
    // A shared object for the candidate, or the compiler's log saying why not.
    caf::replies_to<compile_atom, compile_request>::with<candidate_compile>,
    // The task's export (Python runs here only, once per task version).
    caf::replies_to<export_atom, export_request>::with<export_result>>;

/// Owns one GPU (or the CPU backend) and its sandboxed worker; one evaluation at a time.
using evaluator_actor = status_reporter::extend<
    // Correctness on every config and seed, then timing next to eager PyTorch.
    caf::replies_to<evaluate_atom, eval_request>::with<eval_result>,
    // The device (starting the worker if needed): compiles for cuda need its architecture.
    caf::replies_to<device_atom>::with<device_info>>;

/// An evaluator of a node (another process, on this host or another): it exports the task and
/// compiles the candidate for its own device, then evaluates as a local evaluator does.
using node_evaluator_actor =
    status_reporter::extend<caf::replies_to<evaluate_atom, node_eval_request>::with<eval_result>,
                            caf::replies_to<device_atom>::with<device_info>>;

/// What the daemon's evaluators are when nodes may join: one queue per evaluator key, served
/// oldest candidate first by the local evaluator and every node evaluator that joined it; a
/// node's evaluation in flight when the node goes goes back to the queue.
using evaluator_pool_actor = evaluator_actor::extend<
    // A node's evaluator joins, with its device and the name the status shows.
    caf::reacts_to<join_atom, node_evaluator_actor, device_info, std::string>,
    // The status row of each node evaluator in the pool.
    caf::replies_to<nodes_atom>::with<std::vector<actor_status>>>;

/// The daemon's door for nodes (published on --node-port): a node presents the token and offers
/// its evaluators (in the order of node_join's devices).
using node_registry_actor = status_reporter::extend<
    caf::replies_to<join_atom, node_join, std::vector<node_evaluator_actor>>::with<node_welcome>,
    // Its own status row, then every node evaluator's (from the pools), for the console, the
    // dashboard and /metrics.
    caf::replies_to<nodes_atom>::with<std::vector<actor_status>>>;

/// A compiler slot: one blocking compile or export at a time, on its own thread.
using compile_runner_actor =
    caf::typed_actor<caf::replies_to<compile_atom, compile_request>::with<candidate_compile>,
                     caf::replies_to<export_atom, export_request>::with<export_result>>;

/// The evaluator's hands: owns the worker process and blocks on it, on its own thread.
using evaluation_runner_actor =
    caf::typed_actor<caf::replies_to<evaluate_atom, eval_request>::with<eval_result>,
                     caf::replies_to<device_atom>::with<device_info>>;

/// Explains what a correct kernel spends: compiler resources and the per-config breakdown.
using profiler_actor = status_reporter::extend<
    // The summary is archived by the caller.
    caf::replies_to<profile_atom, profile_request>::with<profile_summary>>;

/// The archive: every write is committed before the reply, so what was reported survives.
using archive_actor = status_reporter::extend<
    // A new experiment; its id.
    caf::replies_to<record_atom, experiment_record>::with<int64_t>,
    // A proposed candidate (its sequence is the coordinator's) and the LLM calls that wrote it,
    // in one transaction; the candidate's id.
    caf::replies_to<record_atom, proposed_candidate>::with<int64_t>,
    // A stage's verdict of a candidate.
    caf::replies_to<record_atom, verdict_record>::with<void>,
    // LLM calls of an experiment, in one transaction.
    caf::replies_to<record_atom, llm_calls_record>::with<void>,
    // Strategies meta-generation wrote, with the calls that wrote them, in one transaction.
    caf::replies_to<record_atom, strategies_record>::with<void>,
    // An LLM verifier's judgement of a candidate: its calls, then its verdicts.
    caf::replies_to<record_atom, llm_verdict_record>::with<void>,
    // A compile outcome of a candidate: the log and the compile verdict, in one transaction.
    caf::replies_to<record_atom, candidate_compile>::with<void>,
    // An evaluation: per-config results and the final verdict, in one transaction.
    caf::replies_to<record_atom, eval_result>::with<void>,
    // A profile of a candidate.
    caf::replies_to<record_atom, profile_summary>::with<void>,
    // A correct candidate timed again after the search (replaces an earlier one of it).
    caf::replies_to<record_atom, confirmation>::with<void>,
    // An LLM's recommendations for a profiled candidate, kept with its profile, and their calls.
    caf::replies_to<record_atom, profile_advice>::with<void>,
    // An event of an experiment; its id.
    caf::replies_to<record_atom, event_record>::with<int64_t>,
    // An experiment's new status.
    caf::replies_to<update_atom, status_update>::with<void>,
    // An LLM reply for the response cache (the first one kept under a key stays), and a lookup.
    caf::replies_to<record_atom, llm::CachedReply>::with<void>,
    caf::replies_to<load_atom, reply_key>::with<reply_lookup>,
    // An experiment and all its candidates with how far each got: what a resume starts from.
    caf::replies_to<load_atom, int64_t>::with<experiment_snapshot>,
    // The experiments with a status ("" for all).
    caf::replies_to<list_atom, std::string>::with<std::vector<experiment_record>>,
    // A read for the console, answered as JSON.
    caf::replies_to<query_atom, query_request>::with<std::string>>;

/// Hears an experiment's events (each after it is archived) and its end.
using experiment_listener = caf::typed_actor<caf::reacts_to<event_atom, event_record>,
                                             caf::reacts_to<done_atom, experiment_status>>;

/// What a candidate pipeline tells its experiment's coordinator besides the outcomes it answers.
using pipeline_listener = caf::typed_actor<
    // An event to archive and report (kind and detail; the coordinator stamps it).
    caf::reacts_to<event_atom, event_record>,
    // LLM calls made for candidate n (the verifiers'), to count against the budget.
    caf::reacts_to<charge_atom, int64_t, std::vector<LlmCall>>,
    // A correct candidate's profile is archived: its brief for prompts, or why there is none.
    caf::reacts_to<profiled_atom, profile_outcome>>;

/// One experiment's candidates from proposal to verdict: verify -> LLM verify -> compile ->
/// evaluate -> profile, each stage's outcome archived before the next starts.
using candidate_pipeline_actor = status_reporter::extend<
    // The candidate's final verdict, once archived; a correct one is profiled after the answer.
    // An error means the experiment cannot go on (the archive failed, an offline cache missed).
    caf::replies_to<judge_atom, pipeline_job>::with<candidate_outcome>,
    // A correct candidate, compiled again (a cache hit) and timed again with a fresh seed once
    // the search is over; archived before the answer.
    caf::replies_to<confirm_atom, pipeline_job>::with<confirmation>,
    // Work between stages waits until resumed; stages already running finish.
    caf::reacts_to<pause_atom>, caf::reacts_to<resume_atom>>;

/// Exports an experiment's tasks, lays out its targets and asks its GPUs for their architecture.
using experiment_setup_actor =
    caf::typed_actor<caf::replies_to<setup_atom>::with<experiment_layout>>;

/// One experiment's driver: keeps every stage busy within its bounds until the budget is spent.
using coordinator_actor = pipeline_listener::extend<
    // Where the experiment stands.
    caf::replies_to<progress_atom>::with<experiment_status>,
    // No new work is started; work in flight finishes.
    caf::replies_to<pause_atom>::with<void>,
    // Work starts again.
    caf::replies_to<resume_atom>::with<void>,
    // Ends the experiment: nothing new is proposed; candidates in the pipeline finish.
    caf::replies_to<stop_atom>::with<void>,
    // Internal: try to make progress again (after a back-off).
    caf::reacts_to<tick_atom>,
    // Internal: proposal n's back-off is over.
    caf::reacts_to<tick_atom, int64_t>>;

/// The daemon's front: experiments, actor states and live events for the HTTP API and console.
using gateway_actor = status_reporter::extend<
    // Starts an experiment from its configuration (JSON text); its id.
    caf::replies_to<submit_atom, std::string>::with<int64_t>,
    // Pauses, resumes or stops an experiment by id.
    caf::replies_to<pause_atom, int64_t>::with<void>,
    caf::replies_to<resume_atom, int64_t>::with<void>,
    caf::replies_to<stop_atom, int64_t>::with<void>,
    // Every actor's status and every experiment's progress.
    caf::replies_to<state_atom>::with<system_state>,
    // A read of the archive, as JSON.
    caf::replies_to<query_atom, query_request>::with<std::string>,
    // Live events go to the subscriber as (event_atom, event_record) until it terminates.
    caf::reacts_to<subscribe_atom, caf::actor>,
    // From coordinators: an event to pass on (already archived).
    caf::reacts_to<event_atom, event_record>,
    // From coordinators: an experiment ended.
    caf::reacts_to<done_atom, experiment_status>>;

}  // namespace kforge
