#include "search/experiment_spec.hpp"

#include <algorithm>
#include <set>

#include "common/llm_model_rules.hpp"

namespace kforge::search {
namespace {

bool one_of(const std::string& v, std::initializer_list<const char*> allowed) {
  return std::any_of(allowed.begin(), allowed.end(), [&](const char* a) { return v == a; });
}

std::string allowed_list(std::initializer_list<const char*> allowed) {
  std::string out;
  for (const char* a : allowed) out += (out.empty() ? "" : ", ") + std::string(a);
  return out;
}

/// Reads members of one object, reporting unknown keys and wrong types with their path.
class Reader {
 public:
  Reader(const json::Value& object, std::string path, std::vector<std::string>& errors)
      : object_(object), path_(std::move(path)), errors_(errors) {
    if (!object.is_object() && !object.is_null()) errors_.push_back(path_ + " must be an object");
  }
  ~Reader() {
    for (const auto& [key, value] : object_.as_object())
      if (!known_.count(key)) errors_.push_back(path_ + "." + key + " is not a known setting");
  }
  const json::Value* get(const std::string& key) {
    known_.insert(key);
    return object_.contains(key) ? &object_[key] : nullptr;
  }
  void string(const std::string& key, std::string& out,
              std::initializer_list<const char*> allowed = {}) {
    auto v = get(key);
    if (!v) return;
    if (!v->is_string()) return error(key, "must be a string");
    if (allowed.size() && !one_of(v->as_string(), allowed))
      return error(key,
                   "must be one of " + allowed_list(allowed) + ", not \"" + v->as_string() + "\"");
    out = v->as_string();
  }
  /// One of an enum's words (`parse` reads them; `words` lists them for the message).
  template <class Enum, class Parse>
  void choice(const std::string& key, Enum& out, Parse parse,
              std::initializer_list<const char*> words) {
    std::string given;
    string(key, given, words);
    if (given.empty()) return;
    if (auto parsed = parse(given)) out = *parsed;
  }
  /// A name people read in tables, logs and terminals: a string without control characters (a
  /// NUL would cut it short in C strings, a newline or an escape forge lines on a terminal).
  void name(const std::string& key, std::string& out) {
    std::string given = out;
    string(key, given);
    for (unsigned char c : given)
      if (c < 0x20 || c == 0x7f)
        return error(key, "must not hold control characters (a NUL, a newline, an escape)");
    out = given;
  }
  template <class Int>
  void integer(const std::string& key, Int& out, double min, double max) {
    auto v = get(key);
    if (!v) return;
    double d = v->as_number(-1e300);
    if (!v->is_number() || d != static_cast<double>(static_cast<int64_t>(d)))
      return error(key, "must be an integer");
    if (d < min || d > max)
      return error(key, "must be between " + std::to_string(static_cast<int64_t>(min)) + " and " +
                            std::to_string(static_cast<int64_t>(max)));
    out = static_cast<Int>(d);
  }
  void boolean(const std::string& key, bool& out) {
    auto v = get(key);
    if (!v) return;
    if (!v->is_bool()) return error(key, "must be true or false");
    out = v->as_bool(false);
  }
  void number(const std::string& key, double& out, double min) {
    auto v = get(key);
    if (!v) return;
    if (!v->is_number() || v->as_number() < min)
      return error(key, "must be a number of at least " + std::to_string(min));
    out = v->as_number();
  }
  void strings(const std::string& key, std::vector<std::string>& out,
               std::initializer_list<const char*> allowed = {}) {
    auto v = get(key);
    if (!v) return;
    if (v->is_string()) {
      out = {v->as_string()};
    } else if (v->is_array() && !v->as_array().empty()) {
      out.clear();
      for (const auto& item : v->as_array()) {
        if (!item.is_string()) return error(key, "must be a list of strings");
        out.push_back(item.as_string());
      }
    } else {
      return error(key, "must be a string or a non-empty list of strings");
    }
    for (const auto& s : out)
      if (allowed.size() && !one_of(s, allowed))
        return error(key, "entries must be among " + allowed_list(allowed) + ", not \"" + s + "\"");
  }
  void error(const std::string& key, const std::string& what) {
    errors_.push_back(path_ + "." + key + " " + what);
  }
  const std::string& path() const { return path_; }

