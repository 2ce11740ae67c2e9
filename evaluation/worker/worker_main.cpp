// kforge-worker: one process per backend and device that loads candidates and evaluates them.
// Requests arrive as JSON lines on --request-fd, events and results leave as JSON lines on
// --event-fd; stdout and stderr belong to the candidates (the supervisor captures them). The
// worker is expendable: a candidate that crashes, hangs or exits takes only this process down.
#include <ATen/ATen.h>
#include <ATen/Context.h>
#include <ATen/Parallel.h>
#include <torch/csrc/jit/runtime/graph_executor.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "common/json.hpp"
#include "evaluation/worker/candidate_library.hpp"
#include "evaluation/worker/device.hpp"
#include "evaluation/worker/evaluation.hpp"
#include "evaluation/worker/seccomp_filter.hpp"
#include "evaluation/worker/worker_confinement.hpp"

namespace {

int g_event_fd = 4;
std::atomic<bool> g_in_request{false};

void write_all(int fd, const std::string& text) {
  size_t off = 0;
  while (off < text.size()) {
    ssize_t n = ::write(fd, text.data() + off, text.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    off += static_cast<size_t>(n);
  }
}

void send(const kforge::json::Value& event) {
  write_all(g_event_fd, event.dump() + "\n");
}

// exit() from inside a candidate runs atexit handlers: say so before the process goes.
void on_exit_during_request() {
  if (g_in_request.load())
    write_all(g_event_fd,
              "{\"event\":\"fatal\",\"kind\":\"candidate_exit\",\"message\":\"the candidate called "
              "exit() "
              "during the evaluation\"}\n");
}

bool only_loopback_network() {
  std::ifstream in("/proc/net/dev");
  std::string line;
  int interfaces = 0;
  bool other = false;
  while (std::getline(in, line)) {
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    ++interfaces;
    std::string name = line.substr(0, colon);
    name.erase(0, name.find_first_not_of(' '));
    other = other || name != "lo";
  }
  return interfaces > 0 && !other;
}

// Whether /proc shows this process under its own pid: not so in a PID namespace that kept its
// parent's /proc.
bool own_proc() {
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self", ec);
  return !ec && self.string() == std::to_string(::getpid());
}

bool read_line(int fd, std::string& buffer, std::string& line) {
  for (;;) {
    auto nl = buffer.find('\n');
    if (nl != std::string::npos) {
      line = buffer.substr(0, nl);
      buffer.erase(0, nl + 1);
      return true;
    }
    char chunk[65536];
    ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    buffer.append(chunk, static_cast<size_t>(n));
  }
}

int usage() {
  std::cerr
      << "usage: kforge-worker --backend cpu|cuda [--device N] [--request-fd 3] [--event-fd 4] "
         "--scratch DIR [--read DIR]... [--write DIR]... [--unconfined] [--no-seccomp] "
         "[--checker]\n"
         "Started by kforge, not by hand: it speaks JSON lines on the two descriptors.\n";
  return 2;
}

struct WorkerArgs {
  std::string backend = "cpu";
  int device_index = 0, request_fd = 3;
  bool seccomp = true, confine = true, checker = false;
  kforge::worker::ConfinementRequest confinement;
};

/// The command line; nothing when it is not one the supervisor writes.
std::optional<WorkerArgs> parse_args(int argc, char** argv) {
  WorkerArgs w;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--backend")
      w.backend = next();
    else if (a == "--device")
      w.device_index = std::atoi(next().c_str());
    else if (a == "--request-fd")
      w.request_fd = std::atoi(next().c_str());
    else if (a == "--event-fd")
      g_event_fd = std::atoi(next().c_str());
    else if (a == "--no-seccomp")
      w.seccomp = false;
    else if (a == "--scratch")
      w.confinement.scratch = next();
    else if (a == "--read")
      w.confinement.readable.push_back(next());
    else if (a == "--write")
      w.confinement.writable.push_back(next());
    else if (a == "--unconfined")
      w.confine = false;
    else if (a == "--checker")  // answers "check" requests only: loads no candidate, times nothing
      w.checker = true;
    else
      return std::nullopt;
  }
  if (w.backend != "cpu" && w.backend != "cuda") return std::nullopt;
  if (w.confine && w.confinement.scratch.empty()) return std::nullopt;
  return w;
}

/// The worker cannot start: the supervisor reads why.
int fatal(const std::string& kind, const std::string& message) {
  kforge::json::Value e;
  e.set("event", "fatal").set("kind", kind).set("message", message);
  send(e);
  return 3;
}

/// A request the worker does not take: an error result, and the worker goes on.
void refuse(const std::string& message) {
  kforge::json::Value e, f;
  f.set("kind", "infrastructure").set("message", message);
  e.set("event", "result").set("verdict", "error").set("failure", f);
  send(e);
}

/// LibTorch as the reference runs: full fp32 (no TF32), the TorchScript graph interpreted as
/// written (no fusion, so the reference time is the eager time of the same operators), and every
/// pool and engine started before any candidate, so that no thread of theirs is taken for one a
/// candidate started (evaluation/worker/thread_watch.hpp).
void prepare_libtorch() {
  at::globalContext().setAllowTF32CuBLAS(false);
  at::globalContext().setAllowTF32CuDNN(false);
  torch::jit::setGraphExecutorOptimize(false);
  at::set_num_threads(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  // Start LibTorch's OpenMP pool now, so that threads it creates are never taken for a candidate's.
  at::parallel_for(0, 1 << 16, 1, [](int64_t, int64_t) {});
  // The first reduction and elementwise operators replace that pool's threads with their own
  // (libgomp, measured): let them do it now, so that every candidate finds its pool started.
  {
    at::Tensor w = at::rand({256, 999});
    at::Tensor m = std::get<0>(w.max(1, true));
    at::Tensor e = (w - m).exp();
    (void)(e / e.sum(1, true)).sum().item<float>();
  }
  // Start autograd's engine now too: its first backward pass starts one thread per device kind
  // and, in a build with CUDA, initialises the CUDA driver (which opens a socket). Later, under
  // the system-call filter, the reference of a backward task would be taken for a candidate
  // making forbidden calls.
  {
    at::Tensor x = at::ones({1});
    x.set_requires_grad(true);
    (x * 2).sum().backward();
  }
}

/// The ready message: the worker's pid, its device and its sandbox in words.
kforge::json::Value ready_event(const kforge::worker::Device& device,
                                const std::string& seccomp_error,
                                const std::string& confinement_error,
                                const std::string& confinement_rules) {
  kforge::json::Value ready, sandbox;
  sandbox.set("seccomp", seccomp_error.empty()).set("network_isolated", only_loopback_network());
  if (!seccomp_error.empty()) sandbox.set("seccomp_error", seccomp_error);
  sandbox.set("filesystem_confined", confinement_error.empty());
  if (confinement_error.empty())
    sandbox.set("filesystem_rules", confinement_rules);
  else
    sandbox.set("filesystem_error", confinement_error);
  ready.set("event", "ready")
      .set("pid", static_cast<int64_t>(::getpid()))
      .set("device", device.describe());
  ready.set("sandbox", sandbox);
  return ready;
}

/// Answers requests, one JSON line each, until "exit" or the supervisor closes the pipe.
void serve(int request_fd, bool checker, kforge::worker::Device& device) {
  kforge::worker::Evaluator evaluator(device, send);
  std::string buffer, line;
  while (read_line(request_fd, buffer, line)) {
    auto parsed = kforge::json::parse(line);
    if (!parsed.value) {
      refuse("bad request: " + parsed.error);
      continue;
    }
    const std::string op = (*parsed.value)["op"].as_string();
    if (op == "exit") break;
    if (op == "sync") {  // the supervisor's proof that the result it read was the last line
      kforge::json::Value e;
      e.set("event", "synced").set("nonce", (*parsed.value)["nonce"].as_string());
      send(e);
      continue;
    }
    if (op != "check" && (op != "evaluate" || checker)) {
      refuse(op == "evaluate" ? "a checker loads no candidate; it only checks"
                              : "unknown op `" + op + "`");
      continue;
    }
    g_in_request = true;
    auto result =
        op == "check" ? evaluator.check(*parsed.value) : evaluator.evaluate(*parsed.value);
    g_in_request = false;
    send(result);
    bool fatal_error = false;
    std::string device_error = device.pending_error(&fatal_error);
    if (fatal_error) {
      fatal("illegal_memory_access", "the device reports " + device_error);
      ::_exit(4);  // the CUDA context cannot be used again
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  auto args = parse_args(argc, argv);
  if (!args) return usage();
  WorkerArgs& w = *args;

  // Confinement first, while this is the only thread: every thread started later inherits it.
  w.confinement.cuda = w.backend == "cuda";
  std::string confinement_rules;
  std::string confinement_error =
      w.confine ? kforge::worker::confine_worker(w.confinement, confinement_rules)
                : "disabled by --unconfined";
  if (w.confine && !confinement_error.empty())
    return fatal("infrastructure", "the worker cannot confine itself: " + confinement_error);

  prepare_libtorch();

  std::unique_ptr<kforge::worker::Device> device;
  if (w.backend == "cuda" && !own_proc())
    return fatal("infrastructure",
                 "the worker runs in a PID namespace whose /proc belongs to another one (pid " +
                     std::to_string(::getpid()) +
                     " here, not in /proc/self): the CUDA driver cannot start there. Run kforge "
                     "outside it, or give the namespace its own /proc (unshare --mount-proc)");
  if (w.backend == "cuda") {
    auto made = kforge::worker::make_cuda_device(w.device_index);
    if (!made) return fatal("infrastructure", made.error);
    device = std::move(*made);
  } else {
    device = kforge::worker::make_cpu_device(/*timing=*/!w.checker);
  }
  kforge::worker::record_guarded_symbols();
  std::string seccomp_error =
      w.seccomp ? kforge::worker::install_seccomp_filter(g_event_fd) : "disabled by --no-seccomp";
  std::atexit(on_exit_during_request);

  send(ready_event(*device, seccomp_error, confinement_error, confinement_rules));
  serve(w.request_fd, w.checker, *device);
  return 0;
}
