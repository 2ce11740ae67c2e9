#include "actors/verifier.hpp"

#include "evaluation/source_check.hpp"
#include "messages/errors.hpp"
#include "search/random_stream.hpp"

namespace kforge {

llm_judgement judge_llm_verdicts(std::vector<llm_verdict> verdicts, double audit_fraction,
                                 uint64_t audit_seed) {
  llm_judgement j;
  for (const auto& v : verdicts) {
    if (v.offline_miss && j.offline_miss.empty()) j.offline_miss = v.verifier;
    for (const auto& check : v.checks) {
      if (!check.decided || check.accepted) continue;
      j.rejected = true;
      std::string why;
      for (const auto& r : check.reasons) why += (why.empty() ? "" : "; ") + r;
      j.reasons += (j.reasons.empty() ? "" : " | ") + v.verifier + "/" + check.check + ": " + why;
    }
  }
  search::RandomStream audit(audit_seed);
  j.audited = j.rejected && audit.chance(audit_fraction);
  j.verdicts = std::move(verdicts);
  return j;
}

namespace {

/// Asks every LLM verifier of the panel; answers once all have (a failed verifier decides
/// nothing, which rejects nothing).
caf::result<llm_judgement> ask_panel(verifier_actor::stateful_pointer<verifier_state> self,
                                     llm_panel_request& r) {
  if (r.models.size() != r.names.size())
    return make_error(error_code::invalid_request, "LLM verifiers and their names differ");
  if (r.models.empty()) return judge_llm_verdicts({}, r.audit_fraction, r.audit_seed);
  auto promise = self->make_response_promise<llm_judgement>();
  auto verdicts = std::make_shared<std::vector<llm_verdict>>();
  auto pending = std::make_shared<size_t>(r.models.size());
  auto take = [verdicts, pending, promise, fraction = r.audit_fraction,
               seed = r.audit_seed](llm_verdict v) mutable {
    verdicts->push_back(std::move(v));
    if (--*pending == 0) promise.deliver(judge_llm_verdicts(std::move(*verdicts), fraction, seed));
  };
  for (size_t i = 0; i < r.models.size(); ++i) {
    auto model = caf::actor_cast<llm_model_actor>(r.models[i]);
    self->request(model, caf::infinite, verify_atom::value, r.request)
        .then([take](llm_verdict& v) mutable { take(std::move(v)); },
              [take, name = r.names[i]](caf::error& e) mutable {
                llm_verdict v;
                v.verifier = name;
                v.checks.push_back({"all", false, false, {"verifier failed: " + describe(e)}});
                take(std::move(v));
              });
  }
  return caf::delegated<llm_judgement>();
}

}  // namespace

verifier_actor::behavior_type verifier_impl(verifier_actor::stateful_pointer<verifier_state> self) {
  return {
      [self](status_atom) { return self->state.stats.status(); },
      [self](verify_atom, verify_request& r) {
        auto& st = self->state;
        st.stats.started("candidate " + std::to_string(r.candidate.id));
        verdict v;
        v.stage = Stage::verify;
        const std::string& direction = r.candidate.direction;
        auto parameters = evaluation::task_parameters(r.export_dir, direction);
        if (!parameters) {
          v.kind = "task_unreadable";
          v.reason = parameters.error;
          st.stats.finished(parameters.error);
          return v;
        }
        auto s =
            evaluation::check_source(r.candidate.source, direction, *parameters, r.library_policy,
                                     static_cast<size_t>(r.max_source_bytes));
        v.accepted = s.accepted;
        v.kind = s.kind;
        v.reason = s.reason;
        v.notes = s.notes;
        st.stats.finished();
        return v;
      },
      [self](verify_atom, llm_panel_request& r) { return ask_panel(self, r); },
  };
}

}  // namespace kforge
