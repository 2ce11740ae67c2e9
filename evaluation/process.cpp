#include "evaluation/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

extern char** environ;

namespace kforge::evaluation {
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

// Records the child reports to the parent on the status pipe: one letter, then an errno value or a
// process id where the letter needs one.
void report(int fd, char what, int32_t value = 0) {
  char msg[5] = {what, 0, 0, 0, 0};
  std::memcpy(msg + 1, &value, sizeof value);
  (void)!::write(fd, msg, what == 'n' || what == 'N' || what == 'c' ? 1 : 5);
}

// Enters new namespaces for the child when asked: a PID namespace (its descendants die with it)
// and a network namespace. Tries as root first, then inside a new user namespace; returns the
// flags that took effect.
int enter_namespaces(bool network, bool pid_namespace) {
  const int net = network ? CLONE_NEWNET : 0, pid = pid_namespace ? CLONE_NEWPID : 0;
  for (int flags : {net | pid, CLONE_NEWUSER | net | pid, net, pid}) {
    if ((flags & ~CLONE_NEWUSER) == 0) continue;
    if (::unshare(flags) == 0) return flags;
  }
  return 0;
}

// Mirrors a wait status: the same exit code, or death by the same signal.
[[noreturn]] void exit_like(int status) {
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    ::signal(sig, SIG_DFL);
    sigset_t one;
    ::sigemptyset(&one);
    ::sigaddset(&one, sig);
    ::sigprocmask(SIG_UNBLOCK, &one, nullptr);
    ::kill(::getpid(), sig);
  }
  ::_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 127);
}

int wait_for(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return 127 << 8;
  return status;
}

// The first process of the new PID namespace: starts the program as its child, reaps whatever
// the program leaves orphaned, and passes the program's wait status out on `relay` when it ends.
// When this process ends, the kernel kills everything else in the namespace. The program is not
// this process because the first process of a namespace ignores signals it sends itself, and a
// candidate's raise(SIGSEGV) or a shell's kill -SEGV $$ must behave as anywhere else.
[[noreturn]] void namespace_init(pid_t program, int relay) {
  for (;;) {
    int status = 0;
    pid_t done = ::waitpid(-1, &status, 0);
    if (done < 0 && errno == EINTR) continue;
    if (done == program || done < 0) {
      (void)!::write(relay, &status, sizeof status);
      ::_exit(0);
    }
  }
}

// fork() in a child that reports a failure to the parent and ends.
pid_t fork_or_exit(int status_write) {
  pid_t pid = ::fork();
  if (pid < 0) {
    report(status_write, 'F', errno);
    ::_exit(127);
  }
  return pid;
}

void close_all_but(int keep) {
  for (int fd = 0; fd < 1024; ++fd)
    if (fd != keep) ::close(fd);
}

// This process's id as kforge sees it: /proc belongs to kforge's PID namespace.
pid_t outer_pid() {
  char buf[32];
  ssize_t n = ::readlink("/proc/self", buf, sizeof buf - 1);
  pid_t pid = 0;
  for (ssize_t i = 0; i < n && buf[i] >= '0' && buf[i] <= '9'; ++i) pid = pid * 10 + (buf[i] - '0');
  return pid;
}

