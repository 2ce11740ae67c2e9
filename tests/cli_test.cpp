// `kforge eval` as a user runs it: exit status 0 / 1 / 2 and a message that says what went wrong,
// for a missing task, a broken config, a missing kernel, a kernel without forward, a signature that
// does not match, a compile error, and an honest kernel (also with --json).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "common/json.hpp"
#include "evaluation/hashing.hpp"
#include "evaluation/process.hpp"
#include "evaluation/task_export.hpp"
#include "tests/test_support.hpp"

namespace kforge::test {
namespace {

namespace fs = std::filesystem;

evaluation::RunResult kforge_eval(std::vector<std::string> args,
                                  std::vector<std::pair<std::string, std::string>> env = {}) {
  evaluation::SpawnOptions o;
  o.set_env = std::move(env);
  // As from a shell: a PID namespace whose /proc is not its own stops the CUDA driver.
  o.own_pid_namespace = false;
  o.argv = {KFORGE_CLI_PATH, "eval"};
  o.argv.insert(o.argv.end(), args.begin(), args.end());
  o.argv.insert(o.argv.end(), {"--backend", "cpu", "--configs", "single", "--seeds", "2",
                               "--max-seconds", "0.2", "--cache", cache_dir()});
  o.isolate_network = false;
  return evaluation::run(o, std::chrono::minutes(5));
}

std::string softmax() {
  return source_dir() + "/tasks/softmax";
}

/// This process's scratch folder for the kernels the tests write; removed when the tests end.
fs::path scratch_root() {
  return fs::temp_directory_path() / ("kforge_cli_test_" + std::to_string(::getpid()));
}

class RemoveScratch : public testing::Environment {
 public:
  void TearDown() override { fs::remove_all(scratch_root()); }
};
[[maybe_unused]] testing::Environment* const kRemoveScratch =
    testing::AddGlobalTestEnvironment(new RemoveScratch);

std::string write_temp(const std::string& name, const std::string& text) {
  fs::path p = scratch_root() / name;
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
  return p;
}

TEST(Cli, MissingTaskFolderIsAUsageError) {
  auto r =
      kforge_eval({"--task", "/no/such/task", "--kernel", softmax() + "/kernels/forward_cpu.cpp"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("no such task folder"), std::string::npos) << r.output;
}

TEST(Cli, BrokenConfigSaysWhereAndWhy) {
  std::string dir =
      fs::path(write_temp("broken_task/config_forward.json", "{\"single_input_configs\": ["))
          .parent_path();
  fs::copy_file(softmax() + "/func_forward.py", dir + "/func_forward.py",
                fs::copy_options::overwrite_existing);
  auto r = kforge_eval({"--task", dir, "--kernel", softmax() + "/kernels/forward_cpu.cpp"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("config_forward.json: not valid JSON"), std::string::npos) << r.output;
}

TEST(Cli, MissingKernelFileIsAUsageError) {
  auto r = kforge_eval({"--task", softmax(), "--kernel", "/no/such/kernel.cpp"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("cannot read the kernel"), std::string::npos) << r.output;
}

TEST(Cli, KernelWithoutForwardIsIncorrect) {
  auto r = kforge_eval(
      {"--task", softmax(), "--kernel", source_dir() + "/tests/exploits/cpu/no_forward.cpp"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("registers no `forward`"), std::string::npos) << r.output;
}

TEST(Cli, SignatureMismatchNamesBothSignatures) {
  auto r = kforge_eval(
      {"--task", softmax(), "--kernel", source_dir() + "/tasks/layernorm/kernels/forward_cpu.cpp"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("signature_mismatch"), std::string::npos) << r.output;
  // Rejected before compiling, as an experiment's static checks reject it.
  EXPECT_NE(r.output.find("`forward` takes (Tensor, Tensor, Tensor, int[], float) but the task "
                          "passes (x: Tensor, dim: int)"),
            std::string::npos)
      << r.output;
}

TEST(Cli, CompileErrorShowsTheCompilerLog) {
  std::string kernel = write_temp("broken.cpp",
                                  "#include <torch/extension.h>\ntorch::Tensor "
                                  "forward(torch::Tensor x, int64_t dim) { return y; }\n"
                                  "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def(\"forward\", "
                                  "&forward); }\n");
  auto r = kforge_eval({"--task", softmax(), "--kernel", kernel});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("compile_error"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("was not declared in this scope"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("broken.cpp:2:"), std::string::npos) << "the log names the user's file\n"
                                                               << r.output;
}

// `kforge eval` runs the static checks an experiment's verifier runs, before compiling: a kernel
// that starts a program is rejected with the experiment's reason and never built or run.
TEST(Cli, EvalRejectsWhatAnExperimentRejectsBeforeCompiling) {
  const std::string kernel = source_dir() + "/tests/exploits/cpu/runs_program.cpp";
  auto r = kforge_eval({"--task", softmax(), "--kernel", kernel});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("verdict: incorrect: rejected before compiling: forbidden_construct: "
                          "the source line 6: system( (starts a process)"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("compiling " + kernel), std::string::npos) << r.output;
  auto json_run = kforge_eval({"--task", softmax(), "--kernel", kernel, "--json"});
  auto doc = json::parse(json_run.output.substr(json_run.output.find('{')));
  ASSERT_TRUE(doc.value) << json_run.output;
  EXPECT_EQ((*doc.value)["failure"]["kind"].as_string(), "forbidden_construct");
  EXPECT_EQ((*doc.value)["failure"]["stage"].as_string(), "verify");
  EXPECT_FALSE(doc.value->contains("compile"));
}

TEST(Cli, HonestKernelIsCorrectInTextAndJson) {
  auto text =
      kforge_eval({"--task", softmax(), "--kernel", softmax() + "/kernels/forward_cpu.cpp"});
  EXPECT_EQ(text.exit_code, 0) << text.output;
  // One config, two seeds: both confirmed by the checker.
  EXPECT_NE(text.output.find("verdict: correct (1/1 configs; confirmed by the checker on 2 "
                             "config-seed pairs)"),
            std::string::npos)
      << text.output;
  auto json_run = kforge_eval(
      {"--task", softmax(), "--kernel", softmax() + "/kernels/forward_cpu.cpp", "--json"});
  EXPECT_EQ(json_run.exit_code, 0) << json_run.output;
  auto doc = json::parse(json_run.output);
  ASSERT_TRUE(doc.value) << doc.error << "\n" << json_run.output;
  EXPECT_EQ((*doc.value)["verdict"].as_string(), "correct");
  EXPECT_EQ((*doc.value)["checked_by_checker"].as_int(), 2);
  EXPECT_GT((*doc.value)["configs"][0]["speedup"].as_number(), 0);
  // After the timing, the kernel trace of the config: on the CPU the ATen operators each side
  // calls (eager's softmax; none in the plain C++ kernel) and the time of the whole call.
  const auto& trace = (*doc.value)["configs"][0]["trace"];
  ASSERT_TRUE(trace.contains("reference")) << trace.dump();
  bool softmax_op = false;
  for (const auto& op : trace["reference"].as_array())
    softmax_op |= op["name"].as_string() == "aten::softmax" && op["ms"].as_number() >= 0;
  EXPECT_TRUE(softmax_op) << trace.dump();
  EXPECT_TRUE(trace["candidate"].as_array().empty()) << trace.dump();
  EXPECT_GT(trace["candidate_wall_ms"].as_number(), 0) << trace.dump();
  EXPECT_NE(text.output.find("kernel trace on "), std::string::npos) << text.output;
  // A kernel of plain code calls no ATen operator; the line says so rather than "0 calls, 0 ms".
  EXPECT_NE(text.output.find("the kernel: no ATen operator call (its own code), a "),
            std::string::npos)
      << text.output;
  EXPECT_NE(text.output.find("aten::softmax"), std::string::npos) << text.output;
}

// --compiled: each config is timed against torch.compile's code too, or says why it cannot be
// (Debian's torch 1.13 has no AOTInductor; torch 2.6 and later build it for the CPU as well).
TEST(Cli, CompiledBaselineIsTimedOrSaysWhyNot) {
  auto r = kforge_eval({"--task", softmax(), "--kernel", softmax() + "/kernels/forward_cpu.cpp",
                        "--compiled", "default", "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  auto doc = json::parse(r.output);
  ASSERT_TRUE(doc.value) << doc.error << "\n" << r.output;
  EXPECT_FALSE((*doc.value)["compiled_baseline"].as_string().empty()) << r.output;
  const auto& config = (*doc.value)["configs"][0];
  if (config.contains("compiled_unavailable")) {
    EXPECT_NE(config["compiled_unavailable"].as_string().find("has no AOTInductor"),
              std::string::npos)
        << config.dump();
    EXPECT_FALSE(config.contains("compiled_ms")) << config.dump();
  } else {
    EXPECT_GT(config["compiled_ms"].as_number(), 0) << config.dump();
    EXPECT_GT(config["speedup_compiled"].as_number(), 0) << config.dump();
  }
  // A build step that fails as a whole (here a Python that crashes on it, exit 3): the kernel is
  // still evaluated, and its configs say why there is no compiled time.
  const std::string python =
      write_temp("python_without_baseline",
                 "#!/bin/sh\ncase \"$1\" in *compile_baseline.py) echo crashed >&2; exit 3;; esac\n"
                 "exec " +
                     evaluation::task_python() + " \"$@\"\n");
  fs::permissions(python, fs::perms::owner_all);
  auto crashed =
      kforge_eval({"--task", softmax(), "--kernel", softmax() + "/kernels/forward_cpu.cpp",
                   "--compiled", "default", "--json"},
                  {{"KFORGE_PYTHON", python}});
  EXPECT_EQ(crashed.exit_code, 0) << crashed.output;
  auto crashed_doc = json::parse(crashed.output);
  ASSERT_TRUE(crashed_doc.value) << crashed_doc.error << "\n" << crashed.output;
  EXPECT_NE((*crashed_doc.value)["configs"][0]["compiled_unavailable"].as_string().find("exit 3"),
            std::string::npos)
      << crashed.output;
  auto bad = kforge_eval({"--task", softmax(), "--kernel", softmax() + "/kernels/forward_cpu.cpp",
                          "--compiled", "fast"});
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("--compiled: must be max-autotune, default or off, not 'fast'"),
            std::string::npos)
      << bad.output;
}

}  // namespace
}  // namespace kforge::test

namespace kforge::test {
namespace {

evaluation::RunResult kforge(std::vector<std::string> args) {
  evaluation::SpawnOptions o;
  // As from a shell: a PID namespace whose /proc is not its own stops the CUDA driver.
  o.own_pid_namespace = false;
  o.argv = {KFORGE_CLI_PATH};
  o.argv.insert(o.argv.end(), args.begin(), args.end());
  o.isolate_network = false;
  o.set_env.emplace_back("KFORGE_CACHE", cache_dir());
  return evaluation::run(o, std::chrono::minutes(5));
}

// A broken task (its config passes `kernel_size` to a Model() that takes none) beside a good one:
// the good one ends with its best kernel, the broken one says why it has none, and the exit
// status says that some target has no kernel.
TEST(Cli, AnExperimentWithABrokenTaskFinishesTheGoodOne) {
  const std::string config =
      write_temp("broken_and_good.json", R"({"name": "broken_and_good", "seed": 3, "tasks": [")" +
                                             source_dir() + R"(/tests/tasks/broken_model", ")" +
                                             source_dir() + R"(/tasks/softmax"],
          "directions": ["forward"], "backends": ["cpu"], "proposers": [{"kind": "builtin"}],
          "budget": {"candidates_per_target": 2},
          "evaluation": {"seeds": 2, "timing_seconds": 0.1}})");
  const std::string archive = fs::path(config).parent_path() / "broken_and_good.db";
  auto r = kforge({"run", config, "--archive", archive});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("broken_model/forward/cpu: cannot start"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("unexpected keyword argument 'kernel_size'"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("experiment 1 finished"), std::string::npos) << r.output;
  auto row = r.output.find("\nsoftmax/forward/cpu");
  ASSERT_NE(row, std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("none correct", row), std::string::npos) << r.output;
}

}  // namespace
}  // namespace kforge::test

namespace kforge::test {
namespace {

// Every number a user types on the command line, given garbage, boundary and random values: a
// clear error naming the option (exit 2), never an abort. (The console's ids need a daemon: the
// system test covers them.)
TEST(Cli, EveryNumericOptionRejectsBadValuesClearly) {
  const std::string kernel = source_dir() + "/tasks/softmax/kernels/forward_cpu.cpp";
  const std::string task = source_dir() + "/tasks/softmax";
  const std::string state =
      fs::temp_directory_path() / ("kforge_cli_fuzz_" + std::to_string(::getpid()));
  struct Case {
    std::vector<std::string> before;  // the command and what comes before the value
    std::string what;                 // what the error names
  };
  const std::vector<Case> cases = {
      {{"run", "--jobs"}, "--jobs"},
      {{"run", "--resume"}, "--resume"},
      {{"run", "x.json", "--replay"}, "--replay"},
      {{"eval", "--task", task, "--kernel", kernel, "--seeds"}, "--seeds"},
      {{"eval", "--task", task, "--kernel", kernel, "--seed"}, "--seed"},
      {{"eval", "--task", task, "--kernel", kernel, "--device"}, "--device"},
      {{"eval", "--task", task, "--kernel", kernel, "--max-seconds"}, "--max-seconds"},
      {{"eval", "--task", task, "--kernel", kernel, "--atol"}, "--atol"},
      {{"eval", "--task", task, "--kernel", kernel, "--rtol"}, "--rtol"},
      {{"daemon", "--state", state, "--port"}, "--port"},
      {{"daemon", "--state", state, "--jobs"}, "--jobs"},
      {{"console", "--state", state, "--port"}, "--port"},
      {{"show"}, "candidate id"},
      {{"report"}, "experiment id"},
  };
  // None of these is a valid value for any of the options.
  std::vector<std::string> values = {"abc", "-1",  "99999999999999999999", "1e400", "0x1f",
                                     "nan", "inf", "-9223372036854775809", "12abc", "1.5.5",
                                     "+",   "-"};
  std::mt19937 random(7);
  for (int i = 0; i < 6; ++i) {  // random printable junk that starts like a number
    std::string junk = std::to_string(random() % 1000);
    for (int k = 0; k < 3; ++k) junk += static_cast<char>(33 + random() % 90);
    values.push_back(junk + "z");
  }
  for (const auto& c : cases) {
    for (const auto& v : values) {
      auto args = c.before;
      args.push_back(v);
      auto r = kforge(args);
      const std::string shown = c.before[0] + " " + c.what + " " + v;
      EXPECT_EQ(r.exit_code, 2) << shown << "\n" << r.output;
      EXPECT_EQ(r.output.find("terminate called"), std::string::npos) << shown << "\n" << r.output;
      // show and report take the id as a word: one that does not start with a digit is not taken
      // for an id, and the usage says what is expected instead.
      const bool word = c.before[0] == "show" || c.before[0] == "report";
      if (!word || std::isdigit(static_cast<unsigned char>(v[0]))) {
        EXPECT_NE(r.output.find("needs a"), std::string::npos) << shown << "\n" << r.output;
        EXPECT_NE(r.output.find(c.what), std::string::npos) << shown << "\n" << r.output;
      }
    }
  }
  fs::remove_all(state);
}

// Every command, as a person first meets it: --help lists its options and exits 0 without
// touching an archive or a daemon; an option it does not have, an option without its value, a
// value outside its choices and a missing required option each exit 2 naming the command and
// what is wrong, and point to --help.
TEST(Cli, EveryCommandListsItsOptionsAndSaysWhatIsWrong) {
  const std::vector<std::pair<std::string, std::string>> commands = {
      {"eval", "--kernel"},
      {"export", "--task"},
      {"import", "--sizes"},
      {"suite", "--kernels"},
      {"run", "--replay"},
      {"show", "--no-source"},
      {"report", "--csv"},
      {"list", "--archive"},
      {"best", "--out"},
      {"daemon", "--log-level"},
      {"console", "--token-file"},
      {"dashboard", "--token-file"},
      {"generate", "--transposed-sum"}};
  for (const auto& [command, option] : commands) {
    auto help = kforge({command, "--help"});
    EXPECT_EQ(help.exit_code, 0) << command << "\n" << help.output;
    EXPECT_NE(help.output.find("kforge " + command), std::string::npos) << help.output;
    EXPECT_NE(help.output.find(option), std::string::npos) << command << "\n" << help.output;
    auto unknown = kforge({command, "--no-such-option"});
    EXPECT_EQ(unknown.exit_code, 2) << command << "\n" << unknown.output;
    EXPECT_NE(unknown.output.find("kforge " + command + ": "), std::string::npos) << unknown.output;
    EXPECT_NE(unknown.output.find("--no-such-option"), std::string::npos) << unknown.output;
    EXPECT_NE(unknown.output.find("kforge " + command + " --help"), std::string::npos)
        << unknown.output;
  }
  const std::string task = source_dir() + "/tasks/softmax";
  const std::string kernel = task + "/kernels/forward_cpu.cpp";
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const std::vector<Case> wrong = {
      {{"eval", "--task", task, "--kernel", kernel, "--seeds"}, "--seeds needs a value"},
      {{"eval", "--task", task}, "--kernel is required"},
      {{"eval", "--task", task, "--kernel", kernel, "--backend", "tpu"}, "tpu"},
      {{"eval", "--task", task, "--kernel", kernel, "--configs", "most"}, "most"},
      {{"suite", "--tasks", task, "--kernels", "x", "--directions", "sideways"}, "sideways"},
      {{"daemon", "--log-level", "loud"}, "loud"},
      {{"generate", "--task", task, "--transposed-sum", "every-phase"}, "every-phase"},
      {{"import", "--from", "tritonbench", "--out", "x", "p.py"}, "tritonbench"},
      {{"best", "1", "softmax"}, "--out is required"},
      {{"run"}, "give a configuration file or --resume EXPERIMENT"},
      {{"report", "1", "--json", "--csv"}, "excludes"},
  };
  for (const auto& c : wrong) {
    auto r = kforge(c.args);
    std::string shown;
    for (const auto& a : c.args) shown += a + " ";
    EXPECT_EQ(r.exit_code, 2) << shown << "\n" << r.output;
    EXPECT_NE(r.output.find(c.says), std::string::npos) << shown << "\n" << r.output;
  }
}

}  // namespace
}  // namespace kforge::test

namespace kforge::test {
namespace {

namespace fs = std::filesystem;

// `kforge best` as a PyTorch user runs it: experiments on tasks in robust-kbench's shape (a
// linear layer whose backward needs only the forward's arguments; an RMSNorm whose backward needs
// a statistic its own forward computes), then the best kernels written as a package, built by
// torch.utils.cpp_extension and called from Python torch: forward against PyTorch, and the
// gradients autograd computes through the package's Function against PyTorch's own.
const char* kLinearForward =
    R"cpp(// y = x @ W^T + b on the CPU, plain loops.
#include <torch/extension.h>

          torch::Tensor forward(torch::Tensor x, torch::Tensor weights, torch::Tensor biases) {
            auto xc = x.contiguous(), wc = weights.contiguous(), bc = biases.contiguous();
            const int64_t batch = xc.size(0), in = xc.size(1), out = wc.size(0);
            auto y = torch::empty({batch, out}, xc.options());
            const float *X = xc.data_ptr<float>(), *W = wc.data_ptr<float>(), *B = bc.data_ptr<float>();
            float* Y = y.data_ptr<float>();
            for (int64_t i = 0; i < batch; ++i)
              for (int64_t j = 0; j < out; ++j) {
                float acc = B[j];
                for (int64_t k = 0; k < in; ++k) acc += X[i * in + k] * W[j * in + k];
                Y[i * out + j] = acc;
              }
            return y;
          }

          PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
            m.def("forward", &forward, "linear (CPU)");
          }
    )cpp";

const char* kCheck = R"py(import sys
import torch
import torch.nn.functional as F

sys.path.insert(0, sys.argv[1])
import linear_best
import rmsnorm_best

torch.manual_seed(0)
# The linear package: forward kernel, and autograd through the generated Function.
x = torch.randn(5, 7, requires_grad=True)
w = torch.randn(3, 7, requires_grad=True)
b = torch.randn(3, requires_grad=True)
assert torch.allclose(linear_best.forward(x, w, b), F.linear(x, w, b), atol=1e-5), "forward"
assert linear_best.Function.__module__ == "linear_best", linear_best.Function.__module__
g = torch.randn(5, 3)
linear_best.apply(x, w, b).backward(g)
ours = [t.grad.clone() for t in (x, w, b)]
for t in (x, w, b):
    t.grad = None
F.linear(x, w, b).backward(g)
for name, a, e in zip("xwb", ours, (x.grad, w.grad, b.grad)):
    assert torch.allclose(a, e, atol=1e-4), f"grad of {name}: {(a - e).abs().max()}"
# The RMSNorm package: no forward kernel, and a backward that needs the forward's 1/rms: the
# task's own AutogradFunction with the backward kernel as backward_fn.
assert not hasattr(rmsnorm_best, "forward")
assert rmsnorm_best.Function.__name__ == "AutogradFunction"
x = torch.randn(2, 5, 64, requires_grad=True)
w = torch.randn(64, requires_grad=True)
g = torch.randn(2, 5, 64)
rmsnorm_best.apply(x, w, 1e-8).backward(g)
ours = [x.grad.clone(), w.grad.clone()]
x.grad = None
w.grad = None
(x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-8) * w).backward(g)
for name, a, e in zip("xw", ours, (x.grad, w.grad)):
    assert torch.allclose(a, e, atol=1e-4), f"rmsnorm grad of {name}: {(a - e).abs().max()}"
print("BEST_PACKAGES_WORK")
)py";

TEST(Cli, TheBestKernelsImportIntoPyTorchAndAutogradRunsThroughThem) {
  const fs::path dir =
      fs::temp_directory_path() / ("kforge_best_test_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "kernels");
  std::ofstream(dir / "kernels" / "rkb_linear_forward.cpp") << kLinearForward;
  fs::copy_file(source_dir() + "/tests/tasks/rkb_linear/kernels/backward_cpu.cpp",
                dir / "kernels" / "rkb_linear_backward.cpp");
  fs::copy_file(source_dir() + "/tests/tasks/rkb_rmsnorm/kernels/backward_cpu.cpp",
                dir / "kernels" / "rkb_rmsnorm_backward.cpp");
  const std::string archive = (dir / "archive.db").string();
  auto experiment = [&](const std::string& task, const std::string& directions) {
    const auto config = dir / (task + ".json");
    std::ofstream(config) << R"({"name": ")" << task << R"(", "seed": 5, "tasks": [")"
                          << source_dir() << "/tests/tasks/" << task << R"("],
        "directions": [)" << directions
                          << R"(], "backends": ["cpu"], "config_set": "single",
        "proposers": [{"kind": "files", "pattern": ")"
                          << (dir / "kernels").string() << R"(/{name}_{direction}.cpp"}],
        "evaluation": {"seeds": 1, "timing_seconds": 0.05}})";
    auto r = kforge({"run", config.string(), "--archive", archive});
    EXPECT_EQ(r.exit_code, 0) << r.output;
  };
  experiment("rkb_linear", R"("forward", "backward")");
  experiment("rkb_rmsnorm", R"("backward")");
  // Both experiments listed, without a daemon, with the archive they are in.
  auto listed = kforge({"list", "--archive", archive});
  EXPECT_EQ(listed.exit_code, 0) << listed.output;
  for (const std::string& expected :
       std::vector<std::string>{"archive " + archive, "rkb_linear/backward/cpu",
                                "rkb_linear/forward/cpu", "rkb_rmsnorm/backward/cpu", "best "})
    EXPECT_NE(listed.output.find(expected), std::string::npos) << expected << "\n" << listed.output;
  auto listed_json = kforge({"list", "--archive", archive, "--json"});
  auto doc = json::parse(listed_json.output);
  ASSERT_TRUE(doc.value) << listed_json.output;
  EXPECT_EQ((*doc.value)["archive"].as_string(), archive);
  EXPECT_EQ((*doc.value)["experiments"].as_array().size(), 2u) << listed_json.output;
  // The report leads with the results: each best kernel's per-config times with their spread;
  // --csv gives one row per config of each best kernel.
  auto report = kforge({"report", "1", "--archive", archive});
  EXPECT_EQ(report.exit_code, 0) << report.output;
  for (const std::string expected : {"rkb_linear/forward/cpu: candidate ", " ancestor(s)",
                                     "kernel ms (p10-p90)", "eager ms (p10-p90)"})
    EXPECT_NE(report.output.find(expected), std::string::npos) << expected << "\n" << report.output;
  auto csv = kforge({"report", "1", "--archive", archive, "--csv"});
  EXPECT_EQ(csv.exit_code, 0) << csv.output;
  EXPECT_EQ(
      csv.output.rfind("experiment,target,candidate,geomean_speedup,confirmed,lineage_depth,", 0),
      0u)
      << csv.output;
  EXPECT_NE(csv.output.find("\n1,rkb_linear/backward/cpu,"), std::string::npos) << csv.output;
  EXPECT_NE(csv.output.find("\n1,rkb_linear/forward/cpu,"), std::string::npos) << csv.output;

