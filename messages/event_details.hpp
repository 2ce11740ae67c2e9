// What each kind of event says: one struct per `events::Kind`, with its fields listed once (its
// `each`), from which the detail's JSON is written and read back. Producers (actors/) build these
// structs; consumers (tools/, archive/) read an archived or streamed event back into one with
// `events::read` and never look fields up by name. The JSON is what the archive's `events` table,
// the daemon's event stream and the dashboard carry (docs/design.md lists it).
//
// A field that is `std::optional` is left out of the JSON when absent. Reading is lenient about
// what an earlier kforge left out (a missing field keeps its default) and strict about what is
// there: a field of the wrong type makes the event unreadable, never a silent zero.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "common/json.hpp"
#include "common/result.hpp"
#include "messages/events.hpp"

namespace kforge::events {

// ---- The experiment. ----

struct ExperimentStarted {
  static constexpr Kind kind = Kind::experiment_started;
  int64_t targets = 0;
  template <class T, class F>
  static void each(T& x, F&& f) {
    f("targets", x.targets);
  }
};

struct Resumed {
  static constexpr Kind kind = Kind::resumed;
  int64_t candidates = 0;  ///< in the archive
  int64_t carried_on = 0;  ///< unfinished ones handed back to the pipeline
  template <class T, class F>
  static void each(T& x, F&& f) {
    f("candidates", x.candidates), f("carried_on", x.carried_on);
  }
};

struct Replaying {
  static constexpr Kind kind = Kind::replaying;
  int64_t replay_of = 0;  ///< the experiment whose decisions are followed
  int64_t decisions = 0;
  template <class T, class F>
  static void each(T& x, F&& f) {
    f("replay_of", x.replay_of), f("decisions", x.decisions);
  }
};

/// A step of the experiment that says nothing more than its kind.
struct NoDetail {
  template <class T, class F>
  static void each(T&, F&&) {}
};
struct ExperimentPaused : NoDetail {
  static constexpr Kind kind = Kind::experiment_paused;
};
struct ExperimentResumed : NoDetail {
  static constexpr Kind kind = Kind::experiment_resumed;
};
struct ExperimentStopping : NoDetail {
  static constexpr Kind kind = Kind::experiment_stopping;
};

/// The experiment ended: finished, stopped or failed (its `status`).
struct ExperimentEnd {
  std::string status;
  int64_t proposed = 0;
  int64_t correct = 0;
  std::optional<std::string> error;  ///< the last error, if any
  template <class T, class F>
  static void each(T& x, F&& f) {
    f("status", x.status), f("proposed", x.proposed), f("correct", x.correct), f("error", x.error);
  }
};
struct ExperimentFinished : ExperimentEnd {
  static constexpr Kind kind = Kind::experiment_finished;
};
struct ExperimentStopped : ExperimentEnd {
  static constexpr Kind kind = Kind::experiment_stopped;
};
struct ExperimentFailed : ExperimentEnd {
  static constexpr Kind kind = Kind::experiment_failed;
};

struct BudgetSpent {
  static constexpr Kind kind = Kind::budget_spent;
  std::string budget;  ///< "money_usd" or "wall_seconds"
  double limit = 0;
  template <class T, class F>
  static void each(T& x, F&& f) {
    f("budget", x.budget), f("limit", x.limit);
  }
};

/// torch.compile's baseline of a task was measured (or why not).
struct CompiledBaseline {
  static constexpr Kind kind = Kind::compiled_baseline;
  std::string task;
  std::string baseline;
  template <class T, class F>
  static void each(T& x, F&& f) {
    f("task", x.task), f("baseline", x.baseline);
  }
};

struct DirectionMissing {
  static constexpr Kind kind = Kind::direction_missing;
  std::string task;
  std::string direction;
  template <class T, class F>
  static void each(T& x, F&& f) {
    f("task", x.task), f("direction", x.direction);
  }
};

// ---- Proposals. ----

/// The candidate an event is about: its sequence in the experiment, its archive id and its
/// target ("task/direction/backend").
struct Subject {
  int64_t sequence = 0;
  int64_t candidate = 0;
  std::string target;
  template <class T, class F>
  static void each(T& x, F&& f) {
    f("sequence", x.sequence), f("candidate", x.candidate), f("target", x.target);
  }
};

struct Proposed : Subject {
  static constexpr Kind kind = Kind::proposed;
  std::string proposer;
  std::string strategy;
  std::string mode;  ///< translate, optimise, combine, ...
  std::string params;
  std::string rationale;
  std::optional<int64_t> parent;  ///< the archive id it was derived from
  template <class T, class F>
  static void each(T& x, F&& f) {
    Subject::each(x, f);
    f("proposer", x.proposer), f("strategy", x.strategy), f("mode", x.mode);
    f("params", x.params), f("rationale", x.rationale), f("parent", x.parent);
  }
};

/// A proposal gave no candidate, or a proposer stops for a target or the experiment: the
/// planner's setback, with its kind of failure and reason.
struct ProposerSetback {
  int64_t sequence = 0;  ///< of the proposal
  std::string target;
  std::string proposer;
  std::string failure;  ///< the kind of failure (JSON "kind")
  std::string reason;
  template <class T, class F>
  static void each(T& x, F&& f) {
    f("sequence", x.sequence), f("target", x.target), f("proposer", x.proposer);
    f("kind", x.failure), f("reason", x.reason);
  }
};
/// No candidate; the proposal is asked again in `retry_in_seconds`.
struct ProposalFailed : ProposerSetback {
  static constexpr Kind kind = Kind::proposal_failed;
  int64_t retry_in_seconds = 0;
  template <class T, class F>
  static void each(T& x, F&& f) {
    ProposerSetback::each(x, f);
    f("retry_in_seconds", x.retry_in_seconds);
  }
};
/// A rejected key or spent money: the proposer stops for the whole experiment.
struct ProposerDisabled : ProposerSetback {
  static constexpr Kind kind = Kind::proposer_disabled;
};
/// The proposer stops for this target; the others go on.
struct ProposerSetAside : ProposerSetback {
  static constexpr Kind kind = Kind::proposer_set_aside;
};
/// The proposer cannot write this target.
struct ProposerUnsupported : ProposerSetback {
  static constexpr Kind kind = Kind::proposer_unsupported;
};
/// Archives of earlier kforge only: read, never written.
struct ProposerError {
  static constexpr Kind kind = Kind::proposer_error;
  std::string target;
  std::string reason;
  int64_t retry_in_seconds = 0;
  template <class T, class F>
  static void each(T& x, F&& f) {
    f("target", x.target), f("reason", x.reason), f("retry_in_seconds", x.retry_in_seconds);
  }
};

// ---- A candidate. ----

struct LlmVerified : Subject {
  static constexpr Kind kind = Kind::llm_verified;
  std::string verdict;  ///< accept or reject
  std::optional<std::string> reason;
  bool audited = false;  ///< rejected, and run anyway as an audit
  template <class T, class F>
  static void each(T& x, F&& f) {
    Subject::each(x, f);
    f("verdict", x.verdict), f("reason", x.reason), f("audited", x.audited);
  }
};

/// Rejected before compiling (rules, novelty, LLM verifiers).
struct Rejected : Subject {
  static constexpr Kind kind = Kind::rejected;
  std::string failure;  ///< the verdict's kind (JSON "kind")
  std::string reason;
  template <class T, class F>
  static void each(T& x, F&& f) {
    Subject::each(x, f);
    f("kind", x.failure), f("reason", x.reason);
  }
};

struct CompileFailed : Subject {
  static constexpr Kind kind = Kind::compile_failed;
  std::string reason;
  template <class T, class F>
  static void each(T& x, F&& f) {
    Subject::each(x, f);
    f("reason", x.reason);
  }
};

/// The evaluator's verdict: a correct one has its speedups, any other its failure.
struct Evaluated : Subject {
  static constexpr Kind kind = Kind::evaluated;
  std::string verdict;
  std::string strategy;
  std::optional<double> speedup;           ///< over eager (correct only)
  std::optional<double> speedup_compiled;  ///< over torch.compile, where it was measured
  std::optional<std::string> failure;      ///< the failure's kind (JSON "kind")
  std::optional<std::string> reason;
  double seconds = 0;  ///< the evaluation's wall time
  /// The device that evaluated it, "(node NAME)" after it where a node's evaluator did.
  std::optional<std::string> device;
  template <class T, class F>
  static void each(T& x, F&& f) {
    Subject::each(x, f);
    f("verdict", x.verdict), f("strategy", x.strategy), f("speedup", x.speedup);
    f("speedup_compiled", x.speedup_compiled), f("kind", x.failure), f("reason", x.reason);
    f("seconds", x.seconds), f("device", x.device);
  }
};

/// A stage itself failed (not the candidate).
struct StageError : Subject {
  static constexpr Kind kind = Kind::stage_error;
  std::string stage;
  std::string reason;
  template <class T, class F>
  static void each(T& x, F&& f) {
    Subject::each(x, f);
    f("stage", x.stage), f("reason", x.reason);
  }
};

struct Profiled : Subject {
  static constexpr Kind kind = Kind::profiled;
  std::string profile;  ///< the brief the proposers read
  template <class T, class F>
  static void each(T& x, F&& f) {
    Subject::each(x, f);
    f("profile", x.profile);
  }
};

/// A model's advice on a profile: its recommendations, or why there are none.
struct ProfileAdvice : Subject {
  std::string model;
  json::Value recommendations;
  std::optional<std::string> reason;
  template <class T, class F>
  static void each(T& x, F&& f) {
    Subject::each(x, f);
    f("model", x.model), f("recommendations", x.recommendations), f("reason", x.reason);
  }
};
struct ProfileAdvised : ProfileAdvice {
  static constexpr Kind kind = Kind::profile_advised;
};
struct ProfileNotAdvised : ProfileAdvice {
  static constexpr Kind kind = Kind::profile_not_advised;
};

// ---- A target. ----

struct NewBest {
  static constexpr Kind kind = Kind::new_best;
  std::string target;
  int64_t candidate = 0;
  double speedup = 0;
  std::string strategy;
  template <class T, class F>
  static void each(T& x, F&& f) {
    f("target", x.target), f("candidate", x.candidate), f("speedup", x.speedup);
    f("strategy", x.strategy);
  }
};

/// A meta-generation round's strategies for `serves` ("llm" or "builtin"), or why none.
struct StrategiesRound {
  int64_t sequence = 0;  ///< the proposal the round came before
  std::string target;
  int64_t round = 0;
  std::string serves;  ///< JSON "for"
  std::string source;
  std::vector<std::string> strategies;
  std::optional<std::string> reason;
  template <class T, class F>
  static void each(T& x, F&& f) {
    f("sequence", x.sequence), f("target", x.target), f("round", x.round), f("for", x.serves);
    f("source", x.source), f("strategies", x.strategies), f("reason", x.reason);
  }
};
struct StrategiesWritten : StrategiesRound {
  static constexpr Kind kind = Kind::strategies_written;
};
struct StrategiesNotWritten : StrategiesRound {
  static constexpr Kind kind = Kind::strategies_not_written;
};

/// The target gets no more proposals, and why.
struct TargetEnd {
  std::string target;
  std::string reason;
  template <class T, class F>
  static void each(T& x, F&& f) {
    f("target", x.target), f("reason", x.reason);
  }
};
struct TargetExhausted : TargetEnd {
  static constexpr Kind kind = Kind::target_exhausted;
};
struct TargetAbandoned : TargetEnd {
  static constexpr Kind kind = Kind::target_abandoned;
};
/// It could not start (its export failed).
struct TargetFailed : TargetEnd {
  static constexpr Kind kind = Kind::target_failed;
};

// ---- The confirmation of the best kernels. ----

struct Confirming {
  static constexpr Kind kind = Kind::confirming;
  int64_t candidates = 0;
  template <class T, class F>
  static void each(T& x, F&& f) {
    f("candidates", x.candidates);
  }
};

struct Confirmed : Subject {
  static constexpr Kind kind = Kind::confirmed;
  double speedup_searched = 0;  ///< what the search measured
  std::string verdict;          ///< "confirmed" or "not confirmed"
  std::optional<double> speedup, speedup_p10, speedup_p90;
  std::optional<std::string> reason;  ///< why not confirmed
  template <class T, class F>
  static void each(T& x, F&& f) {
    Subject::each(x, f);
    f("speedup_searched", x.speedup_searched), f("verdict", x.verdict), f("speedup", x.speedup);
    f("speedup_p10", x.speedup_p10), f("speedup_p90", x.speedup_p90), f("reason", x.reason);
  }
};

/// A kind this build does not know (an archive written by a later kforge): kept as it came.
struct Unknown {
  static constexpr Kind kind = Kind::unknown;
  std::string name;
  json::Value detail;
  template <class T, class F>
  static void each(T&, F&&) {}
};

/// Every event, in `Kind`'s order (so an event's index is its kind).
using Event = std::variant<
    ExperimentStarted, Resumed, Replaying, ExperimentPaused, ExperimentResumed, ExperimentStopping,
    ExperimentFinished, ExperimentStopped, ExperimentFailed, BudgetSpent, CompiledBaseline,
    DirectionMissing, Proposed, ProposalFailed, ProposerError, ProposerDisabled, ProposerSetAside,
    ProposerUnsupported, LlmVerified, Rejected, CompileFailed, Evaluated, StageError, Profiled,
    ProfileAdvised, ProfileNotAdvised, NewBest, StrategiesWritten, StrategiesNotWritten,
    TargetExhausted, TargetAbandoned, TargetFailed, Confirming, Confirmed, Unknown>;

Kind kind_of(const Event& e);
/// The kind's name; an unknown event keeps the name it came with.
std::string name_of(const Event& e);
/// The detail as the archive keeps it (an unknown event's as it came).
json::Value to_json(const Event& e);
/// The event of `kind_name` with `detail`: a name this build does not know is an `Unknown`; a
/// field of the wrong type is an error that names it.
Result<Event> read(std::string_view kind_name, const json::Value& detail);
/// The same for a detail as the archive keeps it (JSON text).
Result<Event> read_text(std::string_view kind_name, std::string_view detail_json);
/// The target it concerns ("" for an event about the whole experiment).
std::string target_of(const Event& e);

/// An event of type `E` about candidate `subject`, its other fields to be set.
template <class E>
E about(const Subject& subject) {
  E event;
  static_cast<Subject&>(event) = subject;
  return event;
}

/// The event's fields as `Base`, a shape several kinds share (`TargetEnd`, `ProposerSetback`,
/// `Subject`, ...); null when its kind has other fields.
template <class Base>
const Base* as(const Event& e) {
  return std::visit(
      [](const auto& x) -> const Base* {
        if constexpr (std::is_base_of_v<Base, std::decay_t<decltype(x)>>)
          return &x;
        else
          return nullptr;
      },
      e);
}

/// The event of `kind` whose fields are `base`'s: for the kinds that share a shape (the ends of a
/// target or an experiment, the proposers' setbacks, a profile's advice, a strategy round) when
/// the kind is chosen at run time. `kind` must be one of `Base`'s kinds.
template <class Base>
Event of_kind(Kind kind, const Base& base);

}  // namespace kforge::events

namespace kforge::events {
namespace detail {
template <class Base, size_t... I>
std::optional<Event> of_kind(Kind kind, const Base& base, std::index_sequence<I...>) {
  std::optional<Event> out;
  auto try_one = [&](auto alternative) {
    using T = typename decltype(alternative)::type;
    if constexpr (std::is_base_of_v<Base, T> && !std::is_same_v<Base, T>) {
      if (out || T::kind != kind) return;
      T event;
      static_cast<Base&>(event) = base;
      out = std::move(event);
    }
  };
  (try_one(std::type_identity<std::variant_alternative_t<I, Event>>{}), ...);
  return out;
}
}  // namespace detail

template <class Base>
Event of_kind(Kind kind, const Base& base) {
  auto event = detail::of_kind(kind, base, std::make_index_sequence<std::variant_size_v<Event>>{});
  if (!event)
    throw std::logic_error("events::of_kind: " + std::string(name(kind)) +
                           " does not have the fields asked for");
  return *std::move(event);
}

}  // namespace kforge::events
