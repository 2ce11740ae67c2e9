// The archive: kforge's single source of truth, an SQLite database in WAL mode. Experiments,
// candidates (source, parent, proposer, strategy, seed), verdicts with reasons, compile logs,
// per-config results and timings, profiles, events and generated strategies are written here before
// anything is reported, so a process killed at any moment loses nothing that was reported. A plain
// library: no CAF, no threads of its own; the archive actor owns one instance.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/candidate.hpp"
#include "common/llm_call.hpp"
#include "common/result.hpp"

struct sqlite3;

namespace kforge::archive {

struct Experiment {
  int64_t id = 0;
  std::string name;
  std::string config_json;  ///< the experiment configuration as given
  uint64_t seed = 0;
  std::string status;     ///< "running", "paused", "stopped", "finished"
  double created_at = 0;  ///< seconds since the epoch
};

using Candidate = ::kforge::Candidate;

/// The outcome of one stage for a candidate: "verify", "compile" or "evaluate".
struct VerdictRow {
  int64_t candidate_id = 0;
  std::string stage;
  std::string verdict;  ///< "accepted", "rejected", "correct", "incorrect", "error"
  std::string kind;     ///< failure kind, empty when none
  std::string reason;
};

struct CompileLog {
  int64_t candidate_id = 0;
  bool ok = false;
  bool cache_hit = false;
  double seconds = 0;
  std::string log;
  std::string resources_json;  ///< registers, shared memory, spills per kernel
  std::string headers;         ///< "light" or "full": which headers built it; empty before v4
  std::string light_error;     ///< why the light headers could not build it, when they could not
};

struct ConfigResult {
  int64_t candidate_id = 0;
  std::string config_set;  ///< "single", "multi", ...
  int config_index = 0;
  std::string config_name;
  bool correct = false;
  double max_abs_error = 0, max_rel_error = 0;
  std::optional<double> kernel_ms, eager_ms, speedup;
  std::string detail_json;  ///< the worker's whole per-config record
};

struct Event {
  int64_t id = 0;
  int64_t experiment_id = 0;
  double time = 0;
  std::string kind;
  std::string detail_json;
};

/// The best candidate of a task: correct on every config of the set, highest geometric-mean
/// speedup over the configs.
struct Best {
  Candidate candidate;
  double geomean_speedup = 0;
  int configs = 0;
};

/// How far a candidate got, read back from its verdicts, results and profile.
struct Progress {
  Candidate candidate;
  bool verified = false;  ///< accepted at the verify stage
  bool compiled = false;
  bool finished = false;  ///< rejected at a stage, or evaluated
  bool correct = false;
  double geomean_speedup = 0;  ///< over the configs, when correct and timed
  bool profiled = false;
};

/// An LLM reply in the response cache.
struct LlmReply {
  std::string key;  ///< SHA-256 of the request's canonical document
  std::string endpoint, model;
  std::string request_json;
  std::string text;
  std::string finish_reason;
  bool truncated = false;
  int64_t input_tokens = 0, output_tokens = 0;
};

/// One LLM call of an experiment: the ledger of calls, failures, tokens and money.
struct LlmCallRow {
  int64_t experiment_id = 0;
  int64_t candidate_id = 0;  ///< 0: none (a proposal that produced no candidate)
  int64_t sequence = 0;
  LlmCall call;
};

/// One LLM verifier's judgement of one check of a candidate.
struct LlmVerdictRow {
  int64_t candidate_id = 0;
  std::string verifier;
  std::string check;
  bool decided = false;
  bool accepted = false;
  std::string reasons_json = "[]";
};

/// Per ensemble member: the sums of an experiment's calls.
struct LlmUsage {
  std::string model_name;
  int64_t calls = 0, failures = 0, cached = 0;
  int64_t input_tokens = 0, output_tokens = 0;
  double cost_usd = 0;
};

/// An optimisation strategy meta-generation wrote for a target of an experiment.
struct Strategy {
  int64_t experiment_id = 0;
  int64_t sequence = 0;  ///< the proposal it was written before
  std::string target;    ///< the target's key
  int32_t round = 0;
  std::string serves;  ///< "llm" or "builtin"
  std::string source;  ///< "rules" or the LLM that wrote it
  std::string text;
};

/// A correct candidate timed again once the search was over (fresh seed, interleaved with eager):
/// the numbers its best is reported with.
struct ConfirmationRow {
  int64_t candidate_id = 0;
  bool correct = false;
  double speedup = 0, speedup_low = 0, speedup_high = 0;  ///< geomean, and of p10/p90 ratios
  std::string reason;              ///< why not confirmed, when not correct
  std::string configs_json = "[]";  ///< per config: medians and percentiles of both, speedup
  double created_at = 0;
};

/// What a failed call says: empty when it succeeded.
using Status = Result<void>;

/// Every read returns Result: an SQLite error is reported as such, never read as "nothing found"
/// (a resume that took a failed read for an empty experiment would start it over).
class Archive {
 public:
  /// Opens (creating, or upgrading the schema of, if needed) the database.
  static Result<std::unique_ptr<Archive>> open(const std::string& path);
  ~Archive();
  Archive(const Archive&) = delete;
  Archive& operator=(const Archive&) = delete;

