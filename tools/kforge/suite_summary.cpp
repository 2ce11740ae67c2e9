#include "tools/kforge/suite_summary.hpp"

#include <cmath>
#include <map>

#include "evaluation/library_policy.hpp"
#include "tools/kforge/tables.hpp"

namespace kforge::cli {
namespace {

bool calls_library(const json::Value& row) {
  for (const auto& f : row["flags"].as_array())
    if (f.as_string().rfind(evaluation::kLibraryCallsFlag, 0) == 0) return true;
  return false;
}

/// Correct on every config it ran, and it ran some.
bool correct(const json::Value& row) {
  return row["status"].as_string() == "correct" && row["configs_total"].as_int() > 0 &&
         row["configs_correct"].as_int() == row["configs_total"].as_int() &&
         row["speedup_eager"].is_number();
}

struct Part {
  int64_t targets = 0, correct = 0, fast_eager = 0, fast_compile = 0, compile_timed = 0;
  int64_t pending = 0;
  /// best kernels the hardware counters call memory-bound, and those at kDramTargetPct or more:
  /// where the longest kernel is the candidate's own; a library's (a cuDNN convolution the kernel
  /// calls) is counted apart, since its DRAM share says nothing of the generated code
  int64_t memory_bound = 0, at_dram_target = 0, library_longest = 0;
  /// those below kDramTargetPct by the unit their counters say is busiest (the row's limiter)
  std::map<std::string, int64_t> below_by_limiter;
  double log_eager = 0, log_compile = 0;

  void add(const json::Value* best, bool unfinished) {
    ++targets;
    if (unfinished) ++pending;
    if (!best) return;
    ++correct;
    const double eager = (*best)["speedup_eager"].as_number();
    log_eager += std::log(eager);
    if (eager > 1) ++fast_eager;
    if ((*best)["bound"].is_string() && !(*best)["longest_kernel_own"].as_bool(true)) {
      ++library_longest;
    } else if ((*best)["bound"].as_string() == "memory") {
      ++memory_bound;
      if ((*best)["dram_pct"].as_number() >= kDramTargetPct)
        ++at_dram_target;
      else if (const auto& limiter = (*best)["limiter"].as_string(); !limiter.empty())
        ++below_by_limiter[limiter];
    }
    if ((*best)["speedup_compile"].is_number()) {
      const double compiled = (*best)["speedup_compile"].as_number();
      ++compile_timed;
      log_compile += std::log(compiled);
      if (compiled > 1) ++fast_compile;
    }
  }

  json::Value below_by_limiter_doc() const {
    json::Value out;
    out.object();
    for (const auto& [limiter, n] : below_by_limiter) out.set(limiter, n);
    return out;
  }

  json::Value doc() const {
    auto mean = [](double logs, int64_t n) {
      return n > 0 ? json::Value(std::exp(logs / static_cast<double>(n))) : json::Value();
    };
    json::Value out;
    out.set("targets", targets)
        .set("correct", correct)
        .set("fast_1_eager", fast_eager)
        .set("fast_1_compile", fast_compile)
        .set("compile_timed", compile_timed)
        .set("pending", pending)
        .set("memory_bound", memory_bound)
        .set("memory_bound_at_dram_target", at_dram_target)
        .set("library_longest", library_longest)
        .set("below_dram_target_by_limiter", below_by_limiter_doc())
        .set("geomean_eager", mean(log_eager, correct))
        .set("geomean_compile", mean(log_compile, compile_timed));
    return out;
  }
};

std::string percent(int64_t n, int64_t of) {
  return std::to_string(n) + " (" +
         format("%.0f%%", of > 0 ? 100.0 * static_cast<double>(n) / static_cast<double>(of) : 0) +
         ")";
}

/// " (of those below, the SM is busiest in 3, L2 in 8, DRAM in 9)", or nothing where no counters
/// named a limiter.
std::string below_target_text(const json::Value& by_limiter) {
  std::string out;
  for (const auto& [limiter, name] :
       {std::pair{"sm", "the SM"}, std::pair{"l2", "L2"}, std::pair{"dram", "DRAM"}}) {
    if (!by_limiter.contains(limiter)) continue;
    out += std::string(out.empty() ? " (of those below, " : ", ") + name +
           (out.empty() ? " is busiest in " : " in ") +
           std::to_string(by_limiter[limiter].as_int());
  }
  return out.empty() ? out : out + ")";
}

std::string part_line(const std::string& title, const json::Value& p) {
  const int64_t targets = p["targets"].as_int();
  std::string line = title + ": " + std::to_string(targets) + " target(s), correct " +
                     percent(p["correct"].as_int(), targets) + ", faster than eager " +
                     percent(p["fast_1_eager"].as_int(), targets);
  if (p["compile_timed"].as_int() > 0)
    line += ", faster than torch.compile " + percent(p["fast_1_compile"].as_int(), targets) + " (" +
            std::to_string(p["compile_timed"].as_int()) + " timed against it)";
  else
    line += ", no torch.compile time";
  if (p["pending"].as_int() > 0)
    line += "; " + std::to_string(p["pending"].as_int()) + " target(s) still pending";
  if (p["geomean_eager"].is_number())
    line +=
        "; geometric mean over the correct: " + format("%.2fx", p["geomean_eager"].as_number()) +
        " eager";
  if (p["geomean_compile"].is_number())
    line += ", " + format("%.2fx", p["geomean_compile"].as_number()) + " torch.compile";
  if (p["memory_bound"].as_int() > 0)
    line +=
        "; memory-bound by the hardware counters: " + std::to_string(p["memory_bound"].as_int()) +
        ", of which " + std::to_string(p["memory_bound_at_dram_target"].as_int()) + " reach " +
        format("%.0f%%", kDramTargetPct) + " of DRAM peak" +
        below_target_text(p["below_dram_target_by_limiter"]);
  if (p["library_longest"].as_int() > 0)
    line += "; " + std::to_string(p["library_longest"].as_int()) +
            " whose longest kernel is a library's (counted in neither)";
  return line + "\n";
}

}  // namespace

json::Value suite_summary(const json::Value& suite) {
  // Per target, its fastest correct kernel with and without library calls (null: none).
  struct Best {
    const json::Value* all = nullptr;
    const json::Value* own = nullptr;
    bool pending = false;  ///< some kernel of the target is not evaluated yet
  };
  std::map<std::string, Best> targets;
  auto faster = [](const json::Value* best, const json::Value& row) {
    return !best || row["speedup_eager"].as_number() > (*best)["speedup_eager"].as_number();
  };
  for (const auto& row : suite["rows"].as_array()) {
    auto& best = targets[row["task"].as_string() + "/" + row["direction"].as_string() + "/" +
                         row["backend"].as_string()];
    if (row["status"].as_string() == "pending") best.pending = true;
    if (!correct(row)) continue;
    if (faster(best.all, row)) best.all = &row;
    if (!calls_library(row) && faster(best.own, row)) best.own = &row;
  }
  Part all, own;
  for (const auto& [key, best] : targets) {
    all.add(best.all, best.pending);
    own.add(best.own, best.pending);
  }
  json::Value out;
  out.set("all", all.doc()).set("without_library", own.doc());
  return out;
}

std::string suite_summary_text(const json::Value& summary) {
  return part_line("every kernel", summary["all"]) +
         part_line("without library calls", summary["without_library"]);
}

}  // namespace kforge::cli
