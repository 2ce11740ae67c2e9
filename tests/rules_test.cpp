// The static rules the verifier applies before compiling (evaluation/source_check) and the compiler
// resource report and the worker's per-config report the profiler reads
// (evaluation/profile_summary).
#include <gtest/gtest.h>

#include "evaluation/library_policy.hpp"
#include "evaluation/profile_summary.hpp"
#include "evaluation/source_check.hpp"

namespace kforge::evaluation {
namespace {

const std::string kGood = R"(
#include <torch/extension.h>
// std::thread in a comment is fine
torch::Tensor forward_impl(const torch::Tensor& x, int64_t dim) { return torch::empty_like(x); }
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("forward", &forward_impl, "doc"); }
)";

const TaskParameters kSoftmax = {{"Tensor", "int"}, "x: Tensor, dim: int"};

TEST(SourceRules, AcceptsAWellFormedKernel) {
  auto v = check_source(kGood, "forward", kSoftmax, LibraryPolicy::flag, 1 << 20);
  EXPECT_TRUE(v.accepted) << v.kind << ": " << v.reason;
  EXPECT_EQ(*registered_parameter_types(kGood, "forward"), kSoftmax.types);
}

TEST(SourceRules, RejectsWhatCannotPass) {
  auto expect = [](const std::string& src, const std::string& kind,
                   LibraryPolicy policy = LibraryPolicy::flag, size_t max = 1 << 20) {
    auto v = check_source(src, "forward", kSoftmax, policy, max);
    EXPECT_FALSE(v.accepted) << src;
    EXPECT_EQ(v.kind, kind) << v.reason;
    EXPECT_FALSE(v.reason.empty());
  };
  expect(kGood, "too_large", LibraryPolicy::flag, 10);
  std::string backward = kGood;
  backward.replace(backward.find("\"forward\""), 9, "\"backward\"");
  expect(backward, "missing_function");
  std::string wrong = kGood;
  wrong.replace(wrong.find("int64_t dim"), 11, "double a, double b");
  expect(wrong, "signature_mismatch");
  // The message names both sides, the task's with its parameters' names.
  EXPECT_EQ(check_source(wrong, "forward", kSoftmax, LibraryPolicy::flag, 1 << 20).reason,
            "`forward` takes (Tensor, float, float) but the task passes (x: Tensor, dim: int)");
  for (const char* bad :
       {"  pid_t p = fork();", "  std::thread t([]{});", "  int s = socket(2, 1, 0);",
        "  ::write(4, \"x\", 1);", "  std::exit(0);", "  void* h = dlopen(\"x\", 0);",
        "  setenv(\"A\", \"B\", 1);", "  cudaDeviceReset();"}) {
    std::string src = kGood;
    src.insert(src.find("return torch"), std::string(bad) + "\n  ");
    expect(src, "forbidden_construct");
  }
  std::string lib = kGood;
  lib.replace(lib.find("torch::empty_like(x)"), 20, "torch::softmax(x, dim)");
  expect(lib, "library_call", LibraryPolicy::forbid);
  auto flagged = check_source(lib, "forward", kSoftmax, LibraryPolicy::flag, 1 << 20);
  EXPECT_TRUE(flagged.accepted);
  ASSERT_FALSE(flagged.notes.empty());
  EXPECT_NE(flagged.notes[0].find("torch::softmax"), std::string::npos);
}

TEST(SourceRules, MethodsNamedLikeForbiddenCallsAreFine) {
  std::string src = kGood;
  src.insert(src.find("return torch"),
             "auto rewrite = [](int) {}; rewrite(1); int exit_code = 0; (void)exit_code;\n  ");
  auto v = check_source(src, "forward", kSoftmax, LibraryPolicy::flag, 1 << 20);
  EXPECT_TRUE(v.accepted) << v.reason;
}

TEST(SourceRules, LambdaRegistrationIsLeftToTheWorker) {
  std::string src =
      "PYBIND11_MODULE(n, m) { m.def(\"forward\", [](torch::Tensor x, int64_t d) { return x; }); }";
  EXPECT_FALSE(registered_parameter_types(src, "forward"));
  auto v = check_source(src, "forward", kSoftmax, LibraryPolicy::flag, 1 << 20);
  EXPECT_TRUE(v.accepted);
  EXPECT_FALSE(v.notes.empty());
}

