#include "tools/kforge/daemon_api.hpp"

#include <caf/scoped_actor.hpp>

#include <limits>
#include <optional>
#include <regex>

#include "common/numbers.hpp"
#include "messages/errors.hpp"

namespace kforge::cli {
namespace {

using namespace std::chrono_literals;

net::HttpResponse json_response(int status, const json::Value& doc) {
  return {status, "application/json", doc.dump(), {}};
}

net::HttpResponse error_response(int status, const std::string& message) {
  json::Value doc;
  doc.set("error", message);
  return json_response(status, doc);
}

constexpr int64_t kMaxId = std::numeric_limits<int64_t>::max();

/// The value of `key` in a query string ("a=1&experiment=7"), as sent; nullopt without the key.
std::optional<std::string> query_value(const std::string& query, const std::string& key) {
  size_t start = 0;
  while (start <= query.size()) {
    size_t end = query.find('&', start);
    if (end == std::string::npos) end = query.size();
    const std::string part = query.substr(start, end - start);
    if (part.rfind(key + "=", 0) == 0) return part.substr(key.size() + 1);
    if (part == key) return std::string();
    start = end + 1;
  }
  return std::nullopt;
}

/// HTTP status for an actor's error: unknown things are 404, bad input 400, the rest 500.
net::HttpResponse from_error(const caf::error& e) {
  int status = 500;
  if (e.category() == error_category) {
    switch (static_cast<error_code>(e.code())) {
      case error_code::unknown_experiment:
      case error_code::unknown_candidate:
        status = 404;
        break;
      case error_code::bad_config:
        status = 400;
        break;
      case error_code::invalid_request:
        status = 409;
        break;
      default:
        break;
    }
  } else if (e == caf::sec::request_timeout) {
    status = 504;
  }
  return error_response(status, describe(e));
}

json::Value actor_json(const actor_status& a) {
  json::Value v;
  v.set("name", a.name).set("role", a.role).set("queued", a.queued).set("in_flight", a.in_flight);
  v.set("completed", a.completed).set("failed", a.failed).set("busy_seconds", a.busy_seconds);
  v.set("loaded_seconds", a.loaded_seconds).set("uptime_seconds", a.uptime_seconds);
  v.set("current", a.current).set("last_error", a.last_error);
  return v;
}

json::Value experiment_json(const experiment_status& e) {
  json::Value v;
  v.set("id", e.id).set("name", e.name).set("status", e.status).set("proposed", e.proposed);
  v.set("rejected", e.rejected).set("evaluated", e.evaluated).set("correct", e.correct);
  v.set("in_flight", e.in_flight).set("elapsed_seconds", e.elapsed_seconds);
  json::Value targets;
  targets.array();
  for (const auto& t : e.targets) {
    json::Value x;
    x.set("target_key", t.target_key).set("candidates", t.candidates).set("correct", t.correct);
    x.set("best_candidate", t.best_candidate).set("best_speedup", t.best_speedup);
    x.set("best_strategy", t.best_strategy);
    targets.push(x);
  }
  v.set("targets", targets).set("last_error", e.last_error).set("cost_usd", e.cost_usd);
  json::Value models{json::Array{}};
  for (const auto& u : e.models) {
    json::Value x;
    x.set("name", u.name).set("calls", u.calls).set("failures", u.failures).set("cached", u.cached);
    x.set("input_tokens", u.input_tokens).set("output_tokens", u.output_tokens);
    x.set("cost_usd", u.cost_usd);
    models.push(std::move(x));
  }
  v.set("models", std::move(models));
  return v;
}

std::string label(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '"' || c == '\\') out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out;
}

}  // namespace

json::Value state_json(const system_state& s) {
  json::Value doc, actors, experiments;
  actors.array();
  experiments.array();
  for (const auto& a : s.actors) actors.push(actor_json(a));
  for (const auto& e : s.experiments) experiments.push(experiment_json(e));
  doc.set("actors", actors).set("experiments", experiments);
  return doc;
}

json::Value event_json(const event_record& ev) {
  json::Value v;
  v.set("id", ev.id).set("experiment_id", ev.experiment_id).set("time", ev.time);
  v.set("kind", ev.kind);
  auto detail = json::parse(ev.detail_json);
  v.set("detail", detail.value ? *detail.value : json::Value(ev.detail_json));
  return v;
}

