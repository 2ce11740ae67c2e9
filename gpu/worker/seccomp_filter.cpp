#include "gpu/worker/seccomp_filter.hpp"

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <vector>

namespace kforge::worker {
namespace {

int g_event_fd = -1;

struct Named {
  long nr;
  const char* name;
};
constexpr Named kTrapped[] = {
    {SYS_socket, "socket"},
    {SYS_socketpair, "socketpair"},
    {SYS_connect, "connect"},
    {SYS_bind, "bind"},
    {SYS_listen, "listen"},
    {SYS_accept, "accept"},
    {SYS_accept4, "accept4"},
    {SYS_execve, "execve"},
    {SYS_execveat, "execveat"},
    {SYS_fork, "fork"},
    {SYS_vfork, "vfork"},
    {SYS_ptrace, "ptrace"},
    {SYS_process_vm_readv, "process_vm_readv"},
    {SYS_process_vm_writev, "process_vm_writev"},
    {SYS_unshare, "unshare"},
    {SYS_setns, "setns"},
    {SYS_mount, "mount"},
    {SYS_chroot, "chroot"},
    {SYS_pivot_root, "pivot_root"},
};

const char* syscall_name(long nr) {
  for (const auto& n : kTrapped)
    if (n.nr == nr) return n.name;
  if (nr == SYS_clone) return "clone (a new process)";
  if (nr == SYS_kill) return "kill (another process)";
  if (nr == SYS_tgkill) return "tgkill (another process)";
  if (nr == SYS_rt_sigaction) return "rt_sigaction (SIGSYS)";
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
  ::_exit(70);
}

using Filter = std::vector<sock_filter>;

void add(Filter& f, sock_filter s) {
  f.push_back(s);
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

  const uint32_t pid = static_cast<uint32_t>(::getpid());
  const uint32_t trap = SECCOMP_RET_TRAP;
  const uint32_t allow = SECCOMP_RET_ALLOW;
  Filter f;
  add(f, BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)));
  add(f, BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0));
  add(f, BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
  add(f, BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)));
  for (const auto& n : kTrapped) {
    add(f, BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, static_cast<uint32_t>(n.nr), 0, 1));
    add(f, BPF_STMT(BPF_RET | BPF_K, trap));
  }
  // clone3 cannot be inspected (its flags are in memory): ENOSYS makes glibc fall back to clone.
  add(f, BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone3, 0, 1));
  add(f, BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS));
  // clone: threads (CLONE_THREAD) only.
  add(f, BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 4));
  add(f, BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, args[0])));
  add(f, BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 0, 1));
  add(f, BPF_STMT(BPF_RET | BPF_K, allow));
  add(f, BPF_STMT(BPF_RET | BPF_K, trap));
  // kill and tgkill: only this process.
  for (long nr : {static_cast<long>(SYS_kill), static_cast<long>(SYS_tgkill)}) {
    add(f, BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, static_cast<uint32_t>(nr), 0, 4));
    add(f, BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, args[0])));
    add(f, BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, pid, 0, 1));
    add(f, BPF_STMT(BPF_RET | BPF_K, allow));
    add(f, BPF_STMT(BPF_RET | BPF_K, trap));
  }
  // rt_sigaction(SIGSYS, ...): the candidate may not take over the violation handler.
  add(f, BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_rt_sigaction, 0, 4));
  add(f, BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, args[0])));
  add(f, BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SIGSYS, 0, 1));
  add(f, BPF_STMT(BPF_RET | BPF_K, trap));
  add(f, BPF_STMT(BPF_RET | BPF_K, allow));
  add(f, BPF_STMT(BPF_RET | BPF_K, allow));

  sock_fprog prog{static_cast<unsigned short>(f.size()), f.data()};
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    return std::string("no_new_privs: ") + std::strerror(errno);
  if (::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0)
    return std::string("seccomp: ") + std::strerror(errno);
  return {};
}

}  // namespace kforge::worker
