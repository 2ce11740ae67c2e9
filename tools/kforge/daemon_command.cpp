#include "tools/kforge/daemon_command.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include "actors/gateway.hpp"
#include "common/numbers.hpp"
#include "gpu/hashing.hpp"
#include "gpu/task_export.hpp"
#include "tools/kforge/actor_host.hpp"
#include "tools/kforge/daemon_api.hpp"

namespace kforge::cli {
namespace {

constexpr const char* kDaemonUsage =
    "usage: kforge daemon [options]\n"
    "  hosts kforge's actors, resumes the archive's unfinished experiments and serves the API on\n"
    "  127.0.0.1 (bearer token in <state>/token, readable by its owner only; port in\n"
    "  <state>/daemon.json). SIGINT or SIGTERM stop it; experiments resume at the next start.\n"
    "  --state DIR   archive, token and port file (default $KFORGE_STATE or "
    "~/.local/state/kforge)\n"
    "  --port N      port to listen on (default: any free port)\n"
    "  --cache DIR   compile and export cache (default ~/.cache/kforge or $KFORGE_CACHE)\n"
    "  --jobs N      compiler slots (default: one per core)\n";

std::atomic<bool> g_stop{false};

void on_signal(int) {
  g_stop = true;
}

/// 32 random bytes as hex, from the kernel's generator.
std::string new_token(std::string& error) {
  std::ifstream in("/dev/urandom", std::ios::binary);
  unsigned char bytes[32];
  if (!in.read(reinterpret_cast<char*>(bytes), sizeof bytes)) {
    error = "cannot read /dev/urandom";
    return {};
  }
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned char b : bytes) out += {hex[b >> 4], hex[b & 15]};
  return out;
}

/// Writes a file readable and writable by its owner only (created that way, never wider).
std::string write_private(const std::string& path, const std::string& text) {
  std::string tmp = path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return "cannot write " + tmp + ": " + std::strerror(errno);
  ::fchmod(fd, 0600);
  bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ok = ::fsync(fd) == 0 && ok;
  ::close(fd);
  if (!ok || ::rename(tmp.c_str(), path.c_str()) != 0) return "cannot write " + path;
  return {};
}

}  // namespace

int run_daemon(const std::vector<std::string>& args) {
  std::string state_dir = default_state_dir(), cache;
  unsigned port = 0, jobs = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    auto value = [&]() -> std::string { return i + 1 < args.size() ? args[++i] : std::string(); };
    const auto& a = args[i];
    if (a == "--state")
      state_dir = value();
    else if (a == "--cache")
      cache = value();
    else if (a == "--port" || a == "--jobs") {
      // 0 asks for any free port; at most 4096 compile slots.
      const int64_t max = a == "--port" ? 65535 : 4096;
      const std::string text = value();
      auto v = parse_integer(text, a == "--port" ? 0 : 1, max);
      if (!v) {
        std::cerr << "kforge daemon: " << integer_error(a, text, a == "--port" ? 0 : 1, max)
                  << "\n";
        return 2;
      }
      (a == "--port" ? port : jobs) = static_cast<unsigned>(*v);
    } else {
      std::cerr << (a == "--help" ? "" : "kforge daemon: unknown option " + a + "\n")
                << kDaemonUsage;
      return a == "--help" ? 0 : 2;
    }
  }
  if (state_dir.empty() || port > 65535) {
    std::cerr << kDaemonUsage;
    return 2;
  }
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(state_dir, ec);
  ::chmod(state_dir.c_str(), 0700);
  // One daemon per state folder: the lock is held for the daemon's life.
  const std::string lock_path = state_dir + "/daemon.lock";
  int lock_fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (lock_fd < 0 || ::flock(lock_fd, LOCK_EX | LOCK_NB) != 0) {
    std::cerr << "kforge daemon: another daemon runs on " << state_dir << " (" << lock_path
              << " is locked)\n";
    return 2;
  }
  std::string error;
  std::string token = new_token(error);
  if (token.empty() || !(error = write_private(state_dir + "/token", token + "\n")).empty()) {
    std::cerr << "kforge daemon: " << error << "\n";
    return 2;
  }
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  std::signal(SIGPIPE, SIG_IGN);

  actor_host host;
  runtime_options options;
  options.archive_path = state_dir + "/archive.db";
  options.cache_dir = cache.empty() ? gpu::default_cache_dir() : cache;
  options.compile_slots = jobs;
  if (!host.start(options, error)) {
    std::cerr << "kforge daemon: " << error << "\n";
    return 2;
  }
  auto gateway = host.system().spawn(gateway_impl, &host.rt(), true);
  DaemonApi api(host.system(), gateway);
  net::HttpServer server(
      token, [&](const net::HttpRequest& r) { return api.handle(r); },
      [&](const net::HttpRequest& r) { return api.admit_events(r); },
      [&](const net::HttpRequest& r, net::WebSocketChannel& c, const std::atomic<bool>& stopping) {
        api.stream_events(r, c, stopping);
      });
  if (auto e = server.start(static_cast<uint16_t>(port)); !e.empty()) {
    std::cerr << "kforge daemon: " << e << "\n";
    caf::anon_send_exit(gateway, caf::exit_reason::user_shutdown);
    return 2;
  }
  json::Value info;
  info.set("port", static_cast<int64_t>(server.port()))
      .set("pid", static_cast<int64_t>(::getpid()));
  info.set("url", "http://127.0.0.1:" + std::to_string(server.port()));
  if (auto e = write_private(state_dir + "/daemon.json", info.dump() + "\n"); !e.empty()) {
    std::cerr << "kforge daemon: " << e << "\n";
    return 2;
  }
  std::cout << "kforge daemon: listening on http://127.0.0.1:" << server.port() << " (state "
            << state_dir << ", pid " << ::getpid() << ")\n"
            << std::flush;
  while (!g_stop) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  std::cout << "kforge daemon: stopping; unfinished experiments resume at the next start\n"
            << std::flush;
  server.stop();
  caf::anon_send_exit(gateway, caf::exit_reason::user_shutdown);
  fs::remove(state_dir + "/daemon.json", ec);
  return 0;
}

}  // namespace kforge::cli
