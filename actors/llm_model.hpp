// One LLM of an experiment (an ensemble member, a verifier, or both): requests queue here and go
// to a pool of runner threads, at most the model's concurrency at once, so the actor answers
// status queries while every call is in flight. It keeps the model's ledger for the console:
// calls, failures, tokens and money.
#pragma once

#include <string>
#include <vector>

#include "actors/llm_runner.hpp"
#include "actors/runner_pool.hpp"
#include "messages/interfaces.hpp"

namespace kforge {

struct llm_model_state {
  runner_pool<llm_runner_actor> pool{stage_stats("llm", "llm")};
  model_usage usage;
  static inline const char* name = "kforge.llm_model";
};

llm_model_actor::behavior_type llm_model_impl(
    llm_model_actor::stateful_pointer<llm_model_state> self, llm_runner_options options);

/// Adds calls to a ledger row.
void account(model_usage& usage, const std::vector<LlmCall>& calls);

}  // namespace kforge
