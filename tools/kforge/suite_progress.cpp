#include "tools/kforge/suite_progress.hpp"

namespace kforge::cli {

SuiteProgress::SuiteProgress(std::map<std::string, int64_t> expected)
    : expected_(std::move(expected)) {
  for (const auto& [key, n] : expected_) total_ += n;
}

void SuiteProgress::count_finished_before(const std::string& target) {
  ++done_by_target_[target];
  ++done_;
  ++done_before_;
}

bool SuiteProgress::on_event(const events::Event& event) {
  using K = events::Kind;
  const K kind = events::kind_of(event);
  const std::string key = events::target_of(event);
  if (events::finishes_candidate(kind)) {
    if (ended_.count(key)) return false;  // counted when its target ended
    ++done_by_target_[key];
    ++done_;
    return true;
  }
  // A target that is exhausted still finishes the kernels it has in flight; one that failed or
  // was abandoned will not get those it was expected to have.
  if (kind != K::target_failed && kind != K::target_abandoned) return false;
  if (!ended_.insert(key).second) return false;
  auto it = expected_.find(key);
  const int64_t left = (it == expected_.end() ? 0 : it->second) - done_by_target_[key];
  if (left > 0) {
    done_ += left;
    done_by_target_[key] += left;
  }
  return true;
}

}  // namespace kforge::cli