  /// Stores an experiment; returns its id.
  Result<int64_t> add_experiment(const Experiment& e);
  Status set_experiment_status(int64_t experiment_id, const std::string& status);
  Result<std::optional<Experiment>> experiment(int64_t id);
  Result<std::vector<Experiment>> experiments_with_status(const std::string& status);
  /// Every experiment, newest first.
  Result<std::vector<Experiment>> experiments();

  /// Stores a candidate with its sequence (or the next one when -1); a sequence taken twice is
  /// an error. Returns the id. The LLM calls that wrote it are stored with it, in one
  /// transaction: a proposal is kept with what it cost or not at all.
  Result<int64_t> add_candidate(const Candidate& c, const std::vector<LlmCall>& calls = {});
  Status add_verdict(const VerdictRow& v);
  Status add_compile(const CompileLog& c);
  /// All results of one evaluation, in one transaction.
  Status add_results(const std::vector<ConfigResult>& results);
  /// The compile log and the compile verdict, in one transaction.
  Status record_compile(const CompileLog& log, const VerdictRow& verdict);
  /// The results of an evaluation and its final verdict, in one transaction: a candidate is
  /// either evaluated with all its results or not at all.
  Status record_evaluation(const std::vector<ConfigResult>& results, const VerdictRow& verdict);
  Status add_profile(int64_t candidate_id, const std::string& summary_json);
  /// An LLM's advice on a candidate's profile (`advice_json`), kept in the profile as "advice",
  /// and the calls that wrote it, in one transaction.
  Status add_profile_advice(int64_t experiment_id, int64_t candidate_id, int64_t sequence,
                            const std::string& advice_json, const std::vector<LlmCall>& calls);
  /// Stores an event; returns its id (its sequence number in the archive).
  Result<int64_t> add_event(const Event& e);

  Result<std::optional<Candidate>> candidate(int64_t id);
  /// The experiment's candidates in proposal order.
  Result<std::vector<Candidate>> candidates(int64_t experiment_id);
  Result<std::vector<VerdictRow>> verdicts(int64_t candidate_id);
  Result<std::vector<ConfigResult>> results(int64_t candidate_id);
  Result<std::optional<CompileLog>> compile_log(int64_t candidate_id);
  Result<std::optional<std::string>> profile(int64_t candidate_id);
  /// The "counters" member of the candidate's latest profile, cut out by SQLite (a profile with
  /// its kernel trace is large, and views read this for every target on every request), or
  /// nothing where the profile has none.
  Result<std::optional<std::string>> profile_counters(int64_t candidate_id);
  /// Keeps a candidate's confirmation (a later one of the same candidate replaces it).
  Status add_confirmation(const ConfirmationRow& c);
  /// The confirmations of an experiment's candidates, by candidate id.
  Result<std::vector<ConfirmationRow>> confirmations(int64_t experiment_id);
  /// Every candidate of the experiment with how far it got, in sequence order.
  Result<std::vector<Progress>> progress(int64_t experiment_id);
  /// Candidates of the experiment without a final verdict (evaluated, or rejected at any stage):
  /// what a restarted daemon must carry on with.
  Result<std::vector<Candidate>> unfinished(int64_t experiment_id);
  /// The candidate and its ancestors, the candidate first.
  Result<std::vector<Candidate>> lineage(int64_t candidate_id);
  /// The experiment's events in order; with `kinds`, only events of those kinds.
  Result<std::vector<Event>> history(int64_t experiment_id,
                                     const std::vector<std::string>& kinds = {});
  /// The response cache.
  Result<std::optional<LlmReply>> llm_reply(const std::string& key);
  Status put_llm_reply(const LlmReply& reply);
  /// Calls of a proposal or a verification (`candidate_id` 0: it gave no candidate), in one
  /// transaction.
  Status add_llm_calls(int64_t experiment_id, int64_t candidate_id, int64_t sequence,
                       const std::vector<LlmCall>& calls);
  Result<std::vector<LlmCallRow>> llm_calls(int64_t experiment_id);
  Result<std::vector<LlmUsage>> llm_usage(int64_t experiment_id);
  /// The verifiers' judgements of a candidate, in one transaction (a repeat replaces them).
  Status add_llm_verdicts(const std::vector<LlmVerdictRow>& verdicts);
  /// Every judgement of the experiment's candidates.
  Result<std::vector<LlmVerdictRow>> llm_verdicts(int64_t experiment_id);

  /// Strategies meta-generation wrote (in order) and the LLM calls that wrote them, in one
  /// transaction.
  Status add_strategies(const std::vector<Strategy>& strategies,
                        const std::vector<LlmCall>& calls = {});
  /// The experiment's strategies in the order they were written.
  Result<std::vector<Strategy>> strategies(int64_t experiment_id);

  /// Best per task; `experiment_id` 0 searches every experiment.
  Result<std::optional<Best>> best(const std::string& task, const std::string& direction,
                                   const std::string& backend, const std::string& config_set,
                                   int64_t experiment_id = 0);

 private:
  explicit Archive(sqlite3* db) : db_(db) {}
  /// The row an INSERT that ended with `status` added.
  Result<int64_t> inserted(const Status& status);
  Status insert_result(const ConfigResult& r);
  Status insert_verdict(const VerdictRow& v);
  Status insert_llm_calls(int64_t experiment_id, int64_t candidate_id, int64_t sequence,
                          const std::vector<LlmCall>& calls);
  sqlite3* db_;
};

}  // namespace kforge::archive
