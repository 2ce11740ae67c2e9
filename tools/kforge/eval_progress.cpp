#include "tools/kforge/eval_progress.hpp"

#include <cstdio>
#include <string>

#include "common/numbers.hpp"

namespace kforge::cli {
namespace {

std::string fmt(const char* f, double v) {
  return format_number(f, v);
}

}  // namespace

EvalProgress::EvalProgress(std::ostream& out, size_t total, bool live)
    : out_(out), total_(total), live_(live) {}

double EvalProgress::elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void EvalProgress::clear_live() {
  if (live_shown_) out_ << "\r\033[K";
  live_shown_ = false;
}

void EvalProgress::on_event(const json::Value& e) {
  const std::string kind = e["event"].as_string();
  if (kind == "step" && live_) {
    clear_live();
    out_ << "  " << fmt("%6.1f s  ", elapsed()) << e["step"].as_string().substr(0, 90)
         << std::flush;
    live_shown_ = true;
  } else if (kind == "config") {
    clear_live();
    // a config reported again (a fresh worker's evaluation after one was lost) is not one more
    done_.insert(e["index"].as_int());
    const size_t done = done_.size();
    const double t = elapsed();
    std::string line = "  " + std::to_string(done) + "/" + std::to_string(total_) +
                       " configs after " + fmt("%.1f s", t);
    if (done < total_) line += fmt(", about %.0f s left", t / done * (total_ - done));
    line += ": config " + std::to_string(e["index"].as_int()) + " " +
            (e["correct"].as_bool() ? "correct" : "NOT correct");
    if (e["candidate"]["median_ms"].as_number() > 0 && e["reference"]["median_ms"].as_number() > 0)
      line += fmt(", kernel %.4f ms", e["candidate"]["median_ms"].as_number()) +
              fmt(" vs eager %.4f ms", e["reference"]["median_ms"].as_number());
    out_ << line << "\n" << std::flush;
  }
}

void EvalProgress::finish() {
  clear_live();
}

}  // namespace kforge::cli
