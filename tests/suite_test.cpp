// KernelBench problems and benchmark suites as a user brings them: `kforge import --from
// kernelbench` on problems of our own written in KernelBench's format (linear + activations,
// convolution, normalisation, reduction, a model with buffers), what their exports give a kernel,
// kernels for them checked by `kforge eval`, and `kforge suite` over bundled and imported tasks
// with a broken task and a broken kernel among them (CPU backend).
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/json.hpp"
#include "evaluation/process.hpp"
#include "evaluation/task_export.hpp"
#include "tests/test_support.hpp"

namespace kforge::test {
namespace {

namespace fs = std::filesystem;

evaluation::RunResult kforge(std::vector<std::string> args, const std::string& cwd = "",
                             std::vector<std::pair<std::string, std::string>> env = {}) {
  evaluation::SpawnOptions o;
  o.own_pid_namespace = false;  // as from a shell
  o.argv = {KFORGE_CLI_PATH};
  o.argv.insert(o.argv.end(), args.begin(), args.end());
  o.isolate_network = false;
  o.working_dir = cwd;
  o.set_env = std::move(env);
  return evaluation::run(o, std::chrono::minutes(10));
}

std::string problem(const std::string& name) {
  return source_dir() + "/tests/kernelbench/" + name + ".py";
}

fs::path scratch(const std::string& name) {
  fs::path p =
      fs::temp_directory_path() / ("kforge_suite_test_" + std::to_string(::getpid())) / name;
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

/// The five problems imported once (with a second config of batch size 3), exported.
const fs::path& imported_dir() {
  static const fs::path dir = [] {
    fs::path out = scratch("imported");
    auto r =
        kforge({"import", "--from", "kernelbench", problem("1_Linear_GELU_Tanh"),
                problem("2_Conv2d_ReLU"), problem("3_GroupNorm"), problem("4_Masked_Sum_reduction"),
                problem("5_BatchNorm_Masked"), "--out", out.string(), "--sizes", "batch_size=3"});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return out;
  }();
  return dir;
}

std::vector<std::string> arg_names(const json::Value& config) {
  std::vector<std::string> out;
  for (const auto& a : config["args"].as_array()) out.push_back(a["name"].as_string());
  return out;
}

const json::Value& arg(const json::Value& config, const std::string& name) {
  for (const auto& a : config["args"].as_array())
    if (a["name"].as_string() == name) return a;
  static const json::Value none;
  ADD_FAILURE() << "no argument " << name;
  return none;
}

TEST(Import, InputsThenParametersThenBuffersInModuleOrder) {
  const auto& linear = exported((imported_dir() / "1_Linear_GELU_Tanh").string());
  const auto& configs = linear.doc["directions"]["forward"]["configs"].as_array();
  ASSERT_EQ(configs.size(), 2u) << "the file's sizes, then --sizes batch_size=3";
  EXPECT_EQ(arg_names(configs[0]), (std::vector<std::string>{"x", "linear_weight", "linear_bias"}));
  EXPECT_EQ(arg(configs[0], "x")["kind"].as_string(), "input");
  EXPECT_EQ(arg(configs[0], "linear_weight")["kind"].as_string(), "parameter");
  EXPECT_EQ(arg(configs[0], "linear_weight")["shape"][0].as_int(), 24);
  EXPECT_EQ(arg(configs[0], "x")["shape"][0].as_int(), 8);
  EXPECT_EQ(arg(configs[1], "x")["shape"][0].as_int(), 3);
  // nn.Linear's own initialisation is found, as for robust-kbench tasks.
  EXPECT_EQ(arg(configs[0], "linear_weight")["dist"]["family"].as_string(), "uniform");

  const auto& bn = exported((imported_dir() / "5_BatchNorm_Masked").string());
  const auto& c = bn.doc["directions"]["forward"]["configs"][0];
  // named_buffers() gives the module's own buffers before its children's.
  EXPECT_EQ(arg_names(c),
            (std::vector<std::string>{"x", "bn_weight", "bn_bias", "mask", "bn_running_mean",
                                      "bn_running_var", "bn_num_batches_tracked"}));
  EXPECT_EQ(arg(c, "bn_running_var")["kind"].as_string(), "buffer");
  EXPECT_EQ(arg(c, "bn_num_batches_tracked")["dtype"].as_string(), "int64");
  EXPECT_EQ(arg(c, "mask")["dist"]["family"].as_string(), "fixed") << "tril(ones) is no draw";

  const auto& sum = exported((imported_dir() / "4_Masked_Sum_reduction").string());
  const auto& s = sum.doc["directions"]["forward"]["configs"][0];
  EXPECT_EQ(arg_names(s), (std::vector<std::string>{"A", "B"}));
  EXPECT_EQ(s["outputs"][0]["shape"][1].as_int(), 1) << "reduce_dim=1 became a constant";

  const auto& conv = exported((imported_dir() / "2_Conv2d_ReLU").string());
  const auto& k = conv.doc["directions"]["forward"]["configs"][0];
  EXPECT_EQ(arg_names(k), (std::vector<std::string>{"x", "conv_weight", "conv_bias"}));
  EXPECT_EQ(k["outputs"][0]["shape"][2].as_int(), 8) << "stride 2 of 16 rows";
}

TEST(Import, SizesSetDerivedConstantsToo) {
  fs::path out = scratch("sizes");
  auto r = kforge({"import", "--from", "kernelbench", problem("3_GroupNorm"), "--out", out.string(),
                   "--sizes", "dim1=4,batch_size=2"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  evaluation::ExportOptions o;
  o.cache_dir = cache_dir();
  auto e = evaluation::export_task((out / "3_GroupNorm").string(), o);
  ASSERT_TRUE(e.ok) << e.error;
  const auto& configs = e.doc["directions"]["forward"]["configs"].as_array();
  ASSERT_EQ(configs.size(), 2u);
  EXPECT_EQ(configs[0]["outputs"][0]["shape"][3].as_int(), 16);
  // dim2 = dim1 * 2 in the file: setting dim1 to 4 makes dim2 8.
  EXPECT_EQ(configs[1]["outputs"][0]["shape"][0].as_int(), 2);
  EXPECT_EQ(configs[1]["outputs"][0]["shape"][3].as_int(), 8);
}

TEST(Import, ProblemsThatCannotBeImportedSayWhyAndTheOthersAreWritten) {
  fs::path out = scratch("failing");
  std::ofstream(out / "tensor_init.py") << "import torch\nimport torch.nn as nn\n"
                                           "class Model(nn.Module):\n"
                                           "    def __init__(self, w):\n"
                                           "        super().__init__()\n"
                                           "        self.w = w\n"
                                           "    def forward(self, x):\n"
                                           "        return x * self.w\n"
                                           "def get_inputs():\n    return [torch.randn(4)]\n"
                                           "def get_init_inputs():\n    return [torch.ones(4)]\n";
  auto r = kforge({"import", "--from", "kernelbench", (out / "tensor_init.py").string(),
                   problem("4_Masked_Sum_reduction"), "--out", (out / "tasks").string()});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("failed tensor_init"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("get_init_inputs() returns tensors"), std::string::npos) << r.output;
  EXPECT_TRUE(fs::exists(out / "tasks/4_Masked_Sum_reduction/func_forward.py")) << r.output;

  auto unknown = kforge({"import", "--from", "kernelbench", problem("4_Masked_Sum_reduction"),
                         "--out", (out / "tasks").string(), "--sizes", "seq_len=5"});
  EXPECT_EQ(unknown.exit_code, 1) << unknown.output;
  EXPECT_NE(unknown.output.find("--sizes names seq_len, which the problem does not define"),
            std::string::npos)
      << unknown.output;
  EXPECT_EQ(
      kforge({"import", "--from", "tritonbench", problem("3_GroupNorm"), "--out", "x"}).exit_code,
      2);
}

// forward(A, B): what the import says a kernel receives, checked by running one.
constexpr const char* kMaskedSumKernel = R"(#include <torch/extension.h>
torch::Tensor forward(torch::Tensor A, torch::Tensor B) {
  TORCH_CHECK(A.dim() == 3 && A.sizes() == B.sizes(), "A and B of one 3-d shape");
  auto a = A.contiguous(), b = B.contiguous();
  const int64_t n = a.size(0), rows = a.size(1), cols = a.size(2);
  auto out = torch::empty({n, 1, cols}, a.options());
  const float* pa = a.data_ptr<float>();
  const float* pb = b.data_ptr<float>();
  float* po = out.data_ptr<float>();
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < cols; ++k) {
      float s = 0;
      for (int64_t r = 0; r < rows; ++r) s += pa[(i * rows + r) * cols + k] * pb[(i * rows + r) * cols + k];
      po[i * cols + k] = s;
    }
  return out;
}
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("forward", &forward, "sum of A*B over dim 1"); }
)";

// forward(x, linear_weight, linear_bias): inputs first, then the parameters in module order.
constexpr const char* kLinearGeluTanhKernel = R"(#include <torch/extension.h>
#include <cmath>
torch::Tensor forward(torch::Tensor x, torch::Tensor weight, torch::Tensor bias) {
  auto xc = x.contiguous(), w = weight.contiguous(), b = bias.contiguous();
  const int64_t n = xc.size(0), in = xc.size(1), out_f = w.size(0);
  auto out = torch::empty({n, out_f}, xc.options());
  const float *px = xc.data_ptr<float>(), *pw = w.data_ptr<float>(), *pb = b.data_ptr<float>();
  float* po = out.data_ptr<float>();
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < out_f; ++j) {
      double s = pb[j];
      for (int64_t k = 0; k < in; ++k) s += double(px[i * in + k]) * pw[j * in + k];
      const double g = 0.5 * s * (1.0 + std::erf(s / std::sqrt(2.0)));
      po[i * out_f + j] = float(std::tanh(g) * 1.5);
    }
  return out;
}
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("forward", &forward, "linear, gelu, tanh"); }
)";

