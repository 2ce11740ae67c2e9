#include "tools/kforge/daemon_command.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <caf/io/middleman.hpp>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include "actors/gateway.hpp"
#include "common/log.hpp"
#include "common/numbers.hpp"
#include "evaluation/hashing.hpp"
#include "evaluation/task_export.hpp"
#include "net/dashboard_files.hpp"
#include "tools/kforge/actor_host.hpp"
#include "tools/kforge/command_line.hpp"
#include "tools/kforge/daemon_api.hpp"
#include "tools/kforge/daemon_log.hpp"
#include "tools/kforge/tokens.hpp"

namespace kforge::cli {
namespace {

std::atomic<bool> g_stop{false};

void on_signal(int) {
  g_stop = true;
}

/// The state folder holds the token and the archive: created private (0700) where it is missing;
/// an existing one must belong to this user and be writable by nobody else. It is never chmod'ed:
/// a folder someone else could write to may already hold their files.
Result<void> prepare_state_dir(const std::string& path) {
  using Why = Result<void>;
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path dir = fs::absolute(path, ec);
  if (!fs::exists(dir, ec)) {
    if (dir.has_parent_path()) fs::create_directories(dir.parent_path(), ec);
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
      return Why::failure("cannot create the state folder " + dir.string() + ": " +
                          std::strerror(errno));
  }
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0)
    return Why::failure("cannot read the state folder " + dir.string() + ": " +
                        std::strerror(errno));
  if (!S_ISDIR(st.st_mode))
    return Why::failure("the state folder " + dir.string() + " is not a folder");
  if (st.st_uid != ::geteuid())
    return Why::failure("the state folder " + dir.string() + " belongs to uid " +
                        std::to_string(st.st_uid) + ", not to you (uid " +
                        std::to_string(::geteuid()) +
                        "): choose a folder of your own with --state");
  if (st.st_mode & (S_IWGRP | S_IWOTH)) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    return Why::failure(
        "the state folder " + dir.string() + " is writable by " +
        ((st.st_mode & S_IWOTH) ? std::string("everyone") : std::string("its group")) + " (mode " +
        mode + "): others could plant or replace the daemon's files there. " +
        "Use a private folder (mkdir -m 700) or make this one private (chmod 700) yourself");
  }
  return {};
}

}  // namespace

