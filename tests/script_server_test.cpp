// The warm interpreter for kforge's Python scripts (exporter/script_server.py, run_script): a
// served run answers as a fresh interpreter would (exit status, stdout and stderr, arguments,
// environment, an export's result); a client past its deadline leaves no script running; another
// interpreter, a script not kforge's, or no server at all gets a fresh interpreter.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "evaluation/build_config.hpp"
#include "evaluation/python_scripts.hpp"
#include "evaluation/task_export.hpp"
#include "tests/test_support.hpp"

namespace kforge::test {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

/// A script server of the test's own, on a socket in `dir`, named by KFORGE_SCRIPT_SERVER for
/// this test's process; stopped with the fixture.
class ScriptServer : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fresh_test_dir("script_server");
    socket_ = (dir_ / "s.sock").string();
    auto started = evaluation::start_script_server(socket_, 120);
    ASSERT_TRUE(started) << started.error;
    server_ = std::move(started.value);
    ::setenv(evaluation::kScriptServerVariable, socket_.c_str(), 1);
  }
  void TearDown() override {
    ::unsetenv(evaluation::kScriptServerVariable);
    server_.reset();
  }

  /// A connection to the server (-1 where it cannot connect).
  int connect_raw() const {
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::strncpy(a.sun_path, socket_.c_str(), sizeof a.sun_path - 1);
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) return fd;
    ::close(fd);
    return -1;
  }

  /// Sends `line` as is and returns the server's whole answer ("" where it cannot connect).
  std::string raw_request(const std::string& line) const {
    const int fd = connect_raw();
    if (fd < 0) return "";
    std::string reply;
    if (::send(fd, line.data(), line.size(), MSG_NOSIGNAL) > 0) {
      char buf[4096];
      for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;) reply.append(buf, n);
    }
    ::close(fd);
    return reply;
  }

  evaluation::SpawnOptions exporter(std::vector<std::string> args) const {
    return evaluation::task_script("", build::exporter, std::move(args));
  }

  fs::path dir_;
  std::string socket_;
  std::optional<evaluation::Child> server_;
};

TEST_F(ScriptServer, AnswersAsAFreshInterpreterWould) {
  const auto cache = (dir_ / "cache").string();
  // A client that connects and sends nothing, open throughout: it holds up no other.
  const int idle = connect_raw();
  ASSERT_GE(idle, 0) << std::strerror(errno);
  // A usage error (argparse: exit 2, usage on stderr) and the exporter's own verdict (exit 1),
  // served and fresh alike.
  for (const auto& args : std::vector<std::vector<std::string>>{
           {}, {"--task", (dir_ / "no_such_task").string(), "--cache-root", cache}}) {
    auto served = evaluation::run_script(exporter(args), 2min);
    auto fresh = evaluation::run(exporter(args), 2min);
    EXPECT_TRUE(served.served);
    EXPECT_FALSE(fresh.served);
    EXPECT_EQ(served.exit_code, fresh.exit_code) << served.output << "\n" << fresh.output;
    EXPECT_NE(served.exit_code, 0);
    EXPECT_EQ(served.output, fresh.output);
  }
  // A whole export, with the environment the caller adds (the task reads it at import, and
  // imports a module from the caller's PYTHONPATH) and its working folder (the task's path is
  // relative to it).
  fs::copy(source_dir() + "/tasks/softmax", dir_ / "softmax", fs::copy_options::recursive);
  fs::create_directories(dir_ / "pylib");
  std::ofstream(dir_ / "pylib" / "kforge_served_helper.py") << "VALUE = 'helped'\n";
  std::ofstream(dir_ / "softmax" / "func_forward.py", std::ios::app)
      << "\nimport os\nassert os.environ['KFORGE_TEST_SERVED'] == 'yes', 'environment'\n"
      << "import kforge_served_helper\nassert kforge_served_helper.VALUE == 'helped'\n";
  auto spawn = exporter({"--task", "softmax", "--cache-root", cache});
  spawn.set_env = {{"KFORGE_TEST_SERVED", "yes"}, {"PYTHONPATH", (dir_ / "pylib").string()}};
  spawn.working_dir = dir_.string();
  auto exported = evaluation::run_script(spawn, 5min);
  EXPECT_TRUE(exported.served);
  ASSERT_EQ(exported.exit_code, 0) << exported.output;
  std::string folder = exported.output;
  while (!folder.empty() && folder.back() == '\n') folder.pop_back();
  folder = folder.substr(folder.rfind('\n') + 1);
  EXPECT_TRUE(fs::exists(fs::path(folder) / "task.json")) << exported.output;
  // export_task through the server gives the same document as a fresh export into another cache.
  ::setenv("KFORGE_TEST_SERVED", "yes", 1);
  ::setenv("PYTHONPATH", (dir_ / "pylib").c_str(), 1);
  evaluation::ExportOptions o;
  o.cache_dir = (dir_ / "cache2").string();
  auto again = evaluation::export_task((dir_ / "softmax").string(), o);
  ASSERT_TRUE(again.ok) << again.error;
  EXPECT_EQ(again.doc["content_hash"].as_string(), fs::path(folder).filename().string());
  ::close(idle);
}

