// Runner actors behind one queue, as the compiler pool, each LLM model and each evaluator keep
// them: a runner blocks on its work on a thread of its own, so the owning actor queues requests
// here, hands each to a free runner and stays free to answer status queries. The pool keeps the
// owner's status row (queue, work in flight, failures). Used from the owning actor only.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "actors/stage_stats.hpp"
#include "messages/interfaces.hpp"

namespace kforge {

template <class Runner>
class runner_pool {
 public:
  /// Frees the job's runner: `error` is empty when the work succeeded (a verdict against a
  /// candidate is a success of the stage) and says what failed otherwise.
  using release_fn = std::function<void(const std::string& error)>;
  /// A job sends its request to the runner it is given and calls `release` once answered.
  using job = std::function<void(const Runner& runner, release_fn release)>;

  explicit runner_pool(stage_stats stats) : stats_(std::move(stats)) {}

  void add(Runner runner) {
    runners_.push_back(std::move(runner));
    busy_.push_back(false);
  }
  const std::vector<Runner>& runners() const { return runners_; }
  stage_stats& stats() { return stats_; }

  /// Queues a job, `what` in words for the status. Jobs start in `order`, the lowest first
  /// (without one, in the order they came); equal orders go first come, first served.
  void submit(std::string what, job j, std::optional<int64_t> order = std::nullopt) {
    queue_.emplace(order.value_or(arrivals_), queued{std::move(what), std::move(j)});
    ++arrivals_;
    stats_.set_queued(static_cast<int64_t>(queue_.size()));
    dispatch();
  }

 private:
  struct queued {
    std::string what;
    job run;
  };

  void dispatch() {
    for (size_t slot = 0; slot < runners_.size() && !queue_.empty(); ++slot) {
      if (busy_[slot]) continue;
      auto next = queue_.extract(queue_.begin());
      busy_[slot] = true;
      stats_.set_queued(static_cast<int64_t>(queue_.size()));
      stats_.started(std::move(next.mapped().what));
      next.mapped().run(runners_[slot], [this, slot](const std::string& error) {
        busy_[slot] = false;
        stats_.finished(error);
        dispatch();
      });
    }
  }

  std::vector<Runner> runners_;
  std::vector<bool> busy_;
  std::multimap<int64_t, queued> queue_;
  int64_t arrivals_ = 0;
  stage_stats stats_;
};

/// Queues `request` on `pool` and answers with what the runner answers. `error_of(reply)` says
/// whether the reply is a failure of the stage ("" when not); it may also account the reply.
template <class Reply, class Self, class Runner, class ErrorOf, class... Request>
caf::typed_response_promise<Reply> relay(Self* self, runner_pool<Runner>& pool, std::string what,
                                         std::optional<int64_t> order, ErrorOf error_of,
                                         Request... request) {
  auto promise = self->template make_response_promise<Reply>();
  pool.submit(
      std::move(what),
      [self, promise, error_of, request...](const Runner& runner,
                                            typename runner_pool<Runner>::release_fn release) {
        self->request(runner, caf::infinite, request...)
            .then(
                [promise, error_of, release](Reply& reply) mutable {
                  release(error_of(reply));
                  promise.deliver(std::move(reply));
                },
                [promise, release](caf::error& e) mutable {
                  release(caf::to_string(e));
                  promise.deliver(std::move(e));
                });
      },
      order);
  return promise;
}

}  // namespace kforge