std::string prometheus_metrics(const system_state& s) {
  std::string out;
  auto metric = [&](const char* name, const char* type, const char* help) {
    out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
  };
  auto row = [&](const char* name, const std::string& labels, double value) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", value);
    out += std::string(name) + "{" + labels + "} " + buf + "\n";
  };
  struct Field {
    const char* name;
    const char* type;
    const char* help;
    double (*get)(const actor_status&);
  };
  const Field fields[] = {
      {"kforge_actor_queued", "gauge", "Work waiting in the actor's queue.",
       [](const actor_status& a) { return double(a.queued); }},
      {"kforge_actor_in_flight", "gauge", "Work the actor is doing now.",
       [](const actor_status& a) { return double(a.in_flight); }},
      {"kforge_actor_completed_total", "counter", "Work the actor finished.",
       [](const actor_status& a) { return double(a.completed); }},
      {"kforge_actor_failed_total", "counter", "Work that failed in the actor itself.",
       [](const actor_status& a) { return double(a.failed); }},
      {"kforge_actor_busy_seconds_total", "counter", "Slot-seconds spent working.",
       [](const actor_status& a) { return a.busy_seconds; }},
      {"kforge_actor_loaded_seconds_total", "counter", "Seconds with work queued or running.",
       [](const actor_status& a) { return a.loaded_seconds; }},
  };
  for (const auto& f : fields) {
    metric(f.name, f.type, f.help);
    for (const auto& a : s.actors) row(f.name, "actor=\"" + label(a.name) + "\"", f.get(a));
  }
  metric("kforge_experiment_candidates", "gauge", "Candidates of an experiment by outcome.");
  for (const auto& e : s.experiments) {
    std::string id = "experiment=\"" + std::to_string(e.id) + "\"";
    row("kforge_experiment_candidates", id + ",outcome=\"proposed\"", double(e.proposed));
    row("kforge_experiment_candidates", id + ",outcome=\"rejected\"", double(e.rejected));
    row("kforge_experiment_candidates", id + ",outcome=\"evaluated\"", double(e.evaluated));
    row("kforge_experiment_candidates", id + ",outcome=\"correct\"", double(e.correct));
  }
  metric("kforge_experiment_best_speedup", "gauge", "Best geometric-mean speedup over eager.");
  for (const auto& e : s.experiments)
    for (const auto& t : e.targets)
      row("kforge_experiment_best_speedup",
          "experiment=\"" + std::to_string(e.id) + "\",target=\"" + label(t.target_key) + "\"",
          t.best_speedup);
  return out;
}

