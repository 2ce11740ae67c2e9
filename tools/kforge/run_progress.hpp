// What `kforge run` shows between its events: how far the experiment is (candidates finished of
// those planned, the time so far and an estimate of what is left) and what the actors are doing
// now (an export, a compile, an evaluation, a confirmation), from its first second. On a terminal
// this is a live line rewritten every second; in a pipe or a log, a line after every 10 s in which
// nothing was printed, so that a long export or compile is never silence.
#pragma once

#include <chrono>
#include <ostream>
#include <string>
#include <vector>

#include "messages/event_details.hpp"

namespace kforge::cli {

class RunProgress {
 public:
  /// `per_target`: candidates planned per target; `live`: rewrite a status line (a terminal).
  RunProgress(std::ostream& out, int64_t per_target, bool live,
              std::chrono::steady_clock::time_point start);
  /// Counts an experiment event (call after it was printed).
  void on_event(const events::Event& event);
  /// Before printing an event line: clears the live line.
  void before_line();
  /// True when it is time for a progress line (each second live, else after 10 s of silence).
  bool due() const;
  /// Shows the progress with what the actors are doing (`working`: "compiler: candidate 3", ...).
  void show(const std::vector<std::string>& working);
  /// Clears the live line at the end.
  void finish() { before_line(); }

  /// The progress in words, without the actors: "3/16 candidates finished, about 40 s left".
  std::string summary() const;

 private:
  double elapsed() const;

  std::ostream& out_;
  int64_t per_target_;
  bool live_, live_shown_ = false;
  std::chrono::steady_clock::time_point start_, last_line_;
  int64_t targets_ = 0, finished_ = 0, confirming_ = 0, confirmed_ = 0;
  bool started_ = false;
};

}  // namespace kforge::cli
