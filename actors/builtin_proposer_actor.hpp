// The built-in proposer as an actor: answers each proposal request from the parameterised
// templates of proposers/builtin (no LLM, no cost, instant).
#pragma once

#include "actors/stage_stats.hpp"
#include "messages/interfaces.hpp"

namespace kforge {

struct builtin_proposer_state {
  stage_stats stats{"proposer builtin", "proposer"};
  static inline const char* name = "kforge.builtin_proposer";
};

proposer_actor::behavior_type builtin_proposer_impl(
    proposer_actor::stateful_pointer<builtin_proposer_state> self);

}  // namespace kforge
