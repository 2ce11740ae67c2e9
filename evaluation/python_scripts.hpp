// Running kforge's own Python scripts (the exporter, the KernelBench importer) through a warm
// interpreter where one serves: exporter/script_server.py, whose socket KFORGE_SCRIPT_SERVER
// names, runs each request in a fork of a process that has imported torch once (a fresh
// interpreter spends about 3 s on those imports; an export of a small task about 0.5 s more).
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

#include "common/result.hpp"
#include "evaluation/process.hpp"

namespace kforge::evaluation {

/// The environment variable that names a script server's socket.
inline constexpr const char* kScriptServerVariable = "KFORGE_SCRIPT_SERVER";

/// Runs `spawn` (argv: the interpreter, one of kforge's scripts, its arguments; from task_script)
/// as run() does. Through the script server that KFORGE_SCRIPT_SERVER names where the spawn asks
/// for nothing a fork of the server cannot give (a whole environment of its own, limits,
/// confinement, descriptors, a network namespace) and the server answers for this interpreter;
/// else, also when the server cannot be reached, refuses or breaks off (kforge's scripts are
/// idempotent: an export publishes its folder whole), in a fresh interpreter with the time left.
/// The result is the same either way: the script's exit status, its stdout and stderr, the
/// deadline kept (a script past it is killed with its process group).
RunResult run_script(const SpawnOptions& spawn, std::chrono::milliseconds timeout,
                     size_t output_limit = 1 << 20);

/// A script server (exporter/script_server.py) on `socket_path` for the interpreter task_python()
/// names, as a child that dies with the caller, returned once it accepts connections; why not
/// where it ends first or does not listen within a minute.
Result<Child> start_script_server(const std::string& socket_path, int idle_seconds);

/// Whether something accepts connections on the Unix socket `path`.
bool script_server_listens(const std::string& path);

}  // namespace kforge::evaluation