TEST(Import, KernelsReceiveTheDocumentedArgumentsAndPass) {
  fs::path dir = scratch("kernels");
  std::ofstream(dir / "masked_sum.cpp") << kMaskedSumKernel;
  std::ofstream(dir / "linear.cpp") << kLinearGeluTanhKernel;
  for (const auto& [task, kernel] : std::vector<std::pair<std::string, std::string>>{
           {"4_Masked_Sum_reduction", "masked_sum.cpp"}, {"1_Linear_GELU_Tanh", "linear.cpp"}}) {
    auto r = kforge({"eval", "--task", (imported_dir() / task).string(), "--kernel",
                     (dir / kernel).string(), "--backend", "cpu", "--seeds", "2", "--max-seconds",
                     "0.2", "--cache", cache_dir()});
    EXPECT_EQ(r.exit_code, 0) << task << "\n" << r.output;
  }
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// DIR/tasks/masked_sum: a copy of the imported reduction with a correct kernel, good.cpp.
void masked_sum_with_a_good_kernel(const fs::path& dir) {
  fs::create_directories(dir / "tasks");
  fs::copy(imported_dir() / "4_Masked_Sum_reduction", dir / "tasks/masked_sum",
           fs::copy_options::recursive);
  fs::create_directories(dir / "tasks/masked_sum/kernels");
  std::ofstream(dir / "tasks/masked_sum/kernels/good.cpp") << kMaskedSumKernel;
}

TEST(Suite, TableOfBundledAndImportedTasksWithABrokenTaskAndKernel) {
  fs::path dir = scratch("suite");
  // The imported reduction with two kernels: one right, one that does not compile.
  masked_sum_with_a_good_kernel(dir);
  std::ofstream(dir / "tasks/masked_sum/kernels/broken.cpp")
      << "#include <torch/extension.h>\ntorch::Tensor forward(torch::Tensor A, torch::Tensor B) "
         "{ return undefined_name; }\nPYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { "
         "m.def(\"forward\", &forward); }\n";
  // A task whose code fails when it is built.
  fs::create_directories(dir / "tasks/broken_task/kernels");
  std::ofstream(dir / "tasks/broken_task/func_forward.py")
      << "import torch\nimport torch.nn as nn\n"
         "def forward_fn(x):\n    return x\n"
         "class Model(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
         "        raise ValueError('this task is broken on purpose')\n"
         "    def forward(self, x, fn=forward_fn):\n        return fn(x)\n"
         "def get_inputs():\n    return [torch.randn(4)]\n";
  std::ofstream(dir / "tasks/broken_task/config_forward.json")
      << R"({"single_input_configs": [{}], "single_init_configs": [{}], "single_shared_configs": [{}]})";
  std::ofstream(dir / "tasks/broken_task/kernels/k.cpp") << kMaskedSumKernel;
  fs::copy(source_dir() + "/tasks/softmax", dir / "tasks/softmax", fs::copy_options::recursive);

  auto r = kforge({"suite", "--tasks", (dir / "tasks").string(), "--kernels", "{task}/kernels/*",
                   "--backend", "cpu", "--seeds", "2", "--archive", (dir / "archive.db").string(),
                   "--cache", cache_dir(), "--out", (dir / "results").string()});
  EXPECT_EQ(r.exit_code, 1) << "some rows are not correct\n" << r.output;
  EXPECT_NE(r.output.find("progress: 4/4 done"), std::string::npos) << r.output;
  const std::string csv = read(dir / "results.csv");
  auto row = [&](const std::string& needle) {
    const auto at = csv.find(needle);
    if (at == std::string::npos) return std::string();
    return csv.substr(csv.rfind('\n', at) + 1, csv.find('\n', at) - csv.rfind('\n', at) - 1);
  };
  EXPECT_NE(row("good.cpp").find(",correct,1,1,"), std::string::npos) << csv;
  EXPECT_NE(row("forward_cpu.cpp").find(",correct,1,1,"), std::string::npos) << csv;
  EXPECT_NE(row("broken.cpp").find("compile"), std::string::npos) << csv;
  EXPECT_NE(row("broken.cpp").find("undefined_name"), std::string::npos) << csv;
  EXPECT_NE(row("broken_task").find("this task is broken on purpose"), std::string::npos) << csv;
  auto doc = json::parse(read(dir / "results.json"));
  ASSERT_TRUE(doc.value) << doc.error;
  EXPECT_EQ((*doc.value)["rows"].as_array().size(), 4u) << doc.value->dump();
  // The summary counts targets (masked_sum, broken_task, softmax), each by its best kernel.
  const auto& summary = (*doc.value)["summary"]["all"];
  EXPECT_EQ(summary["targets"].as_int(), 3) << doc.value->dump();
  EXPECT_EQ(summary["correct"].as_int(), 2) << doc.value->dump();
  EXPECT_NE(r.output.find("every kernel: 3 target(s), correct 2 (67%)"), std::string::npos)
      << r.output;
  for (const auto& row : (*doc.value)["rows"].as_array())
    if (row["status"].as_string() == "correct") {
      EXPECT_GT(row["speedup_eager"].as_number(), 0) << row.dump();
      EXPECT_GT(row["kernel_ms_largest_config"].as_number(), 0) << row.dump();
      // Its share of the speed-of-light bound on the config that moves the most bytes.
      EXPECT_GT(row["speed_of_light"].as_number(), 0) << row.dump();
      // The torch.compile column: a speedup where torch has AOTInductor (2.6 and later), else
      // the reason (Debian's torch 1.13 has none).
      if (!row["speedup_compile"].is_number())
        EXPECT_NE(row["compile_baseline"].as_string().find("has no AOTInductor"), std::string::npos)
            << row.dump();
      else
        EXPECT_GT(row["speedup_compile"].as_number(), 0) << row.dump();
    }
  // Every kernel was proposed once: resuming the finished suite is refused, nothing is redone.
  auto again = kforge({"suite", "--resume", "1", "--archive", (dir / "archive.db").string(),
                       "--cache", cache_dir()});
  EXPECT_EQ(again.exit_code, 2) << again.output;
  EXPECT_NE(again.output.find("has ended"), std::string::npos) << again.output;
  // Its tables again from the archive, running nothing.
  auto table = kforge({"suite", "--table", "1", "--archive", (dir / "archive.db").string(),
                       "--cache", cache_dir(), "--out", (dir / "again").string()});
  EXPECT_EQ(table.exit_code, 1) << table.output;
  EXPECT_NE(table.output.find("every kernel: 3 target(s), correct 2 (67%)"), std::string::npos)
      << table.output;
  EXPECT_EQ(read(dir / "again.csv"), csv);
  auto none = kforge({"suite", "--table", "9", "--archive", (dir / "archive.db").string(),
                      "--cache", cache_dir()});
  EXPECT_EQ(none.exit_code, 2) << none.output;
  EXPECT_NE(none.output.find("no experiment 9 in the archive"), std::string::npos) << none.output;
}

// The torch.compile baseline is built per task when its first kernel is to be evaluated, not for
// every task before anything runs (a KernelBench level's 100 baselines took over 11 minutes on 64
// cores while four GPUs idled): a task whose baseline is slow does not hold back the others. Here
// a Python that takes 20 s to fail on masked_sum's baseline; softmax's kernel is judged first.
TEST(Suite, ATaskWhoseBaselineIsSlowDoesNotHoldBackTheOthers) {
  fs::path dir = scratch("slow_baseline");
  masked_sum_with_a_good_kernel(dir);
  fs::copy(source_dir() + "/tasks/softmax", dir / "tasks/softmax", fs::copy_options::recursive);
  const std::string python = (dir / "python").string();
  std::ofstream(python) << "#!/bin/sh\ncase \"$*\" in *compile_baseline.py*masked_sum*) sleep 20; "
                           "echo slow and broken >&2; exit 3;; esac\nexec "
                        << evaluation::task_python() << " \"$@\"\n";
  fs::permissions(python, fs::perms::owner_all);
  auto r = kforge(
      {"suite", "--tasks", (dir / "tasks").string(), "--kernels", "{task}/kernels/*", "--backend",
       "cpu", "--seeds", "1", "--compiled", "default", "--archive", (dir / "archive.db").string(),
       "--cache", cache_dir(), "--out", (dir / "results").string()},
      "", {{"KFORGE_PYTHON", python}});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  const auto softmax_judged = r.output.find("softmax/forward/cpu");
  const auto slow_built =
      r.output.find("torch.compile baseline of " + (dir / "tasks").string() + "/masked_sum: none");
  ASSERT_NE(softmax_judged, std::string::npos) << r.output;
  ASSERT_NE(slow_built, std::string::npos) << r.output;
  EXPECT_LT(softmax_judged, slow_built) << r.output;
  // Both kernels correct; masked_sum's rows say why there is no compiled time.
  const std::string csv = read(dir / "results.csv");
  EXPECT_NE(csv.find("slow and broken"), std::string::npos) << csv;
}

TEST(Suite, RobustKbenchLayoutFindsKernelsByTaskNameAndDirection) {
  fs::path dir = scratch("layout");
  fs::create_directories(dir / "tasks");
  fs::copy(source_dir() + "/tasks/linear_relu", dir / "tasks/linear_relu",
           fs::copy_options::recursive);
  fs::remove_all(dir / "tasks/linear_relu/kernels");
  for (const char* d : {"forward", "backward"}) {
    fs::create_directories(dir / "highlighted/linear_relu" / d);
    fs::copy_file(source_dir() + "/tasks/linear_relu/kernels/" + d + "_cpu.cpp",
                  dir / "highlighted/linear_relu" / d / "kernel.cpp");
  }
  auto r = kforge({"suite", "--tasks", (dir / "tasks/linear_relu").string(), "--kernels",
                   "highlighted/{name}/{direction}/kernel.cpp", "--backend", "cpu", "--seeds", "2",
                   "--archive", (dir / "archive.db").string(), "--cache", cache_dir(), "--out",
                   (dir / "r").string(), "--quiet"},
                  dir.string());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  const std::string csv = read(dir / "r.csv");
  EXPECT_NE(csv.find("linear_relu,forward,cpu,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("linear_relu,backward,cpu,"), std::string::npos) << csv;
  // A suite times each kernel once and confirms nothing: its bests say "once", not "search".
  auto listed =
      kforge({"list", "--archive", (dir / "archive.db").string(), "--json"}, dir.string());
  ASSERT_EQ(listed.exit_code, 0) << listed.output;
  auto doc = json::parse(listed.output);
  ASSERT_TRUE(doc.value) << listed.output;
  int bests = 0;
  for (const auto& t : (*doc.value)["experiments"][0]["targets"].as_array()) {
    if (!t.contains("best_candidate")) continue;
    ++bests;
    EXPECT_EQ(t["best_timed"].as_string(), "once") << t.dump();
  }
  EXPECT_EQ(bests, 2) << listed.output;
  auto text = kforge({"list", "--archive", (dir / "archive.db").string()}, dir.string());
  EXPECT_NE(text.output.find(", once)"), std::string::npos) << text.output;
}

// The largest source a suite judges is the suite's to say (a generated kernel for a task of many
// configs can exceed the default): a kernel over it is `too_large` with both sizes, not compiled.
TEST(Suite, TheLargestSourceJudgedIsAnOption) {
  fs::path dir = scratch("source_limit");
  fs::create_directories(dir / "tasks");
  fs::copy(source_dir() + "/tasks/linear_relu", dir / "tasks/linear_relu",
           fs::copy_options::recursive);
  const auto size = fs::file_size(dir / "tasks/linear_relu/kernels/forward_cpu.cpp");
  ASSERT_GT(size, 1024u);
  auto r = kforge({"suite", "--tasks", (dir / "tasks/linear_relu").string(), "--kernels",
                   "{task}/kernels/forward_cpu.cpp", "--backend", "cpu", "--directions", "forward",
                   "--max-source-bytes", "1024", "--archive", (dir / "archive.db").string(),
                   "--cache", cache_dir(), "--out", (dir / "r").string(), "--quiet"},
                  dir.string());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  const std::string csv = read(dir / "r.csv");
  EXPECT_NE(csv.find("too_large"), std::string::npos) << csv;
  EXPECT_NE(
      csv.find("the source has " + std::to_string(size) + " bytes; the experiment allows 1024"),
      std::string::npos)
      << csv;
  EXPECT_EQ(
      kforge({"suite", "--tasks", "x", "--kernels", "y", "--max-source-bytes", "12"}).exit_code, 2);
}

}  // namespace
}  // namespace kforge::test