  auto linear = kforge({"best", "1", "rkb_linear", "--archive", archive, "--out",
                        (dir / "pkg" / "linear_best").string()});
  ASSERT_EQ(linear.exit_code, 0) << linear.output;
  EXPECT_NE(linear.output.find("archive " + archive), std::string::npos) << linear.output;
  EXPECT_NE(linear.output.find("forward: candidate "), std::string::npos) << linear.output;
  EXPECT_NE(linear.output.find("backward: candidate "), std::string::npos) << linear.output;
  for (const char* f : {"forward.cpp", "backward.cpp", "__init__.py", "setup.py", "README.md",
                        "kforge.json", "task_backward.py"})
    EXPECT_TRUE(fs::exists(dir / "pkg" / "linear_best" / f)) << f;
  // Both ways of building the package use the flags kforge timed the kernels with.
  for (const char* f : {"__init__.py", "setup.py"}) {
    const auto text = evaluation::read_file((dir / "pkg" / "linear_best" / f).string()).text;
    EXPECT_NE(text.find(R"(["-O3", "-march=native", "-fopenmp"])"), std::string::npos)
        << f << ":\n" << text;
  }
  auto rmsnorm = kforge({"best", "2", "rkb_rmsnorm", "--archive", archive, "--out",
                         (dir / "pkg" / "rmsnorm_best").string()});
  ASSERT_EQ(rmsnorm.exit_code, 0) << rmsnorm.output;
  EXPECT_FALSE(fs::exists(dir / "pkg" / "rmsnorm_best" / "forward.cpp"));
  // Clear errors: a task the experiment did not have, a backend it did not run.
  auto missing = kforge({"best", "1", "softmax", "--archive", archive, "--out", dir / "x"});
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_NE(missing.output.find("experiment 1 has no target of task softmax"), std::string::npos)
      << missing.output;
  auto cuda = kforge(
      {"best", "1", "rkb_linear", "--backend", "cuda", "--archive", archive, "--out", dir / "x"});
  EXPECT_EQ(cuda.exit_code, 1) << cuda.output;
  EXPECT_NE(cuda.output.find("no correct cuda kernel of rkb_linear"), std::string::npos)
      << cuda.output;

  // Python torch builds and calls both packages.
  std::ofstream(dir / "check.py") << kCheck;
  evaluation::SpawnOptions o;
  o.own_pid_namespace = false;
  o.argv = {evaluation::task_python(), (dir / "check.py").string(), (dir / "pkg").string()};
  o.isolate_network = false;
  o.set_env = {{"TORCH_EXTENSIONS_DIR", (dir / "extensions").string()}};
  auto checked = evaluation::run(o, std::chrono::minutes(12));
  EXPECT_EQ(checked.exit_code, 0) << checked.output;
  EXPECT_NE(checked.output.find("BEST_PACKAGES_WORK"), std::string::npos) << checked.output;
  if (!HasFailure()) fs::remove_all(dir);
}

}  // namespace
}  // namespace kforge::test
