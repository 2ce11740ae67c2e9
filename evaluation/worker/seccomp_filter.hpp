// The worker's system-call filter (libseccomp, on every thread of the worker): once the worker has
// initialised LibTorch and the device, a candidate may not open sockets, run programs, fork, trace,
// signal or reach into other processes, change namespaces or mounts, administer the machine, add
// filters of its own, or catch the signal the filter raises. A forbidden call ends the worker with
// an event that names the call.
#pragma once

#include <string>

namespace kforge::worker {

/// Installs the filter; `event_fd` receives the violation report. Returns an error or "".
std::string install_seccomp_filter(int event_fd);

}  // namespace kforge::worker
