#include "tests/test_support.hpp"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>

#include "evaluation/build_config.hpp"
#include "evaluation/hashing.hpp"
#include "evaluation/process.hpp"

namespace kforge::test {

std::string source_dir() {
  return build::source_dir;
}
std::string cache_dir() {
  return KFORGE_TEST_CACHE;
}

KernelHeader kernel_header(const std::string& kernel_path) {
  std::ifstream in(kernel_path);
  std::string first;
  KernelHeader out;
  std::getline(in, first);
  std::istringstream words(first.substr(first.find(':') + 1));
  for (std::string w; words >> w;) out.words.push_back(w);
  std::getline(in, out.second_line);
  return out;
}

uint16_t free_loopback_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t size = sizeof a;
  uint16_t port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &size) == 0)
    port = ntohs(a.sin_port);
  ::close(fd);
  return port;
}

std::filesystem::path fresh_test_dir(const std::string& suite) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("kforge_" + suite + "_" + std::to_string(::getpid()) + "_" +
                    testing::UnitTest::GetInstance()->current_test_info()->name());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

const evaluation::ExportedTaskInfo& exported(const std::string& task_path) {
  static std::map<std::string, evaluation::ExportedTaskInfo> done;
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  std::string path =
      task_path.find('/') == std::string::npos ? source_dir() + "/tasks/" + task_path : task_path;
  auto it = done.find(path);
  if (it == done.end()) {
    evaluation::ExportOptions o;
    o.cache_dir = cache_dir();
    it = done.emplace(path, evaluation::export_task(path, o)).first;
  }
  EXPECT_TRUE(it->second.ok) << it->second.error;
  return it->second;
}

std::string Evaluation::describe() const {
  std::string built = "built with the " + compile.headers + " headers" +
                      (compile.light_error.empty() ? "" : " (light: " + compile.light_error + ")");
  if (!compile.ok) return "compile failed: " + compile.error + "\n" + compile.log + "\n" + built;
  return outcome.result.dump() + "\ncandidate output: " + outcome.candidate_output + "\n" + built;
}

Evaluation evaluate(evaluation::WorkerClient& worker, evaluation::Backend backend,
                    const std::string& task_path, const std::string& kernel_path,
                    evaluation::WorkerRequest request, const std::string& cuda_arch,
                    evaluation::Headers headers) {
  Evaluation e;
  const auto& task = exported(task_path);
  auto source = evaluation::read_file(kernel_path);
  EXPECT_TRUE(source.ok) << source.error;
  evaluation::CompileOptions options;
  options.backend = backend;
  options.cache_dir = cache_dir();
  options.cuda_arch = cuda_arch;
  options.headers = headers;
  e.compile = evaluation::compile_candidate(source.text, options);
  if (!e.compile.ok) return e;
  request.export_dir = task.dir;
  request.library = e.compile.library_path;
  // As `kforge eval` and the evaluator send it: once more with a fresh worker (or checker) that
  // could not start, which says nothing about the kernel.
  e.outcome = evaluation::evaluate_candidate(worker, request);
  return e;
}

evaluation::WorkerRequest test_request(const std::string& direction, const std::string& mode,
                                       int seeds, double max_seconds) {
  evaluation::WorkerRequest r;
  r.direction = direction;
  r.mode = mode;
  r.seeds = seeds;
  r.timing.max_seconds = max_seconds;
  r.timing.min_reps = 3;
  r.timing.max_reps = 5;
  return r;
}

namespace {

// /proc/PID as a LiveProcess; nullopt when it is gone or a zombie.
std::optional<LiveProcess> read_process(const std::filesystem::path& dir) {
  std::ifstream stat_in(dir / "stat");
  std::string stat;
  std::getline(stat_in, stat);
  auto open = stat.find('('), close = stat.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close + 2 >= stat.size())
    return std::nullopt;
  std::istringstream rest(stat.substr(close + 2));
  char state = 0;
  LiveProcess p;
  rest >> state >> p.parent;
  if (state == 'Z') return std::nullopt;
  std::string field;
  for (int i = 5; i <= 22 && rest >> field; ++i) {  // fields 5 to 22, starttime, in clock ticks
  }
  if (rest) p.started_s = std::stod(field) / static_cast<double>(::sysconf(_SC_CLK_TCK));
  p.pid = std::stoi(dir.filename().string());
  p.name = stat.substr(open + 1, close - open - 1);
  // A process that exits while it is read makes the read fail with ESRCH, which libstdc++'s
  // stream buffer throws as std::ios_base::failure: that process is gone.
  try {
    std::ifstream cmdline(dir / "cmdline");
    p.command.assign(std::istreambuf_iterator<char>(cmdline), std::istreambuf_iterator<char>());
  } catch (const std::ios_base::failure&) {
    return std::nullopt;
  }
  return p;
}

}  // namespace

std::vector<LiveProcess> live_processes() {
  std::vector<LiveProcess> out;
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator("/proc", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    if (it->path().filename().string().find_first_not_of("0123456789") != std::string::npos)
      continue;
    if (auto p = read_process(it->path())) out.push_back(std::move(*p));
  }
  return out;
}

bool is_alive(pid_t pid) {
  return read_process("/proc/" + std::to_string(pid)).has_value();
}

bool pid_namespaces_work() {
  evaluation::SpawnOptions probe;
  probe.argv = {"true"};
  probe.isolate_network = false;
  auto started = evaluation::spawn(probe);
  return started.child && started.child->owns_descendants();
}

bool cuda_available() {
  return build::with_cuda && std::filesystem::exists("/dev/nvidiactl");
}

}  // namespace kforge::test
