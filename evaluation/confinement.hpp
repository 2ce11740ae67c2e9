// Filesystem confinement with Landlock: a confined process reaches only the files and folders it
// is given (read-only, writable, or device files it may also ioctl), whatever its uid, including
// through /proc/<pid>/root and other magic links. With a new enough kernel it also may not open TCP
// connections, reach abstract UNIX sockets or signal processes outside its domain. Used for the
// compiler (before exec, by the spawner) and for the worker (by itself, before it starts threads);
// both also lose every capability.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kforge::evaluation {

/// What a confined process may open. Paths that do not exist are left out.
struct FilesystemView {
  std::vector<std::string> read_only;   ///< files or folders it may read and execute
  std::vector<std::string> read_write;  ///< folders in which it may also create, write and remove
  std::vector<std::string> devices;     ///< device files (or folders of them) to read, write, ioctl
};

/// The Landlock ABI version the running kernel offers, 0 when none; `why` says why not.
int landlock_abi(std::string* why = nullptr);

/// A view resolved to paths and access masks before a fork, so that the child applies it without
/// allocating (only system calls between fork and exec).
class PreparedView {
 public:
  PreparedView() = default;
  PreparedView(const FilesystemView& view, int abi);
  bool empty() const { return abi_ == 0; }
  /// Restricts the calling thread and everything it starts or executes from now on. Sets
  /// no_new_privs. Async-signal-safe. Returns 0 or an errno value.
  int apply() const;
  /// The rules, one "rw /path" line each, for reports and tests.
  std::string describe() const;

 private:
  int abi_ = 0;
  std::vector<std::string> paths_;
  std::vector<uint64_t> access_;
  std::vector<const char*> kinds_;  ///< "ro", "rw" or "dev"
};

/// Drops every capability from the effective, permitted, inheritable, ambient and bounding sets:
/// a process running as root keeps uid 0 but not its privileges. Async-signal-safe; 0 or errno.
int drop_capabilities();

/// Folders of the program and the shared libraries mapped executable into this process (from
/// /proc/self/maps); never /, /dev, /proc or /sys.
std::vector<std::string> mapped_library_dirs();

/// The environment a confined process gets instead of its parent's: the variables toolchains,
/// drivers and thread pools read (PATH, LD_LIBRARY_PATH, CUDA_*, OMP_*, locale, ...) and HOME and
/// TMPDIR set to `home`. Secrets in the parent's environment (API keys, tokens) stay behind.
std::vector<std::string> confined_environment(const std::string& home);

}  // namespace kforge::evaluation
