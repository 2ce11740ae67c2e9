// The verifier: static rules before a candidate costs compile or GPU time. The registered
// function must exist with the task's parameter types, no forbidden construct may appear, the
// source must fit the size limit, and library calls follow the experiment's policy. Then, when
// an experiment has LLM verifiers, it asks them all and judges from their verdicts together:
// any decided rejection rejects, and a seeded share of the rejected candidates is audited (run
// on the hardware anyway) so that the verifiers' precision and recall are measured.
#pragma once

#include <string>
#include <vector>

#include "actors/stage_stats.hpp"
#include "common/result.hpp"
#include "messages/interfaces.hpp"

namespace kforge {

struct verifier_state {
  stage_stats stats{"verifier", "verifier"};
  static inline const char* name = "kforge.verifier";
};

verifier_actor::behavior_type verifier_impl(verifier_actor::stateful_pointer<verifier_state> self);

/// The LLM verifiers' verdicts together: rejected when any decided check rejects; audited when
/// rejected and the audit's draw (seeded per candidate) falls within `audit_fraction`.
llm_judgement judge_llm_verdicts(std::vector<llm_verdict> verdicts, double audit_fraction,
                                 uint64_t audit_seed);

}  // namespace kforge
