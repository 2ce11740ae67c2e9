#include "tools/kforge/tables.hpp"

#include <algorithm>
#include <cstdio>
#include <ctime>

#include "common/numbers.hpp"
#include "evaluation/compiler.hpp"
#include "evaluation/counter_summary.hpp"
#include "messages/events.hpp"

namespace kforge::cli {

std::string format(const char* f, double v) {
  return format_number(f, v);
}

std::string pad(std::string s, size_t width) {
  if (s.size() > width) s = s.substr(0, width > 3 ? width - 3 : width) + (width > 3 ? "..." : "");
  return s + std::string(width - s.size(), ' ') + " ";
}

std::string experiment_table(const json::Value& e) {
  size_t target_width = 8;
  for (const auto& t : e["targets"].as_array())
    target_width = std::max(target_width, t["target"].as_string().size() + 2);
  std::string out = pad("target", target_width) + pad("candidates", 11) + pad("correct", 8) +
                    pad("best kernel", 12) + pad("speedup (p10-p90)", 20) + pad("timed", 11) +
                    pad("of bound", 9) + pad("found after", 12) + "how\n";
  bool any_confirmed = false, any_searched = false, any_once = false;
  std::vector<std::string> slower;  // targets whose best kernel is slower than eager
  for (const auto& t : e["targets"].as_array()) {
    bool has = t.contains("best_candidate");
    const bool confirmed = t["best_confirmed"].as_bool(false);
    // The best kernel's share of the speed-of-light bound on its largest config.
    const bool bounded = t.contains("best_speed_of_light");
    std::string speedup = "-";
    if (has)
      speedup = format("%.2fx", t["best_speedup"].as_number()) +
                (confirmed ? format(" (%.2f", t["best_speedup_p10"].as_number()) +
                                 format("-%.2f)", t["best_speedup_p90"].as_number())
                           : "");
    const std::string timed = t["best_timed"].as_string("search");
    any_confirmed |= has && timed == "confirmed";
    any_searched |= has && timed == "search";
    any_once |= has && timed == "once";
    out += pad(t["target"].as_string(), target_width) +
           pad(std::to_string(t["candidates"].as_int()), 11) +
           pad(std::to_string(t["correct"].as_int()), 8) +
           pad(has ? "cand. " + std::to_string(t["best_candidate"].as_int()) : "-", 12) +
           pad(speedup, 20) + pad(has ? t["best_timed"].as_string("search") : "-", 11) +
           pad(bounded ? format("%.0f%%", 100 * t["best_speed_of_light"].as_number()) : "-", 9) +
           pad(has ? std::to_string(t["best_after"].as_int()) + " of " +
                         std::to_string(t["candidates"].as_int())
                   : "-",
               12) +
           (has ? t["best_strategy"].as_string() + " " + t["best_params"].dump() : "none correct") +
           "\n";
    if (t.contains("search_best_candidate"))
      out += "    the search's largest draw was candidate " +
             std::to_string(t["search_best_candidate"].as_int()) + " at " +
             format("%.2fx", t["search_best_speedup"].as_number()) + "; timed again, candidate " +
             std::to_string(t["best_candidate"].as_int()) + " was faster\n";
    if (confirmed)
      out += "    candidate " + std::to_string(t["best_candidate"].as_int()) +
             format(" measured %.2fx during the search", t["best_speedup_searched"].as_number()) +
             "\n";
    if (has && t.contains("best_counters")) out += "    " + dram_line(t["best_counters"]) + "\n";
    if (!has && t.contains("ended")) out += "    " + t["ended"].as_string() + "\n";
    if (has && t["best_speedup"].as_number() < 1) {
      out += "    " + no_kernel_beat_eager(t) + "\n";
      slower.push_back(t["target"].as_string());
    }
  }
  if (any_confirmed)
    out +=
        "confirmed: the best candidates timed again once the search was over, on fresh inputs,\n"
        "interleaved with eager PyTorch; speedup: geometric mean over the configs of the median\n"
        "times, (p10-p90): the same of eager's 10th percentile over the kernel's 90th and eager's\n"
        "90th over the kernel's 10th.\n";
  if (any_searched)
    out +=
        "search: the largest of the search's draws, not timed again (the experiment did not\n"
        "finish); expect it lower when timed again.\n";
  if (any_once)
    out +=
        "once: evaluated once; this experiment (a suite, or evaluation.confirm_top 0) times\n"
        "nothing again.\n";
  if (!slower.empty()) {
    out += "no kernel beat eager PyTorch for";
    for (const auto& target : slower) out += " " + target;
    out += ": keep eager PyTorch there.\n";
  }
  return out;
}

std::string dram_line(const json::Value& c) {
  const double dram = c["dram_pct"].as_number();
  std::string line = "hardware counters on " + c["config"].as_string() + ": its longest kernel (" +
                     c["kernel"].as_string() + ") is " + c["bound"].as_string() + "-bound, " +
                     format("%.0f%% of DRAM peak", dram);
  if (!c["own"].as_bool(true))
    return line + ": a library's kernel the candidate calls, not its own code";
  if (c["bound"].as_string() != "memory") return line;
  if (dram >= kDramTargetPct)
    return line + ": at or above the " + format("%.0f%%", kDramTargetPct) +
           " a memory-bound kernel should reach";
  return line + ": below the " + format("%.0f%%", kDramTargetPct) +
         " a memory-bound kernel should reach" +
         below_dram_target_why(c["limiter"].as_string(), c["limiter_pct"].as_number());
}

std::string no_kernel_beat_eager(const json::Value& target) {
  return format("no kernel beat eager PyTorch: the best runs at %.2fx eager's speed; keep eager",
                target["best_speedup"].as_number());
}

std::string state_table(const json::Value& s) {
  std::string out = pad("actor", 22) + pad("queued", 7) + pad("running", 8) + pad("done", 6) +
                    pad("failed", 7) + pad("per min", 8) + pad("busy", 6) + "now / last error\n";
  for (const auto& a : s["actors"].as_array()) {
    const double up = a["uptime_seconds"].as_number(0);
    const double per_min = up > 0 ? 60.0 * a["completed"].as_number() / up : 0;
    const double busy = up > 0 ? a["busy_seconds"].as_number() / up : 0;
    std::string now = a["current"].as_string();
    if (!a["last_error"].as_string().empty())
      now += (now.empty() ? "" : " | ") + std::string("last error: ") + a["last_error"].as_string();
    out += pad(a["name"].as_string(), 22) + pad(std::to_string(a["queued"].as_int()), 7) +
           pad(std::to_string(a["in_flight"].as_int()), 8) +
           pad(std::to_string(a["completed"].as_int()), 6) +
           pad(std::to_string(a["failed"].as_int()), 7) + pad(format("%.1f", per_min), 8) +
           pad(format("%.0f%%", 100 * busy), 6) + now.substr(0, 100) + "\n";
  }
  out += "\n" + pad("experiment", 28) + pad("status", 9) + pad("proposed", 9) + pad("correct", 8) +
         pad("running", 8) + "best speedups\n";
  for (const auto& e : s["experiments"].as_array()) {
    std::string best;
    for (const auto& t : e["targets"].as_array())
      best += (best.empty() ? "" : ", ") + t["target_key"].as_string() + " " +
              (t["best_candidate"].as_int() ? format("%.2fx", t["best_speedup"].as_number()) : "-");
    out += pad(std::to_string(e["id"].as_int()) + " " + e["name"].as_string(), 28) +
           pad(e["status"].as_string(), 9) + pad(std::to_string(e["proposed"].as_int()), 9) +
           pad(std::to_string(e["correct"].as_int()), 8) +
           pad(std::to_string(e["in_flight"].as_int()), 8) + best + "\n";
    if (!e["last_error"].as_string().empty())
      out += "    last error: " + e["last_error"].as_string() + "\n";
    if (!e["models"].as_array().empty()) out += usage_table(e["models"], "    ");
  }
  return out;
}

std::string usage_table(const json::Value& models, const std::string& indent) {
  std::string out = indent + pad("model", 26) + pad("calls", 7) + pad("failed", 7) +
                    pad("cached", 7) + pad("tokens in", 11) + pad("tokens out", 11) + "money\n";
  for (const auto& m : models.as_array())
    out += indent + pad(m["name"].as_string(), 26) + pad(std::to_string(m["calls"].as_int()), 7) +
           pad(std::to_string(m["failures"].as_int()), 7) +
           pad(std::to_string(m["cached"].as_int()), 7) +
           pad(std::to_string(m["input_tokens"].as_int()), 11) +
           pad(std::to_string(m["output_tokens"].as_int()), 11) +
           format("$%.4f", m["cost_usd"].as_number()) + "\n";
  return out;
}

namespace {

std::string ms_with_spread(const json::Value& row, const std::string& prefix) {
  if (!row[prefix + "_ms"].is_number()) return "-";
  auto ms = [](double v) { return format(v >= 100 ? "%.1f" : v >= 10 ? "%.2f" : "%.4f", v); };
  return ms(row[prefix + "_ms"].as_number()) + " (" + ms(row[prefix + "_p10_ms"].as_number()) +
         "-" + ms(row[prefix + "_p90_ms"].as_number()) + ")";
}

}  // namespace

std::string best_results_table(const json::Value& targets) {
  std::string out;
  for (const auto& t : targets.as_array()) {
    if (!t.contains("results")) continue;
    size_t name_width = 8;
    for (const auto& row : t["results"].as_array())
      name_width = std::max(name_width, row["name"].as_string().size() + 1);
    out += t["target"].as_string() + ": candidate " + std::to_string(t["best_candidate"].as_int()) +
           ", " + format("%.2fx", t["best_speedup"].as_number()) + " eager (geometric mean), " +
           std::to_string(t["lineage_depth"].as_int()) + " ancestor(s), found after " +
           std::to_string(t["best_after"].as_int()) + " of the target's " +
           std::to_string(t["candidates"].as_int()) + " candidates; " +
           (t["results_timed"].as_string() == "confirmation" ? "times from its confirmation after "
                                                               "the search"
            : t["best_timed"].as_string() == "once"
                ? "times from its one evaluation (this experiment times nothing again)"
                : "times from the search, not confirmed") +
           "\n";
    if (t["best_speedup"].as_number() < 1) out += "  " + no_kernel_beat_eager(t) + "\n";
    out += "  " + pad("config", name_width) + pad("ok", 3) + pad("kernel ms (p10-p90)", 27) +
           pad("eager ms (p10-p90)", 27) + pad("speedup", 8) + pad("compiled ms", 12) +
           "vs compiled\n";
    for (const auto& row : t["results"].as_array())
      out +=
          "  " + pad(row["name"].as_string(), name_width) +
          pad(row["correct"].as_bool() ? "yes" : "NO", 3) + pad(ms_with_spread(row, "kernel"), 27) +
          pad(ms_with_spread(row, "eager"), 27) +
          pad(row["speedup"].is_number() ? format("%.2fx", row["speedup"].as_number()) : "-", 8) +
          pad(row["compiled_ms"].is_number() ? format("%.4f", row["compiled_ms"].as_number()) : "-",
              12) +
          (row["speedup_compiled"].is_number()
               ? format("%.2fx", row["speedup_compiled"].as_number())
               : std::string("-")) +
          "\n";
    // Why a column of torch.compile times is empty or comes from elsewhere.
    std::string unavailable;
    bool from_search = false;
    for (const auto& row : t["results"].as_array()) {
      if (unavailable.empty()) unavailable = row["compiled_unavailable"].as_string();
      from_search |= row["compiled_timed"].as_string() == "search";
    }
    if (from_search)
      out +=
          "  compiled ms: torch.compile's time from the search (the confirmation times the "
          "kernel against eager only)\n";
    else if (!unavailable.empty())
      out += "  compiled ms: no torch.compile time: " + unavailable + "\n";
    else if (!t["results"].as_array().empty() && !t["results"][0]["compiled_ms"].is_number())
      out +=
          "  compiled ms: torch.compile was not timed (the experiment's evaluation."
          "compiled_baseline is off)\n";
    out += "\n";
  }
  return out;
}

std::string report_csv(const json::Value& r) {
  auto cell = [](const json::Value& v) {
    if (v.is_number()) return format("%.6g", v.as_number());
    if (v.is_bool()) return std::string(v.as_bool() ? "true" : "false");
    std::string s = v.as_string();
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string quoted = "\"";
    for (char c : s) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    return quoted + "\"";
  };
  const char* columns[] = {"config_set",      "index",         "name",          "correct",
                           "kernel_ms",       "kernel_p10_ms", "kernel_p90_ms", "eager_ms",
                           "eager_p10_ms",    "eager_p90_ms",  "speedup",       "compiled_ms",
                           "speedup_compiled"};
  std::string out =
      "experiment,target,candidate,geomean_speedup,confirmed,lineage_depth,found_after";
  for (const char* c : columns) out += std::string(",") + c;
  out += "\n";
  for (const auto& t : r["targets"].as_array())
    for (const auto& row : t["results"].as_array()) {
      out += std::to_string(r["experiment"].as_int()) + "," + cell(t["target"]) + "," +
             cell(t["best_candidate"]) + "," + cell(t["best_speedup"]) + "," +
             cell(json::Value(t["best_confirmed"].as_bool(false))) + "," +
             cell(t["lineage_depth"]) + "," + cell(t["best_after"]);
      for (const char* c : columns) out += "," + cell(row[c]);
      out += "\n";
    }
  return out;
}

std::string report_table(const json::Value& r) {
  std::string out = "experiment " + std::to_string(r["experiment"].as_int()) + " \"" +
                    r["name"].as_string() + "\" " + r["status"].as_string() + ": " +
                    std::to_string(r["candidates"].as_int()) + " candidates, " +
                    std::to_string(r["correct"].as_int()) + " correct on the hardware\n\n";
  out += experiment_table(r) + "\n" + best_results_table(r["targets"]);
  if (!r["strategies"].as_array().empty()) {
    size_t source_width = 7;
    for (const auto& s : r["strategies"].as_array())
      source_width = std::max(source_width, s["source"].as_string().size() + 2);
    out += pad("target", 30) + pad("tried", 7) + pad("correct", 8) + pad("improved", 9) +
           pad("best gain", 10) + pad("source", source_width) + "optimisation strategy\n";
    for (const auto& s : r["strategies"].as_array())
      out += pad(s["target"].as_string(), 30) + pad(std::to_string(s["tried"].as_int()), 7) +
             pad(std::to_string(s["correct"].as_int()), 8) +
             pad(std::to_string(s["improved"].as_int()), 9) +
             pad(s["best_gain"].is_null() ? "-" : format("%.2fx", s["best_gain"].as_number()), 10) +
             pad(s["source"].as_string(), source_width) + s["strategy"].as_string() + "\n";
    out += "\n";
  }
  if (r["models"].as_array().empty()) {
    out += "no LLM calls (built-in proposer only)\n";
  } else {
    out += usage_table(r["models"], "");
  }
  for (const auto& b : r["proposer_setbacks"].as_array()) {
    const auto event = events::kind_named(b["event"].as_string());
    out += b["proposer"].as_string() +
           (event == events::Kind::proposer_disabled ? " stopped proposing"
            : event == events::Kind::proposer_set_aside
                ? " was set aside for " + b["target"].as_string()
                : " cannot write " + b["target"].as_string()) +
           ": " + b["reason"].as_string() + "\n";
  }
  out += "\nmoney spent " + format("$%.4f", r["cost_usd"].as_number()) +
         "; cost per correct kernel " +
         (r["cost_per_correct_usd"].is_null()
              ? std::string("- (none correct)")
              : format("$%.4f", r["cost_per_correct_usd"].as_number())) +
         "\n";
  const auto& v = r["verifiers"];
  if (v["judged_candidates"].as_int() == 0) return out + "\nno LLM verifier judged a candidate\n";
  auto ratio = [](const json::Value& x) {
    return x.is_null() ? std::string("-") : format("%.2f", x.as_number());
  };
  out += "\nLLM verifiers against the hardware (a reject is a positive: \"defective\"):\n";
  out += pad("verifier/check", 34) + pad("TP", 5) + pad("FP", 5) + pad("TN", 5) + pad("FN", 5) +
         pad("precision", 10) + pad("recall", 8) + pad("not run", 9) + "undecided\n";
  auto row = [&](const std::string& name, const json::Value& m) {
    out += pad(name, 34) + pad(std::to_string(m["true_positive"].as_int()), 5) +
           pad(std::to_string(m["false_positive"].as_int()), 5) +
           pad(std::to_string(m["true_negative"].as_int()), 5) +
           pad(std::to_string(m["false_negative"].as_int()), 5) + pad(ratio(m["precision"]), 10) +
           pad(ratio(m["recall"]), 8) +
           pad(std::to_string(m["rejected_not_run"].as_int() + m["accepted_not_run"].as_int()), 9) +
           std::to_string(m["undecided"].as_int()) + "\n";
  };
  for (const auto& c : v["checks"].as_array()) row(c["verifier"].as_string(), c);
  row("all verifiers together", v["together"]);
  out +=
      "(TP rejected+defective, FP rejected+correct, TN accepted+correct, FN accepted+defective;\n"
      " \"not run\": rejected and not audited, so the hardware never judged it)\n";
  return out;
}

namespace {

/// Lines of `kforge show` on how fast a candidate is and whether it is its target's best.
std::string standing_text(const json::Value& st) {
  std::string out;
  const auto& confirmation = st["confirmation"];
  if (st["speedup_searched"].is_number())
    out += format("speedup %.2fx eager in the search", st["speedup_searched"].as_number());
  if (confirmation["confirmed"].as_bool(false))
    out += format("; timed again after the search: %.2fx", confirmation["speedup"].as_number()) +
           format(" (p10-p90 %.2f", confirmation["speedup_p10"].as_number()) +
           format("-%.2f)", confirmation["speedup_p90"].as_number());
  else if (confirmation.contains("reason"))
    out += "; timed again after the search: not confirmed: " + confirmation["reason"].as_string();
  if (!out.empty()) out += "\n";
  if (st["is_best"].as_bool(false))
    out += "the best kernel of its target (" + st["best_timed"].as_string() + ")" +
           (st["best_speedup"].as_number() < 1 ? "; it is slower than eager PyTorch: keep eager"
                                               : "") +
           "\n";
  else if (st.contains("best_candidate"))
    out += "its target's best is candidate " + std::to_string(st["best_candidate"].as_int()) +
           format(" (%.2fx, ", st["best_speedup"].as_number()) + st["best_timed"].as_string() +
           ")\n";
  return out;
}

}  // namespace

std::string candidate_report(const json::Value& c, bool with_source) {
  std::string out = "candidate " + std::to_string(c["id"].as_int()) + " (experiment " +
                    std::to_string(c["experiment_id"].as_int()) + ") " + c["task"].as_string() +
                    "/" + c["direction"].as_string() + "/" + c["backend"].as_string() + "\n";
  out += standing_text(c["standing"]);
  out += "proposer " + c["proposer"].as_string() + ", strategy " + c["strategy"].as_string() + " " +
         c["params"].dump() + "\n";
  if (!c["parent_id"].is_null())
    out += "parent: candidate " + std::to_string(c["parent_id"].as_int()) + "\n";
  if (c.contains("compile")) {
    const auto& k = c["compile"];
    std::string headers = k["headers"].as_string();
    out += "compile: " +
           std::string(k["cache_hit"].as_bool() ? "cached"
                                                : format("%.1f s", k["seconds"].as_number())) +
           (headers == "light"  ? ", kforge's light headers"
            : headers == "full" ? ", LibTorch's headers"
                                : "") +
           (k.contains("light_error")
                ? " (the light headers could not: " + k["light_error"].as_string() + ")"
                : "") +
           (evaluation::built_after_compiler_crash(k["log"].as_string())
                ? std::string("; ") + evaluation::kCompilerCrashSummary
                : "") +
           "\n";
  }
  for (const auto& v : c["verdicts"].as_array())
    out += "verdict " + v["stage"].as_string() + ": " + v["verdict"].as_string() +
           (v["kind"].as_string().empty() ? "" : " " + v["kind"].as_string()) +
           (v["reason"].as_string().empty() ? "" : ": " + v["reason"].as_string()) + "\n";
  if (!c["results"].as_array().empty()) {
    out += pad(" #", 4) + pad("config", 40) + pad("ok", 4) + pad("kernel ms", 11) +
           pad("eager ms", 11) + pad("speedup", 9) + pad("compiled ms", 12) + "vs compiled\n";
    std::string compiled_note;
    for (const auto& r : c["results"].as_array()) {
      bool timed = r.contains("kernel_ms");
      bool compiled = r.contains("compiled_ms");
      out += pad(" " + std::to_string(r["index"].as_int()), 4) + pad(r["name"].as_string(), 40) +
             pad(r["correct"].as_bool() ? "yes" : "NO", 4) +
             pad(timed ? format("%.4f", r["kernel_ms"].as_number()) : "-", 11) +
             pad(timed ? format("%.4f", r["eager_ms"].as_number()) : "-", 11) +
             pad(timed ? format("%.2fx", r["speedup"].as_number()) : "-", 9) +
             pad(compiled ? format("%.4f", r["compiled_ms"].as_number()) : "-", 12) +
             (compiled ? format("%.2fx", r["speedup_compiled"].as_number()) : "-") + "\n";
      if (compiled_note.empty() && r.contains("compiled_unavailable"))
        compiled_note = r["compiled_unavailable"].as_string();
    }
    if (!compiled_note.empty()) out += "no torch.compile time: " + compiled_note + "\n";
  }
  if (c.contains("profile")) {
    const auto& profile = c["profile"];
    out += "profile: " + profile["summary"]["brief"].as_string(profile["summary"].dump()) + "\n";
    if (profile.contains("trace")) out += trace_table(profile["trace"]);
    if (profile.contains("counters")) out += counters_table(profile["counters"]);
    if (!profile["advice"]["recommendations"].as_array().empty()) {
      out += "recommendations (" + profile["advice"]["model"].as_string() + "):\n";
      for (const auto& r : profile["advice"]["recommendations"].as_array())
        out += "  - " + r.as_string() + "\n";
    }
  }
  if (with_source) out += "\n" + c["source"].as_string();
  return out;
}

std::string trace_table(const json::Value& trace) {
  std::string out = "kernel trace on " + trace["config"].as_string() + ":\n";
  if (trace.contains("error")) return out + "  not recorded: " + trace["error"].as_string() + "\n";
  auto dims = [](const json::Value& v) {
    std::string d;
    for (const auto& x : v.as_array()) d += (d.empty() ? "" : ",") + std::to_string(x.as_int());
    return d;
  };
  for (const char* side : {"candidate", "reference"}) {
    const auto& s = trace[side];
    const std::string call =
        s.contains("wall_ms") ? format(" in a %.4f ms call", s["wall_ms"].as_number()) : "";
    out += std::string("  ") + (side == std::string("candidate") ? "the kernel" : "eager PyTorch") +
           ": ";
    if (s["launches"].as_int() == 0 && s["unit"].as_string() == "operator call(s)")
      out += "no ATen operator call (its own code)" + (call.empty() ? "" : "," + call.substr(3)) +
             "\n";
    else
      out += std::to_string(s["launches"].as_int()) + " " + s["unit"].as_string("launch(es)") +
             ", " + format("%.4f ms", s["ms"].as_number()) + call + "\n";
    for (const auto& g : s["top"].as_array())
      out += "    " + pad(std::to_string(g["count"].as_int()) + "x", 5) +
             pad(format("%.4f ms", g["ms"].as_number()), 12) +
             (g.contains("grid") ? pad("grid " + dims(g["grid"]) + " block " + dims(g["block"]), 28)
                                 : std::string()) +
             g["name"].as_string() + "\n";
  }
  return out;
}

std::string counters_table(const json::Value& counters) {
  std::string out = "hardware counters on " + counters["config"].as_string() + ":\n";
  if (counters.contains("error"))
    return out + "  not read: " + counters["error"].as_string() + "\n";
  for (const char* side : {"candidate", "reference"}) {
    const auto& s = counters[side];
    const std::string who = side == std::string("candidate") ? "the kernel" : "eager PyTorch";
    if (s.contains("error")) {
      out += "  " + who + ": not read: " + s["error"].as_string() + "\n";
      continue;
    }
    if (s["kernels"].as_int() == 0 && s.contains("skipped")) {
      out += "  " + who + ": none of its " + std::to_string(s["skipped"].as_int()) +
             " kernel(s) (" + format("%.4f ms", s["skipped_ms"].as_number()) +
             " traced) counted: " + evaluation::skipped_because(s) + "\n";
      continue;
    }
    out += "  " + who + ": " + std::to_string(s["kernels"].as_int()) + " kernel(s), " +
           format("%.4f ms", s["ms"].as_number()) + ", " + std::to_string(s["passes"].as_int()) +
           " counter passes each" +
           (s.contains("dropped") ? ", " + std::to_string(s["dropped"].as_int()) + " not read"
                                  : std::string()) +
           "\n";
    if (s.contains("skipped"))
      out += "    " + std::to_string(s["skipped"].as_int()) + " later kernel(s) (" +
             format("%.4f ms", s["skipped_ms"].as_number()) +
             " traced) not counted: " + evaluation::skipped_because(s) + "\n";
    for (const auto& k : s["top"].as_array()) {
      out +=
          "    " + pad(format("%.4f ms", k["ms"].as_number()), 12) + k["name"].as_string() + "\n";
      const auto& r = k["roofline"];
      std::string line = "occupancy " + format("%.0f%%", k["occupancy_pct"].as_number()) + ", SM " +
                         format("%.0f%%", k["sm_pct"].as_number()) + ", DRAM " +
                         format("%.0f%%", k["dram_pct"].as_number()) + ", L2 " +
                         format("%.0f%%", k["l2_pct"].as_number()) + ", L1 " +
                         format("%.0f%%", k["l1_pct"].as_number()) + ", tensor pipe " +
                         format("%.0f%%", k["tensor_pct"].as_number()) + " of peak; ";
      line += r["bound"].as_string() == "tensor"
                  ? std::string("tensor cores at work")
                  : r["bound"].as_string() + "-bound at " +
                        format("%.0f%%", r["pct_of_roof"].as_number()) + " of the FP32 roofline (" +
                        format("%.3g FLOP/B, ", k["arithmetic_intensity"].as_number()) +
                        format("%.4g GFLOP/s)", k["gflops"].as_number());
      std::string stalls;
      for (const auto& st : k["stalls"].as_array())
        stalls += (stalls.empty() ? "" : ", ") + st["reason"].as_string() + " " +
                  format("%.2g", st["cycles_per_instruction"].as_number());
      out += "                " + line + "\n";
      if (!stalls.empty())
        out += "                warp stalls, cycles per issued instruction: " + stalls + "\n";
    }
  }
  return out;
}

std::string experiments_list_table(const json::Value& experiments) {
  if (experiments.as_array().empty()) return "no experiments\n";
  std::string out = pad("id", 5) + pad("status", 10) + pad("created (UTC)", 18) +
                    pad("candidates", 12) + pad("correct", 9) + "name\n";
  for (const auto& e : experiments.as_array()) {
    char created[32] = "-";
    const auto t = static_cast<std::time_t>(e["created_at"].as_number());
    if (std::tm tm{}; t > 0 && gmtime_r(&t, &tm))
      std::strftime(created, sizeof created, "%Y-%m-%d %H:%M", &tm);
    out += pad(std::to_string(e["id"].as_int()), 5) + pad(e["status"].as_string(), 10) +
           pad(created, 18) + pad(std::to_string(e["candidates"].as_int()), 12) +
           pad(std::to_string(e["correct"].as_int()), 9) + e["name"].as_string() + "\n";
    for (const auto& t : e["targets"].as_array())
      out += "       " + pad(t["target"].as_string(), 40) +
             (t.contains("best_candidate")
                  ? format("best %.2fx", t["best_speedup"].as_number()) + " (candidate " +
                        std::to_string(t["best_candidate"].as_int()) + ", " +
                        t["best_timed"].as_string("search") + ")" +
                        (t["best_speedup"].as_number() < 1
                             ? "; no kernel beat eager PyTorch: keep eager"
                             : "")
              : t.contains("ended") ? t["ended"].as_string()
                                    : std::string("none correct")) +
             "\n";
  }
  return out;
}

}  // namespace kforge::cli
