// The supervisor side of a worker: starts kforge-worker in its sandbox, sends evaluation requests,
// enforces the timeout of every step and a memory limit, and turns a worker that died (crash,
// exit, forbidden system call, illegal memory access, hang) into a result with its reason. The
// next request starts a fresh worker; workers are also recycled after a number of evaluations.
// A correct verdict is confirmed by a second worker, the checker, which runs no candidate code:
// the worker saves the candidate's outputs, the checker recomputes the reference and compares
// them, so a candidate that forges its worker's report or patches its memory gains nothing.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "common/json.hpp"
#include "common/result.hpp"
#include "evaluation/compiler.hpp"
#include "evaluation/process.hpp"
#include "evaluation/worker_request.hpp"

namespace kforge::evaluation {

struct WorkerOptions {
  Backend backend = Backend::cpu;
  int device = 0;
  std::string worker_path;  ///< empty: next to the running program, else the build's
  /// Where each worker gets its private scratch folder (mode 0700, removed when it stops): `work/`,
  /// its only writable place, and `lib/`, the candidates' libraries it may only read. Empty: the
  /// system's temporary folder.
  std::string scratch_dir;
  /// Folders the worker may read besides its own (task exports); others are added on first use.
  std::vector<std::string> readable_dirs;
  bool seccomp = true;
  /// On a kernel without Landlock: run candidates unconfined with a warning (true) or refuse.
  bool allow_unconfined = false;
  /// Anonymous host memory a candidate may add to the worker's own (measured when it is ready);
  /// 0: half of physical memory.
  uint64_t memory_limit_bytes = 0;
  std::chrono::seconds start_timeout{180};
  int recycle_after = 50;  ///< evaluations per worker process
  /// Confirm every correct verdict with a checker process (below) before reporting it.
  bool verify = true;
  /// This client drives a checker: a worker that never loads a candidate and answers "check"
  /// requests (the reference recomputed, the saved outputs compared) instead of evaluations.
  bool checker = false;
  /// A GPU out of memory while more than `crowded_bytes` of it were held outside the worker's
  /// allocator (another process's torch.compile build, say) is no verdict on the kernel: the
  /// evaluation is tried again with a fresh worker, up to `crowded_retries` times `crowded_wait`
  /// apart; still crowded, it ends as an error that says so.
  int crowded_retries = 2;
  std::chrono::seconds crowded_wait{15};
  int64_t crowded_bytes = int64_t{4} << 30;
};

struct EvalOutcome {
  json::Value result;            ///< the worker's result, or one made for a worker that died
  /// What the worker's process printed (bounded): the candidate's lines, and PyTorch's own
  /// warnings from the reference's calls.
  std::string candidate_output;
  bool worker_died = false;
};

class WorkerClient {
 public:
  explicit WorkerClient(WorkerOptions options);
  ~WorkerClient();
  WorkerClient(const WorkerClient&) = delete;
  WorkerClient& operator=(const WorkerClient&) = delete;

  /// Starts the worker if needed. Returns an error or "".
  std::string ensure_started();
  const WorkerOptions& options() const { return options_; }
  /// The worker's "ready" event: device and sandbox description.
  const json::Value& ready() const { return ready_; }

  using EventCallback = std::function<void(const json::Value&)>;
  EvalOutcome evaluate(json::Value request, const EventCallback& on_event = {});

  void stop();

 private:
  struct Running;
  enum class Read { line, timeout, eof, over_memory, too_long };
  /// The worker's next line, or why there is none by `deadline`.
  Read read_line(std::chrono::steady_clock::time_point deadline, std::string& line);
  /// After a result, proves it was the worker's last line: a sync request with a fresh nonce
  /// must be answered next. Returns why not, or "".
  std::string sync_after_result(EvalOutcome& outcome, const std::string& last_stage);
  /// The configs `request` covers in its exported task, as the worker will run them.
  Result<std::vector<size_t>> configs_of(const json::Value& request);
  json::Value died(const std::string& step, double step_timeout_s, bool timed_out, bool over_memory,
                   const std::optional<json::Value>& fatal, json::Value partial_configs);
  std::string take_output();
  EvalOutcome exchange(json::Value request, const EventCallback& on_event);
  void confirm(const json::Value& request, EvalOutcome& outcome);
  /// The folder where workers save outputs for the checker (runner only), made once.
  std::string ensure_outputs_root();
  /// Spawns the worker if none runs (from the calling thread, whose end ends it: its parent-death
  /// signal); await_ready() then reads its "ready" line. ensure_started() is both.
  std::string launch();
  std::string await_ready();
  /// The checker's client, made on first use (its process starts on its first request).
  WorkerClient& checker();
  std::string stage_library(const std::string& library);
  void allow_reading(const std::string& export_dir);
  bool readable(const std::string& path) const;

  WorkerOptions options_;
  std::unique_ptr<Running> running_;
  json::Value ready_;
  int evaluations_ = 0;
  int libraries_staged_ = 0;
  int evaluations_run_ = 0;
  std::string outputs_root_;  ///< where workers save outputs for the checker (runner only)
  std::unique_ptr<WorkerClient> checker_;
  bool warned_unconfined_ = false;
};

/// "" unless `result` is a GPU out-of-memory failure while more than `crowded_bytes` of the GPU
/// were held outside the worker's allocator (its "device_memory"), for a request (PyTorch's "Tried
/// to allocate ...", where it says) that would have fit in that memory; then a sentence with the
/// numbers. (That memory is other processes', the worker's CUDA context's, or what a kernel took
/// with cudaMalloc itself.)
std::string crowded_out_of_memory(const json::Value& result, int64_t crowded_bytes);

/// How the flag of a correct kernel begins whose first evaluation left the device broken after
/// every check passed (recording its trace or counters) and whose second, in a fresh worker, was
/// clean; the first worker's message follows after ": ".
inline constexpr std::string_view kDeviceFaultOnceFlag = "device fault once after the checks";
/// The same for a first worker lost (killed at its stage's limit, crashed, out of memory) while it
/// recorded the kernel trace or the hardware counters, after every config was reported correct.
inline constexpr std::string_view kWorkerLostOnceFlag = "worker lost once after the checks";

/// One candidate's evaluation as kforge makes it everywhere (the evaluator actor, `kforge eval`):
/// the request to the worker, and once more with a fresh worker when the first could not start or
/// lost its pipe (an infrastructure failure says nothing about the candidate); again, after a
/// wait, while the GPU ran out of memory crowded by others (WorkerOptions::crowded_retries);
/// once more with a fresh worker when the device failed after every check passed (a kernel that
/// faults twice is not correct; see kDeviceFaultOnceFlag) or the worker was lost while recording
/// the trace or the counters of a kernel whose every config was correct (kWorkerLostOnceFlag);
/// `on_retry` hears why a try did not
/// count.
EvalOutcome evaluate_candidate(WorkerClient& worker, const WorkerRequest& request,
                               const WorkerClient::EventCallback& on_event = {},
                               const std::function<void(const std::string& why)>& on_retry = {});

/// kforge-worker's path: beside /proc/self/exe if present, else the build tree's.
std::string default_worker_path();

/// The nvcc architecture ("sm_90") of the device a CUDA worker reported in its ready message
/// (`device.compute_capability`, "9.0"); an error when it reported none or something else: the
/// kernels are compiled for the device they run on, never for a guessed one.
Result<std::string> cuda_arch_of(const json::Value& device);

}  // namespace kforge::evaluation
