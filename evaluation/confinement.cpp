#include "evaluation/confinement.hpp"

#include <fcntl.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

extern char** environ;

namespace kforge::evaluation {
namespace {

// Landlock's interface, spelled out here because distributions ship older headers than the
// kernels they run on (Debian 12's header stops at ABI 3). Values from the kernel's UAPI.
constexpr uint64_t kExecute = 1ull << 0, kWriteFile = 1ull << 1, kReadFile = 1ull << 2,
                   kReadDir = 1ull << 3, kRemoveDir = 1ull << 4, kRemoveFile = 1ull << 5,
                   kMakeChar = 1ull << 6, kMakeDir = 1ull << 7, kMakeReg = 1ull << 8,
                   kMakeSock = 1ull << 9, kMakeFifo = 1ull << 10, kMakeBlock = 1ull << 11,
                   kMakeSym = 1ull << 12, kRefer = 1ull << 13, kTruncate = 1ull << 14,
                   kIoctlDev = 1ull << 15;
constexpr uint64_t kNetBindTcp = 1ull << 0, kNetConnectTcp = 1ull << 1;
constexpr uint64_t kScopeAbstractUnixSocket = 1ull << 0, kScopeSignal = 1ull << 1;
constexpr unsigned kCreateRulesetVersion = 1u << 0;
constexpr int kRulePathBeneath = 1;

struct RulesetAttr {
  uint64_t handled_access_fs;
  uint64_t handled_access_net;  // ABI 4
  uint64_t scoped;              // ABI 6
};
struct __attribute__((packed)) PathBeneathAttr {
  uint64_t allowed_access;
  int32_t parent_fd;
};

uint64_t handled_fs(int abi) {
  uint64_t all = kExecute | kWriteFile | kReadFile | kReadDir | kRemoveDir | kRemoveFile |
                 kMakeChar | kMakeDir | kMakeReg | kMakeSock | kMakeFifo | kMakeBlock | kMakeSym;
  if (abi >= 2) all |= kRefer;
  if (abi >= 3) all |= kTruncate;
  if (abi >= 5) all |= kIoctlDev;
  return all;
}

// Rights that apply to a file (not a folder): a rule on a file may carry only these.
constexpr uint64_t kFileRights = kExecute | kWriteFile | kReadFile | kTruncate | kIoctlDev;

constexpr uint64_t kReadOnly = kExecute | kReadFile | kReadDir;
constexpr uint64_t kDevice = kReadFile | kWriteFile | kReadDir | kIoctlDev;

}  // namespace

int landlock_abi(std::string* why) {
  long abi = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, kCreateRulesetVersion);
  if (abi > 0) return static_cast<int>(abi);
  if (why) {
    utsname u{};
    ::uname(&u);
    *why = errno == ENOSYS       ? std::string("this kernel (") + u.release + ") has no Landlock"
           : errno == EOPNOTSUPP ? std::string("Landlock is built into this kernel (") + u.release +
                                       ") but not enabled (boot with lsm=...,landlock)"
                                 : std::string("Landlock: ") + std::strerror(errno);
  }
  return 0;
}

PreparedView::PreparedView(const FilesystemView& view, int abi) : abi_(abi) {
  if (abi_ <= 0) return;
  const uint64_t handled = handled_fs(abi_);
  auto add = [&](const std::string& path, uint64_t rights, const char* kind) {
    struct stat st {};
    if (path.empty() || ::stat(path.c_str(), &st) != 0) return;
    rights &= handled;
    if (!S_ISDIR(st.st_mode)) rights &= kFileRights;
    paths_.push_back(path);
    access_.push_back(rights);
    kinds_.push_back(kind);
  };
  for (const auto& p : view.read_only) add(p, kReadOnly, "ro");
  for (const auto& p : view.read_write) add(p, handled, "rw");
  for (const auto& p : view.devices) add(p, kDevice, "dev");
}