int run_daemon(const std::vector<std::string>& args) {
  std::string state_dir = default_state_dir(), cache, log_level_text = "info";
  unsigned port = 0, jobs = 0, cpu_evaluators = 1, node_gpu_pools = 0;
  int node_port = -1;
  std::string node_bind = "127.0.0.1";
  bool allow_unconfined = false;
  CommandLine line(
      "daemon",
      "Hosts kforge's actors, resumes the archive's unfinished experiments and serves the API and "
      "the dashboard on 127.0.0.1 (bearer token in <state>/token, readable by its owner only; "
      "port in <state>/daemon.json). GET /metrics also takes the token in <state>/metrics_token, "
      "which stays the same across restarts (for a Prometheus scrape configuration). SIGINT or "
      "SIGTERM stop it; experiments resume at the next start.");
  auto& app = line.app();
  app.add_option("--state", state_dir,
                 "archive, token and port file (default $KFORGE_STATE or ~/.local/state/kforge)")
      ->type_name("DIR");
  app.add_option("--port", port, "port to listen on (default: any free port)")
      ->check(whole_number(0, 65535));
  add_host_options(app, cache, jobs, allow_unconfined);
  app.add_option("--node-port", node_port,
                 "let nodes (`kforge node`) join on this port (0: any free port, in "
                 "<state>/daemon.json as node_port); they present <state>/node_token. Off by "
                 "default")
      ->check(whole_number(0, 65535));
  app.add_option("--node-bind", node_bind,
                 "the address nodes connect to (default 127.0.0.1: nodes on this host, or through "
                 "an SSH tunnel; docs/daemon.md)")
      ->type_name("ADDR");
  app.add_option("--cpu-evaluators", cpu_evaluators,
                 "1 (default): the daemon evaluates CPU targets itself; 0: only nodes do (needs "
                 "--node-port)")
      ->check(whole_number(0, 1));
  app.add_option("--node-gpu-pools", node_gpu_pools,
                 "GPU pools for nodes' GPUs beyond the daemon's own (cuda:N after them), each "
                 "taking the first kind of GPU offered to it (default 0: a node's GPU only joins a "
                 "daemon GPU of the same name; needs --node-port)")
      ->check(whole_number(0, 64));
  add_choice(app, "--log-level", log_level_text, {"debug", "info", "warn", "error", "off"},
             "debug, info (default), warn, error or off: what goes to standard error and "
             "<state>/daemon.log (rotated at 10 MiB, three files kept)");
  if (auto code = line.parse(args)) return *code;
  if (state_dir.empty()) return line.error("--state needs a folder");
  if (node_gpu_pools > 0 && node_port < 0)
    return line.error("--node-gpu-pools needs --node-port: no node could offer a GPU");
  if (cpu_evaluators == 0 && node_port < 0)
    return line.error("--cpu-evaluators 0 needs --node-port: nothing would evaluate CPU targets");
  const log::Level log_level = log::parse_level(log_level_text).value_or(log::Level::info);
  namespace fs = std::filesystem;
  std::error_code ec;
  if (auto prepared = prepare_state_dir(state_dir); !prepared) {
    std::cerr << "kforge daemon: " << prepared.error << "\n";
    return 2;
  }
  // One daemon per state folder: the lock is held for the daemon's life.
  const std::string lock_path = state_dir + "/daemon.lock";
  int lock_fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (lock_fd < 0 || ::flock(lock_fd, LOCK_EX | LOCK_NB) != 0) {
    std::cerr << "kforge daemon: another daemon runs on " << state_dir << " (" << lock_path
              << " is locked)\n";
    return 2;
  }
  if (auto logging = log::to_stderr_and_file(state_dir + "/daemon.log", log_level); !logging) {
    std::cerr << "kforge daemon: " << logging.error << "\n";
    return 2;
  }
  auto token = new_token();
  if (!token) {
    std::cerr << "kforge daemon: " << token.error << "\n";
    return 2;
  }
  if (auto written = write_private(state_dir + "/token", *token + "\n"); !written) {
    std::cerr << "kforge daemon: " << written.error << "\n";
    return 2;
  }
  auto metrics_token = stable_token(state_dir + "/metrics_token");
  if (!metrics_token) {
    std::cerr << "kforge daemon: " << metrics_token.error << "\n";
    return 2;
  }
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  std::signal(SIGPIPE, SIG_IGN);

  std::string node_token;
  if (node_port >= 0) {
    auto made = stable_token(state_dir + "/node_token");
    if (!made) {
      std::cerr << "kforge daemon: " << made.error << "\n";
      return 2;
    }
    node_token = *made;
  }

  actor_host host(node_port >= 0);
  runtime_options options;
  options.node_token = node_token;
  options.cpu_evaluator = cpu_evaluators > 0;
  options.node_gpu_pools = static_cast<int>(node_gpu_pools);
  options.archive_path = state_dir + "/archive.db";
  options.cache_dir = cache.empty() ? evaluation::default_cache_dir() : cache;
  options.compile_slots = jobs;
  options.allow_unconfined = allow_unconfined;
  if (auto started = host.start(options); !started) {
    std::cerr << "kforge daemon: " << started.error << "\n";
    return 2;
  }
  auto gateway = host.system().spawn(gateway_impl, &host.rt(), true);
  start_event_log(host.system(), gateway);
  DaemonApi api(host.system(), gateway);
  net::HttpServer server(
      *token,
      [&](const net::HttpRequest& r) {
        auto response = api.handle(r);
        // Commands at info, reads at debug; never a header (the token) or a body.
        const std::string line =
            "api: " + r.method + " " + r.path + " " + std::to_string(response.status);
        r.method == "GET" ? log::debug(line) : log::info(line);
        return response;
      },
      [&](const net::HttpRequest& r) { return api.admit_events(r); },
      [&](const net::HttpRequest& r, net::WebSocketChannel& c, const std::atomic<bool>& stopping) {
        api.stream_events(r, c, stopping);
      });
  server.set_metrics_token(*metrics_token);
  server.set_public_files(net::dashboard_files());
  if (auto listening = server.start(static_cast<uint16_t>(port)); !listening) {
    std::cerr << "kforge daemon: " << listening.error << "\n";
    caf::anon_send_exit(gateway, caf::exit_reason::user_shutdown);
    return 2;
  }
  json::Value info;
  info.set("port", static_cast<int64_t>(server.port()))
      .set("pid", static_cast<int64_t>(::getpid()));
  if (node_port >= 0) {
    // Reusing the address: a daemon restarted under running nodes gets its port back at once.
    auto published = host.system().middleman().publish(
        host.rt().registry, static_cast<uint16_t>(node_port), node_bind.c_str(), true);
    if (!published) {
      std::cerr << "kforge daemon: cannot listen for nodes on " << node_bind << ":" << node_port
                << ": " << host.system().render(published.error()) << "\n";
      server.stop();
      caf::anon_send_exit(gateway, caf::exit_reason::user_shutdown);
      return 2;
    }
    info.set("node_port", static_cast<int64_t>(*published));
    log::info("nodes join on " + node_bind + ":" + std::to_string(*published) +
              " with the token in " + state_dir + "/node_token (`kforge node --join " + node_bind +
              ":" + std::to_string(*published) + " --token-file ...`)");
  }
  info.set("url", "http://127.0.0.1:" + std::to_string(server.port()));
  if (auto written = write_private(state_dir + "/daemon.json", info.dump() + "\n"); !written) {
    std::cerr << "kforge daemon: " << written.error << "\n";
    return 2;
  }
  log::info("listening on http://127.0.0.1:" + std::to_string(server.port()) + " (state " +
            state_dir + ", pid " + std::to_string(::getpid()) + "); `kforge dashboard" +
            (state_dir == default_state_dir() ? "" : " --state " + state_dir) +
            "` prints the dashboard's address");
  while (!g_stop) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  log::info("stopping; unfinished experiments resume at the next start");
  // Closing the server and the actors waits for work in flight (a heavy evaluation takes
  // minutes); a service manager's stop gets an answer within 10 s all the same.
  std::thread([state_dir] {
    std::this_thread::sleep_for(std::chrono::seconds(8));
    log::info("still stopping after 8 s: leaving now; unfinished experiments resume at the next "
              "start");
    std::error_code ignored;
    fs::remove(state_dir + "/daemon.json", ignored);
    std::_Exit(0);
  }).detach();
  server.stop();
  caf::anon_send_exit(gateway, caf::exit_reason::user_shutdown);
  fs::remove(state_dir + "/daemon.json", ec);
  return 0;
}

}  // namespace kforge::cli
