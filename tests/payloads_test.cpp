// Payloads as they cross a process boundary (messages/payloads.hpp): CAF's binary form, written
// and read back in an actor system with kforge's types registered, gives the same values. The
// worker's request travels as its own JSON (CAF 0.17 has no form for std::optional), so its
// optional fields are what this checks first.
#include <gtest/gtest.h>

#include <caf/all.hpp>
#include <caf/binary_deserializer.hpp>
#include <caf/binary_serializer.hpp>

#include "messages/payloads.hpp"
#include "messages/registration.hpp"

namespace kforge {
namespace {

struct Registered : caf::actor_system_config {
  Registered() { register_message_types(*this); }
};

template <class T>
T across_processes(caf::actor_system& system, T value) {
  std::vector<char> bytes;
  caf::binary_serializer sink(system, bytes);
  EXPECT_FALSE(sink(value)) << "writing";
  T back;
  caf::binary_deserializer source(system, bytes);
  EXPECT_FALSE(source(back)) << "reading";
  return back;
}

// What a node is sent: the daemon's request with the source it compiles and the task's files, and
// the device list it joins with.
TEST(Payloads, ANodesRequestCarriesTheSourceAndTheTaskFilesAcrossProcesses) {
  Registered config;
  caf::actor_system system(config);
  node_eval_request r;
  r.eval.candidate_id = 7;
  r.eval.build.source = "torch::Tensor forward(torch::Tensor x) { return x; }";
  r.eval.build.backend = Backend::cuda;
  r.eval.compiled_mode = "max-autotune";
  r.eval.confirmation = true;
  r.task_files = {{"func_forward.py", "def forward_fn(x):\n    return x\n"},
                  {"configs/multi.json", "{\"n\": 4}"}};
  const auto back = across_processes(system, r);
  EXPECT_EQ(back.eval.candidate_id, 7);
  EXPECT_EQ(back.eval.build.source, r.eval.build.source);
  EXPECT_EQ(back.eval.build.backend, Backend::cuda);
  EXPECT_EQ(back.eval.compiled_mode, "max-autotune");
  EXPECT_TRUE(back.eval.confirmation);
  EXPECT_EQ(back.task_files, r.task_files);
  node_join j;
  j.token = "abc";
  j.node = "gpu-2";
  j.devices.resize(2);
  j.devices[1].backend = "cuda";
  j.devices[1].name = "NVIDIA H100 80GB HBM3";
  j.devices[1].cuda_arch = "sm_90";
  const auto joined = across_processes(system, j);
  EXPECT_EQ(joined.node, "gpu-2");
  ASSERT_EQ(joined.devices.size(), 2u);
  EXPECT_EQ(joined.devices[1].cuda_arch, "sm_90");
}

TEST(Payloads, AnEvaluationRequestCarriesTheWholeWorkerRequestAcrossProcesses) {
  Registered config;
  caf::actor_system system(config);
  eval_request r;
  r.candidate_id = 42;
  r.tgt.task = "softmax";
  r.tgt.backend = "cuda";
  auto& w = r.worker;
  w.export_dir = "/exports/softmax";
  w.library = "/cache/k.so";
  w.direction = "backward";
  w.mode = "single";
  w.configs = {0, 2};
  w.seed = 18446744073709551557ull;  // all 64 bits
  w.library_calls = LibraryPolicy::forbid;
  w.atol = 1e-3;  // rtol stays unset
  w.timing.max_seconds = 0.5;
  w.timing.min_reps = 7;
  w.trace = w.counters = true;
  w.counters_budget_s = 12;
  const auto back = across_processes(system, r);
  EXPECT_EQ(back.candidate_id, 42);
  EXPECT_EQ(back.tgt.task, "softmax");
  EXPECT_EQ(back.worker.to_json().dump(), w.to_json().dump());
  EXPECT_EQ(back.worker.seed, w.seed);
  EXPECT_EQ(back.worker.atol, 1e-3);
  EXPECT_FALSE(back.worker.rtol);
  EXPECT_EQ(back.worker.timing.min_reps, 7);
  EXPECT_FALSE(back.worker.timing.max_reps);
  EXPECT_EQ(back.worker.library_calls, LibraryPolicy::forbid);
  EXPECT_NE(caf::deep_to_string(r).find("/cache/k.so"), std::string::npos)
      << "printed for a log: " << caf::deep_to_string(r);
}

TEST(Payloads, AnEventRecordCarriesItsTypedEventAcrossProcesses) {
  Registered config;
  caf::actor_system system(config);
  auto e = events::about<events::Evaluated>({3, 7, "softmax/forward/cuda"});
  e.verdict = "incorrect";
  e.failure = "mismatch";
  e.reason = "max abs error 0.5";
  const auto back = read_event(across_processes(system, make_event(e)));
  ASSERT_TRUE(back) << back.error;
  const auto& got = std::get<events::Evaluated>(*back);
  EXPECT_EQ(got.candidate, 7);
  EXPECT_EQ(got.failure, "mismatch");
  EXPECT_FALSE(got.speedup);
}

}  // namespace
}  // namespace kforge
