// The profiler: explains a correct candidate from its compiler resource report and its
// evaluation's per-config record (evaluation/profile_summary). It needs no GPU time of its own yet;
// kernel traces (Nsight) would ask the evaluator that owns the GPU for a slot.
#pragma once

#include "actors/stage_stats.hpp"
#include "messages/interfaces.hpp"

namespace kforge {

struct profiler_state {
  stage_stats stats{"profiler", "profiler"};
  static inline const char* name = "kforge.profiler";
};

profiler_actor::behavior_type profiler_impl(profiler_actor::stateful_pointer<profiler_state> self);

}  // namespace kforge