// Child side of fork: only async-signal-safe calls until execve.
[[noreturn]] void exec_child(const SpawnOptions& o, const PreparedView* view, pid_t parent,
                             const char* path, char* const* argv, char* const* envp, int out_write,
                             int status_write) {
  ::setpgid(0, 0);
  // Dies with the thread that started it; if that happened already, goes now.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);
  // The child starts with no blocked signals and SIGPIPE at its default, whatever the parent's
  // threads had (a daemon may block or ignore signals; exec keeps masks and ignored signals).
  sigset_t none;
  ::sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::signal(SIGPIPE, SIG_DFL);
  const int namespaces = enter_namespaces(o.isolate_network, o.own_pid_namespace);
  report(status_write, namespaces & CLONE_NEWNET ? 'n' : 'N');
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
  if (namespaces & CLONE_NEWPID) {
    // This process stays outside the namespace and ends as the program does; inside, a first
    // process (which dies with this one) starts the program.
    int relay[2];
    if (::pipe2(relay, O_CLOEXEC) != 0) {
      report(status_write, 'F', errno);
      ::_exit(127);
    }
    pid_t init = fork_or_exit(status_write);
    if (init > 0) {
      close_all_but(relay[0]);
      int status = wait_for(init);
      int program_status = 0;
      if (::read(relay[0], &program_status, sizeof program_status) ==
          static_cast<ssize_t>(sizeof program_status))
        status = program_status;
      exit_like(status);
    }
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // its parent is outside: getppid() cannot tell
    pid_t program = fork_or_exit(status_write);
    if (program > 0) {
      close_all_but(relay[1]);
      namespace_init(program, relay[1]);
    }
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    report(status_write, 'P', outer_pid());
  }
  if (!o.working_dir.empty() && ::chdir(o.working_dir.c_str()) != 0) {
    report(status_write, 'D', errno);
    ::_exit(127);
  }
  if (view) {
    if (int e = view->apply(); e != 0) {
      report(status_write, 'L', e);
      ::_exit(127);
    }
    report(status_write, 'c');
  }
  if (o.filesystem) {
    if (int e = drop_capabilities(); e != 0) {
      report(status_write, 'K', e);
      ::_exit(127);
    }
  }
  ::execve(path, argv, envp);
  report(status_write, 'E', errno);
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
    if (o.environment) {
      env_storage = *o.environment;
    } else {
      for (char** e = environ; *e; ++e) env_storage.emplace_back(*e);
    }
    std::erase_if(env_storage, [&](const std::string& entry) {
      for (const auto& [k, v] : o.set_env)
        if (entry.rfind(k + "=", 0) == 0) return true;
      return false;
    });
    for (const auto& [k, v] : o.set_env) env_storage.push_back(k + "=" + v);
    std::vector<char*> argv, envp;
    for (const auto& a : o.argv) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    for (auto& e : env_storage) envp.push_back(e.data());
    envp.push_back(nullptr);

    std::optional<PreparedView> view;
    if (o.filesystem) {
      std::string why;
      int abi = landlock_abi(&why);
      if (abi > 0)
        view.emplace(*o.filesystem, abi);
      else if (!o.allow_unconfined)
        return {std::nullopt, "cannot confine " + o.argv[0] + " to its files: " + why};
    }

    int out_pipe[2] = {-1, -1};
    if (o.capture_output && ::pipe2(out_pipe, O_CLOEXEC) != 0)
      return {std::nullopt, std::strerror(errno)};
    int status_pipe[2];
    if (::pipe2(status_pipe, O_CLOEXEC) != 0) return {std::nullopt, std::strerror(errno)};
    const pid_t parent = ::getpid();
    pid_t pid = ::fork();
    if (pid < 0) return {std::nullopt, std::string("fork failed: ") + std::strerror(errno)};
    if (pid == 0)
      exec_child(o, view ? &*view : nullptr, parent, path.c_str(), argv.data(), envp.data(),
                 out_pipe[1], status_pipe[1]);
    ::setpgid(pid, pid);  // also from the parent, so kill_group works even before the child runs
    ::close(status_pipe[1]);
    if (out_pipe[1] >= 0) ::close(out_pipe[1]);
    std::string status;
    char buf[64];
    ssize_t r;
    while ((r = ::read(status_pipe[0], buf, sizeof buf)) != 0) {
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) break;
      status.append(buf, static_cast<size_t>(r));
    }
    ::close(status_pipe[0]);
    Child child;
    child.pid_ = pid;
    child.output_fd_ = out_pipe[0];
    std::string failure;
    for (size_t i = 0; i < status.size();) {
      char what = status[i];
      int32_t value = 0;
      if (what == 'n' || what == 'N' || what == 'c') {
        ++i;
      } else {
        if (i + 5 > status.size()) break;
        std::memcpy(&value, status.data() + i + 1, sizeof value);
        i += 5;
      }
      switch (what) {
        case 'n':
          child.network_isolated_ = true;
          break;
        case 'c':
          child.confined_ = true;
          break;
        case 'P':
          child.program_pid_ = value;
          break;
        case 'F':
          failure = "cannot start a process in a new PID namespace: ";
          break;
        case 'D':
          failure = "cannot enter " + o.working_dir + ": ";
          break;
        case 'L':
          failure = "cannot confine " + path + " to its files (Landlock): ";
          break;
        case 'K':
          failure = "cannot drop the capabilities of " + path + ": ";
          break;
        case 'E':
          failure = "cannot execute " + path + ": ";
          break;
        default:
          break;
      }
      if (!failure.empty()) {
        child.wait();
        return {std::nullopt, failure + std::strerror(value)};
      }
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
  std::swap(program_pid_, o.program_pid_);
  std::swap(network_isolated_, o.network_isolated_);
  std::swap(confined_, o.confined_);
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
// The child has exited: the rest of its group (a forked grandchild) is killed while the child is
// still a zombie, then the child is reaped. In that order its pid, which is the group's id, cannot
// have been given to another process by then (reaping first left a window in which another test's
// new worker could take the pid and be killed as this group).
void Child::reap_exited() {
  ::kill(-pid_, SIGKILL);
  while (::waitpid(pid_, &status_, 0) < 0 && errno == EINTR) {
  }
  reaped_ = true;
}
int Child::wait() {
  if (reaped_ || pid_ <= 0) return status_;
  siginfo_t info{};
  while (::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR) {
  }
  reap_exited();
  return status_;
}
std::optional<int> Child::try_wait() {
  if (reaped_) return status_;
  if (pid_ <= 0) return std::nullopt;
  siginfo_t info{};
  if (::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) < 0 ||
      info.si_pid != pid_)
    return std::nullopt;
  reap_exited();
  return status_;
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
  result.confined = child.confined();
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

}  // namespace kforge::evaluation
