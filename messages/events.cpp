#include "messages/events.hpp"

#include <array>
#include <utility>

namespace kforge::events {
namespace {

using K = Kind;

constexpr std::array<std::pair<Kind, std::string_view>, static_cast<size_t>(Kind::unknown)> kNames =
    {{
        {K::experiment_started, "experiment_started"},
        {K::resumed, "resumed"},
        {K::replaying, "replaying"},
        {K::experiment_paused, "experiment_paused"},
        {K::experiment_resumed, "experiment_resumed"},
        {K::experiment_stopping, "experiment_stopping"},
        {K::experiment_finished, "experiment_finished"},
        {K::experiment_stopped, "experiment_stopped"},
        {K::experiment_failed, "experiment_failed"},
        {K::budget_spent, "budget_spent"},
        {K::compiled_baseline, "compiled_baseline"},
        {K::direction_missing, "direction_missing"},
        {K::proposed, "proposed"},
        {K::proposal_failed, "proposal_failed"},
        {K::proposer_error, "proposer_error"},
        {K::proposer_disabled, "proposer_disabled"},
        {K::proposer_set_aside, "proposer_set_aside"},
        {K::proposer_unsupported, "proposer_unsupported"},
        {K::llm_verified, "llm_verified"},
        {K::rejected, "rejected"},
        {K::compile_failed, "compile_failed"},
        {K::evaluated, "evaluated"},
        {K::stage_error, "stage_error"},
        {K::profiled, "profiled"},
        {K::profile_advised, "profile_advised"},
        {K::profile_not_advised, "profile_not_advised"},
        {K::new_best, "new_best"},
        {K::strategies_written, "strategies_written"},
        {K::strategies_not_written, "strategies_not_written"},
        {K::target_exhausted, "target_exhausted"},
        {K::target_abandoned, "target_abandoned"},
        {K::target_failed, "target_failed"},
        {K::confirming, "confirming"},
        {K::confirmed, "confirmed"},
    }};

// The table lists every kind once, in the enum's order.
constexpr bool in_order() {
  for (size_t i = 0; i < kNames.size(); ++i)
    if (static_cast<size_t>(kNames[i].first) != i) return false;
  return true;
}
static_assert(in_order(), "kNames must list every Kind in the enum's order");

}  // namespace

std::string_view name(Kind kind) {
  const auto i = static_cast<size_t>(kind);
  return i < kNames.size() ? kNames[i].second : std::string_view("unknown");
}

Kind kind_named(std::string_view text) {
  for (const auto& [kind, n] : kNames)
    if (n == text) return kind;
  return Kind::unknown;
}

std::vector<std::string> names(std::initializer_list<Kind> kinds) {
  std::vector<std::string> out;
  for (Kind k : kinds) out.emplace_back(name(k));
  return out;
}

bool finishes_candidate(Kind kind) {
  return kind == K::evaluated || kind == K::rejected || kind == K::compile_failed ||
         kind == K::stage_error;
}

bool ends_target(Kind kind) {
  return kind == K::target_exhausted || kind == K::target_abandoned || kind == K::target_failed;
}

bool about_target(Kind kind) {
  switch (kind) {
    case K::proposed:
    case K::proposal_failed:
    case K::proposer_error:
    case K::proposer_set_aside:
    case K::proposer_unsupported:
    case K::llm_verified:
    case K::rejected:
    case K::compile_failed:
    case K::evaluated:
    case K::stage_error:
    case K::profiled:
    case K::profile_advised:
    case K::profile_not_advised:
    case K::new_best:
    case K::strategies_written:
    case K::strategies_not_written:
    case K::target_exhausted:
    case K::target_abandoned:
    case K::target_failed:
    case K::confirmed:
      return true;
    default:
      return false;
  }
}

bool ends_experiment(Kind kind) {
  return kind == K::experiment_finished || kind == K::experiment_stopped ||
         kind == K::experiment_failed;
}

Severity severity(Kind kind) {
  switch (kind) {
    case K::experiment_failed:
    case K::stage_error:
      return Severity::error;
    case K::proposer_error:
    case K::proposal_failed:
    case K::proposer_disabled:
    case K::proposer_set_aside:
    case K::proposer_unsupported:
    case K::target_failed:
    case K::target_abandoned:
    case K::direction_missing:
      return Severity::warn;
    case K::experiment_started:
    case K::experiment_finished:
    case K::experiment_stopped:
    case K::experiment_paused:
    case K::experiment_resumed:
    case K::experiment_stopping:
    case K::resumed:
    case K::new_best:
    case K::confirming:
    case K::confirmed:
    case K::budget_spent:
    case K::target_exhausted:
    case K::compiled_baseline:
    case K::replaying:
      return Severity::info;
    default:
      return Severity::debug;
  }
}

}  // namespace kforge::events