int PreparedView::apply() const {
  if (abi_ <= 0) return ENOSYS;
  RulesetAttr attr{handled_fs(abi_), 0, 0};
  size_t size = sizeof(uint64_t);
  if (abi_ >= 4) {
    attr.handled_access_net = kNetBindTcp | kNetConnectTcp;
    size = 2 * sizeof(uint64_t);
  }
  if (abi_ >= 6) {
    attr.scoped = kScopeAbstractUnixSocket | kScopeSignal;
    size = sizeof attr;
  }
  int ruleset = static_cast<int>(::syscall(SYS_landlock_create_ruleset, &attr, size, 0u));
  if (ruleset < 0) return errno;
  for (size_t i = 0; i < paths_.size(); ++i) {
    int fd = ::open(paths_[i].c_str(), O_PATH | O_CLOEXEC);
    if (fd < 0) continue;  // gone since it was prepared: nothing to allow
    PathBeneathAttr rule{access_[i], fd};
    long r = ::syscall(SYS_landlock_add_rule, ruleset, kRulePathBeneath, &rule, 0u);
    int e = errno;
    ::close(fd);
    if (r != 0) {
      ::close(ruleset);
      return e;
    }
  }
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
    int e = errno;
    ::close(ruleset);
    return e;
  }
  long r = ::syscall(SYS_landlock_restrict_self, ruleset, 0u);
  int e = errno;
  ::close(ruleset);
  return r == 0 ? 0 : e;
}

std::string PreparedView::describe() const {
  std::string out;
  for (size_t i = 0; i < paths_.size(); ++i) out += std::string(kinds_[i]) + " " + paths_[i] + "\n";
  return out;
}

int drop_capabilities() {
  for (int cap = 0; cap <= 63; ++cap) {
    if (::prctl(PR_CAPBSET_READ, cap, 0, 0, 0) < 0) break;  // past the kernel's last capability
    if (::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EPERM) return errno;
  }
  ::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2] = {};
  if (::syscall(SYS_capset, &header, data) != 0) return errno;
  return 0;
}

std::vector<std::string> mapped_library_dirs() {
  std::set<std::string> dirs;
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    // "addr perms offset dev inode path": only files mapped executable (the program and its
    // shared libraries). A data mapping (a device, a locale archive, a deleted memfd) must not
    // open its folder: /dev would expose raw disks to a process running as root.
    std::istringstream fields(line);
    std::string range, perms, offset, device, inode, path;
    fields >> range >> perms >> offset >> device >> inode >> path;
    if (perms.size() < 3 || perms[2] != 'x' || path.empty() || path[0] != '/') continue;
    if (line.find("(deleted)") != std::string::npos) continue;
    for (const char* pseudo : {"/dev/", "/proc/", "/sys/", "/memfd:"})
      if (path.rfind(pseudo, 0) == 0) path.clear();
    auto dir = std::filesystem::path(path).parent_path().string();
    if (!dir.empty() && dir != "/") dirs.insert(dir);
  }
  return {dirs.begin(), dirs.end()};
}

std::vector<std::string> confined_environment(const std::string& home) {
  static const char* const kExact[] = {"PATH", "LD_LIBRARY_PATH", "LANG", "LANGUAGE", "TZ", "TERM"};
  static const char* const kPrefixes[] = {"LC_",  "CUDA_", "NVIDIA_", "NVCC_",    "OMP_",
                                          "KMP_", "GOMP_", "MKL_",    "OPENBLAS_"};
  std::vector<std::string> out;
  for (char** e = environ; *e; ++e) {
    std::string entry(*e);
    auto eq = entry.find('=');
    if (eq == std::string::npos) continue;
    std::string name = entry.substr(0, eq);
    bool keep = std::any_of(std::begin(kExact), std::end(kExact),
                            [&](const char* n) { return name == n; }) ||
                std::any_of(std::begin(kPrefixes), std::end(kPrefixes),
                            [&](const char* p) { return name.rfind(p, 0) == 0; });
    if (keep) out.push_back(entry);
  }
  out.push_back("HOME=" + home);
  out.push_back("TMPDIR=" + home);
  return out;
}

}  // namespace kforge::evaluation
