// kforge-worker: one process per backend and device that loads candidates and evaluates them.
// Requests arrive as JSON lines on --request-fd, events and results leave as JSON lines on
// --event-fd; stdout and stderr belong to the candidates (the supervisor captures them). The
// worker is expendable: a candidate that crashes, hangs or exits takes only this process down.
#include <ATen/ATen.h>
#include <ATen/Context.h>
#include <ATen/Parallel.h>
#include <torch/csrc/jit/runtime/graph_executor.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>

#include "common/json.hpp"
#include "gpu/worker/candidate_library.hpp"
#include "gpu/worker/device.hpp"
#include "gpu/worker/evaluation.hpp"
#include "gpu/worker/seccomp_filter.hpp"
#include "gpu/worker/worker_confinement.hpp"

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

}  // namespace

int main(int argc, char** argv) {
  std::string backend = "cpu";
  int device_index = 0, request_fd = 3;
  bool seccomp = true, confine = true, checker = false;
  kforge::worker::ConfinementRequest confinement;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--backend")
      backend = next();
    else if (a == "--device")
      device_index = std::atoi(next().c_str());
    else if (a == "--request-fd")
      request_fd = std::atoi(next().c_str());
    else if (a == "--event-fd")
      g_event_fd = std::atoi(next().c_str());
    else if (a == "--no-seccomp")
      seccomp = false;
    else if (a == "--scratch")
      confinement.scratch = next();
    else if (a == "--read")
      confinement.readable.push_back(next());
    else if (a == "--write")
      confinement.writable.push_back(next());
    else if (a == "--unconfined")
      confine = false;
    else if (a == "--checker")  // answers "check" requests only: loads no candidate, times nothing
      checker = true;
    else
      return usage();
  }
  if (backend != "cpu" && backend != "cuda") return usage();
  if (confine && confinement.scratch.empty()) return usage();

  // Confinement first, while this is the only thread: every thread started later inherits it.
  confinement.cuda = backend == "cuda";
  std::string confinement_rules;
  std::string confinement_error =
      confine ? kforge::worker::confine_worker(confinement, confinement_rules)
              : "disabled by --unconfined";
  if (confine && !confinement_error.empty()) {
    kforge::json::Value e;
    e.set("event", "fatal")
        .set("kind", "infrastructure")
        .set("message", "the worker cannot confine itself: " + confinement_error);
    send(e);
    return 3;
  }

  // Reference semantics: full fp32 (no TF32), the TorchScript graph interpreted as written
  // (no fusion, so the reference time is the eager time of the same operators).
  at::globalContext().setAllowTF32CuBLAS(false);
  at::globalContext().setAllowTF32CuDNN(false);
  torch::jit::setGraphExecutorOptimize(false);
  at::set_num_threads(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  // Start LibTorch's OpenMP pool now, so that threads it creates are never taken for a candidate's.
  at::parallel_for(0, 1 << 16, 1, [](int64_t, int64_t) {});
  // The first reduction and elementwise operators replace that pool's threads with their own
  // (libgomp, measured): let them do it now, so that every candidate finds its pool started and
  // no thread of it is taken for one the candidate started (gpu/worker/thread_watch.hpp).
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

  std::unique_ptr<kforge::worker::Device> device;
  if (backend == "cuda" && !own_proc()) {
    kforge::json::Value e;
    e.set("event", "fatal")
        .set("kind", "infrastructure")
        .set("message",
             "the worker runs in a PID namespace whose /proc belongs to another one (pid " +
                 std::to_string(::getpid()) +
                 " here, not in /proc/self): the CUDA driver cannot start there. Run kforge "
                 "outside it, or give the namespace its own /proc (unshare --mount-proc)");
    send(e);
    return 3;
  }
  if (backend == "cuda") {
    auto made = kforge::worker::make_cuda_device(device_index);
    if (!made) {
      kforge::json::Value e;
      e.set("event", "fatal").set("kind", "infrastructure").set("message", made.error);
      send(e);
      return 3;
    }
    device = std::move(*made);
  } else {
    device = kforge::worker::make_cpu_device(/*timing=*/!checker);
  }
  kforge::worker::record_guarded_symbols();
  std::string seccomp_error =
      seccomp ? kforge::worker::install_seccomp_filter(g_event_fd) : "disabled by --no-seccomp";
  std::atexit(on_exit_during_request);

  kforge::json::Value ready;
  kforge::json::Value sandbox;
  sandbox.set("seccomp", seccomp_error.empty()).set("network_isolated", only_loopback_network());
  if (!seccomp_error.empty()) sandbox.set("seccomp_error", seccomp_error);
  sandbox.set("filesystem_confined", confinement_error.empty());
  if (confinement_error.empty())
    sandbox.set("filesystem_rules", confinement_rules);
  else
    sandbox.set("filesystem_error", confinement_error);
  ready.set("event", "ready")
      .set("pid", static_cast<int64_t>(::getpid()))
      .set("device", device->describe());
  ready.set("sandbox", sandbox);
  send(ready);

  kforge::worker::Evaluator evaluator(*device, send);
  std::string buffer, line;
  while (read_line(request_fd, buffer, line)) {
    auto parsed = kforge::json::parse(line);
    if (!parsed.value) {
      kforge::json::Value e;
      e.set("event", "result").set("verdict", "error");
      kforge::json::Value f;
      f.set("kind", "infrastructure").set("message", "bad request: " + parsed.error);
      e.set("failure", f);
      send(e);
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
      kforge::json::Value e;
      e.set("event", "result").set("verdict", "error");
      kforge::json::Value f;
      f.set("kind", "infrastructure")
          .set("message", op == "evaluate" ? "a checker loads no candidate; it only checks"
                                           : "unknown op `" + op + "`");
      e.set("failure", f);
      send(e);
      continue;
    }
    g_in_request = true;
    auto result =
        op == "check" ? evaluator.check(*parsed.value) : evaluator.evaluate(*parsed.value);
    g_in_request = false;
    send(result);
    bool fatal = false;
    std::string device_error = device->pending_error(&fatal);
    if (fatal) {
      kforge::json::Value e;
      e.set("event", "fatal")
          .set("kind", "illegal_memory_access")
          .set("message", "the device reports " + device_error);
      send(e);
      ::_exit(4);  // the CUDA context cannot be used again
    }
  }
  return 0;
}
