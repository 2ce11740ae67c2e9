#include "tools/kforge/run_progress.hpp"

#include "common/numbers.hpp"

namespace kforge::cli {

RunProgress::RunProgress(std::ostream& out, int64_t per_target, bool live,
                         std::chrono::steady_clock::time_point start)
    : out_(out), per_target_(per_target), live_(live), start_(start), last_line_(start) {}

double RunProgress::elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void RunProgress::on_event(const events::Event& event) {
  last_line_ = std::chrono::steady_clock::now();
  using K = events::Kind;
  const K k = events::kind_of(event);
  if (const auto* started = std::get_if<events::ExperimentStarted>(&event)) {
    started_ = true;
    targets_ = started->targets;
  } else if (k == K::resumed) {
    started_ = true;
  } else if (events::finishes_candidate(k)) {
    ++finished_;
  } else if (const auto* confirming = std::get_if<events::Confirming>(&event)) {
    confirming_ = confirming->candidates;
  } else if (k == K::confirmed) {
    ++confirmed_;
  }
}

void RunProgress::before_line() {
  if (live_shown_) out_ << "\r\033[K" << std::flush;
  live_shown_ = false;
}

bool RunProgress::due() const {
  const auto since = std::chrono::steady_clock::now() - last_line_;
  return live_ ? true : since >= std::chrono::seconds(10);
}

std::string RunProgress::summary() const {
  const double t = elapsed();
  if (!started_) return "setting up (exporting the tasks)";
  if (confirming_ > 0)
    return "confirming the best: " + std::to_string(confirmed_) + "/" +
           std::to_string(confirming_) + " timed again";
  const int64_t planned = per_target_ * targets_;
  std::string s =
      std::to_string(finished_) + "/" + std::to_string(planned) + " candidates finished";
  if (finished_ > 0 && finished_ < planned)
    s += format_number(", about %.0f s left", t / static_cast<double>(finished_) *
                                                  static_cast<double>(planned - finished_));
  return s;
}

void RunProgress::show(const std::vector<std::string>& working) {
  std::string line = "[" + format_number("%6.1fs", elapsed()) + "] " + summary();
  if (!working.empty()) {
    line += "; now:";
    for (size_t i = 0; i < working.size(); ++i) line += (i ? ", " : " ") + working[i];
  }
  if (live_) {
    before_line();
    out_ << line.substr(0, 160) << std::flush;
    live_shown_ = true;
  } else {
    out_ << line << "\n" << std::flush;
    last_line_ = std::chrono::steady_clock::now();
  }
}

}  // namespace kforge::cli
