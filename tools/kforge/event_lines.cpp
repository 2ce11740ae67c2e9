#include "tools/kforge/event_lines.hpp"

#include "tools/kforge/tables.hpp"

namespace kforge::cli {
namespace {

using namespace events;

std::string number(int64_t n) {
  return std::to_string(n);
}

// A candidate has one number wherever a person reads one: its archive id, what `kforge show`
// takes (the proposal's sequence within the experiment stays in the JSON).
std::string who(const Subject& s) {
  return "candidate " + number(s.candidate);
}

std::string cut(const std::string& s, size_t n) {
  return s.substr(0, n);
}

std::string words(const Proposed& d) {
  return who(d) + " proposed for " + d.target + " by " + d.proposer + " (" +
         (d.mode.empty() ? "translate" : d.mode) + "): " + d.strategy + " " + d.params + " (" +
         d.rationale + ")";
}
std::string words(const ProposalFailed& d) {
  return d.proposer + " gave no candidate for " + d.target + ": " + d.failure + ": " +
         cut(d.reason, 200) + " (again in " + number(d.retry_in_seconds) + " s)";
}
std::string words(const ProposerDisabled& d) {
  return d.proposer + " stops proposing: " + d.failure + ": " + d.reason;
}
std::string words(const ProposerUnsupported& d) {
  return d.proposer + " cannot write " + d.target + "; the other proposers go on: " + d.reason;
}
std::string words(const ProposerSetAside& d) {
  return d.proposer + " is set aside for " + d.target + "; the other proposers go on: " + d.reason;
}
std::string words(const ProposerError& d) {
  return "proposer failed for " + d.target + ": " + d.reason + " (retry in " +
         number(d.retry_in_seconds) + " s)";
}
std::string words(const LlmVerified& d) {
  const std::string reason = d.reason.value_or("");
  return who(d) + " LLM verifiers: " + d.verdict + (reason.empty() ? "" : ": " + cut(reason, 200)) +
         (d.audited ? " (run anyway as an audit)" : "");
}
std::string words(const Replaying& d) {
  return "replaying the " + number(d.decisions) + " recorded decisions of experiment " +
         number(d.replay_of);
}
std::string words(const Rejected& d) {
  return who(d) + " rejected before compiling: " + d.failure + ": " + d.reason;
}
std::string words(const CompileFailed& d) {
  return who(d) + " does not compile: " + d.reason;
}
std::string words(const Evaluated& d) {
  const std::string s = who(d) + " " + d.target + " " + d.strategy + ": ";
  if (d.verdict == "correct")
    return s + "correct, " + format("%.2fx", d.speedup.value_or(0)) + " over eager" +
           (d.speedup_compiled ? ", " + format("%.2fx", *d.speedup_compiled) + " over torch.compile"
                               : "") +
           " (" + format("%.1f s", d.seconds) + ")";
  return s + d.verdict + ": " + d.failure.value_or("") + ": " + cut(d.reason.value_or(""), 160);
}
std::string words(const NewBest& d) {
  return "new best for " + d.target + ": candidate " + number(d.candidate) + " (" + d.strategy +
         ") " + format("%.2fx", d.speedup) +
         (d.speedup < 1 ? " eager's speed: still slower than eager PyTorch" : " over eager");
}
std::string words(const Profiled& d) {
  return who(d) + " profile: " + d.profile;
}
std::string words(const Confirming& d) {
  return "the search is over: timing the best " + number(d.candidates) +
         " candidate(s) again (fresh inputs, interleaved with eager) before reporting them";
}
std::string words(const Confirmed& d) {
  const std::string s = who(d) + " " + d.target + " timed again: ";
  if (d.verdict != "confirmed") return s + "not confirmed: " + cut(d.reason.value_or(""), 200);
  return s + format("%.2fx", d.speedup.value_or(0)) +
         format(" (p10-p90 %.2f", d.speedup_p10.value_or(0)) +
         format("-%.2f)", d.speedup_p90.value_or(0)) +
         format("; %.2fx in the search", d.speedup_searched);
}
std::string words(const StageError& d) {
  return who(d) + " " + d.stage + " failed: " + d.reason;
}
std::string words(const TargetExhausted& d) {
  return d.target + ": every variant was tried";
}
std::string words(const TargetAbandoned& d) {
  return d.target + ": abandoned: " + d.reason;
}
std::string words(const TargetFailed& d) {
  return d.target + ": cannot start: " + d.reason;
}
std::string words(const BudgetSpent& d) {
  return "budget spent: " + d.budget + " (limit " + format("%g", d.limit) + ")";
}
std::string words(const Resumed& d) {
  return "resumed: " + number(d.candidates) + " candidates in the archive, " +
         number(d.carried_on) + " carried on";
}
std::string words(const ExperimentPaused&) {
  return "experiment paused";
}
std::string words(const ExperimentResumed&) {
  return "experiment resumed";
}
std::string words(const ExperimentStopping&) {
  return "experiment stopping";
}
std::string words(const ExperimentStarted& d) {
  return "experiment started: " + number(d.targets) + " target(s)";
}
std::string ended(const ExperimentEnd& d) {
  const std::string error = d.error.value_or("");
  return "experiment " + d.status + ": " + number(d.proposed) + " proposed, " + number(d.correct) +
         " correct" + (error.empty() ? "" : "; last error: " + error);
}
std::string words(const ExperimentFinished& d) {
  return ended(d);
}
std::string words(const ExperimentStopped& d) {
  return ended(d);
}
std::string words(const ExperimentFailed& d) {
  return ended(d);
}
std::string words(const CompiledBaseline& d) {
  return "torch.compile baseline of " + d.task + ": " + d.baseline;
}
std::string words(const DirectionMissing& d) {
  return d.task + " has no " + d.direction + " direction; skipped";
}
std::string words(const Unknown& d) {
  return d.name + (d.detail.as_object().empty() ? "" : " " + d.detail.dump());
}
/// Kinds with no sentence of their own (the profile's advice, the strategy rounds): the kind and
/// its detail as JSON.
template <class T>
std::string words(const T& d) {
  const Event e(d);
  return words(Unknown{name_of(e), to_json(e)});
}

}  // namespace

std::string describe_event(const events::Event& event) {
  return std::visit([](const auto& d) { return words(d); }, event);
}

std::string describe_event(const std::string& kind, const Result<events::Event>& read) {
  return read ? describe_event(*read) : kind + ": " + read.error;
}

std::string describe_event(const std::string& kind, const json::Value& detail) {
  return describe_event(kind, events::read(kind, detail));
}

}  // namespace kforge::cli
