// What a proposal asks for: a first correct kernel for a target, a faster one from a parent, or
// the repair of a candidate that failed. The planner decides it; proposers and prompts follow it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kforge::search {

enum class ProposalMode : uint8_t {
  translate,  ///< a first correct kernel, from the PyTorch reference
  optimise,   ///< improve the parent
  fix,        ///< repair the failed candidate (LLM proposers only)
};

/// The name decisions, events and prompts use ("translate", "optimise", "fix").
std::string to_string(ProposalMode m);

/// The mode a name gives, or nothing for an unknown name.
std::optional<ProposalMode> parse_proposal_mode(std::string_view name);

}  // namespace kforge::search
