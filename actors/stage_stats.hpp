// The bookkeeping behind every actor's status row: queue length, work in flight, completions,
// failures, the last error, and time integrals (slot-seconds of work, seconds with work waiting
// or running) from which the console derives throughput and utilisation.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "messages/payloads.hpp"

namespace kforge {

class stage_stats {
 public:
  using clock = std::chrono::steady_clock;

  stage_stats(std::string name, std::string role);

  void set_queued(int64_t queued);
  /// One unit of work begins (in_flight + 1) and what it is, in words.
  void started(std::string what = {});
  /// One unit of work ends; a non-empty error counts it as failed and keeps the error.
  void finished(const std::string& error = {});
  void note_error(std::string error);

  actor_status status();
  int64_t in_flight() const { return in_flight_; }

 private:
  void advance();

  std::string name_, role_, current_, last_error_;
  int64_t queued_ = 0, in_flight_ = 0, completed_ = 0, failed_ = 0;
  double busy_ = 0, loaded_ = 0;
  clock::time_point start_, last_;
};

}  // namespace kforge
