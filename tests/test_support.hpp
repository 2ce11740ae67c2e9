// Shared by the test suites: the cache folder of this build, exporting a bundled task once, and
// compiling and evaluating a kernel file through the same library calls `kforge eval` makes.
#pragma once

#include <gtest/gtest.h>

#include <sys/types.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/json.hpp"
#include "common/result.hpp"
#include "evaluation/compiler.hpp"
#include "evaluation/task_export.hpp"
#include "evaluation/worker_client.hpp"
#include "evaluation/worker_request.hpp"

namespace kforge {
inline void PrintTo(Headers headers, std::ostream* os) {
  *os << to_string(headers);
}
}  // namespace kforge

namespace kforge::test {

/// A read that must succeed (an archive read, a view): its value, or the test fails with its
/// error (the exception ends the test there).
template <class T>
T must(Result<T> read) {
  if (!read) {
    ADD_FAILURE() << read.error;
    throw std::runtime_error(read.error);
  }
  return std::move(*read);
}

std::string source_dir();
std::string cache_dir();

/// An empty scratch folder for the running test, `<tmp>/kforge_<suite>_<pid>_<test name>`,
/// made afresh (what an earlier run left there is removed); the fixture removes it after.
std::filesystem::path fresh_test_dir(const std::string& suite);

/// A TCP port of loopback that nobody listens on now (0 where none could be found).
uint16_t free_loopback_port();

/// What a test kernel says of itself in its first two lines: the words after the first line's
/// colon (`// expect: mismatch timeout`: the verdicts it may get) and the second line whole (an
/// optional `// request: {...}` or `// min-kernel-ms: 0.5`).
struct KernelHeader {
  std::vector<std::string> words;
  std::string second_line;
};
KernelHeader kernel_header(const std::string& kernel_path);

/// Exports tasks/<name> (or a path) once per process; fails the test on error.
const evaluation::ExportedTaskInfo& exported(const std::string& task_path);

struct Evaluation {
  evaluation::CompileResult compile;
  evaluation::EvalOutcome outcome;
  std::string verdict() const {
    return outcome.result["verdict"].as_string(compile.ok ? "" : "compile_error");
  }
  std::string failure_kind() const {
    return compile.ok ? outcome.result["failure"]["kind"].as_string() : "compile_error";
  }
  std::string describe() const;  ///< for assertion messages
};

/// Compiles `kernel_path` for `backend` (with `headers`) and evaluates it on `task_path` with
/// `request` fields added.
/// A worker request for tests: `seeds` trials per config of `mode`, timed briefly (at most
/// `max_seconds` and 3 to 5 repetitions per config).
evaluation::WorkerRequest test_request(const std::string& direction, const std::string& mode,
                                       int seeds, double max_seconds = 0.3);

Evaluation evaluate(evaluation::WorkerClient& worker, evaluation::Backend backend,
                    const std::string& task_path, const std::string& kernel_path,
                    evaluation::WorkerRequest request, const std::string& cuda_arch = "sm_90",
                    evaluation::Headers headers = evaluation::Headers::automatic);

/// Both ways a kernel is built (the light headers first, and LibTorch's only), for suites that
/// check that a kernel gets the same verdict either way; and a test-name suffix for each.
inline const std::vector<evaluation::Headers> both_headers = {evaluation::Headers::automatic,
                                                              evaluation::Headers::full};
inline std::string headers_suffix(evaluation::Headers h) {
  return h == evaluation::Headers::full ? "full_headers" : "light_first";
}

/// A process that runs (zombies waiting to be reaped are left out), from /proc.
struct LiveProcess {
  pid_t pid = 0;
  pid_t parent = 0;
  std::string name;      ///< as in /proc/PID/stat
  std::string command;   ///< /proc/PID/cmdline, arguments separated by NUL
  double started_s = 0;  ///< when it started, in seconds since boot (/proc/PID/stat's starttime)
};
std::vector<LiveProcess> live_processes();
bool is_alive(pid_t pid);

/// True when this machine lets kforge start a program in its own PID namespace (root, or
/// unprivileged user namespaces): only then do a program's own children die with it.
bool pid_namespaces_work();

/// True when this build has CUDA and a GPU is visible.
bool cuda_available();

}  // namespace kforge::test
