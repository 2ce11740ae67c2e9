// A member of the search's population as the search tests build one.
#pragma once

#include <string>

#include "search/population.hpp"

namespace kforge::search {

inline Member member(int64_t sequence, size_t target, bool finished = false, bool correct = false,
                     double speedup = 0, const std::string& proposer = "builtin") {
  Member m;
  m.sequence = sequence;
  m.candidate_id = sequence + 100;
  m.target = target;
  m.key = "k" + std::to_string(sequence);
  m.finished = finished;
  m.correct = correct;
  m.speedup = correct ? speedup : 0;
  m.proposer = proposer;
  return m;
}

}  // namespace kforge::search
