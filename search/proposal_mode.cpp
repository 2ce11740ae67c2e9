#include "search/proposal_mode.hpp"

namespace kforge::search {

std::string to_string(ProposalMode m) {
  switch (m) {
    case ProposalMode::translate:
      return "translate";
    case ProposalMode::optimise:
      return "optimise";
    case ProposalMode::fix:
      return "fix";
  }
  return "translate";
}

std::optional<ProposalMode> parse_proposal_mode(std::string_view name) {
  for (auto m : {ProposalMode::translate, ProposalMode::optimise, ProposalMode::fix})
    if (to_string(m) == name) return m;
  return std::nullopt;
}

}  // namespace kforge::search
