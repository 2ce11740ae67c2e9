// Hostile candidates against the confinement of the worker and the compiler (CPU backend): each
// kernel in tests/exploits/confinement tries to read or write files outside its box, a user's
// file, kforge's token, secrets in the environment. Each must come away with nothing: no secret in
// the verdict, the log or the output, no file changed, and an honest kernel still passes after it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

#include "evaluation/confinement.hpp"
#include "evaluation/hashing.hpp"
#include "evaluation/process.hpp"
#include "tests/test_support.hpp"

namespace kforge::test {
namespace {

namespace fs = std::filesystem;

std::string random_word(const char* prefix) {
  std::random_device rd;
  return prefix + std::to_string(rd()) + std::to_string(rd());
}

std::string slurp(const fs::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class Confinement : public testing::Test {
 protected:
  void SetUp() override {
    if (evaluation::landlock_abi() == 0) GTEST_SKIP() << "this kernel has no Landlock";
    root_ = fs::temp_directory_path() / random_word("kforge-confinement-");
    fs::create_directories(root_ / "home");
    fs::create_directories(root_ / "state");
    fs::permissions(root_ / "state", fs::perms::owner_all);
    secret_ = random_word("user-secret-");
    token_ = random_word("kforge_token_");
    env_secret_ = random_word("sk-test-");
    std::ofstream(user_file()) << secret_ << "\n";
    std::ofstream(token_file()) << token_ << "\n";
    fs::permissions(token_file(), fs::perms::owner_read | fs::perms::owner_write);
    ::setenv("KFORGE_TEST_API_KEY", env_secret_.c_str(), 1);
  }
  void TearDown() override {
    ::unsetenv("KFORGE_TEST_API_KEY");
    std::error_code ec;
    if (!root_.empty()) fs::remove_all(root_, ec);
  }

  fs::path user_file() const { return root_ / "home" / "secret.txt"; }
  fs::path token_file() const { return root_ / "state" / "token"; }

  /// The exploit's source with the paths it attacks defined in front, written beside them.
  std::string kernel(const std::string& name) const {
    std::string source = "#define USER_FILE \"" + user_file().string() + "\"\n" +
                         "#define TOKEN_FILE \"" + token_file().string() + "\"\n" +
                         "#define HOME_DIR \"" + (root_ / "home").string() + "\"\n" +
                         "#define STATE_DIR \"" + (root_ / "state").string() + "\"\n" +
                         "#define ENV_SECRET_NAME \"KFORGE_TEST_API_KEY\"\n" +
                         slurp(source_dir() + "/tests/exploits/confinement/" + name);
    fs::path path = root_ / name;
    std::ofstream(path) << source;
    return path.string();
  }

  void expect_no_secret(const std::string& text, const std::string& where) const {
    for (const auto& s : {secret_, token_, env_secret_})
      EXPECT_EQ(text.find(s), std::string::npos) << "a secret leaked into " << where << ":\n"
                                                 << text;
    EXPECT_EQ(text.find("root:"), std::string::npos) << "/etc/shadow leaked into " << where;
  }

  Evaluation run(evaluation::WorkerClient& worker, const std::string& kernel_path) {
    auto request = test_request("forward", "multi", 2, 0.2);
    request.configs = {1};
    return evaluate(worker, evaluation::Backend::cpu, "softmax", kernel_path, request);
  }

  void expect_honest_kernel_passes(evaluation::WorkerClient& worker) {
    auto honest = run(worker, source_dir() + "/tasks/softmax/kernels/forward_cpu.cpp");
    EXPECT_EQ(honest.verdict(), "correct") << honest.describe();
  }

  fs::path root_;
  std::string secret_, token_, env_secret_;
};

TEST_F(Confinement, ACandidateReadsNoFileOutsideItsBoxAndNoSecretFromTheEnvironment) {
  evaluation::WorkerClient worker(evaluation::WorkerOptions{});
  auto e = run(worker, kernel("reads_files.cpp"));
  ASSERT_TRUE(e.compile.ok) << e.describe();
  EXPECT_EQ(e.verdict(), "correct") << e.describe();
  expect_no_secret(e.outcome.result.dump(), "the result");
  expect_no_secret(e.outcome.candidate_output, "the candidate's output");
  EXPECT_TRUE(worker.ready()["sandbox"]["filesystem_confined"].as_bool()) << worker.ready().dump();
  // The verdict was confirmed outside the candidate's process: 1 config x 2 seeds.
  EXPECT_EQ(e.outcome.result["checked_by_checker"].as_int(), 2) << e.describe();
  expect_honest_kernel_passes(worker);
}

TEST_F(Confinement, ACandidateWritesNothingOutsideItsScratchFolder) {
  evaluation::WorkerClient worker(evaluation::WorkerOptions{});
  auto e = run(worker, kernel("writes_files.cpp"));
  ASSERT_TRUE(e.compile.ok) << e.describe();
  EXPECT_EQ(e.verdict(), "correct") << e.describe();
  EXPECT_FALSE(fs::exists(root_ / "home" / "pwned"));
  EXPECT_FALSE(fs::exists("/kforge-pwned"));
  EXPECT_FALSE(fs::exists(root_ / "state" / "stolen-token"));
  EXPECT_EQ(slurp(token_file()), token_ + "\n");
  expect_no_secret(e.outcome.result.dump() + e.outcome.candidate_output, "the verdict");
  expect_honest_kernel_passes(worker);
}

TEST_F(Confinement, TheCompilerReadsNoFileOutsideTheToolchain) {
  for (const char* name : {"embeds_file.cpp", "includes_file.cpp"}) {
    SCOPED_TRACE(name);
    auto source = evaluation::read_file(kernel(name));
    ASSERT_TRUE(source.ok);
    evaluation::CompileOptions options;
    options.cache_dir = cache_dir();
    auto compiled = evaluation::compile_candidate(source.text, options);
    EXPECT_FALSE(compiled.ok);
    // The compiler tried (the path is in its complaint) and failed: g++ says "Permission denied",
    // the assembler "file not found".
    EXPECT_NE(compiled.log.find(token_file().string()), std::string::npos) << compiled.log;
    expect_no_secret(compiled.log + compiled.error, "the compiler's log");
  }
}

TEST_F(Confinement, TheScratchFolderIsPrivateAndGoesWithTheWorker) {
  evaluation::WorkerOptions options;
  options.scratch_dir = (root_ / "scratch").string();
  fs::path scratch;
  {
    evaluation::WorkerClient worker(options);
    ASSERT_EQ(worker.ensure_started(), "");
    std::vector<fs::path> folders;
    for (const auto& entry : fs::directory_iterator(root_ / "scratch"))
      if (entry.path().filename().string().rfind("kforge-worker-", 0) == 0)
        folders.push_back(entry);
    ASSERT_EQ(folders.size(), 1u);
    scratch = folders[0];
    EXPECT_EQ(fs::status(scratch).permissions() & fs::perms::all, fs::perms::owner_all);
  }
  EXPECT_FALSE(fs::exists(scratch));
  EXPECT_TRUE(fs::is_empty(root_ / "scratch")) << "the outputs folder outlived its worker";
  // What a kforge killed with -9 left behind is removed by the next one; a live one's is kept.
  const auto orphan = root_ / "scratch" / "kforge-worker-999999999-abcdef";
  const auto alive =
      root_ / "scratch" / ("kforge-worker-" + std::to_string(::getppid()) + "-abcdef");
  fs::create_directories(orphan / "work");
  fs::create_directories(alive);
  evaluation::WorkerClient next(options);
  EXPECT_FALSE(fs::exists(orphan));
  EXPECT_TRUE(fs::exists(alive));
}

TEST(Spawn, AConfinedProgramSeesOnlyItsView) {
  if (evaluation::landlock_abi() == 0) GTEST_SKIP() << "this kernel has no Landlock";
  evaluation::SpawnOptions so;
  so.argv = {"/bin/cat", "/etc/hostname"};
  so.filesystem = evaluation::FilesystemView{{"/usr", "/lib", "/lib64", "/bin"}, {}, {"/dev/null"}};
  auto r = evaluation::run(so, std::chrono::seconds(10));
  EXPECT_TRUE(r.started) << r.start_error;
  EXPECT_TRUE(r.confined);
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("Permission denied"), std::string::npos) << r.output;
  so.filesystem->read_only.push_back("/etc/hostname");
  auto allowed = evaluation::run(so, std::chrono::seconds(10));
  EXPECT_EQ(allowed.exit_code, 0) << allowed.output;
}

TEST(Spawn, TheEnvironmentOfAConfinedProgramKeepsNoSecrets) {
  ::setenv("KFORGE_TEST_API_KEY", "sk-not-for-candidates", 1);
  auto env = evaluation::confined_environment("/nonexistent");
  ::unsetenv("KFORGE_TEST_API_KEY");
  for (const auto& entry : env) EXPECT_EQ(entry.find("sk-not-for-candidates"), std::string::npos);
  EXPECT_NE(std::find(env.begin(), env.end(), "HOME=/nonexistent"), env.end());
}

}  // namespace
}  // namespace kforge::test
