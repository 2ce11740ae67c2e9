#include "actors/stage_stats.hpp"

#include "common/log.hpp"

namespace kforge {

stage_stats::stage_stats(std::string name, std::string role)
    : name_(std::move(name)), role_(std::move(role)), start_(clock::now()), last_(start_) {}

void stage_stats::advance() {
  auto now = clock::now();
  double dt = std::chrono::duration<double>(now - last_).count();
  busy_ += static_cast<double>(in_flight_) * dt;
  if (in_flight_ + queued_ > 0) loaded_ += dt;
  last_ = now;
}

void stage_stats::set_queued(int64_t queued) {
  advance();
  queued_ = queued;
}

void stage_stats::started(std::string what) {
  advance();
  ++in_flight_;
  current_ = std::move(what);
}

void stage_stats::finished(const std::string& error) {
  advance();
  if (in_flight_ > 0) --in_flight_;
  if (error.empty()) {
    ++completed_;
  } else {
    ++failed_;
    last_error_ = error;
    log::warn(name_ + ": " + error);
  }
  if (in_flight_ == 0) current_.clear();
}

void stage_stats::note_error(std::string error) {
  log::warn(name_ + ": " + error);
  last_error_ = std::move(error);
}

actor_status stage_stats::status() {
  advance();
  actor_status s;
  s.name = name_;
  s.role = role_;
  s.queued = queued_;
  s.in_flight = in_flight_;
  s.completed = completed_;
  s.failed = failed_;
  s.busy_seconds = busy_;
  s.loaded_seconds = loaded_;
  s.uptime_seconds = std::chrono::duration<double>(clock::now() - start_).count();
  s.current = current_;
  s.last_error = last_error_;
  return s;
}

}  // namespace kforge
