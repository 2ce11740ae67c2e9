#include "evaluation/worker_client.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <thread>

#include "evaluation/build_config.hpp"
#include "evaluation/worker_protocol.hpp"
#include "evaluation/worker_request.hpp"

namespace kforge::evaluation {
namespace {

constexpr size_t kOutputLimit = 64 * 1024;
// The longest line the worker writes: a result with a kernel trace and counters is well below.
constexpr size_t kLineLimit = 64ull << 20;

// Anonymous resident memory: what the process allocated. File-backed pages (the mapped code of
// LibTorch and CUDA, over a gigabyte on a CUDA build) are left out; VmRSS where RssAnon is missing.
uint64_t anonymous_rss_bytes(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  uint64_t total = 0;
  while (std::getline(in, line)) {
    if (line.rfind("RssAnon:", 0) == 0) return std::stoull(line.substr(8)) * 1024;
    if (line.rfind("VmRSS:", 0) == 0) total = std::stoull(line.substr(6)) * 1024;
  }
  return total;
}

uint64_t physical_memory() {
  long pages = ::sysconf(_SC_PHYS_PAGES), size = ::sysconf(_SC_PAGE_SIZE);
  return pages > 0 && size > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(size)
                               : (16ull << 30);
}

// Scratch folders are named kforge-worker-<pid>-XXXXXX and kforge-outputs-<pid>-XXXXXX after the
// kforge process that made them. One whose maker is gone (killed with -9 before it could clean
// up) is removed; one whose pid is alive is left alone, whoever runs under that pid now.
void remove_orphaned_scratch(const std::string& root) {
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator(root, ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename();
    for (const char* prefix : {"kforge-worker-", "kforge-outputs-"}) {
      if (name.rfind(prefix, 0) != 0) continue;
      const std::string rest = name.substr(std::strlen(prefix));
      const auto dash = rest.find('-');
      if (dash == std::string::npos || dash == 0 || rest.find_first_not_of("0123456789") != dash)
        continue;
      struct stat st {};
      if (::lstat(it->path().c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::geteuid())
        continue;
      std::error_code gone;
      if (!std::filesystem::exists("/proc/" + rest.substr(0, dash), gone))
        std::filesystem::remove_all(it->path(), gone);
    }
  }
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// The start of a line, quoted: enough to recognise it, never a second line.
std::string quoted_start(const std::string& line) {
  std::string out = "\"";
  for (char c : line.substr(0, 80)) out += (static_cast<unsigned char>(c) < 0x20) ? '?' : c;
  return out + (line.size() > 80 ? "...\"" : "\"");
}

json::Value failure(const std::string& kind, const std::string& message) {
  json::Value f;
  f.set("kind", kind).set("message", message);
  return f;
}

// A worker lost (killed at the stage's limit, crashed, out of memory) while it recorded the
// kernel trace or the hardware counters, once every config the request covers was reported
// correct: the calls that decide the verdict are done, and what was being recorded explains a
// verdict, it is no part of one. The failure is marked as one after the checks, so that
// evaluate_candidate judges the kernel once more in a fresh worker without that record (the
// counters of KernelBench's full-size 36_LSTMHn, 14838 launches a call, ran for minutes on an
// H100 after its correct timing). A sandbox or protocol violation stays the candidate's.
void mark_lost_while_recording(json::Value& result, const ProtocolMonitor& monitor,
                               const json::Value& configs) {
  const auto stage = monitor.stage();
  if (!stage || (*stage != Stage::trace && *stage != Stage::counters)) return;
  if (configs.as_array().size() != monitor.configs_expected()) return;
  for (const auto& c : configs.as_array())
    if (!c["correct"].as_bool(false)) return;
  const std::string kind = result["failure"]["kind"].as_string();
  for (const char* lost : {"timeout", "crash", "killed", "out_of_memory", "illegal_memory_access"})
    if (kind == lost) {
      json::Value f = result["failure"];
      f.set("after_checks", true).set("stage", std::string(stage_name(*stage)));
      result.set("failure", std::move(f));
      return;
    }
}

// What kforge, not the candidate, failed at: the verdict is "error".
EvalOutcome infrastructure_error(const std::string& message) {
  EvalOutcome outcome;
  outcome.result.set("event", "result")
      .set("verdict", "error")
      .set("failure", failure("infrastructure", message));
  return outcome;
}

}  // namespace

std::string default_worker_path() {
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    auto beside = self.parent_path() / "kforge-worker";
    if (std::filesystem::exists(beside)) return beside;
  }
  return build::worker_path;
}

struct WorkerClient::Running {
  std::string scratch;  // private: lib/ (read-only to the worker) and work/ (its own)
  Child child;
  int request_fd = -1;
  int event_fd = -1;
  std::string events;  // bytes read but not yet split into lines
  // The memory watchdog's line: the worker's own anonymous memory once ready, plus the limit.
  uint64_t memory_ceiling = UINT64_MAX;
  bool awaiting_ready = false;  ///< launched; its "ready" line not read yet
  std::thread output_reader;
  std::mutex output_mutex;
  std::string output;
  size_t output_dropped = 0;

