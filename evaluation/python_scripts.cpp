#include "evaluation/python_scripts.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>

#include "common/json.hpp"
#include "common/log.hpp"
#include "evaluation/build_config.hpp"
#include "evaluation/task_export.hpp"

extern char** environ;

namespace kforge::evaluation {
namespace {

/// A connected socket, closed when it goes out of scope (closing it early tells the server to
/// kill the script).
struct Socket {
  int fd = -1;
  ~Socket() {
    if (fd >= 0) ::close(fd);
  }
};

bool servable(const SpawnOptions& s) {
  const ResourceLimits& l = s.limits;
  return s.argv.size() >= 2 && !s.environment && !s.isolate_network && !s.filesystem &&
         s.fds.empty() && !l.address_space_bytes && !l.cpu_seconds && !l.file_size_bytes &&
         !l.open_files;
}

std::optional<int> connect_to(const std::string& path) {
  sockaddr_un address{};
  if (path.size() >= sizeof address.sun_path) return std::nullopt;
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return std::nullopt;
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return std::nullopt;
  }
  return fd;
}

std::string request_line(const SpawnOptions& s, size_t output_limit) {
  json::Value env = json::Object{};
  for (char** e = environ; *e; ++e) {
    const std::string entry = *e;
    const size_t eq = entry.find('=');
    if (eq != std::string::npos) env.set(entry.substr(0, eq), entry.substr(eq + 1));
  }
  for (const auto& [name, value] : s.set_env) env.set(name, value);
  json::Value args = json::Array{};
  for (size_t i = 2; i < s.argv.size(); ++i) args.push(s.argv[i]);
  std::error_code ec;
  const std::string cwd =
      s.working_dir.empty() ? std::filesystem::current_path(ec).string() : s.working_dir;
  json::Value request = json::Object{};
  request.set("python", s.argv[0])
      .set("script", s.argv[1])
      .set("args", std::move(args))
      .set("env", std::move(env))
      .set("cwd", cwd)
      .set("output_limit", static_cast<uint64_t>(output_limit));
  return request.dump() + "\n";
}

bool send_all(int fd, const std::string& data) {
  size_t sent = 0;
  while (sent < data.size()) {
    const ssize_t n = ::send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    sent += static_cast<size_t>(n);
  }
  return true;
}

/// The server's answer: the script's result; nullopt where the server refused or broke off
/// (the caller runs the script in a fresh interpreter).
std::optional<RunResult> ask(const std::string& path, const SpawnOptions& spawn,
                             std::chrono::steady_clock::time_point start,
                             std::chrono::milliseconds timeout, size_t output_limit) {
  auto fd = connect_to(path);
  if (!fd) return std::nullopt;
  Socket socket{*fd};
  if (!send_all(socket.fd, request_line(spawn, output_limit))) return std::nullopt;
  RunResult result;
  result.started = true;
  result.served = true;
  std::string reply;
  char buf[65536];
  const auto deadline = start + timeout;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result.timed_out = true;  // closing the socket kills the script's process group
      result.seconds = std::chrono::duration<double>(timeout).count();
      return result;
    }
    pollfd pfd{socket.fd, POLLIN, 0};
    const int r = ::poll(&pfd, 1, static_cast<int>(std::min<int64_t>(left.count(), 1000)));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) continue;
    const ssize_t n = ::recv(socket.fd, buf, sizeof buf, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    reply.append(buf, static_cast<size_t>(n));
  }
  auto doc = json::parse(reply);
  if (!doc.value || !doc.value->is_object() || doc.value->contains("refused") ||
      !(*doc.value)["exit_code"].is_number())
    return std::nullopt;
  const json::Value& answer = *doc.value;
  result.exit_code = static_cast<int>(answer["exit_code"].as_int(-1));
  result.signal = static_cast<int>(answer["signal"].as_int(0));
  result.output = answer["output"].as_string();
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace

RunResult run_script(const SpawnOptions& spawn, std::chrono::milliseconds timeout,
                     size_t output_limit) {
  const auto start = std::chrono::steady_clock::now();
  const char* path = std::getenv(kScriptServerVariable);
  if (path && *path && servable(spawn)) {
    if (auto served = ask(path, spawn, start, timeout, output_limit)) return *served;
    static bool said = false;  // once a process: the daemon's log, not a foreground command's
    if (!said) {
      said = true;
      log::info(std::string(kScriptServerVariable) + " names " + path +
                ", which did not answer for " + spawn.argv[0] +
                ": kforge's scripts run in fresh interpreters");
    }
  }
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      start + timeout - std::chrono::steady_clock::now());
  RunResult fresh = run(spawn, std::max(left, std::chrono::milliseconds(1)), output_limit);
  fresh.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return fresh;
}

bool script_server_listens(const std::string& path) {
  auto fd = connect_to(path);
  if (!fd) return false;
  ::close(*fd);
  return true;
}

Result<Child> start_script_server(const std::string& socket_path, int idle_seconds) {
  const std::string script =
      (std::filesystem::path(build::exporter).parent_path() / "script_server.py").string();
  SpawnOptions o = task_script("", script.c_str(),
                               {"--socket", socket_path, "--python", task_python(),
                                "--idle-seconds", std::to_string(idle_seconds)});
  o.capture_output = false;
  auto spawned = spawn(o);
  if (!spawned.child)
    return Result<Child>::failure("cannot start the script server: " + spawned.error);
  for (int i = 0; i < 600; ++i) {
    if (script_server_listens(socket_path)) return {std::move(spawned.child), ""};
    if (auto status = spawned.child->try_wait())
      return Result<Child>::failure("the script server on " + socket_path + " ended (status " +
                                    std::to_string(*status) + ") before it listened");
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return Result<Child>::failure("the script server did not listen on " + socket_path +
                                " within a minute");
}

}  // namespace kforge::evaluation
