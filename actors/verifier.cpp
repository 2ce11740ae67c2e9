#include "actors/verifier.hpp"

#include "common/json.hpp"
#include "common/task_signature.hpp"
#include "gpu/source_check.hpp"

namespace kforge {

bool task_parameter_types(const std::string& export_dir, const std::string& direction,
                          std::vector<std::string>& types, std::string& error) {
  auto doc = json::parse_file(export_dir + "/task.json");
  if (!doc.value) {
    error = "cannot read the task export " + export_dir + ": " + doc.error;
    return false;
  }
  const auto& configs = (*doc.value)["directions"][direction]["configs"].as_array();
  if (configs.empty()) {
    error = "the task export has no " + direction + " configs";
    return false;
  }
  types = tasks::parameter_types(configs.front());
  return true;
}

verifier_actor::behavior_type verifier_impl(verifier_actor::stateful_pointer<verifier_state> self) {
  return {
      [self](status_atom) { return self->state.stats.status(); },
      [self](verify_atom, verify_request& r) {
        auto& st = self->state;
        st.stats.started("candidate " + std::to_string(r.candidate.id));
        verdict v;
        v.stage = "verify";
        const std::string& direction = r.candidate.tgt.direction;
        const std::string key = r.export_dir + "\n" + direction;
        auto it = st.expected.find(key);
        if (it == st.expected.end()) {
          std::vector<std::string> types;
          std::string error;
          if (!task_parameter_types(r.export_dir, direction, types, error)) {
            v.kind = "task_unreadable";
            v.reason = error;
            st.stats.finished(error);
            return v;
          }
          it = st.expected.emplace(key, std::move(types)).first;
        }
        auto s = gpu::check_source(r.candidate.source, direction, it->second, r.library_policy,
                                   static_cast<size_t>(r.max_source_bytes));
        v.accepted = s.accepted;
        v.kind = s.kind;
        v.reason = s.reason;
        v.notes = s.notes;
        st.stats.finished();
        return v;
      },
  };
}

}  // namespace kforge
