#include "evaluation/worker/thread_watch.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <fstream>
#include <thread>
#include <vector>

namespace kforge::worker {
namespace {

// Whether a blocked system call waits without a timeout, from its number and arguments as
// /proc/<tid>/syscall shows them. A wait with a timeout is a sleep: the thread will go on by
// itself.
bool waits_forever(long nr, const std::vector<unsigned long long>& a) {
  auto arg = [&](size_t i) { return i < a.size() ? a[i] : 0ull; };
  if (nr == SYS_futex) {
    const unsigned long long cmd = arg(1) & 0x7f;  // FUTEX_CMD_MASK: private and clock flags off
    return (cmd == 0 /*FUTEX_WAIT*/ || cmd == 9 /*FUTEX_WAIT_BITSET*/) && arg(3) == 0;
  }
#ifdef SYS_poll
  if (nr == SYS_poll) return static_cast<int>(arg(2)) < 0;
#endif
  if (nr == SYS_ppoll) return arg(2) == 0;
#ifdef SYS_epoll_wait
  if (nr == SYS_epoll_wait) return static_cast<int>(arg(3)) < 0;
#endif
  if (nr == SYS_epoll_pwait) return static_cast<int>(arg(3)) < 0;
#ifdef SYS_select
  if (nr == SYS_select) return arg(4) == 0;
#endif
  if (nr == SYS_pselect6) return arg(4) == 0;
  // Blocking on a descriptor: only another thread or process can wake it.
  return nr == SYS_read || nr == SYS_recvfrom || nr == SYS_recvmsg || nr == SYS_accept ||
         nr == SYS_accept4 || nr == SYS_wait4;
}

std::string thread_name(int tid) {
  std::ifstream comm("/proc/self/task/" + std::to_string(tid) + "/comm");
  std::string name;
  std::getline(comm, name);
  return "thread " + std::to_string(tid) + (name.empty() ? "" : " `" + name + "`");
}

}  // namespace

ThreadState thread_state(int tid) {
  const std::string dir = "/proc/self/task/" + std::to_string(tid);
  std::ifstream stat(dir + "/stat");
  std::string text;
  if (!std::getline(stat, text)) return ThreadState::gone;
  const auto paren = text.rfind(')');
  const char state = paren != std::string::npos && paren + 2 < text.size() ? text[paren + 2] : '?';
  if (state == 'Z' || state == 'X') return ThreadState::gone;
  std::ifstream sys(dir + "/syscall");
  std::string first;
  sys >> first;
  if (first == "running" || state == 'R') return ThreadState::running;
  char* end = nullptr;
  const long nr = std::strtol(first.c_str(), &end, 10);
  if (first.empty() || *end || nr < 0) return ThreadState::running;
  std::vector<unsigned long long> args;
  for (std::string word; args.size() < 6 && sys >> word;)
    args.push_back(std::strtoull(word.c_str(), nullptr, 16));
  return waits_forever(nr, args) ? ThreadState::parked : ThreadState::timed_wait;
}

void ThreadWatch::begin_evaluation() {
  others_.clear();
  before_candidate();
}

void ThreadWatch::before_candidate() {
  before_call_ = thread_ids();
  for (int tid : before_call_)
    if (!candidate_.count(tid)) others_.insert(tid);
}

std::optional<Failure> ThreadWatch::after_candidate() {
  using namespace std::chrono;
  const int self = static_cast<int>(::syscall(SYS_gettid));
  const auto alive = thread_ids();
  std::set<int> started;
  for (int tid : alive) {
    if (tid == self || others_.count(tid)) continue;
    candidate_.insert(tid);
    if (!before_call_.count(tid)) started.insert(tid);
  }
  for (auto it = candidate_.begin(); it != candidate_.end();)
    it = alive.count(*it) ? std::next(it) : candidate_.erase(it);
  const auto start = steady_clock::now();
  for (;;) {
    const auto waited = duration_cast<milliseconds>(steady_clock::now() - start);
    bool waiting = false;
    for (int tid : candidate_) {
      const ThreadState state = thread_state(tid);
      const bool is_new = started.count(tid) > 0;
      const auto patience = milliseconds(is_new ? 50 : 500);
      if (state == ThreadState::timed_wait || (state == ThreadState::running && waited >= patience))
        return Failure{
            "threads_escaped",
            std::string("a thread the kernel ") + (is_new ? "started in this call" : "keeps") +
                " (" + thread_name(tid) + ") is " +
                (state == ThreadState::running
                     ? "still running " + std::to_string(patience.count()) +
                           " ms after the call returned"
                     : "sleeping with a timeout after the call returned, "
                       "to go on by itself") +
                ": work must finish inside the call, and threads kept between calls must wait "
                "for the next one"};
      waiting |= state == ThreadState::running;
    }
    if (!waiting) return std::nullopt;
    std::this_thread::sleep_for(microseconds(200));
  }
}

}  // namespace kforge::worker
