// What a proposer that needs no LLM (the built-in and the files proposer) answers one proposal
// request with: its stage counts the request from its arrival until it gives a candidate or the
// reason there is none. Only a proposer error counts as the stage's error: a target the proposer
// cannot write, or whose every variant it has proposed, is an answer, not a fault.
#pragma once

#include <string>
#include <utility>

#include "actors/stage_stats.hpp"
#include "messages/payloads.hpp"

namespace kforge {

class proposal_answer {
 public:
  proposal_answer(stage_stats& stats, const propose_request& r, std::string proposer)
      : stats_(stats) {
    stats_.started(r.tgt.key() + " #" + std::to_string(r.sequence));
    out_.proposer = std::move(proposer);
  }

  /// No candidate, and why.
  proposal fail(search::ProposalFailure kind, std::string why) {
    stats_.finished(kind == search::ProposalFailure::proposer_error ? why : std::string());
    out_.failure_kind = kind;
    out_.failure = std::move(why);
    return out_;
  }

  /// A candidate: its source, its strategy with its parameters (a JSON object), why it was
  /// written, and the archive id of the candidate it was derived from (0 for none).
  proposal give(std::string source, std::string strategy, std::string params, std::string rationale,
                int64_t parent_id = 0) {
    stats_.finished();
    out_.source = std::move(source);
    out_.strategy = std::move(strategy);
    out_.params = std::move(params);
    out_.rationale = std::move(rationale);
    out_.parent_id = parent_id;
    return out_;
  }

 private:
  stage_stats& stats_;
  proposal out_;
};

}  // namespace kforge