TEST_F(ScriptServer, AClientPastItsDeadlineLeavesNoScriptRunning) {
  fs::copy(source_dir() + "/tasks/softmax", dir_ / "slow", fs::copy_options::recursive);
  const auto pid_file = dir_ / "pid";
  std::ofstream(dir_ / "slow" / "func_forward.py", std::ios::app)
      << "\nimport os, time\nopen(" << '"' << pid_file.string() << '"'
      << ", 'w').write(str(os.getpid()))\ntime.sleep(600)\n";
  auto r = evaluation::run_script(
      exporter({"--task", (dir_ / "slow").string(), "--cache-root", (dir_ / "cache").string()}),
      8s);
  EXPECT_TRUE(r.served);
  EXPECT_TRUE(r.timed_out);
  EXPECT_FALSE(r.ok());
  std::ifstream in(pid_file);
  pid_t pid = 0;
  ASSERT_TRUE(in >> pid) << "the task never started";
  bool gone = false;
  for (int i = 0; i < 100 && !gone; ++i) {
    gone = ::kill(pid, 0) != 0 && errno == ESRCH;
    if (!gone) std::this_thread::sleep_for(50ms);
  }
  EXPECT_TRUE(gone) << "the script (pid " << pid << ") still runs 5 s after its client left";
  // The server still answers.
  auto after = evaluation::run_script(exporter({}), 2min);
  EXPECT_TRUE(after.served);
  EXPECT_EQ(after.exit_code, 2) << after.output;
}

TEST_F(ScriptServer, AnotherInterpreterOrNoServerGetsAFreshOne) {
  // Another interpreter path (a link to the same Python): refused, run fresh, the same answer.
  const auto link = dir_ / "python";
  fs::create_symlink(evaluation::task_python(), link);
  auto spawn = exporter({});
  spawn.argv[0] = link.string();
  auto other = evaluation::run_script(spawn, 2min);
  EXPECT_FALSE(other.served);
  EXPECT_EQ(other.exit_code, 2) << other.output;
  // A script that is not one of kforge's: refused with the reason.
  const std::string refused = raw_request(R"({"python": ")" + evaluation::task_python() +
                                          R"(", "script": "/bin/sh", "args": []})" + "\n");
  EXPECT_NE(refused.find(R"("refused")"), std::string::npos) << refused;
  EXPECT_NE(refused.find("is not one of kforge's scripts"), std::string::npos) << refused;
  // A spawn a fork cannot give (limits): fresh.
  auto limited = exporter({});
  limited.limits.open_files = 256;
  EXPECT_FALSE(evaluation::run_script(limited, 2min).served);
  // No server on the named socket: fresh.
  ::setenv(evaluation::kScriptServerVariable, (dir_ / "none.sock").c_str(), 1);
  auto none = evaluation::run_script(exporter({}), 2min);
  EXPECT_FALSE(none.served);
  EXPECT_EQ(none.exit_code, 2) << none.output;
}

}  // namespace
}  // namespace kforge::test