  ~Running() {
    child.kill_group();
    child.wait();
    if (request_fd >= 0) ::close(request_fd);
    if (event_fd >= 0) ::close(event_fd);
    if (output_reader.joinable()) output_reader.join();
    std::error_code ec;
    if (!scratch.empty()) std::filesystem::remove_all(scratch, ec);
  }
};

WorkerClient::WorkerClient(WorkerOptions options) : options_(std::move(options)) {
  if (options_.worker_path.empty()) options_.worker_path = default_worker_path();
  if (options_.memory_limit_bytes == 0) options_.memory_limit_bytes = physical_memory() / 2;
  if (options_.scratch_dir.empty()) options_.scratch_dir = std::filesystem::temp_directory_path();
  remove_orphaned_scratch(options_.scratch_dir);
}

WorkerClient::~WorkerClient() {
  stop();
  checker_.reset();
  std::error_code ec;
  if (!outputs_root_.empty()) std::filesystem::remove_all(outputs_root_, ec);
}

void WorkerClient::stop() {
  if (running_ && running_->request_fd >= 0) {
    (void)!::write(running_->request_fd, "{\"op\":\"exit\"}\n", 14);
  }
  running_.reset();
}

std::string WorkerClient::ensure_outputs_root() {
  if (options_.checker || !options_.verify || !outputs_root_.empty()) return {};
  std::error_code ec;
  std::filesystem::create_directories(options_.scratch_dir, ec);
  std::string root = (std::filesystem::path(options_.scratch_dir) /
                      ("kforge-outputs-" + std::to_string(::getpid()) + "-XXXXXX"))
                         .string();
  if (!::mkdtemp(root.data()))
    return "cannot create a folder for outputs in " + options_.scratch_dir + ": " +
           std::strerror(errno);
  outputs_root_ = root;
  return {};
}

std::string WorkerClient::ensure_started() {
  if (std::string error = launch(); !error.empty()) return error;
  return await_ready();
}

std::string WorkerClient::launch() {
  if (running_) {
    if (!running_->child.try_wait()) return {};
    running_.reset();
  }
  std::string why_unconfined;
  const bool confinable = landlock_abi(&why_unconfined) > 0;
  if (!confinable && !options_.allow_unconfined)
    return "candidates are not run: the worker cannot be confined to its files, " + why_unconfined +
           ". Run on a kernel with Landlock, or pass --allow-unconfined to run candidates "
           "with access to every file you can reach";
  if (!confinable && !warned_unconfined_) {
    warned_unconfined_ = true;
    std::fprintf(stderr,
                 "kforge: WARNING: candidates run WITHOUT filesystem confinement (%s); they can "
                 "read and write every file you can\n",
                 why_unconfined.c_str());
  }
  std::error_code ec;
  std::filesystem::create_directories(options_.scratch_dir, ec);
  std::string scratch = (std::filesystem::path(options_.scratch_dir) /
                         ("kforge-worker-" + std::to_string(::getpid()) + "-XXXXXX"));
  if (!::mkdtemp(scratch.data()))
    return "cannot create a scratch folder in " + options_.scratch_dir + ": " +
           std::strerror(errno);
  const std::string work = scratch + "/work", lib = scratch + "/lib";
  std::filesystem::create_directory(work, ec);
  std::filesystem::create_directory(lib, ec);
  if (ec) {
    std::filesystem::remove_all(scratch, ec);
    return "cannot prepare the scratch folder " + scratch + ": " + ec.message();
  }
  if (std::string error = ensure_outputs_root(); !error.empty()) {
    std::filesystem::remove_all(scratch, ec);
    return error;
  }
  int req[2], ev[2];
  if (::pipe2(req, O_CLOEXEC) != 0 || ::pipe2(ev, O_CLOEXEC) != 0)
    return std::string("pipe: ") + std::strerror(errno);
  SpawnOptions so;
  so.argv = {options_.worker_path,
             "--backend",
             std::string(to_string(options_.backend)),
             "--device",
             std::to_string(options_.device),
             "--request-fd",
             "3",
             "--event-fd",
             "4"};
  if (!options_.seccomp) so.argv.push_back("--no-seccomp");
  if (options_.checker) so.argv.push_back("--checker");
  so.argv.insert(so.argv.end(), {"--scratch", work, "--read", lib});
  for (const auto& dir : options_.readable_dirs) so.argv.insert(so.argv.end(), {"--read", dir});
  if (!outputs_root_.empty()) so.argv.insert(so.argv.end(), {"--write", outputs_root_});
  if (!confinable) so.argv.push_back("--unconfined");
  so.working_dir = work;
  // No PID namespace: the CUDA driver fails in one whose /proc is kforge's (cuInit returns
  // CUDA_ERROR_OPERATING_SYSTEM). The worker cannot start processes (seccomp), so the parent-death
  // signal alone ends it with kforge.
  so.own_pid_namespace = false;
  so.environment = confined_environment(work);
  so.fds = {{3, req[0]}, {4, ev[1]}};
  // A file as large as a task's saved outputs: KernelBench's 19_ReLU returns 1.6 G float32
  // elements (6.4 GB), which a 4 GiB limit killed mid-write (SIGXFSZ).
  so.limits.file_size_bytes = 32ull << 30;
  so.limits.open_files = 4096;
  // An address-space limit breaks CUDA's large virtual reservations, which a worker linked with
  // CUDA makes even on the cpu backend: only CPU-only builds get one. The RSS watchdog covers all.
  if (options_.backend == Backend::cpu && !build::with_cuda)
    so.limits.address_space_bytes = options_.memory_limit_bytes * 2;
  auto started = spawn(so);
  ::close(req[0]);
  ::close(ev[1]);
  if (!started.child) {
    ::close(req[1]);
    ::close(ev[0]);
    std::filesystem::remove_all(scratch, ec);
    return "cannot start the worker " + options_.worker_path + ": " + started.error;
  }
  ::signal(SIGPIPE, SIG_IGN);  // a dead worker must not take the supervisor with it
  running_ = std::make_unique<Running>();
  running_->scratch = scratch;
  running_->child = std::move(*started.child);
  running_->request_fd = req[1];
  running_->event_fd = ev[0];
  Running* r = running_.get();
  r->output_reader = std::thread([r] {
    char buf[8192];
    int fd = r->child.output_fd();
    for (;;) {
      ssize_t n = ::read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      std::lock_guard lock(r->output_mutex);
      size_t room = kOutputLimit > r->output.size() ? kOutputLimit - r->output.size() : 0;
      r->output.append(buf, std::min<size_t>(room, static_cast<size_t>(n)));
      r->output_dropped += static_cast<size_t>(n) - std::min<size_t>(room, static_cast<size_t>(n));
    }
  });
  evaluations_ = 0;
  running_->awaiting_ready = true;
  return {};
}

std::string WorkerClient::await_ready() {
  if (!running_) return "the worker was not started";
  if (!running_->awaiting_ready) return {};
  running_->awaiting_ready = false;
  std::string line;
  const Read read = read_line(std::chrono::steady_clock::now() + options_.start_timeout, line);
  std::optional<json::Value> event;
  if (read == Read::line) event = json::parse(line).value;
  if (!event || (*event)["event"].as_string() != "ready") {
    std::string why = event                ? (*event)["message"].as_string()
                      : read == Read::line ? "it wrote something else than its ready event"
                      : read == Read::eof  ? "it exited"
                                           : "it did not answer in time";
    std::string output = take_output();
    running_.reset();
    return "the worker did not start: " + why + (output.empty() ? "" : "\n" + output);
  }
  ready_ = *event;
  running_->memory_ceiling =
      anonymous_rss_bytes(running_->child.pid()) + options_.memory_limit_bytes;
  return {};
}

std::string WorkerClient::take_output() {
  if (!running_) return {};
  std::lock_guard lock(running_->output_mutex);
  std::string out = std::move(running_->output);
  if (running_->output_dropped)
    out += "\n[kforge: " + std::to_string(running_->output_dropped) +
           " more bytes of output dropped]\n";
  running_->output.clear();
  running_->output_dropped = 0;
  return out;
}

WorkerClient::Read WorkerClient::read_line(std::chrono::steady_clock::time_point deadline,
                                           std::string& line) {
  Running& r = *running_;
  for (;;) {
    auto nl = r.events.find('\n');
    if (nl != std::string::npos) {
      line = r.events.substr(0, nl);
      r.events.erase(0, nl + 1);
      return Read::line;
    }
    if (r.events.size() > kLineLimit) return Read::too_long;
    auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return Read::timeout;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count();
    pollfd pfd{r.event_fd, POLLIN, 0};
    int n = ::poll(&pfd, 1, static_cast<int>(std::min<int64_t>(left, 200)));
    if (anonymous_rss_bytes(r.child.pid()) > r.memory_ceiling) return Read::over_memory;
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) continue;
    char buf[65536];
    ssize_t got = ::read(r.event_fd, buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return Read::eof;
    r.events.append(buf, static_cast<size_t>(got));
  }
}

json::Value WorkerClient::died(const std::string& step, double step_timeout_s, bool timed_out,
                               bool over_memory, const std::optional<json::Value>& fatal,
                               json::Value partial_configs) {
  Running& r = *running_;
  if (timed_out || over_memory) r.child.kill_group();
  int status = r.child.wait();
  json::Value result;
  result.set("event", "result").set("verdict", "incorrect").set("configs", partial_configs);
  std::string during = step.empty() ? "" : " during \"" + step + "\"";
  if (timed_out) {
    result.set("failure",
               failure("timeout",
                       "no progress within " + std::to_string(static_cast<int>(step_timeout_s)) +
                           " s" + during + "; the worker was killed (a hang or an endless loop)"));
  } else if (over_memory) {
    result.set("failure",
               failure("out_of_memory", "the candidate added more than " +
                                            std::to_string(options_.memory_limit_bytes >> 20) +
                                            " MiB of host memory" + during + "; it was killed"));
  } else if (fatal) {
    std::string kind = (*fatal)["kind"].as_string();
    result.set("failure", failure(kind, (*fatal)["message"].as_string() + during));
    if (kind == "infrastructure") result.set("verdict", "error");
  } else if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    if (sig == SIGSYS) {
      result.set("failure", failure("sandbox_violation",
                                    "the worker was killed by " + describe_signal(sig) + during +
                                        ": the candidate made a forbidden system call with "
                                        "signals blocked"));
      return result;
    }
    std::string kind =
        sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL || sig == SIGABRT
            ? "crash"
            : "killed";
    result.set("failure",
               failure(kind, "the worker was killed by " + describe_signal(sig) + during));
  } else {
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    result.set("failure", failure("candidate_exit",
                                  "the worker exited with status " + std::to_string(code) + during +
                                      "; the candidate ended the process (exit, _exit or abort)"));
  }
  return result;
}

bool WorkerClient::readable(const std::string& path) const {
  auto target = std::filesystem::weakly_canonical(path).lexically_normal();
  for (const auto& dir : options_.readable_dirs) {
    auto base = std::filesystem::weakly_canonical(dir).lexically_normal();
    auto rel = target.lexically_relative(base);
    if (!rel.empty() && *rel.begin() != "..") return true;
  }
  return false;
}

// The candidate's library is copied into the worker's lib/ folder, which the worker may read but
// not write, under a name of kforge's choosing: the worker sees this library and no other
// candidate's.
std::string WorkerClient::stage_library(const std::string& library) {
  auto staged = std::filesystem::path(running_->scratch) / "lib" /
                ("candidate-" + std::to_string(++libraries_staged_) + ".so");
  std::error_code ec;
  std::filesystem::copy_file(library, staged, ec);
  return ec ? std::string() : staged.string();
}

// A task export the running worker may not read: a new worker that may.
void WorkerClient::allow_reading(const std::string& export_dir) {
  if (export_dir.empty() || readable(export_dir)) return;
  options_.readable_dirs.push_back(std::filesystem::weakly_canonical(export_dir).string());
  stop();
}

EvalOutcome WorkerClient::evaluate(json::Value request, const EventCallback& on_event) {
  if (options_.checker || !options_.verify) return exchange(std::move(request), on_event);
  allow_reading(request["export_dir"].as_string());
  if (std::string error = ensure_outputs_root(); !error.empty()) return infrastructure_error(error);
  const auto starting = std::chrono::steady_clock::now();
  // The checker (a CUDA process takes seconds to start) starts beside the worker, never while
  // the worker times: both are launched from this thread, then awaited. (Launched from a thread
  // of its own, the checker died with that thread, its parent-death signal's thread, and was
  // started again after the worker's result.) The checker's own error, if any, comes back where
  // it is first asked to confirm a result.
  (void)checker().launch();
  if (std::string error = ensure_started(); !error.empty()) return infrastructure_error(error);
  (void)checker().await_ready();
  const double start_s = seconds_since(starting);
  // The worker saves the candidate's outputs in a folder of this evaluation's own.
  const auto outputs =
      std::filesystem::path(outputs_root_) / ("evaluation-" + std::to_string(++evaluations_run_));
  std::error_code ec;
  std::filesystem::create_directory(outputs, ec);
  request.set("outputs_dir", outputs.string());
  json::Value check = request;
  EvalOutcome outcome = exchange(request, on_event);
  const auto confirming = std::chrono::steady_clock::now();
  if (!ec && outcome.result["verdict"].as_string() == "correct") confirm(check, outcome);
  if (outcome.result["stage_seconds"].is_object())
    outcome.result.set("stage_seconds", json::Value(outcome.result["stage_seconds"])
                                            .set("worker_start", start_s)
                                            .set("checker", seconds_since(confirming)));
  // A speedup too large to believe is measured again in a fresh worker, where nothing an earlier
  // candidate left behind (a parked thread, a warm cache, a patched allocator) can slow the
  // reference down; the fresh worker's numbers and verdict are the ones reported.
  const double flag = WorkerRequest::from_json(request).speedup_flag;
  json::Value first_speedups;
  first_speedups.array();
  for (const auto& c : outcome.result["configs"].as_array())
    if (c["speedup"].as_number() > flag) first_speedups.push(c["speedup"]);
  if (outcome.result["verdict"].as_string() == "correct" && !first_speedups.as_array().empty()) {
    stop();
    std::filesystem::remove_all(outputs, ec);
    std::filesystem::create_directory(outputs, ec);
    EvalOutcome again = exchange(std::move(request), on_event);
    if (!ec && again.result["verdict"].as_string() == "correct") confirm(check, again);
    json::Value retimed;
    retimed
        .set("reason", "a speedup above " + std::to_string(flag) +
                           "x: measured again in a fresh worker, whose result this is")
        .set("first_speedups", first_speedups);
    again.result.set("retimed_in_fresh_worker", retimed);
    again.candidate_output = outcome.candidate_output + again.candidate_output;
    outcome = std::move(again);
  }
  std::filesystem::remove_all(outputs, ec);
  return outcome;
}

// A correct verdict from the worker, where the candidate ran, counts only once the checker, which
// never runs candidate code, agrees: it recomputes the reference and compares the saved outputs.
WorkerClient& WorkerClient::checker() {
  if (!checker_) {
    WorkerOptions o = options_;
    o.checker = true;
    o.verify = false;
    o.readable_dirs.push_back(outputs_root_);
    checker_ = std::make_unique<WorkerClient>(o);
  }
  return *checker_;
}

void WorkerClient::confirm(const json::Value& request, EvalOutcome& outcome) {
  auto checked = checker().evaluate(request);
  const std::string verdict = checked.result["verdict"].as_string();
  if (checked.worker_died) {
    // The checker runs no candidate code: its crash, timeout or memory overrun is kforge's.
    outcome.result.set("verdict", "error")
        .set("failure", failure("infrastructure",
                                "the checker died before it could confirm the "
                                "result: " +
                                    checked.result["failure"]["message"].as_string()));
    stop();
    return;
  }
  if (verdict == "correct") {
    outcome.result.set("checked_by_checker", checked.result["checked"]);
    return;
  }
  const std::string message = checked.result["failure"]["message"].as_string();
  if (verdict == "incorrect")
    outcome.result.set("verdict", "incorrect")
        .set("failure", failure(checked.result["failure"]["kind"].as_string(),
                                "kforge's checker (a separate process that runs no candidate "
                                "code) contradicts the worker's report of a correct result: " +
                                    message));
  else
    outcome.result.set("verdict", "error")
        .set("failure",
             failure("infrastructure", "the checker could not confirm the result: " + message));
  stop();  // the worker that reported it is not to be trusted with the next candidate
}

Result<std::vector<size_t>> WorkerClient::configs_of(const json::Value& request) {
  const std::string path = request["export_dir"].as_string() + "/task.json";
  auto parsed = json::parse_file(path);
  if (!parsed.value)
    return Result<std::vector<size_t>>::failure("cannot read the exported task: " + parsed.error);
  const auto r = WorkerRequest::from_json(request);
  return {selected_configs((*parsed.value)["directions"][r.direction]["configs"], r), {}};
}

std::string WorkerClient::sync_after_result(EvalOutcome& outcome, const std::string& last_stage) {
  std::random_device random;
  const std::string nonce =
      std::to_string((static_cast<uint64_t>(random()) << 32) ^ static_cast<uint64_t>(random()));
  const std::string request = "{\"op\":\"sync\",\"nonce\":\"" + nonce + "\"}\n";
  if (::write(running_->request_fd, request.data(), request.size()) !=
      static_cast<ssize_t>(request.size()))
    return "a result, after which the worker would not take a request";
  std::string line;
  // The worker answers at once: its main loop reads the next request as soon as it has sent a
  // result. A result line written while the evaluation still ran finds it busy.
  const Read read = read_line(std::chrono::steady_clock::now() + std::chrono::seconds(30), line);
  if (read == Read::eof) return {};  // it ended after its result: the next request starts another
  if (read != Read::line)
    return "a result while the evaluation was still running (the worker did not answer the "
           "request that follows a result within 30 s)";
  auto next = json::parse(line);
  if (!next.value) return "a line that is not JSON after the result (" + quoted_start(line) + ")";
  const json::Value& event = *next.value;
  const std::string kind = event["event"].as_string();
  if (kind == "synced" && event["nonce"].as_string() == nonce) return {};
  // The device's sticky error, found after the result: the worker ends, and the kernel that left
  // the device broken is not correct. After a correct result the fault came from the calls that
  // record its trace or counters (every check before ended with a clean device): marked so that
  // evaluate_candidate judges it in a fresh worker once more.
  if (kind == "fatal" && event["kind"].as_string() == "illegal_memory_access") {
    if (outcome.result["verdict"].as_string() == "correct")
      outcome.result.set("verdict", "incorrect")
          .set("failure", failure("illegal_memory_access", event["message"].as_string() +
                                                               " (after every check passed, at `" +
                                                               last_stage + "`)")
                              .set("after_checks", true)
                              .set("stage", last_stage));
    return {};
  }
  return "a `" + kind.substr(0, 40) +
         "` line after the result, where only the answer to kforge's " + "next request belongs";
}

EvalOutcome WorkerClient::exchange(json::Value request, const EventCallback& on_event) {
  allow_reading(request["export_dir"].as_string());
  if (std::string error = ensure_started(); !error.empty()) return infrastructure_error(error);
  request.set("op", options_.checker ? "check" : "evaluate");
  auto selected = configs_of(request);
  if (!selected) return infrastructure_error(selected.error);
  const std::string library = options_.checker ? std::string() : request["library"].as_string();
  std::string staged = library.empty() ? std::string() : stage_library(library);
  if (!library.empty() && staged.empty())
    return infrastructure_error("cannot copy " + library + " into the worker's scratch folder");
  if (!staged.empty()) request.set("library", staged);
  std::string line = request.dump() + "\n";
  if (::write(running_->request_fd, line.data(), line.size()) !=
      static_cast<ssize_t>(line.size())) {
    running_.reset();
    return infrastructure_error("cannot send the request to the worker");
  }
  EvalOutcome outcome;
  const auto started = std::chrono::steady_clock::now();
  ProtocolMonitor monitor(WorkerRequest::from_json(request), std::move(*selected));
  const auto total_deadline =
      started + std::chrono::milliseconds(static_cast<int64_t>(monitor.total_limit_s() * 1000));
  auto stage_deadline = [&] {
    const auto stage =
        std::chrono::steady_clock::now() +
        std::chrono::milliseconds(static_cast<int64_t>(monitor.stage_limit_s() * 1000));
    return std::min(stage, total_deadline);
  };
  auto deadline = stage_deadline();
  // Where the time went, stage by stage (the result's "stage_seconds"): for a person reading a
  // slow evaluation, never for a verdict.
  std::map<std::string, double> stage_seconds;
  std::string stage = "start";
  auto stage_began = std::chrono::steady_clock::now();
  auto close_stage = [&] {
    const auto now = std::chrono::steady_clock::now();
    stage_seconds[stage] += std::chrono::duration<double>(now - stage_began).count();
    stage_began = now;
  };
  json::Value configs;
  configs.array();
  std::optional<json::Value> fatal;
  // The worker is killed and the candidate rejected: its channel carried what the protocol
  // does not allow, which kforge's worker does not write and a candidate can.
  auto violated = [&](const std::string& what) {
    running_->child.kill_group();
    running_->child.wait();
    outcome.result = json::Value();
    outcome.result.set("event", "result")
        .set("verdict", "incorrect")
        .set("configs", configs)
        .set("failure", failure("protocol_violation",
                                "the worker's channel to kforge carried " + what + " during \"" +
                                    monitor.step() +
                                    "\": kforge's worker does not write that, a kernel writing "
                                    "into the worker's descriptors does; the worker was killed"));
    outcome.worker_died = true;
    outcome.candidate_output = take_output();
    running_.reset();
    return outcome;
  };
  for (;;) {
    std::string line;
    const Read read = read_line(deadline, line);
    if (read == Read::too_long) return violated("a line longer than 64 MiB");
    if (read != Read::line) {
      const double limit =
          deadline == total_deadline ? monitor.total_limit_s() : monitor.stage_limit_s();
      outcome.result = died(monitor.step(), limit, read == Read::timeout, read == Read::over_memory,
                            fatal, configs);
      mark_lost_while_recording(outcome.result, monitor, configs);
      outcome.worker_died = true;
      outcome.candidate_output = take_output();
      running_.reset();
      return outcome;
    }
    auto parsed = json::parse(line);
    if (!parsed.value) return violated("a line that is not JSON (" + quoted_start(line) + ")");
    const json::Value& event = *parsed.value;
    if (std::string why = monitor.accept(event); !why.empty()) return violated(why);
    const std::string kind = event["event"].as_string();
    if (kind == "step") {
      deadline = stage_deadline();
      close_stage();
      stage = event["stage"].as_string();
    } else if (kind == "config") {
      configs.push(event);
    } else if (kind == "fatal") {
      fatal = event;
      deadline = std::min(std::chrono::steady_clock::now() + std::chrono::seconds(10),
                          total_deadline);  // it is on its way out
    } else if (kind == "result") {
      outcome.result = event;
      close_stage();
      json::Value seconds;
      for (const auto& [name, t] : stage_seconds) seconds.set(name, t);
      outcome.result.set("stage_seconds", seconds);
      if (std::string why = sync_after_result(outcome, stage); !why.empty()) return violated(why);
      break;
    }
    if (on_event) on_event(event);
  }
  outcome.candidate_output = take_output();
  // The worker keeps the library mapped; the copy in lib/ is not needed any more.
  std::error_code ec;
  if (!staged.empty()) std::filesystem::remove(staged, ec);
  // A rejected candidate may have left threads, memory or a broken context behind: the next
  // candidate gets a fresh process. Accepted ones share a worker until it is recycled.
  if ((!options_.checker && outcome.result["verdict"].as_string() != "correct") ||
      ++evaluations_ >= options_.recycle_after)
    stop();
  return outcome;
}

Result<std::string> cuda_arch_of(const json::Value& device) {
  const std::string cc = device["compute_capability"].as_string();
  const auto dot = cc.find('.');
  auto digits = [](std::string_view s) {
    return !s.empty() && s.size() <= 2 &&
           std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
  };
  if (dot == std::string::npos || !digits(std::string_view(cc).substr(0, dot)) ||
      !digits(std::string_view(cc).substr(dot + 1)))
    return Result<std::string>::failure(
        "the CUDA worker reported no compute capability (device: " + device.dump() + ")");
  return {"sm_" + cc.substr(0, dot) + cc.substr(dot + 1), {}};
}

namespace {

/// The bytes in PyTorch's "Tried to allocate 4.00 TiB" (-1 when the text has none).
double requested_bytes(const std::string& message) {
  const std::string marker = "Tried to allocate ";
  const size_t at = message.find(marker);
  if (at == std::string::npos) return -1;
  double amount = 0;
  char unit[8] = {};
  if (std::sscanf(message.c_str() + at + marker.size(), "%lf %7s", &amount, unit) != 2) return -1;
  const std::string u = unit;
  for (auto [name, scale] : {std::pair{"bytes", 1.0},
                             {"KiB", 0x1p10},
                             {"MiB", 0x1p20},
                             {"GiB", 0x1p30},
                             {"TiB", 0x1p40}})
    if (u.rfind(name, 0) == 0) return amount * scale;
  return -1;
}

}  // namespace

std::string crowded_out_of_memory(const json::Value& result, int64_t crowded_bytes) {
  const auto& m = result["device_memory"];
  if (result["failure"]["kind"].as_string() != "out_of_memory" || !m.is_object()) return "";
  const int64_t others = m["others_bytes"].as_int();
  if (others <= crowded_bytes) return "";
  // A request that would not fit even if the others freed all theirs is the kernel's own.
  const double requested = requested_bytes(result["failure"]["message"].as_string());
  if (requested > static_cast<double>(others + m["free_bytes"].as_int())) return "";
  auto gib = [](int64_t bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f GiB", static_cast<double>(bytes) / (1 << 30));
    return std::string(text);
  };
  return "the GPU ran out of memory while " + gib(others) + " of its " +
         gib(m["total_bytes"].as_int()) +
         " were held outside the worker's allocator (other processes, or memory the kernel took "
         "with cudaMalloc itself; the worker held " +
         gib(m["worker_bytes"].as_int()) + ")";
}

EvalOutcome evaluate_candidate(WorkerClient& worker, const WorkerRequest& request,
                               const WorkerClient::EventCallback& on_event,
                               const std::function<void(const std::string& why)>& on_retry) {
  const json::Value doc = request.to_json();
  auto outcome = worker.evaluate(doc, on_event);
  const auto& result = outcome.result;
  if (result["verdict"].as_string() == "error" &&
      result["failure"]["kind"].as_string() == "infrastructure") {
    if (on_retry) on_retry(result["failure"]["message"].as_string());
    worker.stop();
    outcome = worker.evaluate(doc, on_event);
  }
  // A device fault after every check passed (the trace's or the counters' calls, whose replay
  // under another process's load once failed a correct kernel), or a worker lost while it
  // recorded the trace or the counters after every config was reported correct, is judged again
  // in a fresh worker: a kernel that faults twice is not correct; one whose second evaluation is
  // clean is, with a flag that says what the first worker saw. Where the fault came at the trace or
  // the counters, the second evaluation records neither (from the trace on) or no counters: they
  // explain a verdict and are no part of it, so the profiler cannot fail a correct kernel twice.
  if (result["verdict"].as_string() == "incorrect" &&
      result["failure"]["after_checks"].as_bool(false)) {
    const std::string first = result["failure"]["message"].as_string();
    const std::string stage = result["failure"]["stage"].as_string();
    json::Value again_doc = doc;
    std::string without;
    if (stage == stage_name(Stage::trace) &&
        (doc["trace"].as_bool(false) || doc["counters"].as_bool(false))) {
      again_doc.set("trace", false).set("counters", false);
      without = " without the kernel trace and the hardware counters";
    } else if (stage == stage_name(Stage::counters) && doc["counters"].as_bool(false)) {
      again_doc.set("counters", false);
      without = " without the hardware counters";
    }
    const bool device_fault = result["failure"]["kind"].as_string() == "illegal_memory_access";
    const std::string_view flag = device_fault ? kDeviceFaultOnceFlag : kWorkerLostOnceFlag;
    if (on_retry)
      on_retry(std::string(device_fault ? "the device failed" : "the worker was lost") +
               " after every check passed: " + first);
    worker.stop();
    const std::string output = outcome.candidate_output;
    outcome = worker.evaluate(again_doc, on_event);
    outcome.candidate_output = output + outcome.candidate_output;
    auto& again = outcome.result;
    if (again["verdict"].as_string() == "correct") {
      json::Value flags = again["flags"];
      flags.array();
      flags.push(std::string(flag) + ": " + first + "; a fresh worker's evaluation" + without +
                 " was clean");
      again.set("flags", std::move(flags));
    } else if (again["failure"]["after_checks"].as_bool(false)) {
      json::Value f = again["failure"];
      f.set("message",
            f["message"].as_string() + "; the first worker failed the same way (" + first + ")");
      again.set("failure", std::move(f));
    }
  }
  const auto& o = worker.options();
  std::string crowded = crowded_out_of_memory(outcome.result, o.crowded_bytes);
  for (int i = 0; !crowded.empty() && i < o.crowded_retries; ++i) {
    if (on_retry)
      on_retry(crowded + "; trying again in " + std::to_string(o.crowded_wait.count()) + " s");
    worker.stop();  // its cached memory too
    std::this_thread::sleep_for(o.crowded_wait);
    outcome = worker.evaluate(doc, on_event);
    crowded = crowded_out_of_memory(outcome.result, o.crowded_bytes);
  }
  if (!crowded.empty()) {
    json::Value failure;
    failure.set("kind", "infrastructure")
        .set("message", crowded + ", " + std::to_string(o.crowded_retries + 1) +
                            " times: no verdict on the kernel (its words: " +
                            outcome.result["failure"]["message"].as_string() + ")");
    outcome.result.set("verdict", "error").set("failure", std::move(failure));
  }
  return outcome;
}

}  // namespace kforge::evaluation
