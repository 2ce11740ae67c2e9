// What `kforge eval` shows while the worker runs: the worker's step and config events as
// progress. On a terminal the current step is a live line (rewritten in place, with the time
// since the evaluation began); every finished config is a line of its own with done/total, the
// elapsed time and an estimate of what is left, so logs and pipes get periodic lines too; a config
// reported again by a fresh worker (the evaluation retried) counts once.
#pragma once

#include <chrono>
#include <cstdint>
#include <ostream>
#include <set>

#include "common/json.hpp"

namespace kforge::cli {

class EvalProgress {
 public:
  /// `total`: the configs the request selects; `live`: rewrite a status line (a terminal).
  EvalProgress(std::ostream& out, size_t total, bool live);
  /// One worker event ("step", "config"; others are ignored).
  void on_event(const json::Value& event);
  /// Clears the live line before the results are printed.
  void finish();

 private:
  double elapsed() const;
  void clear_live();

  std::ostream& out_;
  size_t total_;
  std::set<int64_t> done_;  ///< the configs reported
  bool live_, live_shown_ = false;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace kforge::cli
