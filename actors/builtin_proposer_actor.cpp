#include "actors/builtin_proposer_actor.hpp"

#include "llm/builtin/builtin_proposer.hpp"
#include "messages/errors.hpp"

namespace kforge {

proposer_actor::behavior_type builtin_proposer_impl(
    proposer_actor::stateful_pointer<builtin_proposer_state> self) {
  return {
      [self](status_atom) { return self->state.stats.status(); },
      [self](propose_atom, propose_request& r) -> caf::result<proposal> {
        auto& st = self->state;
        st.stats.started(r.tgt.key() + " #" + std::to_string(r.sequence));
        auto it = st.exports.find(r.export_dir);
        if (it == st.exports.end()) {
          auto doc = json::parse_file(r.export_dir + "/task.json");
          if (!doc.value) {
            st.stats.finished("cannot read " + r.export_dir + "/task.json");
            return make_error(error_code::proposer_failure,
                              "cannot read the task export " + r.export_dir + ": " + doc.error);
          }
          it = st.exports.emplace(r.export_dir, std::move(*doc.value)).first;
        }
        builtin::BuiltinRequest b;
        b.backend = r.tgt.backend;
        b.direction = r.tgt.direction;
        b.direction_doc = it->second["directions"][r.tgt.direction];
        b.seed = r.seed;
        b.mode = r.mode;
        b.has_parent = r.has_parent;
        b.parent_strategy = r.parent.strategy;
        b.parent_params = r.parent.params;
        b.tried.insert(r.tried.begin(), r.tried.end());
        auto p = builtin::propose_builtin(b);
        if (!p.ok) {
          st.stats.finished(p.exhausted ? std::string() : p.error);
          if (p.unsupported) return make_error(error_code::unsupported_target, p.error);
          return make_error(p.exhausted ? error_code::exhausted : error_code::proposer_failure,
                            r.tgt.key() + ": " + p.error);
        }
        st.stats.finished();
        proposal out;
        out.source = std::move(p.source);
        out.proposer = "builtin";
        out.strategy = std::move(p.strategy);
        out.params = std::move(p.params);
        out.rationale = std::move(p.rationale);
        out.parent_id = p.from_parent ? r.parent.id : 0;
        return out;
      },
  };
}

}  // namespace kforge
