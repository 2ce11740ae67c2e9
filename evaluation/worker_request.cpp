#include "evaluation/worker_request.hpp"

#include <cstdlib>

namespace kforge::evaluation {

json::Value WorkerRequest::to_json() const {
  json::Value r;
  r.set("export_dir", export_dir).set("library", library).set("direction", direction);
  r.set("function", function.empty() ? direction : function).set("mode", mode);
  if (!configs.empty()) {
    json::Array list;
    for (int64_t c : configs) list.emplace_back(c);
    r.set("configs", json::Value(std::move(list)));
  }
  // As decimal text: the JSON document keeps numbers as doubles, exact only up to 2^53, and
  // experiment seeds use all 64 bits.
  r.set("seeds", seeds).set("seed", std::to_string(seed));
  r.set("library_calls", std::string(to_string(library_calls))).set("speedup_flag", speedup_flag);
  r.set("call_timeout_s", call_timeout_s).set("time", time);
  r.set("stop_on_failure", stop_on_failure);
  if (atol) r.set("atol", *atol);
  if (rtol) r.set("rtol", *rtol);
  if (!compiled_dir.empty()) r.set("compiled_dir", compiled_dir);
  if (!compiled_unavailable.empty()) r.set("compiled_unavailable", compiled_unavailable);
  if (!outputs_dir.empty()) r.set("outputs_dir", outputs_dir);
  if (trace) r.set("trace", true);
  if (counters) r.set("counters", true).set("counters_budget_s", counters_budget_s);
  json::Value t(json::Object{});
  if (timing.min_reps) t.set("min_reps", *timing.min_reps);
  if (timing.max_reps) t.set("max_reps", *timing.max_reps);
  if (timing.target_batch_ms) t.set("target_batch_ms", *timing.target_batch_ms);
  if (timing.max_seconds) t.set("max_seconds", *timing.max_seconds);
  if (timing.refill_max_bytes) t.set("refill_max_bytes", *timing.refill_max_bytes);
  r.set("timing", t);
  return r;
}

WorkerRequest WorkerRequest::from_json(const json::Value& doc) {
  WorkerRequest r;
  r.export_dir = doc["export_dir"].as_string();
  r.library = doc["library"].as_string();
  r.direction = doc["direction"].as_string(r.direction);
  r.function = doc["function"].as_string(r.direction);
  r.mode = doc["mode"].as_string(r.mode);
  for (const auto& c : doc["configs"].as_array()) r.configs.push_back(c.as_int());
  r.seeds = static_cast<int>(doc["seeds"].as_int(r.seeds));
  if (const auto& s = doc["seed"]; s.is_string())
    r.seed = std::strtoull(s.as_string().c_str(), nullptr, 10);
  else
    r.seed = static_cast<uint64_t>(s.as_int(0));
  // kforge writes the request; a word it does not know reads as the strictest policy.
  if (doc.contains("library_calls"))
    r.library_calls =
        parse_library_policy(doc["library_calls"].as_string()).value_or(LibraryPolicy::forbid);
  r.speedup_flag = doc["speedup_flag"].as_number(r.speedup_flag);
  r.call_timeout_s = doc["call_timeout_s"].as_number(r.call_timeout_s);
  r.time = doc["time"].as_bool(r.time);
  r.stop_on_failure = doc["stop_on_failure"].as_bool(r.stop_on_failure);
  if (doc.contains("atol")) r.atol = doc["atol"].as_number();
  if (doc.contains("rtol")) r.rtol = doc["rtol"].as_number();
  r.compiled_dir = doc["compiled_dir"].as_string();
  r.compiled_unavailable = doc["compiled_unavailable"].as_string();
  r.outputs_dir = doc["outputs_dir"].as_string();
  r.trace = doc["trace"].as_bool(false);
  r.counters = doc["counters"].as_bool(false);
  r.counters_budget_s = doc["counters_budget_s"].as_number(r.counters_budget_s);
  const auto& t = doc["timing"];
  if (t.contains("min_reps")) r.timing.min_reps = static_cast<int>(t["min_reps"].as_int());
  if (t.contains("max_reps")) r.timing.max_reps = static_cast<int>(t["max_reps"].as_int());
  if (t.contains("target_batch_ms")) r.timing.target_batch_ms = t["target_batch_ms"].as_number();
  if (t.contains("max_seconds")) r.timing.max_seconds = t["max_seconds"].as_number();
  if (t.contains("refill_max_bytes")) r.timing.refill_max_bytes = t["refill_max_bytes"].as_number();
  return r;
}

}  // namespace kforge::evaluation
