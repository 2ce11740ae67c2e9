#include "gpu/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

extern char** environ;

namespace kforge::gpu {
namespace {

bool is_executable(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

void set_limit(int resource, const std::optional<uint64_t>& value) {
  if (!value) return;
  rlimit rl{static_cast<rlim_t>(*value), static_cast<rlim_t>(*value)};
  ::setrlimit(resource, &rl);
}

// Child side of fork: only async-signal-safe calls until execve.
[[noreturn]] void exec_child(const SpawnOptions& o, const char* path, char* const* argv,
                             char* const* envp, int out_write, int status_write) {
  ::setpgid(0, 0);
  // The child starts with no blocked signals and SIGPIPE at its default, whatever the parent's
  // threads had (a daemon may block or ignore signals; exec keeps masks and ignored signals).
  sigset_t none;
  ::sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::signal(SIGPIPE, SIG_DFL);
  char note = 'n';  // network namespace created
  if (o.isolate_network && ::unshare(CLONE_NEWNET) != 0) note = 'N';
  (void)!::write(status_write, &note, 1);
  set_limit(RLIMIT_AS, o.limits.address_space_bytes);
  set_limit(RLIMIT_CPU, o.limits.cpu_seconds);
  set_limit(RLIMIT_FSIZE, o.limits.file_size_bytes);
  set_limit(RLIMIT_NOFILE, o.limits.open_files);
  rlimit no_core{0, 0};
  ::setrlimit(RLIMIT_CORE, &no_core);
  int devnull = ::open("/dev/null", O_RDWR);
  ::dup2(devnull, 0);
  if (out_write >= 0) {
    ::dup2(out_write, 1);
    ::dup2(out_write, 2);
  } else {
    ::dup2(devnull, 1);
    ::dup2(devnull, 2);
  }
  // Move the requested descriptors into place in two steps so that sources and targets may overlap.
  int moved[64];
  size_t n = o.fds.size() < 64 ? o.fds.size() : 64;
  for (size_t i = 0; i < n; ++i) moved[i] = ::fcntl(o.fds[i].second, F_DUPFD_CLOEXEC, 100);
  for (size_t i = 0; i < n; ++i) ::dup2(moved[i], o.fds[i].first);
  // Close everything else except the status pipe (close-on-exec, reports exec failure).
  for (int fd = 3; fd < 1024; ++fd) {
    bool keep = fd == status_write;
    for (size_t i = 0; i < n; ++i) keep = keep || fd == o.fds[i].first;
    if (!keep) ::close(fd);
  }
  if (!o.working_dir.empty() && ::chdir(o.working_dir.c_str()) != 0) {
    int e = errno;
    char msg[2] = {'D', static_cast<char>(e)};
    (void)!::write(status_write, msg, 2);
    ::_exit(127);
  }
  ::execve(path, argv, envp);
  int e = errno;
  char msg[2] = {'E', static_cast<char>(e)};
  (void)!::write(status_write, msg, 2);
  ::_exit(127);
}

}  // namespace

struct Spawner {
  static SpawnResult start(const SpawnOptions& o) {
    if (o.argv.empty()) return {std::nullopt, "no program given"};
    std::string path =
        o.argv[0].find('/') == std::string::npos ? find_program(o.argv[0]) : o.argv[0];
    if (path.empty() || !is_executable(path))
      return {std::nullopt, "cannot find the program " + o.argv[0]};
    std::vector<std::string> env_storage;
    for (char** e = environ; *e; ++e) {
      std::string entry(*e);
      bool replaced = false;
      for (const auto& [k, v] : o.set_env) replaced = replaced || entry.rfind(k + "=", 0) == 0;
      if (!replaced) env_storage.push_back(entry);
    }
    for (const auto& [k, v] : o.set_env) env_storage.push_back(k + "=" + v);
    std::vector<char*> argv, envp;
    for (const auto& a : o.argv) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    for (auto& e : env_storage) envp.push_back(e.data());
    envp.push_back(nullptr);

    int out_pipe[2] = {-1, -1};
    if (o.capture_output && ::pipe2(out_pipe, O_CLOEXEC) != 0)
      return {std::nullopt, std::strerror(errno)};
    int status_pipe[2];
    if (::pipe2(status_pipe, O_CLOEXEC) != 0) return {std::nullopt, std::strerror(errno)};
    pid_t pid = ::fork();
    if (pid < 0) return {std::nullopt, std::string("fork failed: ") + std::strerror(errno)};
    if (pid == 0)
      exec_child(o, path.c_str(), argv.data(), envp.data(), out_pipe[1], status_pipe[1]);
    ::setpgid(pid, pid);  // also from the parent, so kill_group works even before the child runs
    ::close(status_pipe[1]);
    if (out_pipe[1] >= 0) ::close(out_pipe[1]);
    char status[8];
    ssize_t got = 0, r;
    while ((r = ::read(status_pipe[0], status + got, sizeof status - got)) > 0) got += r;
    ::close(status_pipe[0]);
    Child child;
    child.pid_ = pid;
    child.output_fd_ = out_pipe[0];
    child.network_isolated_ = got >= 1 && status[0] == 'n';
    if (got >= 3 && (status[1] == 'E' || status[1] == 'D')) {
      child.wait();
      std::string what =
          status[1] == 'E' ? "cannot execute " + path : "cannot enter " + o.working_dir;
      return {std::nullopt, what + ": " + std::strerror(status[2])};
    }
    return {std::move(child), {}};
  }
};

Child::Child(Child&& o) noexcept {
  *this = std::move(o);
}
Child& Child::operator=(Child&& o) noexcept {
  std::swap(pid_, o.pid_);
  std::swap(output_fd_, o.output_fd_);
  std::swap(network_isolated_, o.network_isolated_);
  std::swap(reaped_, o.reaped_);
  std::swap(status_, o.status_);
  return *this;
}
Child::~Child() {
  if (pid_ > 0 && !reaped_) {
    kill_group();
    wait();
  }
  if (output_fd_ >= 0) ::close(output_fd_);
}
void Child::kill_group() {
  if (pid_ > 0 && !reaped_) {
    ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
  }
}
int Child::wait() {
  if (reaped_ || pid_ <= 0) return status_;
  while (::waitpid(pid_, &status_, 0) < 0 && errno == EINTR) {
  }
  reaped_ = true;
  ::kill(-pid_, SIGKILL);  // leftovers of the group (a forked grandchild) go with it
  return status_;
}
std::optional<int> Child::try_wait() {
  if (reaped_) return status_;
  if (pid_ <= 0) return std::nullopt;
  pid_t r = ::waitpid(pid_, &status_, WNOHANG);
  if (r == pid_) {
    reaped_ = true;
    ::kill(-pid_, SIGKILL);
    return status_;
  }
  return std::nullopt;
}

SpawnResult spawn(const SpawnOptions& options) {
  return Spawner::start(options);
}

std::string describe_signal(int signal) {
  const char* name = ::sigabbrev_np(signal);
  const char* text = ::strsignal(signal);
  return std::string("signal ") + std::to_string(signal) + " (SIG" + (name ? name : "?") + ", " +
         (text ? text : "") + ")";
}

std::string RunResult::describe() const {
  if (!started) return "did not start: " + start_error;
  if (timed_out) return "timed out after " + std::to_string(static_cast<int>(seconds)) + " s";
  if (signal) return "killed by " + describe_signal(signal);
  return "exit " + std::to_string(exit_code);
}

RunResult run(const SpawnOptions& options, std::chrono::milliseconds timeout, size_t output_limit) {
  RunResult result;
  auto start = std::chrono::steady_clock::now();
  SpawnOptions o = options;
  o.capture_output = true;
  auto spawned = spawn(o);
  if (!spawned.child) {
    result.start_error = spawned.error;
    return result;
  }
  Child& child = *spawned.child;
  result.started = true;
  result.network_isolated = child.network_isolated();
  auto deadline = start + timeout;
  char buf[65536];
  size_t dropped = 0;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result.timed_out = true;
      child.kill_group();
      break;
    }
    pollfd pfd{child.output_fd(), POLLIN, 0};
    int r = ::poll(&pfd, 1, static_cast<int>(std::min<int64_t>(left.count(), 1000)));
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) continue;
    ssize_t n = ::read(child.output_fd(), buf, sizeof buf);
    if (n <= 0) break;
    size_t room = output_limit > result.output.size() ? output_limit - result.output.size() : 0;
    result.output.append(buf, std::min<size_t>(room, n));
    dropped += n - std::min<size_t>(room, n);
  }
  if (dropped)
    result.output += "\n[kforge: " + std::to_string(dropped) + " more bytes of output dropped]\n";
  int status = child.wait();
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  return result;
}

std::string find_program(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string p = path ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= p.size()) {
    size_t end = p.find(':', start);
    if (end == std::string::npos) end = p.size();
    std::string candidate = p.substr(start, end - start) + "/" + name;
    if (is_executable(candidate)) return candidate;
    start = end + 1;
  }
  return {};
}

}  // namespace kforge::gpu
