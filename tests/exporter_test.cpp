// The exporter on tasks that use what the robust-kbench format allows: buffers, None arguments,
// scalars and integer tuples reaching backward_fn, integer inputs, several init methods, the
// single/multi switches, and the degenerate-task filters; backward tasks in robust-kbench's own
// shape (backward_fn = None, values kept on ctx, the saved tuple passed whole, tensors computed in
// forward); directions that cannot be exported, and tasks that need a newer torch.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>

#include "evaluation/build_config.hpp"
#include "evaluation/process.hpp"
#include "evaluation/python_scripts.hpp"
#include "evaluation/task_export.hpp"
#include "tests/test_support.hpp"

namespace kforge::test {
namespace {

const json::Value& arg_named(const json::Value& config, const std::string& name) {
  for (const auto& a : config["args"].as_array())
    if (a["name"].as_string() == name) return a;
  static json::Value none;
  return none;
}

TEST(Exporter, BuffersNoneScalarsAndInitMethods) {
  const auto& t = exported(source_dir() + "/tests/tasks/batchnorm_buffers");
  const auto& configs = t.doc["directions"]["forward"]["configs"];
  ASSERT_EQ(configs.as_array().size(), 4u);  // 1 single + 2x2 multi, the single one shared
  const auto& c = configs[0];
  EXPECT_EQ(arg_named(c, "running_mean")["kind"].as_string(), "buffer");
  EXPECT_EQ(arg_named(c, "running_var")["dist"]["value"].as_number(), 1.0);
  EXPECT_EQ(arg_named(c, "skip")["kind"].as_string(), "none");
  EXPECT_EQ(arg_named(c, "training")["type"].as_string(), "bool");
  EXPECT_EQ(arg_named(c, "x")["dist"]["family"].as_string(), "uniform");
  EXPECT_NEAR(arg_named(c, "x")["dist"]["low"].as_number(), -2.0, 1e-6);
  bool saw_uniform_weight = false;
  for (const auto& cfg : configs.as_array())
    saw_uniform_weight |= arg_named(cfg, "weight")["dist"]["family"].as_string() == "uniform";
  EXPECT_TRUE(saw_uniform_weight) << "the second init method draws weights from uniform(0.5, 1.5)";
}

TEST(Exporter, BackwardFnReceivesScalarsAndIntegerTuples) {
  const auto& t = exported(source_dir() + "/tests/tasks/layernorm_backward");
  const auto& c = t.doc["directions"]["backward"]["configs"][0];
  EXPECT_EQ(arg_named(c, "grad_output")["kind"].as_string(), "grad_output");
  EXPECT_EQ(arg_named(c, "x")["kind"].as_string(), "forward_arg");
  EXPECT_EQ(arg_named(c, "normalized_shape")["kind"].as_string(), "int_list");
  EXPECT_EQ(arg_named(c, "normalized_shape")["value"][0].as_int(), 32);
  EXPECT_EQ(arg_named(c, "eps")["type"].as_string(), "float");
  EXPECT_EQ(c["outputs"].as_array().size(), 3u);
}

TEST(Exporter, IntegerInputsAndBundledBackward) {
  const auto& t = exported("cross_entropy");
  const auto& f = t.doc["directions"]["forward"]["configs"][0];
  EXPECT_EQ(arg_named(f, "targets")["dtype"].as_string(), "int64");
  EXPECT_EQ(arg_named(f, "targets")["dist"]["family"].as_string(), "randint");
  EXPECT_EQ(arg_named(f, "targets")["dist"]["high"].as_int(), 1000);
  const auto& b = t.doc["directions"]["backward"]["configs"][0];
  EXPECT_EQ(arg_named(b, "logits")["kind"].as_string(), "forward_arg");
}

TEST(Exporter, LinearInitialisationIsFoundFromTheTaskCode) {
  const auto& t = exported("linear_relu");
  const auto& c = t.doc["directions"]["forward"]["configs"][0];  // in_features 300
  const auto& w = arg_named(c, "weight")["dist"];
  EXPECT_EQ(w["family"].as_string(), "uniform");
  EXPECT_NEAR(w["high"].as_number(), 1.0 / std::sqrt(300.0), 1e-6);  // kaiming_uniform_(a=sqrt(5))
}

std::string tests_task(const std::string& name) {
  return source_dir() + "/tests/tasks/" + name;
}

// robust-kbench's layernorm: backward_fn is None; backward passes grad_output, the saved x, weight
// and bias, then eps and normalized_shape kept on ctx; it returns three gradients and None.
TEST(Exporter, RobustKbenchBackwardWithValuesFromCtx) {
  const auto& t = exported(tests_task("rkb_layernorm"));
  const auto& c = t.doc["directions"]["backward"]["configs"][0];
  std::vector<std::string> kinds;
  for (const auto& a : c["args"].as_array())
    kinds.push_back(a["name"].as_string() + ":" + a["kind"].as_string());
  EXPECT_EQ(kinds, (std::vector<std::string>{"grad_output:grad_output", "x:forward_arg",
                                             "weight:forward_arg", "bias:forward_arg", "eps:scalar",
                                             "normalized_shape:int_list"}));
  EXPECT_EQ(arg_named(c, "normalized_shape")["value"].dump(), "[8,24]");
  ASSERT_EQ(c["outputs"].as_array().size(), 3u);
  for (int64_t k = 0; k < 3; ++k) {
    EXPECT_EQ(c["outputs"][k]["gradient_of"].as_int(), k);
    EXPECT_TRUE(c["outputs"][k]["checked"].as_bool());
  }
  EXPECT_EQ(c["outputs"][1]["shape"].dump(), "[8,24]");
  for (const auto& a : c["forward_args"].as_array()) {
    if (a["kind"].as_string() == "scalar") continue;
    EXPECT_TRUE(a["requires_grad"].as_bool()) << a.dump();
  }
  EXPECT_EQ(c["reference"]["autograd_of"].as_string(), "forward_reference");
  EXPECT_TRUE(c["warnings"].as_array().empty()) << c["warnings"].dump();
}

// robust-kbench's mnist_pool: backward passes ctx.saved_tensors itself (a tuple); its forward
// config passes kernel_size to a Model() that takes none, which fails that direction only.
TEST(Exporter, SavedTupleIsOneSequenceArgumentAndABrokenDirectionFailsAlone) {
  const auto& t = exported(tests_task("rkb_maxpool"));
  const auto& b = t.doc["directions"]["backward"]["configs"][0];
  EXPECT_EQ(b["args"][0]["kind"].as_string(), "tensor_list");
  EXPECT_EQ(b["args"][0]["elements"][0]["kind"].as_string(), "forward_arg");
  EXPECT_EQ(b["args"][1]["kind"].as_string(), "grad_output");
  EXPECT_EQ(b["outputs"][0]["gradient_of"].as_int(), 0);
  const auto& f = t.doc["directions"]["forward"];
  EXPECT_NE(f["error"].as_string().find("unexpected keyword argument 'kernel_size'"),
            std::string::npos)
      << f.dump();
}

// A scalar loss against integer targets: one gradient, for the logits; targets need none.
TEST(Exporter, ScalarLossGradientOfTheLogitsOnly) {
  const auto& t = exported(tests_task("rkb_cross_entropy"));
  const auto& c = t.doc["directions"]["backward"]["configs"][0];
  EXPECT_EQ(c["forward_outputs"][0]["shape"].dump(), "[]");
  EXPECT_FALSE(c["forward_args"][1]["requires_grad"].as_bool());
  ASSERT_EQ(c["outputs"].as_array().size(), 1u);
  EXPECT_EQ(c["outputs"][0]["gradient_of"].as_int(), 0);
}

// A tensor AutogradFunction.forward computes (rstd) reaches backward_fn: it is traced into a
// prelude, so the worker recomputes it for every draw.
TEST(Exporter, TensorsComputedInForwardAreTracedIntoAPrelude) {
  const auto& t = exported(tests_task("rkb_rmsnorm"));
  const auto& c = t.doc["directions"]["backward"]["configs"][0];
  EXPECT_EQ(arg_named(c, "rstd")["kind"].as_string(), "derived");
  EXPECT_EQ(arg_named(c, "rstd")["shape"].dump(), "[2,16,1]");
  ASSERT_TRUE(c.contains("prelude"));
  EXPECT_TRUE(std::filesystem::exists(t.dir + "/" + c["prelude"]["file"].as_string()));
}

// Each forward config carries its computation as an ATen graph (exporter/kforge_export/graph.py),
// traced on meta tensors: its inputs are the config's tensor arguments with their shapes, every
// node's operands come before it, and the output has the config's output shape. This is what the
// kernel generator reads.
TEST(Exporter, EachForwardConfigRecordsItsAtenGraph) {
  const auto& t = exported(tests_task("rkb_rmsnorm"));
  const auto& configs = t.doc["directions"]["forward"]["configs"].as_array();
  ASSERT_FALSE(configs.empty());
  for (const auto& c : configs) {
    const auto& g = c["graph"];
    ASSERT_TRUE(g.contains("file")) << c["name"].as_string() << ": " << g.dump();
    EXPECT_NE(g["ops"].dump().find("aten.rsqrt.default"), std::string::npos) << g.dump();
    auto graph = json::parse_file(t.dir + "/" + g["file"].as_string());
    ASSERT_TRUE(graph) << graph.error;
    const auto& nodes = (*graph)["nodes"].as_array();
    ASSERT_EQ(static_cast<int64_t>(nodes.size()), g["nodes"].as_int());
    std::function<void(const json::Value&, int64_t)> operands_before = [&](const json::Value& a,
                                                                           int64_t id) {
      if (a.contains("node")) {
        EXPECT_LT(a["node"].as_int(), id) << (*graph).dump();
      }
      for (const auto& e : a.as_array()) operands_before(e, id);
    };
    for (const auto& n : nodes) {
      operands_before(n["args"], n["id"].as_int());
      if (n["op"].as_string() != "input") continue;
      const auto& arg = c["args"][static_cast<size_t>(n["arg"].as_int())];
      EXPECT_EQ(n["name"].as_string(), arg["name"].as_string());
      EXPECT_EQ(n["meta"]["shape"].dump(), arg["shape"].dump()) << n.dump();
    }
    const auto& out = nodes.back();
    ASSERT_EQ(out["op"].as_string(), "output");
    const auto& result = nodes[static_cast<size_t>(out["args"][0]["node"].as_int())];
    EXPECT_EQ(result["meta"]["shape"].dump(), c["outputs"][0]["shape"].dump()) << result.dump();
  }
}

/// Exports a copy of rkb_rmsnorm whose func_forward.py has `find` replaced by `replacement`, in a
/// scratch folder named after `label` that is removed afterwards.
/// The export of a task whose files `write` puts into a folder of its own (removed after).
evaluation::ExportedTaskInfo export_written_task(
    const std::string& label, const std::function<void(const std::filesystem::path&)>& write) {
  auto dir = std::filesystem::temp_directory_path() /
             ("kforge_exporter_" + label + "_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  write(dir);
  evaluation::ExportOptions o;
  o.cache_dir = cache_dir();
  auto r = evaluation::export_task(dir.string(), o);
  std::filesystem::remove_all(dir);
  return r;
}

evaluation::ExportedTaskInfo export_edited_rmsnorm(const std::string& label,
                                                   const std::string& find,
                                                   const std::string& replacement) {
  return export_written_task(label, [&](const std::filesystem::path& dir) {
    std::ifstream in(tests_task("rkb_rmsnorm") + "/func_forward.py");
    std::string source((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto at = source.find(find);
    EXPECT_NE(at, std::string::npos) << find;
    if (at != std::string::npos) source.replace(at, find.size(), replacement);
    std::ofstream(dir / "func_forward.py") << source;
    std::filesystem::copy_file(tests_task("rkb_rmsnorm") + "/config_forward.json",
                               dir / "config_forward.json",
                               std::filesystem::copy_options::overwrite_existing);
  });
}

// A function whose work depends on its input's values (here a Python branch on one) cannot be
// traced on meta tensors: the task still exports, and its configs say why they have no graph.
TEST(Exporter, AFunctionThatCannotBeTracedExportsWithoutAGraphAndSaysWhy) {
  const std::string body = "    x_fp32 = x.float()\n";
  auto r = export_edited_rmsnorm(
      "untraceable", body,
      body + "    if x_fp32.abs().max().item() > 1e30:\n        x_fp32 = x_fp32 / 2\n");
  ASSERT_TRUE(r.ok) << r.error;
  for (const auto& c : r.doc["directions"]["forward"]["configs"].as_array()) {
    EXPECT_FALSE(c["graph"].contains("file")) << c["graph"].dump();
    EXPECT_NE(c["graph"]["error"].as_string().find("cannot trace"), std::string::npos)
        << c["graph"].dump();
  }
}

// A number the function makes on its input's device for an operator that takes no CPU tensor
// beside its others (KernelBench's 30_SwinTransformerV2: clamp(s, max=torch.log(torch.tensor(
// 1. / 0.01, device=x.device)))), in a config too large to trace again on real tensors: the graph
// still records its value, so that the generator can use it.
TEST(Exporter, ANumberMadeOnTheInputsDeviceKeepsItsValueInTheGraphOfALargeConfig) {
  auto r = export_written_task("device_number", [](const std::filesystem::path& dir) {
    std::ofstream(dir / "func_forward.py")
        << "import torch\nimport torch.nn as nn\n\n\n"
           "def forward_fn(x, w):\n"
           "    return torch.clamp(x * w, max=torch.log(torch.tensor(100.0, "
           "device=x.device)))\n\n\n"
           "class Model(nn.Module):\n"
           "    def __init__(self, n: int = 8):\n"
           "        super().__init__()\n"
           "        self.w = nn.Parameter(torch.full((n,), 3.0))\n\n"
           "    def forward(self, x, fn=forward_fn):\n"
           "        return fn(x, self.w)\n\n\n"
           "def get_inputs(rows: int = 2, n: int = 8):\n"
           "    return [torch.randn(rows, n)]\n\n\n"
           "input_names = ['x']\n";
    // 4100 x 4096 elements: more than the exporter traces again on zeros (1 << 24)
    std::ofstream(dir / "config_forward.json")
        << R"({"single_input_configs": [{"rows": 4100}], "single_init_configs": [{}],
              "single_shared_configs": [{"n": 4096}],
              "multi_input_configs": [{"rows": 4100}], "multi_init_configs": [{}],
              "multi_shared_configs": [{"n": 4096}]})";
  });
  ASSERT_TRUE(r.ok) << r.error;
  const auto& c = r.doc["directions"]["forward"]["configs"][0];
  ASSERT_TRUE(c["graph"].contains("file")) << c["graph"].dump();
  auto graph = json::parse_file(r.dir + "/" + c["graph"]["file"].as_string());
  ASSERT_TRUE(graph) << graph.error;
  int constants = 0;
  for (const auto& n : (*graph)["nodes"].as_array()) {
    if (n["op"].as_string() != "constant") continue;
    ++constants;
    ASSERT_EQ(n["value"].as_array().size(), 1u) << n.dump();
    EXPECT_EQ(n["value"][0].as_number(), 100.0) << n.dump();
  }
  EXPECT_EQ(constants, 1) << (*graph).dump();
}

// A function that differs from itself between runs within the evaluator's float32 tolerance
// exports, its reference checked against that tolerance and its config saying so: cuDNN's
// transposed convolutions add with atomics, and KernelBench's 61_ConvTranspose3d_ReLU_GroupNorm,
// which had exported in one run on an H200, was refused in a later one ("does not reproduce the
// Python function"). One that differs by more (noise of 1e-4 on outputs of order 1, where no
// kernel could get the same verdict twice; dropout) is still refused.
TEST(Exporter, AFunctionThatVariesWithinTheToleranceExportsOneThatVariesMoreDoesNot) {
  const std::string result = "    return x_normed * w\n";
  // Outputs of order 1e-3: the exporter's own check (atol 1e-6) sees the noise of 4e-6, the
  // evaluator's tolerance (atol 1e-5) holds it.
  auto r = export_edited_rmsnorm("rounding_noise", result,
                                 "    return x_normed * w * 1e-3 + torch.rand_like(w) * 4e-6\n");
  ASSERT_TRUE(r.ok) << r.error;
  std::string warnings;
  for (const auto& c : r.doc["directions"]["forward"]["configs"].as_array())
    for (const auto& w : c["warnings"].as_array()) warnings += w.as_string() + "\n";
  EXPECT_NE(warnings.find("differs between two runs by up to"), std::string::npos)
      << r.doc["directions"]["forward"].dump();
  for (const char* noisy :
       {"    return x_normed * w + torch.rand_like(w) * 1e-4\n",
        "    return torch.nn.functional.dropout(x_normed * w, 0.2, training=True)\n"}) {
    auto d = export_edited_rmsnorm("noisier", result, noisy);
    ASSERT_FALSE(d.ok) << noisy;
    EXPECT_NE(d.error.find("does not reproduce the Python function"), std::string::npos) << d.error;
  }
}

/// A task of one output of 2^24 + 3 elements (one more step and a tail of 3 for the exporter's
/// comparisons, which go in steps of 2^24 so that a full-size output makes no temporaries its own
/// size) whose integer argument `k` reaches the last element only; `last` is added to that element.
evaluation::ExportedTaskInfo export_last_element_task(const std::string& label,
                                                      const std::string& last) {
  return export_written_task(label, [&](const std::filesystem::path& dir) {
    std::ofstream(dir / "func_forward.py")
        << "import torch\nimport torch.nn as nn\n\n\n"
           "def forward_fn(x: torch.Tensor, k: torch.Tensor) -> torch.Tensor:\n"
           "    out = x * 2.0\n"
           "    out[-1] = out[-1] + "
        << last
        << "\n    return out\n\n\n"
           "class Model(nn.Module):\n"
           "    def forward(self, x, k, fn=forward_fn):\n"
           "        return fn(x, k)\n\n\n"
           "def get_inputs(n: int = 16777219):\n"
           "    return [torch.randn(n), torch.randint(0, 1000, (1,))]\n\n\n"
           "input_names = [\"x\", \"k\"]\n";
    std::ofstream(dir / "config_forward.json")
        << R"({"single_input_configs": [{}], "single_init_configs": [{}], "single_shared_configs": [{}]})";
  });
}

std::string forward_warnings(const evaluation::ExportedTaskInfo& r) {
  std::string all;
  for (const auto& c : r.doc["directions"]["forward"]["configs"].as_array())
    for (const auto& w : c["warnings"].as_array()) all += w.as_string() + "\n";
  return all;
}

// The exporter's comparisons of outputs (an argument without effect; the saved reference against
// the Python function) go in steps, and see a difference in the last step's last element alone.
TEST(Exporter, ComparisonsOfALargeOutputSeeItsLastElement) {
  auto used = export_last_element_task("last_used", "k[0].float()");
  ASSERT_TRUE(used.ok) << used.error;
  EXPECT_EQ(forward_warnings(used).find("`k` has no effect"), std::string::npos)
      << forward_warnings(used);
  auto unused = export_last_element_task("last_unused", "k[0].float() * 0.0");
  ASSERT_TRUE(unused.ok) << unused.error;
  EXPECT_NE(forward_warnings(unused).find("`k` has no effect"), std::string::npos)
      << forward_warnings(unused);
  auto noisy = export_last_element_task("last_noisy", "k[0].float() + torch.rand(()) * 0.5");
  ASSERT_FALSE(noisy.ok);
  EXPECT_NE(noisy.error.find("does not reproduce the Python function"), std::string::npos)
      << noisy.error;
}

// A task that uses a part of torch the exporter's torch lacks says which and what torch it needs.
TEST(Exporter, ATaskNeedingANewerTorchSaysWhichVersion) {
  auto r = export_edited_rmsnorm("newer_torch", "weight = torch.empty(num_features)",
                                 "weight = nn.RMSNorm([num_features]).weight.data.clone()");
  if (r.ok) GTEST_SKIP() << "this torch has nn.RMSNorm (torch >= 2.4)";
  EXPECT_NE(r.error.find("torch.nn.RMSNorm, which needs torch >= 2.4"), std::string::npos)
      << r.error;
  EXPECT_NE(r.error.find("KFORGE_PYTHON"), std::string::npos) << r.error;
}

TEST(Exporter, DegenerateTaskIsFlagged) {
  const auto& t = exported(source_dir() + "/tests/tasks/degenerate");
  std::string all;
  for (const auto& w : t.doc["directions"]["forward"]["configs"][0]["warnings"].as_array())
    all += w.as_string() + "\n";
  EXPECT_NE(all.find("near constant"), std::string::npos) << all;
  EXPECT_NE(all.find("`unused` has no effect"), std::string::npos) << all;
}

TEST(Exporter, CachedByEveryPythonFileOfTheTask) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("kforge_cache_test_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::copy(source_dir() + "/tasks/softmax", dir, fs::copy_options::recursive);
  evaluation::ExportOptions o;
  o.cache_dir = cache_dir();
  auto first = evaluation::export_task(dir.string(), o);
  ASSERT_TRUE(first.ok) << first.error;
  EXPECT_TRUE(first.doc["export_seconds"]["total"].is_number()) << first.doc.dump();
  auto again = evaluation::export_task(dir.string(), o);
  ASSERT_TRUE(again.ok) << again.error;
  EXPECT_EQ(again.dir, first.dir) << "the same files: the cached export";
  // A helper module beside the task (an imported problem's file) is part of what is cached.
  std::ofstream(dir / "helper.py") << "SCALE = 2\n";
  auto changed = evaluation::export_task(dir.string(), o);
  ASSERT_TRUE(changed.ok) << changed.error;
  EXPECT_NE(changed.dir, first.dir);
  fs::remove_all(dir);
}

// Two processes that export one task at once (two tests, two suite lanes) both miss the cache;
// the second to finish must not delete the folder the first published, which a worker or the
// checker may be reading (it did: "the checker could not confirm the result: cannot open
// .../task.json" under the gpu label). A forced export replaces the folder by renames alone.
TEST(Exporter, AnExportPublishedFirstIsKeptAndAForcedOneReplacesIt) {
  namespace fs = std::filesystem;
  fs::path root = fs::temp_directory_path() / ("kforge_publish_test_" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root);
  const std::string code = R"(
import json, os, sys, tempfile
sys.path.insert(0, sys.argv[1])
from kforge_export.support import publish
root = sys.argv[2]
final = os.path.join(root, "d")
def read():
    with open(os.path.join(final, "task.json")) as f:
        return json.load(f)
publish(tempfile.mkdtemp(dir=root), final, "task.json", {"first": 1})
publish(tempfile.mkdtemp(dir=root), final, "task.json", {"second": 1})
assert read() == {"first": 1}, read()
publish(tempfile.mkdtemp(dir=root), final, "task.json", {"third": 1}, replace=True)
assert read() == {"third": 1}, read()
assert sorted(os.listdir(root)) == ["d"], os.listdir(root)
print("published as expected")
)";
  auto spawn = evaluation::task_script(
      "", "-c", {code, fs::path(build::exporter).parent_path().string(), root.string()});
  auto result = evaluation::run(spawn, std::chrono::seconds(60));
  EXPECT_TRUE(result.ok()) << result.describe() << "\n" << result.output;
  EXPECT_NE(result.output.find("published as expected"), std::string::npos) << result.output;
  fs::remove_all(root);
}

TEST(Exporter, ClearErrorForAFolderThatIsNotATask) {
  evaluation::ExportOptions o;
  o.cache_dir = cache_dir();
  auto r = evaluation::export_task(source_dir() + "/tests", o);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("func_forward.py"), std::string::npos) << r.error;
}

// KernelBench's 34_VanillaRNNHidden moves its state where its input is (`h0.to(x.device)`). The
// reference is traced on the CPU, where that device is a constant: saved as is, the reference
// moved h0 to the CPU beside x on the GPU, and every kernel's verdict on the GPU was kforge's own
// error. The saved references take the device from their first input instead.
TEST(Exporter, ATracedReferenceTakesItsDeviceFromItsInputs) {
  const auto root = std::filesystem::temp_directory_path() / "kforge_exporter_devices";
  std::filesystem::remove_all(root);
  const auto imported = evaluation::run_script(
      evaluation::task_script("", build::kernelbench_importer,
                              {"--out", root.string(), "--shrink", "16",
                               source_dir() + "/tests/kernelbench/upstream/level3/"
                                              "34_VanillaRNNHidden.py"}),
      std::chrono::minutes(2));
  ASSERT_EQ(imported.exit_code, 0) << imported.output;
  const auto& r = exported((root / "34_VanillaRNNHidden").string());
  ASSERT_TRUE(r.ok) << r.error;
  size_t references = 0, following = 0;
  for (const auto& e : std::filesystem::directory_iterator(r.dir)) {
    if (e.path().extension() != ".pt") continue;
    ++references;
    // The TorchScript code the file holds (deflated in its zip).
    evaluation::SpawnOptions unzip;
    unzip.argv = {evaluation::task_python(""), "-c",
                  "import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1])\n"
                  "print(''.join(z.read(n).decode() for n in z.namelist() if n.endswith('.py')))",
                  e.path().string()};
    const auto code = evaluation::run(unzip, std::chrono::seconds(30));
    ASSERT_EQ(code.exit_code, 0) << code.output;
    ASSERT_NE(code.output.find("torch.cat("), std::string::npos) << code.output;
    EXPECT_EQ(code.output.find("torch.device(\"cpu\")"), std::string::npos) << code.output;
    following += code.output.find("device=ops.prim.device(x)") != std::string::npos;
  }
  EXPECT_GT(references, 0u);
  EXPECT_EQ(following, references) << "h0.to(x.device) follows x in every saved reference";
}

}  // namespace
}  // namespace kforge::test
