#include "actors/profiler.hpp"

#include "evaluation/profile_summary.hpp"

namespace kforge {

profiler_actor::behavior_type profiler_impl(profiler_actor::stateful_pointer<profiler_state> self) {
  return {
      [self](status_atom) { return self->state.stats.status(); },
      [self](profile_atom, profile_request& r) {
        self->state.stats.started("candidate " + std::to_string(r.candidate_id));
        auto p = evaluation::make_profile(r.backend, r.kernels, r.configs);
        self->state.stats.finished();
        return profile_summary{r.candidate_id, p.doc.dump(), p.brief};
      },
  };
}

}  // namespace kforge