TEST(LibraryPolicy, TheSourceRulesAndTheOperatorObserverShareOneList) {
  // The worker's observer allows an ATen operator exactly when it does no computation; the
  // source rules allow the same operators, plus the extension API's names that are not ops.
  for (const char* op : {"empty_like", "view", "transpose", "contiguous", "copy_", "arange"}) {
    EXPECT_TRUE(is_bookkeeping_op(op)) << op;
    EXPECT_TRUE(is_allowed_namespace_call(op)) << op;
    std::string src = kGood;
    src.replace(src.find("torch::empty_like(x)"), 20, std::string("at::") + op + "(x)");
    EXPECT_TRUE(library_calls(src).empty()) << op;
  }
  for (const char* op : {"matmul", "softmax", "add", "layer_norm"}) {
    EXPECT_FALSE(is_bookkeeping_op(op)) << op;
    EXPECT_FALSE(is_allowed_namespace_call(op)) << op;
  }
  EXPECT_FALSE(is_bookkeeping_op("TensorOptions"));  // a type, never an operator
  EXPECT_TRUE(is_allowed_namespace_call("TensorOptions"));
}

TEST(PtxasReport, ReadsEveryKernelsResources) {
  const char* log = R"(ptxas info    : 28 bytes gmem
ptxas info    : Compiling entry function '_ZN57_GLOBAL__N__39961e0f_24_softmax_f32_sm90_rows_cu_13ab4bdb17softmax_warp_rowsILi32ELi1EEEvPKfPfii' for 'sm_90'
ptxas info    : Function properties for _ZN57_GLOBAL__N__39961e0f_24_softmax_f32_sm90_rows_cu_13ab4bdb17softmax_warp_rowsILi32ELi1EEEvPKfPfii
    0 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads
ptxas info    : Used 48 registers, used 1 barriers, 8320 bytes smem
ptxas info    : Compiling entry function '_Z6kernelPf' for 'sm_90'
ptxas info    : Function properties for _Z6kernelPf
    16 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 18 registers
)";
  auto k = parse_ptxas_report(log);
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(k[0].name, "softmax_warp_rows<32, 1>");
  EXPECT_EQ(k[0].arch, "sm_90");
  EXPECT_EQ(k[0].registers, 48);
  EXPECT_EQ(k[0].barriers, 1);
  EXPECT_EQ(k[0].shared_bytes, 8320);
  EXPECT_EQ(k[0].spill_store_bytes, 8);
  EXPECT_EQ(k[0].spill_load_bytes, 12);
  EXPECT_EQ(k[1].name, "kernel");
  EXPECT_EQ(k[1].stack_bytes, 16);
  // What the archive keeps of them reads back the same.
  auto back = kernel_resources_from_json(*json::parse(to_json(k).dump()));
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].name, k[0].name);
  EXPECT_EQ(back[0].barriers, 1);
  EXPECT_EQ(back[0].spill_load_bytes, 12);
  EXPECT_EQ(back[1].stack_bytes, 16);
  // The worker's record of a config, read as the evaluator reads it, gives the profile.
  auto parsed = json::parse(
      R"({"index":3,"name":"big","correct":true,
          "candidate":{"median_ms":0.5,"p10_ms":0.49,"p90_ms":0.52},
          "reference":{"median_ms":1.0},"speedup":2.0,"bytes_moved":1e9,"speed_of_light_ms":0.25,
          "check_seconds":0.1,"timing_seconds":0.3})");
  const auto config = read_config_report(*parsed);
  EXPECT_TRUE(config.timed());
  EXPECT_EQ(config.index, 3);
  EXPECT_DOUBLE_EQ(config.eager.median_ms, 1.0);
  EXPECT_DOUBLE_EQ(config.kernel.p90_ms, 0.52);
  EXPECT_DOUBLE_EQ(config.speedup, 2.0);
  EXPECT_EQ(read_config_report(*json::parse(config.record_json)).name, "big");
  auto p = make_profile("cuda", k, {config});
  EXPECT_EQ(p.doc["kernels"].as_array().size(), 2u);
  EXPECT_NEAR(p.doc["configs"][0]["achieved_gb_per_s"].as_number(), 2000, 1e-6);
  // A record from before `copy_bound_ms`: its bytes at the copy bandwidth take twice its
  // impossible-speed threshold, 0.5 ms, the kernel's time.
  EXPECT_NEAR(p.doc["configs"][0]["fraction_of_speed_of_light"].as_number(), 1.0, 1e-9);
  EXPECT_NE(p.brief.find("20 B spilled"), std::string::npos) << p.brief;
  EXPECT_NE(p.brief.find("100% of the speed-of-light bound"), std::string::npos) << p.brief;
  // One with it: the bound is its bytes at the copy bandwidth, whatever the threshold.
  json::Value with_copy = *parsed;
  with_copy.set("copy_bound_ms", 0.4);
  auto q = make_profile("cuda", k, {read_config_report(with_copy)});
  EXPECT_NEAR(q.doc["configs"][0]["fraction_of_speed_of_light"].as_number(), 0.8, 1e-9);
  EXPECT_NEAR(q.doc["configs"][0]["copy_bound_ms"].as_number(), 0.4, 1e-9);
}

}  // namespace
}  // namespace kforge::evaluation
