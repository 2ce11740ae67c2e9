// Why a proposal came back without a candidate. Proposers say it in their answer (never as an
// error), and the planner decides what follows from it (Planner::setback).
#pragma once

#include <cstdint>
#include <string>

namespace kforge::search {

enum class ProposalFailure : uint8_t {
  none,            ///< a candidate came back
  exhausted,       ///< the proposer has nothing new for the target
  unsupported,     ///< the proposer cannot write the target at all
  proposer_error,  ///< the proposer failed: its input, or the proposer itself
  reply_rejected,  ///< the LLM replied, but not with a usable kernel
  // The LLM call's own failure (llm::FailureKind):
  transient,     ///< retried by the client, still failing
  auth,          ///< the key is missing or wrong
  money,         ///< quota or credit spent
  bad_request,   ///< the provider refused the request (or it could not be built)
  garbled,       ///< replies not in the provider's format
  offline_miss,  ///< offline, and the reply is not in the cache
};

/// The name events and logs use ("exhausted", "money", ...).
std::string to_string(ProposalFailure f);

}  // namespace kforge::search
