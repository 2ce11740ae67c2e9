// How far `kforge suite` is: kernels done of those expected, per target, from the experiment's
// events. A kernel is done when its candidate's last event arrives (evaluated, rejected, did not
// compile, a stage failed); a target that fails to start or is abandoned counts the kernels it
// will never get as done at once, and kernels of that target that finish later (they were in
// flight) are not counted twice. A resumed suite starts from the kernels its earlier runs finished.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "messages/event_details.hpp"

namespace kforge::cli {

class SuiteProgress {
 public:
  /// `expected`: kernels per target key ("task/direction/backend").
  explicit SuiteProgress(std::map<std::string, int64_t> expected);
  /// Counts a kernel a run before this one finished (a resumed suite: the archive's candidates
  /// that are no longer in the pipeline).
  void count_finished_before(const std::string& target);
  /// Counts an event; true when it changed the count (time for a progress line).
  bool on_event(const events::Event& event);
  int64_t done() const { return done_; }
  int64_t total() const { return total_; }
  /// Of done(), those counted by count_finished_before.
  int64_t done_before() const { return done_before_; }

 private:
  std::map<std::string, int64_t> expected_, done_by_target_;
  std::set<std::string> ended_;
  int64_t done_ = 0, total_ = 0, done_before_ = 0;
};

}  // namespace kforge::cli
