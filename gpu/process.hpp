// Starting other programs without a shell: an argument vector, an optional new network namespace,
// resource limits, a working directory, chosen file descriptors, and a deadline. Used for the
// compiler, the task exporter and the worker; kernel source never reaches a shell.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kforge::gpu {

struct ResourceLimits {
  std::optional<uint64_t> address_space_bytes;  ///< RLIMIT_AS; leave unset for CUDA processes
  std::optional<uint64_t> cpu_seconds;          ///< RLIMIT_CPU
  std::optional<uint64_t> file_size_bytes;      ///< RLIMIT_FSIZE
  std::optional<uint64_t> open_files;           ///< RLIMIT_NOFILE
};

struct SpawnOptions {
  std::vector<std::string> argv;  ///< argv[0] is looked up on PATH when it has no '/'
  std::vector<std::pair<std::string, std::string>> set_env;  ///< added to the inherited environment
  std::string working_dir;
  bool isolate_network = true;  ///< a new network namespace (no interfaces) where the OS allows
  ResourceLimits limits;
  std::vector<std::pair<int, int>> fds;  ///< child fd <- parent fd, kept open across exec
  bool capture_output = true;            ///< stdout and stderr into one pipe (else /dev/null)
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

  pid_t pid() const { return pid_; }
  int output_fd() const { return output_fd_; }  ///< read end of stdout+stderr, -1 if not captured
  bool network_isolated() const { return network_isolated_; }

  /// SIGKILL to the whole process group.
  void kill_group();
  /// Waits for exit (blocking). Returns the raw wait status.
  int wait();
  /// Non-blocking: the raw wait status if the child has exited.
  std::optional<int> try_wait();

 private:
  friend struct Spawner;
  pid_t pid_ = -1;
  int output_fd_ = -1;
  bool network_isolated_ = false;
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

}  // namespace kforge::gpu
