// Threads a candidate starts must not work after its call returns: the work would escape the
// timer, or compete with the reference timed next. A candidate may keep threads (a pool of its
// own, a library's), but between calls they must be parked: blocked with no timeout (a futex
// wait, a poll or a read without one), so that nothing but the candidate's next call wakes them.
// A thread sleeping with a timeout (it will wake up and compute) fails at once; one still
// running fails unless it parks soon: a thread the call started gets 50 ms (an OpenMP pool spins
// a few milliseconds before it sleeps), one kept from an earlier call half a second. The same rule
// holds after every checked call and after every timed batch, on every config and seed.
#pragma once

#include <chrono>
#include <optional>
#include <set>

#include "evaluation/worker/checks.hpp"

namespace kforge::worker {

/// What a thread of this process is doing.
enum class ThreadState { gone, parked, running, timed_wait };
ThreadState thread_state(int tid);

class ThreadWatch {
 public:
  /// Threads alive now are not the candidate's (the worker's, LibTorch's, the driver's), except
  /// those an earlier candidate in this worker started.
  void begin_evaluation();
  /// Candidate code (loading its library, a call, a timed batch) is about to run: threads alive
  /// now that a candidate did not start are not the candidate's (whatever ran since, drawing
  /// inputs or the reference, started them).
  void before_candidate();
  /// Candidate code has returned: threads that are not others' are the candidate's; each must
  /// be parked or gone, within the time above.
  std::optional<Failure> after_candidate();

 private:
  std::set<int> others_;       ///< threads that are not the candidate's
  std::set<int> candidate_;    ///< threads a candidate started in this worker
  std::set<int> before_call_;  ///< threads alive when the candidate's code started
};

}  // namespace kforge::worker
