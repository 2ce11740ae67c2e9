#include "evaluation/worker/seccomp_filter.hpp"

#include <execinfo.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

namespace kforge::worker {
namespace {

int g_event_fd = -1;

// Calls a candidate never needs: networking, running or tracing programs, namespaces and mounts,
// kernel modules and other administration, reaching into other processes (file handles, pidfds,
// process_vm_*), changing its own process group, and adding seccomp filters of its own (one could
// silence the worker's reports).
constexpr const char* kTrapped[] = {
    "socket",
    "socketpair",
    "connect",
    "bind",
    "listen",
    "accept",
    "accept4",
    "execve",
    "execveat",
    "fork",
    "vfork",
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "process_madvise",
    "kcmp",
    "pidfd_open",
    "pidfd_getfd",
    "pidfd_send_signal",
    "unshare",
    "setns",
    "mount",
    "umount2",
    "chroot",
    "pivot_root",
    "open_tree",
    "move_mount",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "mount_setattr",
    "name_to_handle_at",
    "open_by_handle_at",
    "init_module",
    "finit_module",
    "delete_module",
    "kexec_load",
    "kexec_file_load",
    "reboot",
    "swapon",
    "swapoff",
    "acct",
    "bpf",
    "perf_event_open",
    "userfaultfd",
    "keyctl",
    "add_key",
    "request_key",
    "iopl",
    "ioperm",
    "settimeofday",
    "clock_settime",
    "clock_adjtime",
    "adjtimex",
    "sethostname",
    "setdomainname",
    "syslog",
    "quotactl",
    "setsid",
    "setpgid",
    "seccomp",
};
constexpr size_t kTrappedCount = sizeof kTrapped / sizeof kTrapped[0];
int g_trapped_numbers[kTrappedCount];

const char* syscall_name(int nr) {
  for (size_t i = 0; i < kTrappedCount; ++i)
    if (g_trapped_numbers[i] == nr) return kTrapped[i];
  if (nr == SCMP_SYS(clone)) return "clone (a new process)";
  if (nr == SCMP_SYS(kill)) return "kill (another process)";
  if (nr == SCMP_SYS(tgkill)) return "tgkill (another process)";
  if (nr == SCMP_SYS(rt_sigqueueinfo)) return "rt_sigqueueinfo (another process)";
  if (nr == SCMP_SYS(rt_tgsigqueueinfo)) return "rt_tgsigqueueinfo (another process)";
  if (nr == SCMP_SYS(rt_sigaction)) return "rt_sigaction (SIGSYS)";
  if (nr == SCMP_SYS(prctl)) return "prctl (PR_SET_SECCOMP)";
  return "unknown";
}

void on_sigsys(int, siginfo_t* info, void*) {
  // Async-signal-safe: format into a stack buffer and write once.
  char buf[256];
  const char* name = syscall_name(info->si_syscall);
  const char* head =
      "{\"event\":\"fatal\",\"kind\":\"sandbox_violation\",\"message\":\"the candidate made the "
      "forbidden system call ";
  size_t n = 0;
  for (const char* p = head; *p && n < sizeof buf - 8; ++p) buf[n++] = *p;
  for (const char* p = name; *p && n < sizeof buf - 8; ++p) buf[n++] = *p;
  const char* tail = "\"}\n";
  for (const char* p = tail; *p && n < sizeof buf; ++p) buf[n++] = *p;
  if (g_event_fd >= 0) (void)!::write(g_event_fd, buf, n);
  // Where the call came from, into the candidate's output (stderr), for whoever reads the verdict.
  void* frames[48];
  int depth = ::backtrace(frames, 48);
  const char note[] = "[kforge] the forbidden system call was made from:\n";
  (void)!::write(2, note, sizeof note - 1);
  ::backtrace_symbols_fd(frames, depth, 2);
  ::_exit(70);
}

struct ContextDeleter {
  void operator()(void* ctx) const { seccomp_release(ctx); }
};

std::string failed(const char* what, int rc) {
  return std::string(what) + ": " + std::strerror(rc < 0 ? -rc : rc);
}

}  // namespace

std::string install_seccomp_filter(int event_fd) {
  g_event_fd = event_fd;
  struct sigaction sa {};
  sa.sa_sigaction = on_sigsys;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  if (::sigaction(SIGSYS, &sa, nullptr) != 0)
    return std::string("sigaction: ") + std::strerror(errno);
  void* warm_up[1];
  ::backtrace(warm_up, 1);  // loads the unwinder now, not inside the signal handler

  std::unique_ptr<void, ContextDeleter> ctx(seccomp_init(SCMP_ACT_ALLOW));
  if (!ctx) return "seccomp_init failed";
  // Every thread of the worker, LibTorch's pools and the CUDA driver's included, gets the filter.
  if (int rc = seccomp_attr_set(ctx.get(), SCMP_FLTATR_CTL_TSYNC, 1); rc != 0)
    return failed("seccomp thread synchronisation", rc);
  for (size_t i = 0; i < kTrappedCount; ++i) {
    g_trapped_numbers[i] = seccomp_syscall_resolve_name(kTrapped[i]);
    if (g_trapped_numbers[i] == __NR_SCMP_ERROR) continue;  // not on this architecture
    if (int rc = seccomp_rule_add(ctx.get(), SCMP_ACT_TRAP, g_trapped_numbers[i], 0); rc != 0)
      return failed(kTrapped[i], rc);
  }
  const auto pid = static_cast<scmp_datum_t>(::getpid());
  struct Rule {
    int nr;
    scmp_arg_cmp cmp;
  };
  const Rule conditional[] = {
      // clone: threads only. clone3 hides its flags in memory: ENOSYS makes glibc use clone.
      {SCMP_SYS(clone), SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0)},
      // Signals: to this process only.
      {SCMP_SYS(kill), SCMP_A0(SCMP_CMP_NE, pid)},
      {SCMP_SYS(tgkill), SCMP_A0(SCMP_CMP_NE, pid)},
      {SCMP_SYS(rt_sigqueueinfo), SCMP_A0(SCMP_CMP_NE, pid)},
      {SCMP_SYS(rt_tgsigqueueinfo), SCMP_A0(SCMP_CMP_NE, pid)},
      // The violation handler stays the worker's.
      {SCMP_SYS(rt_sigaction), SCMP_A0(SCMP_CMP_EQ, SIGSYS)},
      {SCMP_SYS(prctl), SCMP_A0(SCMP_CMP_EQ, PR_SET_SECCOMP)},
  };
  for (const auto& rule : conditional)
    if (int rc = seccomp_rule_add(ctx.get(), SCMP_ACT_TRAP, rule.nr, 1, rule.cmp); rc != 0)
      return failed(syscall_name(rule.nr), rc);
  if (int rc = seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0); rc != 0)
    return failed("clone3", rc);
  if (int rc = seccomp_load(ctx.get()); rc != 0) return failed("seccomp_load", rc);
  return {};
}

}  // namespace kforge::worker