 private:
  const json::Value& object_;
  std::string path_;
  std::vector<std::string>& errors_;
  std::set<std::string> known_;
};

void read_model(Reader& r, ModelSpec& m) {
  r.string("provider", m.provider, {"openai", "anthropic", "gemini"});
  if (m.provider.empty()) r.error("provider", "is required: openai, anthropic or gemini");
  r.string("base_url", m.base_url);
  if (!m.base_url.empty() && m.base_url.rfind("http://", 0) != 0 &&
      m.base_url.rfind("https://", 0) != 0)
    r.error("base_url", "must start with http:// or https://");
  r.string("model", m.model);
  if (m.model.empty()) r.error("model", "is required");
  r.string("api_key_env", m.api_key_env);
  r.string("key_file", m.key_file);
  r.string("ca_file", m.ca_file);
  r.number("temperature", m.temperature, 0);
  r.number("top_p", m.top_p, 0);
  r.integer("max_tokens", m.max_tokens, 16, 1e7);
  r.string("reasoning_effort", m.reasoning_effort, {"minimal", "low", "medium", "high"});
  r.integer("thinking_budget", m.thinking_budget, 0, 1e7);
  if (auto v = r.get("stream")) {
    if (!v->is_bool()) r.error("stream", "must be true or false");
    m.stream = v->as_bool(true);
  }
  r.integer("max_concurrency", m.max_concurrency, 1, 1024);
  r.integer("max_attempts", m.max_attempts, 1, 100);
  r.number("timeout_seconds", m.timeout_seconds, 1);
  r.number("idle_timeout_seconds", m.idle_timeout_seconds, 0.1);
  r.number("input_per_mtok", m.input_per_mtok, 0);
  r.number("output_per_mtok", m.output_per_mtok, 0);
  r.number("cached_input_per_mtok", m.cached_input_per_mtok, 0);
  r.number("cache_write_per_mtok", m.cache_write_per_mtok, 0);
  if ((m.input_per_mtok < 0) != (m.output_per_mtok < 0))
    r.error("input_per_mtok", "and output_per_mtok go together");
  if (m.input_per_mtok < 0 && (m.cached_input_per_mtok >= 0 || m.cache_write_per_mtok >= 0))
    r.error("cached_input_per_mtok",
            "and cache_write_per_mtok need input_per_mtok and output_per_mtok beside them");
  // A setting the service refuses would fail every call with a 400: named now instead.
  for (const auto& refused : llm_rules::refused_settings(
           {m.provider, m.model, m.temperature, m.top_p, m.max_tokens, m.reasoning_effort,
            m.thinking_budget}))
    r.error(refused.setting, refused.why);
}

}  // namespace

bool ExperimentSpec::uses_llm() const {
  if (!verifiers.empty()) return true;
  return std::any_of(proposers.begin(), proposers.end(),
                     [](const ProposerSpec& p) { return p.kind == "llm"; });
}

json::Value ModelSpec::to_json() const {
  // Unset values are left out, so that the text parses back to the same settings.
  json::Value o;
  auto text = [&](const char* key, const std::string& v) {
    if (!v.empty()) o.set(key, v);
  };
  text("provider", provider);
  text("base_url", base_url);
  text("model", model);
  text("api_key_env", api_key_env);
  text("key_file", key_file);
  text("ca_file", ca_file);
  if (temperature >= 0) o.set("temperature", temperature);
  if (top_p >= 0) o.set("top_p", top_p);
  if (max_tokens > 0) o.set("max_tokens", max_tokens);
  text("reasoning_effort", reasoning_effort);
  if (thinking_budget > 0) o.set("thinking_budget", thinking_budget);
  o.set("stream", stream).set("max_concurrency", max_concurrency);
  o.set("max_attempts", max_attempts).set("timeout_seconds", timeout_seconds);
  if (idle_timeout_seconds >= 0) o.set("idle_timeout_seconds", idle_timeout_seconds);
  if (input_per_mtok >= 0)
    o.set("input_per_mtok", input_per_mtok).set("output_per_mtok", output_per_mtok);
  if (cached_input_per_mtok >= 0) o.set("cached_input_per_mtok", cached_input_per_mtok);
  if (cache_write_per_mtok >= 0) o.set("cache_write_per_mtok", cache_write_per_mtok);
  return o;
}

std::string SpecParse::error_text() const {
  std::string out;
  for (const auto& e : errors) out += e + "\n";
  return out;
}

SpecParse parse_experiment_spec(std::string_view json_text) {
  auto parsed = json::parse(json_text);
  if (!parsed.value) {
    SpecParse p;
    p.errors.push_back("the configuration is not JSON: " + parsed.error);
    return p;
  }
  return parse_experiment_doc(*parsed.value);
}

namespace {

/// config.proposers: the ensemble; a "files" proposer must be alone.
void read_proposers(const json::Value& list, Reader& r, ExperimentSpec& s,
                    std::vector<std::string>& errors) {
  if (!list.is_array() || list.as_array().empty()) {
    r.error("proposers", "must be a non-empty list");
  } else {
    s.proposers.clear();
    for (size_t i = 0; i < list.as_array().size(); ++i) {
      Reader pr(list[i], "config.proposers[" + std::to_string(i) + "]", errors);
      ProposerSpec ps;
      pr.string("kind", ps.kind, {"builtin", "llm", "files"});
      pr.name("name", ps.name);
      pr.number("weight", ps.weight, 0);
      if (ps.kind == "llm") read_model(pr, ps.llm);
      if (ps.kind == "files") {
        pr.string("pattern", ps.pattern);
        if (ps.pattern.empty())
          pr.error("pattern",
                   "is required: a glob of the kernel files, e.g. "
                   "\"{task}/kernels/*.cu\"");
      }
      if (ps.name.empty()) ps.name = ps.kind == "llm" ? ps.llm.model : ps.kind;
      for (const auto& other : s.proposers)
        if (other.name == ps.name)
          pr.error("name", "\"" + ps.name + "\" is already the name of another proposer");
      s.proposers.push_back(ps);
    }
    const bool files = std::any_of(s.proposers.begin(), s.proposers.end(),
                                   [](const auto& p) { return p.kind == "files"; });
    if (files && s.proposers.size() > 1)
      r.error("proposers", "a \"files\" proposer evaluates given kernels and must be alone");
  }
}

/// config.verifiers: the LLM verifiers, the checks they judge and the audited share.
void read_verifiers(const json::Value& config, ExperimentSpec& s, std::vector<std::string>& errors) {
  Reader vr(config, "config.verifiers", errors);
  if (auto list = vr.get("llm")) {
    if (!list->is_array()) vr.error("llm", "must be a list of models");
    for (size_t i = 0; i < list->as_array().size(); ++i) {
      Reader mr((*list)[i], "config.verifiers.llm[" + std::to_string(i) + "]", errors);
      VerifierSpec vs;
      mr.name("name", vs.name);
      read_model(mr, vs.llm);
      if (vs.name.empty()) vs.name = vs.llm.model;
      for (const auto& other : s.verifiers)
        if (other.name == vs.name)
          mr.error("name", "\"" + vs.name + "\" is already the name of another verifier");
      s.verifiers.push_back(vs);
    }
  }
  vr.strings("checks", s.verifier_checks, {"compilation", "memory_safety", "numerics"});
  vr.number("audit_fraction", s.audit_fraction, 0);
  if (s.audit_fraction > 1) vr.error("audit_fraction", "must be between 0 and 1");
}

/// config.budget, config.policy and config.evaluation.
void read_limits(Reader& r, ExperimentSpec& s, std::vector<std::string>& errors) {
  if (auto v = r.get("budget")) {
    Reader br(*v, "config.budget", errors);
    br.integer("candidates_per_target", s.candidates_per_target, 1, 1e6);
    br.number("wall_seconds", s.wall_seconds, 0);
    br.number("money_usd", s.money_usd, 0);
    if (auto sol = br.get("speed_of_light")) {
      Reader lr(*sol, "config.budget.speed_of_light", errors);
      lr.number("fraction", s.speed_of_light_fraction, 0);
      lr.number("share", s.speed_of_light_share, 0);
      if (s.speed_of_light_fraction > 1) lr.error("fraction", "must be between 0 and 1");
      if (s.speed_of_light_share > 1) lr.error("share", "must be between 0 and 1");
    }
  }
  if (auto v = r.get("policy")) {
    Reader pr(*v, "config.policy", errors);
    pr.choice("library_calls", s.library_calls, parse_library_policy, {"allow", "flag", "forbid"});
    pr.integer("max_source_bytes", s.max_source_bytes, 1024, kLargestMaxSourceBytes);
  }
  if (auto v = r.get("evaluation")) {
    Reader er(*v, "config.evaluation", errors);
    er.integer("seeds", s.seeds, 1, 100);
    er.number("timing_seconds", s.timing_seconds, 0.01);
    er.number("counters_budget_s", s.counters_budget_s, 0);
    er.integer("confirm_top", s.confirm_top, 0, 16);
    er.string("compiled_baseline", s.compiled_baseline, {"off", "default", "max-autotune"});
    er.choice("headers", s.headers, parse_headers, {"auto", "light", "full"});
  }
}

/// config.search: parents, pipeline, islands, novelty, strategies, profile advice and
/// meta-generation (the models they name must be LLMs of the ensemble, read before).
void read_search(const json::Value& config, ExperimentSpec& s, std::vector<std::string>& errors) {
  Reader sr(config, "config.search", errors);
  sr.string("parent_selection", s.parent_selection, {"uniform", "tournament"});
  sr.integer("tournament_size", s.tournament_size, 2, 64);
  sr.integer("pipeline_depth", s.pipeline_depth, 1, 1024);
  sr.integer("proposals_in_flight", s.proposals_in_flight, 1, 256);
  sr.number("fix_probability", s.fix_probability, 0);
  if (s.fix_probability > 1) sr.error("fix_probability", "must be between 0 and 1");
  sr.integer("context_size", s.context_size, 0, 32);
  sr.boolean("translate_with_builtin", s.translate_with_builtin);
  sr.integer("abandon_after_compile_failures", s.abandon_after_compile_failures, 0, 100000);
  if (auto islands = sr.get("islands")) {
    Reader ir(*islands, "config.search.islands", errors);
    ir.integer("count", s.islands, 1, 64);
    ir.integer("migration_interval", s.migration_interval, 0, 1000000);
    ir.integer("migration_size", s.migration_size, 1, 64);
  }
  sr.string("novelty", s.novelty, {"normalised", "off"});
  sr.string("strategy_policy", s.strategy_policy, {"bandit", "uniform"});
  if (auto advice = sr.get("profile_advice")) {
    Reader ar(*advice, "config.search.profile_advice", errors);
    ar.string("model", s.advice_model);
    ar.integer("count", s.advice_count, 1, 16);
    if (std::none_of(s.proposers.begin(), s.proposers.end(), [&](const ProposerSpec& p) {
          return p.kind == "llm" && p.name == s.advice_model;
        }))
      ar.error("model", "\"" + s.advice_model + "\" is not an LLM of the ensemble");
  }
  if (auto meta = sr.get("meta_generation")) {
    Reader mr(*meta, "config.search.meta_generation", errors);
    mr.integer("every", s.meta_every, 0, 1000000);
    mr.integer("count", s.meta_count, 1, 16);
    mr.string("model", s.meta_model);
    if (!s.meta_model.empty() &&
        std::none_of(s.proposers.begin(), s.proposers.end(), [&](const ProposerSpec& p) {
          return p.kind == "llm" && p.name == s.meta_model;
        }))
      mr.error("model", "\"" + s.meta_model + "\" is not an LLM of the ensemble");
  }
}

}  // namespace

SpecParse parse_experiment_doc(const json::Value& doc) {
  SpecParse p;
  ExperimentSpec& s = p.spec;
  auto& errors = p.errors;
  if (!doc.is_object()) {
    errors.push_back("the configuration must be a JSON object");
    return p;
  }
  {
    Reader r(doc, "config", errors);
    r.name("name", s.name);
    if (auto v = r.get("seed")) {
      // Any unsigned 64-bit integer, kept exact (a run's JSON gives it back as it was given).
      if (!v->is_integer() || (v->as_int(0) < 0))
        r.error("seed", "must be a non-negative integer (at most 2^64-1)");
      else
        s.seed = v->as_uint();
    } else {
      errors.push_back("config.seed is required: one seed makes a run reproducible");
    }
    r.strings("tasks", s.tasks);
    if (s.tasks.empty()) errors.push_back("config.tasks is required: a list of task folders");
    r.strings("directions", s.directions, {"forward", "backward"});
    r.integer("replay_of", s.replay_of, 0, 9e15);
    r.boolean("offline", s.offline);
    r.strings("backends", s.backends, {"cpu", "cuda", "auto"});
    r.string("config_set", s.config_set, {"single", "multi", "auto"});
    if (auto v = r.get("proposers")) read_proposers(*v, r, s, errors);
    if (auto v = r.get("ensemble")) {
      Reader er(*v, "config.ensemble", errors);
      er.string("policy", s.ensemble_policy, {"bandit", "fixed", "uniform"});
    }
    if (auto v = r.get("verifiers")) read_verifiers(*v, s, errors);
    read_limits(r, s, errors);
    if (auto v = r.get("search")) read_search(*v, s, errors);
  }
  if (s.name.empty() && !s.tasks.empty()) {
    std::string first = s.tasks.front();
    while (!first.empty() && first.back() == '/') first.pop_back();
    s.name = first.substr(first.find_last_of('/') + 1);
  }
  return p;
}

json::Value ExperimentSpec::to_json() const {
  auto list = [](const std::vector<std::string>& v) {
    json::Value a;
    a.array();
    for (const auto& s : v) a.push(s);
    return a;
  };
  json::Value doc;
  doc.set("name", name).set("seed", seed).set("tasks", list(tasks));
  doc.set("directions", list(directions)).set("backends", list(backends));
  doc.set("config_set", config_set);
  json::Value ps;
  ps.array();
  for (const auto& p : proposers) {
    json::Value o;
    o.set("kind", p.kind).set("name", p.name);
    o.set("weight", p.weight);
    if (p.kind == "files") o.set("pattern", p.pattern);
    if (p.kind == "llm") {
      auto model = p.llm.to_json();
      for (auto& [key, value] : model.object()) o.set(key, value);
    }
    ps.push(o);
  }
  doc.set("proposers", ps);
  json::Value ensemble;
  ensemble.set("policy", ensemble_policy);
  doc.set("ensemble", ensemble);
  json::Value verifying, models;
  models.array();
  for (const auto& v : verifiers) {
    json::Value o;
    o.set("name", v.name);
    auto model = v.llm.to_json();
    for (auto& [key, value] : model.object()) o.set(key, value);
    models.push(o);
  }
  verifying.set("llm", models).set("checks", list(verifier_checks));
  verifying.set("audit_fraction", audit_fraction);
  doc.set("verifiers", verifying);
  json::Value budget, policy, evaluation, search;
  budget.set("candidates_per_target", candidates_per_target)
      .set("wall_seconds", wall_seconds)
      .set("money_usd", money_usd);
  // Settings added later are written only where they differ from their defaults, so that the
  // configurations of earlier runs keep their canonical form (an offline replay finds its run).
  if (speed_of_light_fraction > 0) {
    json::Value sol;
    sol.set("fraction", speed_of_light_fraction).set("share", speed_of_light_share);
    budget.set("speed_of_light", sol);
  }
  policy.set("library_calls", std::string(to_string(library_calls)))
      .set("max_source_bytes", max_source_bytes);
  evaluation.set("seeds", seeds).set("timing_seconds", timing_seconds);
  if (compiled_baseline != "off") evaluation.set("compiled_baseline", compiled_baseline);
  if (headers != Headers::automatic) evaluation.set("headers", std::string(to_string(headers)));
  if (confirm_top != 2) evaluation.set("confirm_top", confirm_top);
  if (counters_budget_s != kDefaultCountersBudgetSeconds) evaluation.set("counters_budget_s", counters_budget_s);
  search.set("parent_selection", parent_selection)
      .set("tournament_size", tournament_size)
      .set("pipeline_depth", pipeline_depth)
      .set("proposals_in_flight", proposals_in_flight)
      .set("fix_probability", fix_probability)
      .set("translate_with_builtin", translate_with_builtin)
      .set("context_size", context_size)
      .set("abandon_after_compile_failures", abandon_after_compile_failures);
  if (islands > 1) {
    json::Value structure;
    structure.set("count", islands)
        .set("migration_interval", migration_interval)
        .set("migration_size", migration_size);
    search.set("islands", structure);
  }
  if (novelty != "normalised") search.set("novelty", novelty);
  if (strategy_policy != "bandit") search.set("strategy_policy", strategy_policy);
  if (!advice_model.empty()) {
    json::Value advice;
    advice.set("model", advice_model).set("count", advice_count);
    search.set("profile_advice", advice);
  }
  if (meta_every > 0) {
    json::Value meta;
    meta.set("every", meta_every).set("count", meta_count);
    if (!meta_model.empty()) meta.set("model", meta_model);
    search.set("meta_generation", meta);
  }
  doc.set("budget", budget).set("policy", policy).set("evaluation", evaluation);
  doc.set("search", search);
  if (replay_of) doc.set("replay_of", replay_of);
  if (offline) doc.set("offline", true);
  return doc;
}

}  // namespace kforge::search
