#include "search/proposal_failure.hpp"

namespace kforge::search {

std::string to_string(ProposalFailure f) {
  switch (f) {
    case ProposalFailure::none:
      return "none";
    case ProposalFailure::exhausted:
      return "exhausted";
    case ProposalFailure::unsupported:
      return "unsupported";
    case ProposalFailure::proposer_error:
      return "proposer_error";
    case ProposalFailure::reply_rejected:
      return "reply_rejected";
    case ProposalFailure::transient:
      return "transient";
    case ProposalFailure::auth:
      return "auth";
    case ProposalFailure::money:
      return "money";
    case ProposalFailure::bad_request:
      return "bad_request";
    case ProposalFailure::garbled:
      return "garbled";
    case ProposalFailure::offline_miss:
      return "offline_miss";
  }
  return "unknown";
}

}  // namespace kforge::search
