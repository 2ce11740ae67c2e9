// Processes kforge starts: output, exit codes, signals and timeouts captured; what a child starts
// dies with it; a network namespace with loopback only.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "evaluation/process.hpp"
#include "tests/test_support.hpp"

namespace kforge::test {
namespace {

TEST(Process, CapturesOutputExitCodesSignalsAndTimeouts) {
  evaluation::SpawnOptions o;
  o.argv = {"sh", "-c", "echo out; echo err >&2; exit 3"};
  auto r = evaluation::run(o, std::chrono::seconds(10));
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.output, "out\nerr\n");
  o.argv = {"sh", "-c", "kill -SEGV $$"};
  r = evaluation::run(o, std::chrono::seconds(10));
  EXPECT_EQ(r.signal, SIGSEGV);
  EXPECT_NE(r.describe().find("SIGSEGV"), std::string::npos) << r.describe();
  o.argv = {"sleep", "30"};
  r = evaluation::run(o, std::chrono::milliseconds(300));
  EXPECT_TRUE(r.timed_out);
  EXPECT_LT(r.seconds, 5);
  o.argv = {"/no/such/program"};
  r = evaluation::run(o, std::chrono::seconds(1));
  EXPECT_FALSE(r.started);
  EXPECT_NE(r.start_error.find("/no/such/program"), std::string::npos);
}

/// Processes whose command line contains `marker`.
std::vector<pid_t> processes_with(const std::string& marker) {
  std::vector<pid_t> out;
  for (const auto& p : live_processes())
    if (p.command.find(marker) != std::string::npos) out.push_back(p.pid);
  return out;
}

// A program kforge starts, and everything that program starts in turn, dies when the process
// that started it is killed with SIGKILL (here a forked helper plays kforge).
TEST(Process, WhatAChildStartsDiesWithTheProcessThatStartedIt) {
  if (!pid_namespaces_work())
    GTEST_SKIP() << "no PID namespaces here (not root, no unprivileged user namespaces): a "
                    "program's own children are not tied to kforge";
  const std::string marker = "3000." + std::to_string(::getpid());
  pid_t helper = ::fork();
  ASSERT_GE(helper, 0);
  if (helper == 0) {
    evaluation::SpawnOptions o;
    o.argv = {"sh", "-c", "sleep " + marker + " & sleep " + marker + "; wait"};
    o.isolate_network = false;
    auto started = evaluation::spawn(o);
    ::pause();
    ::_exit(0);
  }
  std::vector<pid_t> running;
  for (int i = 0; i < 200 && running.size() < 3; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    running = processes_with(marker);
  }
  EXPECT_EQ(running.size(), 3u);  // the shell and its two sleeps
  ::kill(helper, SIGKILL);
  ::waitpid(helper, nullptr, 0);
  for (int i = 0; i < 200 && !running.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    running = processes_with(marker);
  }
  EXPECT_TRUE(running.empty()) << running.size() << " of them outlived it";
  for (pid_t p : running) ::kill(p, SIGKILL);
}

TEST(Process, NetworkNamespaceHasOnlyLoopbackWhenAvailable) {
  evaluation::SpawnOptions o;
  o.argv = {"cat", "/proc/net/dev"};
  auto r = evaluation::run(o, std::chrono::seconds(10));
  ASSERT_TRUE(r.ok()) << r.describe();
  if (!r.network_isolated) GTEST_SKIP() << "this machine does not allow network namespaces";
  EXPECT_NE(r.output.find("lo:"), std::string::npos);
  EXPECT_EQ(r.output.find("eth0"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace kforge::test