net::HttpResponse DaemonApi::handle(const net::HttpRequest& req) {
  caf::scoped_actor self{system_};
  net::HttpResponse response = error_response(500, "no answer");
  auto ask = [&](auto... message) { return self->request(gateway_, 30s, message...); };
  auto reply_json_text = [&](std::string& text) { response = {200, "application/json", text, {}}; };
  auto on_error = [&](caf::error& e) { response = from_error(e); };
  static const std::regex experiment_path(R"(^/api/experiments/([^/]+)$)");
  static const std::regex experiment_events(R"(^/api/experiments/([^/]+)/events$)");
  static const std::regex experiment_report(R"(^/api/experiments/([^/]+)/report$)");
  static const std::regex experiment_candidates(R"(^/api/experiments/([^/]+)/candidates$)");
  static const std::regex experiment_command(R"(^/api/experiments/([^/]+)/(pause|resume|stop)$)");
  static const std::regex candidate_path(R"(^/api/candidates/([^/]+)$)");
  std::smatch m;
  const bool get = req.method == "GET", post = req.method == "POST";
  // An id that is not a whole number from 1 to 2^63-1 (letters, too large) is a client error,
  // said as such, not an unknown endpoint.
  int64_t id = 0;
  auto id_in = [&](const std::regex& route) {
    if (!std::regex_match(req.path, m, route)) return false;
    id = parse_integer(m[1].str(), 1, kMaxId).value_or(0);
    return true;
  };
  auto bad_id = [&](const char* what) {
    return error_response(400, integer_error(what, m[1].str(), 1, kMaxId));
  };
  if (req.path == "/api/state" || req.path == "/metrics") {
    if (!get) return error_response(405, "use GET");
    ask(state_atom::value)
        .receive(
            [&](system_state& s) {
              response = req.path == "/metrics" ? net::HttpResponse{200,
                                                                    "text/plain; version=0.0.4",
                                                                    prometheus_metrics(s),
                                                                    {}}
                                                : json_response(200, state_json(s));
            },
            on_error);
  } else if (req.path == "/api/experiments") {
    if (get) {
      ask(query_atom::value, query_request{"experiments", 0}).receive(reply_json_text, on_error);
    } else if (post) {
      ask(submit_atom::value, req.body)
          .receive(
              [&](int64_t id) {
                json::Value doc;
                doc.set("id", id);
                response = json_response(201, doc);
              },
              on_error);
    } else {
      return error_response(405, "use GET or POST");
    }
  } else if (id_in(experiment_path)) {
    if (!get) return error_response(405, "use GET");
    if (!id) return bad_id("the experiment id");
    ask(query_atom::value, query_request{"experiment", id}).receive(reply_json_text, on_error);
  } else if (id_in(experiment_events)) {
    if (!get) return error_response(405, "use GET");
    if (!id) return bad_id("the experiment id");
    ask(query_atom::value, query_request{"history", id}).receive(reply_json_text, on_error);
  } else if (id_in(experiment_report)) {
    if (!get) return error_response(405, "use GET");
    if (!id) return bad_id("the experiment id");
    ask(query_atom::value, query_request{"report", id}).receive(reply_json_text, on_error);
  } else if (id_in(experiment_candidates)) {
    if (!get) return error_response(405, "use GET");
    if (!id) return bad_id("the experiment id");
    ask(query_atom::value, query_request{"candidates", id}).receive(reply_json_text, on_error);
  } else if (id_in(experiment_command)) {
    if (!post) return error_response(405, "use POST");
    if (!id) return bad_id("the experiment id");
    auto ok = [&] { response = json_response(200, json::Value(json::Object{})); };
    if (m[2] == "pause")
      ask(pause_atom::value, id).receive(ok, on_error);
    else if (m[2] == "resume")
      ask(resume_atom::value, id).receive(ok, on_error);
    else
      ask(stop_atom::value, id).receive(ok, on_error);
  } else if (id_in(candidate_path)) {
    if (!get) return error_response(405, "use GET");
    if (!id) return bad_id("the candidate id");
    ask(query_atom::value, query_request{"candidate", id}).receive(reply_json_text, on_error);
  } else {
    return error_response(404, "no such endpoint: " + req.path);
  }
  return response;
}

net::HttpResponse DaemonApi::admit_events(const net::HttpRequest& req) {
  if (req.path != "/api/events")
    return error_response(
        404, "WebSocket upgrades are served on /api/events only, not " + req.path.substr(0, 80));
  if (auto filter = query_value(req.query, "experiment");
      filter && !parse_integer(*filter, 1, kMaxId))
    return error_response(400, integer_error("the experiment filter", *filter, 1, kMaxId));
  return {0, "", "", {}};
}

void DaemonApi::stream_events(const net::HttpRequest& req, net::WebSocketChannel& channel,
                              const std::atomic<bool>& stopping) {
  // admit_events has read the filter already.
  int64_t only = 0;
  if (auto filter = query_value(req.query, "experiment"))
    only = parse_integer(*filter, 1, kMaxId).value_or(0);
  caf::scoped_actor self{system_};
  self->send(gateway_, subscribe_atom::value, caf::actor_cast<caf::actor>(self));
  bool alive = channel.send("{\"kind\":\"subscribed\"}");
  auto last_ping = std::chrono::steady_clock::now();
  while (alive && !stopping) {
    self->receive(
        [&](event_atom, event_record& ev) {
          if (!only || ev.experiment_id == only) alive = channel.send(event_json(ev).dump());
        },
        caf::after(std::chrono::milliseconds(500)) >>
            [&] {
              if (std::chrono::steady_clock::now() - last_ping > 5s) {
                alive = channel.ping();
                last_ping = std::chrono::steady_clock::now();
              }
            });
  }
}

}  // namespace kforge::cli
