// Starting other programs without a shell: an argument vector, an optional new network namespace,
// resource limits, a working directory, chosen file descriptors, optional filesystem confinement,
// and a deadline. Used for the compiler, the task exporter and the worker; kernel source never
// reaches a shell.
//
// Lifetime: every child dies with the thread that started it (PR_SET_PDEATHSIG), also on kill -9
// of kforge, and where the OS allows a new PID namespace (root, or unprivileged user namespaces)
// the program runs as its first process, so that everything it starts dies with it: a compiler's
// cc1plus or a Python exporter's helpers do not outlive kforge.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "evaluation/confinement.hpp"

namespace kforge::evaluation {

struct ResourceLimits {
  std::optional<uint64_t> address_space_bytes;  ///< RLIMIT_AS; leave unset for CUDA processes
  std::optional<uint64_t> cpu_seconds;          ///< RLIMIT_CPU
  std::optional<uint64_t> file_size_bytes;      ///< RLIMIT_FSIZE
  std::optional<uint64_t> open_files;           ///< RLIMIT_NOFILE
};

struct SpawnOptions {
  std::vector<std::string> argv;  ///< argv[0] is looked up on PATH when it has no '/'
  std::vector<std::pair<std::string, std::string>> set_env;  ///< added to the environment
  /// The whole environment ("NAME=value"); unset: the parent's is inherited.
  std::optional<std::vector<std::string>> environment;
  std::string working_dir;
  bool isolate_network = true;  ///< a new network namespace (no interfaces) where the OS allows
  /// A new PID namespace where the OS allows (its descendants die with it); false for a program
  /// that should live as if started from a shell (a daemon under test).
  bool own_pid_namespace = true;
  ResourceLimits limits;
  std::vector<std::pair<int, int>> fds;  ///< child fd <- parent fd, kept open across exec
  bool capture_output = true;            ///< stdout and stderr into one pipe (else /dev/null)
  /// Landlock confinement and no capabilities; unset: the program sees what kforge sees.
  std::optional<FilesystemView> filesystem;
  /// With `filesystem` set on a kernel without Landlock: start unconfined (true) or refuse (false).
  bool allow_unconfined = false;
};

/// A started child process, in its own process group. Destroying it kills the group.
class Child {
 public:
  Child() = default;
  Child(Child&&) noexcept;
  Child& operator=(Child&&) noexcept;
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  ~Child();

  /// The program's process id (as kforge sees it), for /proc.
  pid_t pid() const { return program_pid_ > 0 ? program_pid_ : pid_; }
  int output_fd() const { return output_fd_; }  ///< read end of stdout+stderr, -1 if not captured
  bool network_isolated() const { return network_isolated_; }
  /// Its descendants die with it (it is the first process of a new PID namespace).
  bool owns_descendants() const { return program_pid_ > 0; }
  bool confined() const { return confined_; }

  /// SIGKILL to the whole process group.
  void kill_group();
  /// Waits for exit (blocking). Returns the raw wait status.
  int wait();
  /// Non-blocking: the raw wait status if the child has exited.
  std::optional<int> try_wait();

 private:
  friend struct Spawner;
  void reap_exited();
  pid_t pid_ = -1;          // the process kforge forked and waits for (leads the process group)
  pid_t program_pid_ = -1;  // the program, when pid_ only relays its status from outside its PID
                            // namespace
  int output_fd_ = -1;
  bool network_isolated_ = false;
  bool confined_ = false;
  bool reaped_ = false;
  int status_ = 0;
};

struct SpawnResult {
  std::optional<Child> child;
  std::string error;  ///< why it could not start (program not found, ...)
};
SpawnResult spawn(const SpawnOptions& options);

struct RunResult {
  bool started = false;
  std::string start_error;
  int exit_code = -1;  ///< -1 when killed by a signal
  int signal = 0;
  bool timed_out = false;
  std::string output;  ///< stdout+stderr, truncated to the limit with a note
  double seconds = 0;
  bool network_isolated = false;
  bool confined = false;
  bool served = false;  ///< run in a fork of the script server (run_script), not a fresh process
  bool ok() const { return started && !timed_out && exit_code == 0; }
  std::string describe() const;  ///< "exit 1", "killed by signal 9 (Killed)", "timed out after 5 s"
};

/// Runs to completion, capturing at most output_limit bytes of output, killing at the deadline.
RunResult run(const SpawnOptions& options, std::chrono::milliseconds timeout,
              size_t output_limit = 1 << 20);

/// "killed by SIGSEGV (segmentation fault)" and the like.
std::string describe_signal(int signal);

/// Absolute path of a program on PATH, or empty.
std::string find_program(const std::string& name);

}  // namespace kforge::evaluation
