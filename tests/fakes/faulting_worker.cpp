// A stand-in for kforge-worker that speaks its protocol (evaluation/worker_protocol.hpp) and whose
// device breaks after a correct result, as a CUDA worker's does when the calls that record a
// kernel's counters leave a sticky error: it answers every request with a correct result, and the
// supervisor's sync after it with the worker's `fatal` line (kind `illegal_memory_access`) for as
// many of its processes as the number in `faults_left` (in WorkerOptions::scratch_dir, the folder
// two levels above its --scratch) says, each taking one. A request that asks for the kernel trace
// or the hardware counters gets a `trace` or `counters` step before its result; where the file
// `faults_need_profiler` is there too, only such a request's process faults (the profiler's calls
// break the device, the kernel's do not). Where the number in `lost_at_profiler` says so, the
// process instead reports every config the request lists correct, starts the trace or counters
// step, and dies there of SIGSEGV (a profiler that crashes the worker after a correct timing).
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "common/json.hpp"

namespace {

void send(int fd, const kforge::json::Value& event) {
  const std::string line = event.dump() + "\n";
  if (::write(fd, line.data(), line.size()) != static_cast<ssize_t>(line.size())) ::_exit(3);
}

// Takes one fault from the count in `path`; false when none is left.
bool take_fault(const std::filesystem::path& path) {
  int left = 0;
  std::ifstream(path) >> left;
  if (left <= 0) return false;
  std::ofstream(path) << left - 1;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  int request_fd = -1, event_fd = -1;
  std::filesystem::path scratch;
  for (int i = 1; i + 1 < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--request-fd") request_fd = std::stoi(argv[i + 1]);
    if (arg == "--event-fd") event_fd = std::stoi(argv[i + 1]);
    if (arg == "--scratch") scratch = argv[i + 1];
  }
  if (request_fd < 0 || event_fd < 0 || scratch.empty()) return 2;
  const auto faults = scratch.parent_path().parent_path() / "faults_left";
  const auto lost = scratch.parent_path().parent_path() / "lost_at_profiler";
  const bool need_profiler =
      std::filesystem::exists(scratch.parent_path().parent_path() / "faults_need_profiler");
  FILE* requests = ::fdopen(request_fd, "r");
  kforge::json::Value ready;
  ready.set("event", "ready");
  send(event_fd, ready);
  bool faulty = false;
  char* line = nullptr;
  size_t capacity = 0;
  while (::getline(&line, &capacity, requests) > 0) {
    auto request = kforge::json::parse(line);
    if (!request.value) return 2;
    const std::string op = (*request.value)["op"].as_string();
    kforge::json::Value event;
    if (op == "evaluate") {
      const bool dies = ((*request.value)["trace"].as_bool(false) ||
                         (*request.value)["counters"].as_bool(false)) &&
                        take_fault(lost);
      if (dies)
        for (const auto& index : (*request.value)["configs"].as_array()) {
          kforge::json::Value config;
          config.set("event", "config").set("index", index).set("correct", true);
          send(event_fd, config);
        }
      bool profiled = false;
      for (const char* stage : {"trace", "counters"}) {
        if (!(*request.value)[stage].as_bool(false)) continue;
        kforge::json::Value step;
        step.set("event", "step").set("stage", stage).set("config", int64_t{0});
        send(event_fd, step);
        profiled = true;
        if (dies) ::raise(SIGSEGV);
      }
      kforge::json::Value none;
      none.array();
      event.set("event", "result").set("verdict", "correct").set("configs", none);
      faulty = (profiled || !need_profiler) && take_fault(faults);
    } else if (op == "sync" && faulty) {
      event.set("event", "fatal")
          .set("kind", "illegal_memory_access")
          .set("message", "the device reports cudaErrorLaunchFailure: unspecified launch failure");
      send(event_fd, event);
      ::_exit(4);
    } else if (op == "sync") {
      event.set("event", "synced").set("nonce", (*request.value)["nonce"]);
    } else {
      break;
    }
    send(event_fd, event);
  }
  return 0;
}
