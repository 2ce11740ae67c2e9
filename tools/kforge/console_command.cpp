#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <deque>
#include <filesystem>
#include <iostream>
#include <limits>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

#include "common/json.hpp"
#include "common/numbers.hpp"
#include "evaluation/hashing.hpp"
#include "messages/events.hpp"
#include "net/http_client.hpp"
#include "tools/kforge/actor_host.hpp"
#include "tools/kforge/command_line.hpp"
#include "tools/kforge/console_input.hpp"
#include "tools/kforge/daemon_command.hpp"
#include "tools/kforge/event_lines.hpp"
#include "tools/kforge/tables.hpp"
#include "tools/kforge/tokens.hpp"

namespace kforge::cli {
namespace {

constexpr const char* kConsoleCommands =
    "commands (without one: an interactive console that prints live events and reads commands):\n"
    "  state [--json]            every actor (queue, in flight, throughput, busy, last error) and\n"
    "                            every experiment with its best speedups\n"
    "  watch [--interval S]      the state, redrawn every S seconds (default 2), with live events\n"
    "  events [--experiment ID]  live events, one line each, until interrupted\n"
    "  experiments               the archive's experiments\n"
    "  experiment ID             one experiment and its best kernel per target\n"
    "  submit FILE               start an experiment from a configuration file\n"
    "  pause ID | resume ID | stop ID\n"
    "  show CANDIDATE [--no-source] [--json]\n"
    "  dashboard                 the address that opens the web dashboard signed in (also\n"
    "                            `kforge dashboard`): the token follows `#`, which a browser\n"
    "                            never sends, so it is in no request and no log\n"
    "  help                      this text (in the interactive console: the commands)\n"
    "exit status: 0 done, 1 the daemon refused (the message says why), 2 usage or no daemon\n";

struct Connection {
  uint16_t port = 0;
  std::string token;
};

bool connect_info(const std::string& state_dir, unsigned port, const std::string& token_file,
                  Connection& c, std::string& error) {
  if (port) {
    c.port = static_cast<uint16_t>(port);
  } else {
    auto info = json::parse_file(state_dir + "/daemon.json");
    if (!info.value) {
      error = "no daemon runs on " + state_dir + " (" + state_dir +
              "/daemon.json is missing); start one with `kforge daemon`";
      return false;
    }
    c.port = static_cast<uint16_t>((*info.value)["port"].as_int());
  }
  auto token = read_token_file(token_file.empty() ? state_dir + "/token" : token_file);
  if (!token) {
    error = token.error;
    return false;
  }
  c.token = *token;
  return true;
}

/// One API call; prints the daemon's error and returns false when it refused.
bool call(const Connection& c, const std::string& method, const std::string& target,
          json::Value& out, const std::string& body = {}) {
  auto r = net::http_call("127.0.0.1", c.port, method, target, c.token, body);
  if (r.status == 0) {
    std::cerr << "kforge console: " << r.error << "\n";
    return false;
  }
  auto doc = json::parse(r.body);
  out = doc.value ? *doc.value : json::Value(r.body);
  if (r.status >= 300) {
    std::cerr << "kforge console: the daemon answered " << r.status << ": "
              << (out["error"].is_string() ? out["error"].as_string() : r.body) << "\n";
    return false;
  }
  return true;
}

/// Task folders given relative to the console's directory become absolute before the daemon,
/// which may run elsewhere, sees them.
std::string absolute_tasks(const std::string& config_text) {
  auto doc = json::parse(config_text);
  if (!doc.value || !(*doc.value)["tasks"].is_array()) return config_text;
  json::Value tasks;
  tasks.array();
  for (const auto& t : (*doc.value)["tasks"].as_array()) {
    std::error_code ec;
    std::filesystem::path p(t.as_string());
    if (p.is_relative() && std::filesystem::exists(p, ec))
      tasks.push(std::filesystem::absolute(p, ec).lexically_normal().string());
    else
      tasks.push(t);
  }
  json::Value copy = *doc.value;
  copy.set("tasks", tasks);
  return copy.dump();
}

std::string event_line(const std::string& text) {
  auto ev = json::parse(text);
  if (!ev.value) return text;
  const auto& e = *ev.value;
  if (e["kind"].as_string() == "subscribed") return {};
  return "[experiment " + std::to_string(e["experiment_id"].as_int()) + "] " +
         describe_event(e["kind"].as_string(), e["detail"]);
}

/// Runs one command; returns the exit status.
int command(const Connection& c, const std::vector<std::string>& words) {
  const std::string& verb = words[0];
  auto arg = [&](size_t i) { return i < words.size() ? words[i] : std::string(); };
  auto has = [&](const char* flag) {
    return std::find(words.begin(), words.end(), flag) != words.end();
  };
  if (verb == "help") {
    std::cout << kConsoleCommands;
    return 0;
  }
  json::Value doc;
  if (verb == "dashboard") {
    if (!call(c, "GET", "/api/state", doc)) return 1;  // the daemon is there and takes the token
    std::cout << "http://127.0.0.1:" << c.port << "/#token=" << c.token << "\n"
              << "  (open it in a browser on this machine; the page moves the token out of the "
                 "address at once, and the part after # is never sent to the daemon)\n";
    return 0;
  }
  // An id goes into a URL path: it must be a whole number first.
  const bool takes_id = verb == "experiment" || verb == "pause" || verb == "resume" ||
                        verb == "stop" || verb == "show";
  constexpr int64_t kMaxId = std::numeric_limits<int64_t>::max();
  if (takes_id && !arg(1).empty() && !parse_integer(arg(1), 1, kMaxId)) {
    std::cerr << "kforge console: "
              << integer_error(verb == "show" ? "the candidate id" : "the experiment id", arg(1), 1,
                               kMaxId)
              << "\n";
    return 2;
  }
  if (verb == "state") {
    if (!call(c, "GET", "/api/state", doc)) return 1;
    std::cout << (has("--json") ? doc.dump() + "\n" : state_table(doc));
    return 0;
  }
  if (verb == "experiments") {
    if (!call(c, "GET", "/api/experiments", doc)) return 1;
    for (const auto& e : doc.as_array())
      std::cout << pad(std::to_string(e["id"].as_int()), 5) << pad(e["name"].as_string(), 30)
                << pad(e["status"].as_string(), 10) << "seed " << e["seed"].as_int() << "\n";
    return 0;
  }
  if (verb == "experiment" && !arg(1).empty()) {
    if (!call(c, "GET", "/api/experiments/" + arg(1), doc)) return 1;
    std::cout << "experiment " << doc["id"].as_int() << " \"" << doc["name"].as_string() << "\" "
              << doc["status"].as_string() << ": " << doc["candidates"].as_int() << " candidates, "
              << doc["correct"].as_int() << " correct\n"
              << experiment_table(doc);
    return 0;
  }
  if (verb == "submit" && !arg(1).empty()) {
    auto text = evaluation::read_file(arg(1));
    if (!text.ok) {
      std::cerr << "kforge console: cannot read " << arg(1) << ": " << text.error << "\n";
      return 2;
    }
    if (!call(c, "POST", "/api/experiments", doc, absolute_tasks(text.text))) return 1;
    std::cout << "experiment " << doc["id"].as_int() << " started\n";
    return 0;
  }
  if ((verb == "pause" || verb == "resume" || verb == "stop") && !arg(1).empty()) {
    if (!call(c, "POST", "/api/experiments/" + arg(1) + "/" + verb, doc)) return 1;
    std::cout << "experiment " << arg(1) << ": " << verb << " sent\n";
    return 0;
  }
  if (verb == "show" && !arg(1).empty()) {
    if (!call(c, "GET", "/api/candidates/" + arg(1), doc)) return 1;
    std::cout << (has("--json") ? doc.dump() + "\n" : candidate_report(doc, !has("--no-source")));
    return 0;
  }
  std::cerr << "kforge console: unknown command or missing argument: " << verb << "\n"
            << kConsoleCommands;
  return 2;
}

/// Follows live events, calling `print` for each line, until the connection ends or `stop`.
/// An experiment's last event: it finished, stopped or failed.
bool ends_an_experiment(const std::string& text) {
  auto ev = json::parse(text);
  if (!ev) return false;
  return events::ends_experiment(events::kind_named((*ev)["kind"].as_string()));
}

/// Prints live events until the connection ends. With `ended` (the stream is filtered to one
/// experiment), until that experiment's last event, or at once when `ended()` says, once
/// subscribed, that it is over already. False when the stream broke off.
bool follow_events(const Connection& c, const std::string& target, net::WebSocketClient& ws,
                   const std::function<void(const std::string&)>& print,
                   const std::function<bool()>& ended = {}) {
  if (auto connected = ws.connect("127.0.0.1", c.port, target, c.token); !connected) {
    print("live events unavailable: " + connected.error);
    return false;
  }
  if (ended && ended()) {
    ws.close();
    return true;
  }
  for (auto read = ws.read(); read; read = ws.read()) {
    const std::string& message = *read;
    if (auto line = event_line(message); !line.empty()) print(line);
    if (ended && ends_an_experiment(message)) {
      ws.close();
      return true;
    }
  }
  return false;
}

int watch(const Connection& c, double interval) {
  std::mutex mutex;
  std::deque<std::string> recent;
  net::WebSocketClient ws;
  std::thread events([&] {
    follow_events(c, "/api/events", ws, [&](const std::string& line) {
      std::lock_guard lock(mutex);
      recent.push_back(line);
      if (recent.size() > 12) recent.pop_front();
    });
  });
  for (;;) {
    json::Value doc;
    if (!call(c, "GET", "/api/state", doc)) break;
    std::string screen = state_table(doc) + "\nrecent events:\n";
    {
      std::lock_guard lock(mutex);
      for (const auto& l : recent) screen += "  " + l.substr(0, 160) + "\n";
    }
    std::cout << (isatty(1) ? "\033[H\033[2J" : "\n") << screen << std::flush;
    std::this_thread::sleep_for(std::chrono::milliseconds(static_cast<int>(interval * 1000)));
  }
  ws.close();
  events.join();
  return 1;
}

/// The commands `command` runs, in the interactive console and as `kforge console COMMAND`.
const std::vector<std::string> kCommands = {
    "state", "experiments", "experiment", "submit", "pause", "resume", "stop", "show", "dashboard"};

const char* kInteractiveHelp =
    "commands: state, experiments, experiment ID, submit FILE, pause ID, resume ID, stop ID,\n"
    "  show CANDIDATE [--no-source], dashboard, help, quit (`kforge console --help` says what\n"
    "  each does; on a terminal: line editing, Tab completes a command, history is kept)\n";

int interactive(const Connection& c) {
  std::mutex out;
  net::WebSocketClient ws;
  std::atomic<bool> quitting{false};
  command(c, {"state"});
  std::vector<std::string> completed = kCommands;
  completed.insert(completed.end(), {"help", "quit"});
  ConsoleInput input(default_state_dir() + "/console_history", completed);
  std::thread events([&] {
    follow_events(c, "/api/events", ws, [&](const std::string& line) {
      std::lock_guard lock(out);
      input.print_above(line);
    });
    // The stream ends when the daemon goes away (or the console quits): say so, once.
    std::lock_guard lock(out);
    if (!quitting)
      input.print_above(
          "the daemon's event stream closed: the daemon stopped or restarted; commands fail "
          "until one runs again (start the console again to follow its events)");
  });
  std::cout << "live events follow; " << kInteractiveHelp;
  for (std::optional<std::string> read; (read = input.read_line());) {
    const std::string& line = *read;
    std::istringstream in(line);
    std::vector<std::string> words;
    for (std::string w; in >> w;) words.push_back(w);
    if (words.empty()) continue;
    if (words[0] == "quit" || words[0] == "exit") break;
    if (words[0] == "help" || words[0] == "?") {
      std::lock_guard lock(out);
      std::cout << kInteractiveHelp;
      continue;
    }
    std::lock_guard lock(out);
    command(c, words);
  }
  quitting = true;
  ws.close();
  events.join();
  return 0;
}

}  // namespace

int run_console(const std::vector<std::string>& args, bool dashboard) {
  std::string state_dir = default_state_dir(), token_file;
  unsigned port = 0;
  CommandLine line(dashboard ? "dashboard" : "console",
                   dashboard
                       ? "Prints the address that opens the daemon's web dashboard signed in: the "
                         "token follows `#`, which a browser never sends, so it is in no request "
                         "and no log."
                       : "Attaches to a running daemon (its port and token are read from the state "
                         "folder): kforge console [--state DIR | --port N --token-file FILE] "
                         "[COMMAND]",
                   dashboard ? "" : kConsoleCommands);
  auto& app = line.app();
  app.add_option("--state", state_dir,
                 "the daemon's state folder (default $KFORGE_STATE or ~/.local/state/kforge)")
      ->type_name("DIR");
  app.add_option("--port", port, "the daemon's port, with --token-file")
      ->check(whole_number(1, 65535));
  app.add_option("--token-file", token_file, "the file with the daemon's token, with --port")
      ->type_name("FILE");
  // The first word that is no option starts the command and its own words.
  if (!dashboard) app.prefix_command();
  if (auto code = line.parse(args)) return *code;
  const std::vector<std::string> words =
      dashboard ? std::vector<std::string>{"dashboard"} : app.remaining();
  if (!words.empty() && words[0] == "help") {  // also without a daemon
    std::cout << app.help();
    return 0;
  }
  // An unknown command is said before any daemon is looked for (watch and events are one-shot).
  if (!words.empty() && words[0] != "watch" && words[0] != "events" &&
      std::find(kCommands.begin(), kCommands.end(), words[0]) == kCommands.end())
    return line.error("no command `" + words[0] + "`");
  Connection c;
  std::string error;
  if (!connect_info(state_dir, port, token_file, c, error)) {
    std::cerr << "kforge " << (dashboard ? "dashboard" : "console") << ": " << error << "\n";
    return 2;
  }
  if (words.empty()) return interactive(c);
  if (words[0] == "watch") {
    double interval = 2;
    if (words.size() > 2 && words[1] == "--interval") {
      auto v = parse_real(words[2], 0.1, 3600);
      if (!v) {
        std::cerr << "kforge console: " << real_error("--interval", words[2], 0.1, 3600) << "\n";
        return 2;
      }
      interval = *v;
    }
    return watch(c, interval);
  }
  if (words[0] == "events") {
    std::string target = "/api/events";
    // One experiment's events end with it (exit 0); all events go on until interrupted.
    std::function<bool()> over;
    bool unknown = false;  // the experiment cannot be read (call() said why)
    if (words.size() > 2 && words[1] == "--experiment") {
      if (!parse_integer(words[2], 1, std::numeric_limits<int64_t>::max())) {
        std::cerr << "kforge console: "
                  << integer_error("--experiment", words[2], 1, std::numeric_limits<int64_t>::max())
                  << "\n";
        return 2;
      }
      target += "?experiment=" + words[2];
      over = [&] {
        json::Value doc;
        if (!call(c, "GET", "/api/experiments/" + words[2], doc)) return unknown = true;
        const auto& status = doc["status"].as_string();
        const bool done = status == "finished" || status == "stopped" || status == "failed";
        if (done) std::cout << "experiment " << words[2] << " has ended: " << status << "\n";
        return done;
      };
    }
    auto print = [](const std::string& line) { std::cout << line << "\n" << std::flush; };
    net::WebSocketClient ws;
    const bool ended = follow_events(c, target, ws, print, over);
    return ended && !unknown ? 0 : 1;
  }
  return command(c, words);
}

}  // namespace kforge::cli
