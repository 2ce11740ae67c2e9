#include "actors/builtin_proposer_actor.hpp"

#include "actors/proposal_answer.hpp"
#include "common/task_document.hpp"
#include "proposers/builtin/builtin_proposer.hpp"
#include "proposers/builtin/builtin_strategies.hpp"

namespace kforge {

proposer_actor::behavior_type builtin_proposer_impl(
    proposer_actor::stateful_pointer<builtin_proposer_state> self) {
  return {
      [self](status_atom) { return self->state.stats.status(); },
      [self](propose_atom, propose_request& r) {
        proposal_answer answer(self->state.stats, r, "builtin");
        auto doc = tasks::read_task_document(r.export_dir);
        if (!doc) return answer.fail(search::ProposalFailure::proposer_error, doc.error);
        builtin::BuiltinRequest b;
        b.backend = r.tgt.backend;
        b.export_dir = r.export_dir;
        b.library_calls = r.library_calls != LibraryPolicy::forbid;
        b.library_first = r.library_calls == LibraryPolicy::allow;
        b.direction = r.tgt.direction;
        b.direction_doc = (**doc)["directions"][r.tgt.direction];
        b.seed = r.seed;
        b.mode = r.mode;
        b.has_parent = r.has_parent;
        b.parent_strategy = r.parent.strategy;
        b.parent_params = r.parent.params;
        b.tried.insert(r.tried.begin(), r.tried.end());
        b.tried_sources.insert(r.tried_sources.begin(), r.tried_sources.end());
        b.strategy = r.strategy;
        auto p = builtin::propose_builtin(b);
        if (p.unsupported) return answer.fail(search::ProposalFailure::unsupported, p.error);
        if (!p.ok)
          return answer.fail(p.exhausted ? search::ProposalFailure::exhausted
                                         : search::ProposalFailure::proposer_error,
                             r.tgt.key() + ": " + p.error);
        return answer.give(std::move(p.source), std::move(p.strategy), std::move(p.params),
                           std::move(p.rationale), p.from_parent ? r.parent.id : 0);
      },
      [self](meta_atom, meta_request& r) {
        // Meta-generation by rules: moves over the templates' parameters.
        auto& st = self->state;
        st.stats.started("strategies for " + r.tgt.key());
        meta_reply out;
        out.source = "rules";
        auto doc = tasks::read_task_document(r.export_dir);
        if (!doc) {
          out.failure = doc.error;
          st.stats.finished(out.failure);
          return out;
        }
        builtin::BuiltinMetaRequest b;
        b.backend = r.tgt.backend;
        b.direction = r.tgt.direction;
        b.direction_doc = (**doc)["directions"][r.tgt.direction];
        b.count = r.count;
        for (const auto& k : r.best) b.best.push_back({k.strategy, k.params, k.speedup});
        for (const auto& s : r.records) b.known.push_back(s.text);
        auto written = builtin::builtin_strategies(b);
        out.strategies = std::move(written.strategies);
        out.failure = std::move(written.error);
        st.stats.finished(out.failure);
        return out;
      },
  };
}

}  // namespace kforge
