#include "evaluation/worker_report.hpp"

#include <cstdio>

#include "common/statistics.hpp"

namespace kforge::evaluation {
namespace {

TimingSummary read_timing(const json::Value& v) {
  return {v["median_ms"].as_number(0), v["p10_ms"].as_number(0), v["p90_ms"].as_number(0)};
}

}  // namespace

std::string config_times_text(const std::vector<ConfigReport>& configs) {
  std::string out;
  for (const auto& c : configs) {
    if (!c.timed()) continue;
    char line[256];
    std::snprintf(line, sizeof line, ": %.4g ms (eager %.4g ms, %.3gx", c.kernel.median_ms,
                  c.eager.median_ms, c.speedup);
    out += "- " + c.name + line;
    if (c.copy_bound_ms > 0) {
      std::snprintf(line, sizeof line, "; its bytes at the copy bandwidth %.4g ms",
                    c.copy_bound_ms);
      out += line;
    }
    out += ")\n";
  }
  return out;
}

ConfigReport read_config_report(const json::Value& c) {
  ConfigReport r;
  r.index = static_cast<int32_t>(c["index"].as_int());
  r.name = c["name"].as_string();
  r.correct = c["correct"].as_bool();
  r.max_abs_error = c["max_abs_error"].as_number(0);
  r.max_rel_error = c["max_rel_error"].as_number(0);
  r.kernel = read_timing(c["candidate"]);
  if (r.timed()) {
    r.eager = read_timing(c["reference"]);
    r.speedup = c["speedup"].as_number(0);
    r.compiled_ms = c["compiled_ms"].as_number(0);
    r.speedup_compiled = c["speedup_compiled"].as_number(0);
  }
  r.compiled_unavailable = c["compiled_unavailable"].as_string();
  r.bytes_moved = c["bytes_moved"].as_number(0);
  r.copy_bound_ms = copy_bound_ms(c);
  r.check_seconds = c["check_seconds"].as_number(0);
  r.timing_seconds = c["timing_seconds"].as_number(0);
  r.failure_kind = c["failure"]["kind"].as_string();
  r.failure_message = c["failure"]["message"].as_string();
  r.record_json = c.dump();
  return r;
}

WorkerReport read_worker_report(const json::Value& result) {
  WorkerReport r;
  r.verdict = parse_eval_verdict(result["verdict"].as_string()).value_or(EvalVerdict::error);
  r.failure_kind = result["failure"]["kind"].as_string();
  r.failure_message = result["failure"]["message"].as_string();
  for (const auto& c : result["configs"].as_array()) r.configs.push_back(read_config_report(c));
  for (const auto& f : result["flags"].as_array()) r.flags.push_back(f.as_string());
  r.checked_by_checker = result["checked_by_checker"].as_int();
  return r;
}

WorkerReport WorkerReport::failed(EvalVerdict verdict, std::string kind, std::string message) {
  WorkerReport r;
  r.verdict = verdict;
  r.failure_kind = std::move(kind);
  r.failure_message = std::move(message);
  return r;
}

json::Value WorkerReport::to_json() const {
  json::Value out;
  out.set("verdict", to_string(verdict));
  if (!failure_kind.empty() || !failure_message.empty()) {
    json::Value failure;
    failure.set("kind", failure_kind).set("message", failure_message);
    out.set("failure", std::move(failure));
  }
  json::Value records{json::Array{}};
  for (const auto& c : configs) {
    auto record = json::parse(c.record_json);
    records.push(record ? *std::move(record.value) : json::Value(json::Object{}));
  }
  json::Value flag_list{json::Array{}};
  for (const auto& f : flags) flag_list.push(f);
  out.set("configs", std::move(records)).set("flags", std::move(flag_list));
  if (checked_by_checker > 0) out.set("checked_by_checker", checked_by_checker);
  return out;
}

double speed_of_light_fraction(const std::vector<ConfigReport>& configs) {
  std::vector<BoundedTime> times;
  for (const auto& c : configs)
    times.push_back({c.bytes_moved, c.copy_bound_ms, c.kernel.median_ms});
  return kforge::speed_of_light_fraction(times);
}

}  // namespace kforge::evaluation
