// What the worker (and so every candidate it loads) may reach of the file system, applied by the
// worker to itself before it starts a thread: read-only, the libraries it has loaded and those the
// CUDA driver and LibTorch load later, the folders kforge names (the candidate's library folder,
// task exports) and the few system files a driver reads; writable, only its private scratch
// folder; the device files of its backend. No home folder, no state directory, no /tmp, no other
// process's /proc entries. Capabilities are dropped too.
#pragma once

#include <string>
#include <vector>

namespace kforge::worker {

struct ConfinementRequest {
  bool cuda = false;
  std::string scratch;                ///< writable
  std::vector<std::string> readable;  ///< read-only folders kforge names
  std::vector<std::string> writable;  ///< more writable folders (where outputs are saved)
};

/// Confines this process. Returns an error ("" on success); `description` lists the rules.
std::string confine_worker(const ConfinementRequest& request, std::string& description);

}  // namespace kforge::worker
