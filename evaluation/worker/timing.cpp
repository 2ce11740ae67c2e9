#include "evaluation/worker/timing.hpp"

#include <algorithm>
#include <cmath>

namespace kforge::worker {
namespace {

TimingStats summarize(std::vector<double> per_call, std::vector<double> wall, int calls) {
  TimingStats s;
  if (per_call.empty()) return s;
  std::sort(per_call.begin(), per_call.end());
  std::sort(wall.begin(), wall.end());
  auto at = [&](double q) {
    return per_call[static_cast<size_t>(std::lround(q * (per_call.size() - 1)))];
  };
  s.median_ms = at(0.5);
  s.p10_ms = at(0.1);
  s.p90_ms = at(0.9);
  s.min_ms = per_call.front();
  double sum = 0;
  for (double v : per_call) sum += v;
  s.mean_ms = sum / per_call.size();
  s.wall_median_ms = wall[wall.size() / 2];
  s.reps = static_cast<int>(per_call.size());
  s.calls_per_rep = calls;
  return s;
}

}  // namespace

json::Value TimingStats::to_json() const {
  json::Value v;
  v.set("median_ms", median_ms).set("p10_ms", p10_ms).set("p90_ms", p90_ms).set("min_ms", min_ms);
  v.set("mean_ms", mean_ms).set("wall_median_ms", wall_median_ms).set("spread", spread());
  v.set("reps", reps).set("calls_per_rep", calls_per_rep);
  return v;
}

GroupTiming time_group(Device& device, const std::vector<std::function<void(size_t)>>& functions,
                       const std::vector<std::vector<MemorySpan>>& set_memory,
                       const TimingOptions& o, const std::function<void(size_t)>& refresh,
                       const std::function<void(double)>& on_plan, const BatchWatch& watch) {
  GroupTiming result;
  const size_t sets = std::max<size_t>(1, set_memory.size());
  size_t next_set = 0;
  std::vector<MemorySpan> reads;
  auto batch = [&](size_t f, int calls) {
    const auto& fn = functions[f];
    const size_t used = std::min<size_t>(sets, static_cast<size_t>(calls));
    if (refresh)
      for (size_t k = 0; k < used; ++k) refresh((next_set + k) % sets);
    reads.clear();
    for (size_t k = 0; k < used && !set_memory.empty(); ++k) {
      const auto& memory = set_memory[(next_set + k) % sets];
      reads.insert(reads.end(), memory.begin(), memory.end());
    }
    device.synchronize();
    if (watch) watch(f, true);
    device.flush_cache(reads);
    const BatchTime t = device.time_batch([&] {
      for (int i = 0; i < calls; ++i) fn(next_set++ % sets);
    });
    if (watch && !result.failure) result.failure = watch(f, false);
    return t;
  };
  // Warm-up; the second single call of each function estimates its time.
  for (size_t f = 0; f < functions.size() && !result.failure; ++f) batch(f, 1);
  std::vector<int> calls;
  double rep_ms = 0;
  for (size_t f = 0; f < functions.size(); ++f) {
    double t = std::max(1e-4, batch(f, 1).device_ms);
    calls.push_back(std::clamp(static_cast<int>(std::ceil(o.target_batch_ms / t)), 1, 10000));
    rep_ms += calls.back() * t;
  }
  // Slow functions (one repetition far over the budget's share) get fewer repetitions, never
  // fewer than 3: enough for a median, and the evaluation stays within minutes.
  const double budget_ms = o.max_seconds * 1000;
  const int least = rep_ms * o.min_reps > 4 * budget_ms ? std::min(3, o.min_reps) : o.min_reps;
  int reps = std::clamp(static_cast<int>(budget_ms / std::max(rep_ms, 1e-3)), least, o.max_reps);
  if (on_plan) on_plan(reps * rep_ms / 1000);
  std::vector<std::vector<double>> ms(functions.size()), wall(functions.size());
  for (int r = 0; r < reps; ++r) {
    if (result.failure && result.failure->kind == "threads_escaped") break;
    for (size_t f = 0; f < functions.size(); ++f) {
      auto t = batch(f, calls[f]);
      if (t.device_ms > t.wall_ms * 1.05 + 0.05 && !result.failure)
        result.failure = Failure{"timer_disagreement",
                                 "the device timer measured " + std::to_string(t.device_ms) +
                                     " ms for a batch that took " + std::to_string(t.wall_ms) +
                                     " ms of wall time; the timer was tampered with"};
      ms[f].push_back(t.device_ms / calls[f]);
      wall[f].push_back(t.wall_ms / calls[f]);
    }
  }
  for (size_t f = 0; f < functions.size(); ++f)
    result.stats.push_back(summarize(ms[f], wall[f], calls[f]));
  return result;
}

TimingStats time_cold(Device& device, const std::function<void(size_t)>& call,
                      const std::vector<std::vector<MemorySpan>>& set_memory, int reps,
                      const BatchWatch& watch, std::optional<Failure>& failure) {
  const size_t sets = std::max<size_t>(1, set_memory.size());
  std::vector<double> ms, wall;
  for (int r = 0; r < reps && !failure; ++r) {
    const size_t set = static_cast<size_t>(r) % sets;
    device.synchronize();
    if (watch) watch(0, true);
    device.flush_cache(set_memory.empty() ? std::vector<MemorySpan>{} : set_memory[set]);
    auto t = device.time_batch([&] { call(set); });
    if (watch) failure = watch(0, false);
    ms.push_back(t.device_ms);
    wall.push_back(t.wall_ms);
  }
  return summarize(std::move(ms), std::move(wall), 1);
}

}  // namespace kforge::worker
